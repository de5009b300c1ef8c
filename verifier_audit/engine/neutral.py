"""What a verifier can see of the audit from inside its own process, made to look like a
training job's (docs/threat-model.md, "A verifier that knows it is audited").

A grader that answers with a sound rule whenever it can tell it is audited, and pays the
last number in training, passes any gate that only watches it while it knows. Inside a
worker it used to see ``verifier_audit.*`` in ``sys.modules``, the audit's own command
line in ``sys.argv`` (multiprocessing hands the caller's argv to its forkserver), the
forkserver's ``-c 'from multiprocessing.forkserver import main; main(...,
['verifier_audit.engine.verifier_job', ...])'`` in ``/proc/self/cmdline`` and
``sys.orig_argv``, and ``VERIFIER_AUDIT_*`` variables in ``os.environ``. What this module
takes away, just before the verifier is imported (``VerifierJob.setup``):

* ``sys.modules``: every ``verifier_audit`` entry is taken out (``Unseen``). The worker's
  own code keeps its module objects (its functions hold their globals), and what it still
  imports lazily by name (a domain's ``from .guard import private_view`` on a call) is
  served from the stash by a finder that answers only imports made by the stashed modules'
  own code (a module of the package not loaded yet is imported and stashed the same way);
  the entries that puts back are taken out again before each verifier call. An
  ``import verifier_audit`` by the verifier itself is not served: it imports the package
  afresh from disk, as it would in a training environment where verifier-audit is
  installed.
* ``sys.argv`` becomes ``NEUTRAL_ARGV`` (``['train.py']``: what ``python train.py`` gives a
  training script), ``sys.orig_argv`` ``['python', 'train.py']``, and the process's
  argument area (``/proc/self/cmdline``, what ``ps`` shows) is overwritten in place with
  ``python train.py`` the way setproctitle(3) does it: the kernel then reads it up to its
  first NUL, so it reads as one argument with a space, like any renamed process. The
  environment area (``/proc/self/environ``) is overwritten with the neutral environment,
  NUL-padded, where no C ``environ`` pointer still points into it (a clean worker's).
* ``os.environ`` loses every ``VERIFIER_AUDIT_*`` variable.

What is left to see is listed in docs/threat-model.md (the walls themselves: the uid, the
PID namespace's two-level ``NSpid``, read-only mounts, no network; the frames of the
worker's own code below the verifier's call). The cross-check (``engine/sensing.py``) is
what catches a verifier that reads those: it re-scores a sample in a process shaped like a
training job and compares.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Mapping
from types import FrameType

PACKAGE = "verifier_audit"
NEUTRAL_ARGV = ("train.py",)  # sys.argv of `python train.py`: a training script's
NEUTRAL_ORIG_ARGV = ("python", *NEUTRAL_ARGV)
AUDIT_ENV_PREFIX = "VERIFIER_AUDIT_"


def ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


def neutral_environ(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without the variables that name the audit."""
    return {k: v for k, v in env.items() if not k.startswith(AUDIT_ENV_PREFIX)}


class _Served(importlib.abc.Loader):
    """Hands the import system a module it already has (the stash's), running nothing."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        pass


_IMPORT_MACHINERY = ("<frozen importlib", os.path.dirname(importlib.util.__file__) + os.sep, __file__)


def _imported_by(stash: dict) -> bool:
    """Whether the import being found was asked for by one of the stashed modules: the first
    frame above the import machinery runs with that very module's globals (a copy of the
    package the verifier imported afresh has globals of its own, and imports afresh)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_IMPORT_MACHINERY):
        frame = frame.f_back
    if frame is None:
        return False
    module = stash.get(frame.f_globals.get("__name__"))
    return module is not None and getattr(module, "__dict__", None) is frame.f_globals


class _Stashed(importlib.abc.Loader):
    """Loads one of the package's modules our own code imports for the first time after the
    hiding, and stashes it before it runs: its own imports are then ours too, and it is
    taken out of ``sys.modules`` with the rest (``Unseen.again``)."""

    def __init__(self, loader, stash: dict):
        self.loader, self.stash = loader, stash

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.stash[module.__name__] = module
        self.loader.exec_module(module)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, stash: dict):
        self.stash = stash

    def find_spec(self, name, path=None, target=None):
        if not ours(name) or not _imported_by(self.stash):
            return None
        module = self.stash.get(name)
        if module is not None:
            return importlib.util.spec_from_loader(name, _Served(module), origin=getattr(module, "__file__", None))
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Stashed(spec.loader, self.stash)
        return spec


class Unseen:
    """verifier_audit's modules out of ``sys.modules`` for as long as this lives (a
    worker's life): ``again()`` takes out those the worker's own lazy imports put back."""

    def __init__(self) -> None:
        self.stash: dict = {}
        for name in [n for n in sys.modules if ours(n)]:
            self.stash[name] = sys.modules.pop(name)
        sys.meta_path.insert(0, _Finder(self.stash))
        importlib.invalidate_caches()

    def again(self) -> None:
        """Take out the stashed modules that are back in ``sys.modules`` (never a module the
        verifier imported afresh under one of their names)."""
        for name, module in self.stash.items():
            if sys.modules.get(name) is module:
                sys.modules.pop(name, None)  # pop: the threads probe calls this from several threads


def hide_the_audit() -> Unseen:
    """Everything this module's docstring lists, in this process, now."""
    sys.argv[:] = list(NEUTRAL_ARGV)
    sys.orig_argv[:] = list(NEUTRAL_ORIG_ARGV)
    for key in [k for k in os.environ if k.startswith(AUDIT_ENV_PREFIX)]:
        del os.environ[key]
    areas = _proc_areas()
    if areas is not None:
        _overwrite(areas[0], areas[1], " ".join(NEUTRAL_ORIG_ARGV).encode() + b"\0", proctitle=True)
        if not _environ_points_into(areas[2], areas[3]):
            env = b"".join(f"{k}={v}".encode(errors="replace") + b"\0" for k, v in os.environ.items())
            _overwrite(areas[2], areas[3], env, proctitle=False)
    return Unseen()


def _proc_areas():
    """(arg_start, arg_end, env_start, env_end) of this process (proc(5), stat fields 48-51)."""
    try:
        with open("/proc/self/stat") as fh:
            stat = fh.read()
        fields = stat[stat.rindex(")") + 2 :].split()
        return tuple(int(fields[n - 3]) for n in (48, 49, 50, 51))
    except (OSError, ValueError, IndexError):
        return None


def _environ_points_into(start: int, end: int) -> bool:
    """Whether C's ``environ`` still points into [start, end): then ``getenv`` reads the area
    and it must stay. A clean worker's does not (``CleanStart.open`` unset and set every
    variable again, so each now lives in memory of its own); a forked worker's may."""
    import ctypes

    try:
        environ = ctypes.POINTER(ctypes.c_void_p).in_dll(ctypes.CDLL(None), "environ")
    except (OSError, ValueError):
        return True
    i = 0
    while environ[i]:
        if start <= environ[i] < end:
            return True
        i += 1
    return False


def _overwrite(start: int, end: int, data: bytes, proctitle: bool) -> None:
    """Write ``data`` over [start, end) of this process's memory, NUL-padded. ``proctitle``:
    the last byte is made non-NUL, which tells the kernel to read the area up to its first
    NUL (setproctitle's convention) instead of whole, padding and all."""
    import ctypes

    size = end - start
    if size <= 1 or not start:
        return
    body = data[: size - 1]
    body += b"\0" * (size - len(body))
    if proctitle:
        body = body[:-1] + b" "
    ctypes.memmove(start, body, size)
