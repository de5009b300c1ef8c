"""Canaries: payloads that leave a harmless trace if a verifier executes model output.

A canary payload is a Python expression that, when evaluated (``eval``, ``exec``,
``sympy.sympify``, ``parse_expr``), creates an empty directory named
``va_canary_<token>`` in the current working directory. Every verifier call runs in a
worker whose working directory is private and empty, so the engine checks for that name
after each call: a hit is a security finding, whatever score the verifier returned.
"""

from __future__ import annotations

import os
import shutil

PREFIX = "va_canary_"


def payload(token: str) -> str:
    """A Python expression that marks the cwd when executed; evaluates to 0.

    No spaces, so it survives graders that strip whitespace before they eval."""
    return f"__import__('os').mkdir('{PREFIX}{token}')or(0)"


def fired(directory: str = ".") -> list[str]:
    """Tokens of the canaries that fired in ``directory``; removes their traces."""
    tokens = []
    try:
        names = os.listdir(directory)
    except OSError:
        return tokens
    for name in names:
        if name.startswith(PREFIX):
            tokens.append(name[len(PREFIX):])
            path = os.path.join(directory, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:  # a file (COPY TO, ATTACH) or a link: gone too, so it fires only once
                try:
                    os.remove(path)
                except OSError:
                    pass
    return tokens
