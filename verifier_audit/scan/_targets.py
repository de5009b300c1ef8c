"""What to scan: a .py file, a directory of them, or a module by name, each optionally
narrowed to one function (``FILE:function``, ``package.module:function``: the same names
``verifier-audit run --verifier`` takes).

A module is found without importing it (the code under review is untrusted, and import
runs its top-level code): ``importlib.machinery.PathFinder`` walks ``sys.path`` one package
level at a time, where ``importlib.util.find_spec("a.b")`` would import ``a`` first.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.machinery import PathFinder
from pathlib import Path

from ..errors import InputError

_FUNCTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_MODULE = _FUNCTION  # dotted identifiers, both
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


class ScanError(InputError):
    """A target that cannot be scanned; the message names it and says what to give instead."""


@dataclass(frozen=True)
class SourceFile:
    path: Path  # to read
    display: str  # to name in findings: as the user wrote it where they gave a path


@dataclass(frozen=True)
class Target:
    text: str  # as given
    files: tuple[SourceFile, ...]
    function: str | None = None  # "score", "Grader.__call__"


def resolve_target(text: str) -> Target:
    """The files ``text`` names, or ScanError saying what is wrong."""
    where, function = _split_function(text)
    path = Path(where)
    if path.is_file():
        return Target(text, (SourceFile(path, where),), function)
    if path.is_dir():
        if function is not None:
            raise ScanError(f"{text}: a directory has no single function to narrow to; give FILE.py:{function}")
        files = tuple(SourceFile(p, os.path.join(where, str(p.relative_to(path)))) for p in _python_files(path))
        if not files:
            raise ScanError(f"{where}: no .py file in this directory")
        return Target(text, files, None)
    if where.endswith(".py") or os.sep in where:
        raise ScanError(
            f"{where}: no such file (cwd: {os.getcwd()}); give a .py file, a directory, or an importable "
            "module name, optionally with :function"
        )
    return Target(text, _module_files(where, text), function)


def _split_function(text: str) -> tuple[str, str | None]:
    where, sep, name = text.rpartition(":")
    if sep and where and _FUNCTION.match(name) and not Path(text).exists():
        return where, name
    return text, None


def _python_files(directory: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        found += [Path(root) / f for f in sorted(files) if f.endswith(".py")]
    return found


def module_location(name: str, first: Sequence[str] = ()) -> tuple[str | None, list[str]]:
    """(origin file, package directories) of module ``name``, found on sys.path (and the
    working directory) without running any of its code; (None, []) when not found.
    ``first``: folders searched before sys.path (the scanned wrapper's own)."""
    search: list[str] | None = None
    spec = None
    parts = name.split(".")
    for i in range(len(parts)):
        prefix = ".".join(parts[: i + 1])
        spec = PathFinder.find_spec(prefix, list(first)) if i == 0 and first else None
        spec = spec or PathFinder.find_spec(prefix, search)
        if spec is None and i == 0:
            spec = PathFinder.find_spec(prefix, [os.getcwd(), *sys.path])
        if spec is None:
            return None, []
        search = list(spec.submodule_search_locations or [])
        if i < len(parts) - 1 and not search:
            return None, []  # a module, not a package: it has no submodules
    return spec.origin, list(spec.submodule_search_locations or [])


def _module_files(name: str, text: str) -> tuple[SourceFile, ...]:
    if not _MODULE.match(name):
        raise ScanError(
            f"{text}: not a file, a directory or a module name; give a .py file, a directory, or an "
            "importable module name (package.module), optionally with :function"
        )
    origin, package_dirs = module_location(name)
    if origin is None and not package_dirs:
        raise ScanError(
            f"{text}: no file, directory or importable module of that name (cwd: {os.getcwd()}); give a "
            ".py file, a directory, or a module on sys.path, optionally with :function"
        )
    if origin is not None and not origin.endswith(".py"):
        raise ScanError(
            f"{text}: module {name} is {origin}, not Python source (a compiled or built-in module): nothing to read"
        )
    if package_dirs and not _split_function(text)[1]:
        # A package: every file in it, named as they lie on disk.
        files = [SourceFile(p, shown(p)) for d in package_dirs for p in _python_files(Path(d))]
        if not files:
            raise ScanError(f"{text}: package {name} holds no .py file")
        return tuple(files)
    if origin is None:
        raise ScanError(f"{text}: {name} is a namespace package (no __init__.py): name one of its modules")
    return (SourceFile(Path(origin), shown(Path(origin))),)


def shown(path: Path) -> str:
    """A path relative to the working directory when it is under it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
