"""Call styles: how a reward is loaded and called the way its framework runs it.

A style turns whatever the user names -- a function, a list of TRL reward functions, a
``verifiers`` environment, an Inspect AI scorer, a reward server's URL -- into one call
form, ``(text, task) -> score``, used by the workers (engine/verifier_job.py). Each
framework is a module here with the same small surface:

- ``make_caller(target, spec)`` -> ``Callable[[str, Task], Any]``: ``target`` is what the
  spec names, imported in the worker (``None`` for a remote style), ``spec`` the
  ``VerifierSpec`` (its ``options`` and ``part``);
- ``detect(target) -> bool`` (optional): whether ``auto`` should pick this style;
- ``parts(target, options) -> list[str]`` (optional): the members of a composite reward
  (TRL's reward functions, a rubric's functions), each also audited alone as
  ``name[part]`` beside the combined reward training pays;
- ``request_log`` (optional, an attribute of the caller a remote style returns): the
  ``_client.RequestLog`` its requests are counted in, per call (``Report.remote``).

Framework packages (trl, verifiers, inspect-ai, reasoning-gym) are optional extras: a
module imports them only when its style is used, and says what to install when missing.
"""

from __future__ import annotations

from ._registry import STYLES, Style, get_style, missing_extra

__all__ = ["STYLES", "Style", "get_style", "missing_extra"]
