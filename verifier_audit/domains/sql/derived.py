"""Databases a verifier makes or opens beyond the ones it was handed.

A scorer may copy its database before running a candidate (``shutil.copy(db, "work.sqlite")``)
and then run every later candidate on that copy: the handed-out file stays intact while the
database the scorer really uses is destroyed. So the guard also watches:

* **derived files**: every database file (SQLite or DuckDB by its header, whatever its name)
  under the worker's work directory that the audit did not put there. When first seen,
  and whenever its bytes change, its tables are compared with the fixture it was derived
  from (the handed-out fixture it shares most table names with): a fixture table lost or
  changed is a ``modified_fixture`` finding, and the file is restored from the pristine
  fixture when it has the same format. Tables the scorer adds are its own business. A
  database file that shares no table with any fixture is not derived from one: the guard
  cannot tell a candidate's writes there from the scorer's, so it is reported unobserved.
* **open databases**: database files the worker process holds open after a call (a cached
  connection) that are neither handed out, derived, nor the audit's own cached files.
* **blind spots**: links in the work directory to databases or folders elsewhere, and a
  work directory too large to scan (``MAX_ENTRIES``).

Blind spots are ``unobserved:...`` entries: the checklist's fixture item reads them as
unknown, never as checked. A database the verifier keeps outside its work directory and
does not hold open between calls is not seen at all (the docs say so).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import integrity
from .integrity import Pristine, Seal

MAX_ENTRIES = 4000  # directory entries scanned per call; past them the rest is a blind spot
MAX_DEPTH = 8


@dataclass
class _Derived:
    fmt: str
    seal: Seal
    origin: Pristine | None  # None: holds none of the fixture's tables


def _digest(path: Path, fmt: str) -> str | None:
    main = integrity.content_hash(path)
    if main is None:
        return None
    wal = [integrity.content_hash(side) or "" for side in integrity.sidecars(path, fmt)]
    return "+".join([main, *wal])


class WorkDirDatabases:
    """The derived databases of one worker's work directory, and its blind spots."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.known: dict[Path, _Derived] = {}
        self._formats: dict[Path, tuple[tuple, str | None]] = {}  # header cache by stat

    # ------------------------------------------------------------------ scanning

    def _format(self, path: Path, st: os.stat_result) -> str | None:
        key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        cached = self._formats.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        fmt = integrity.db_format(path) if st.st_size >= 16 else None
        self._formats[path] = (key, fmt)
        return fmt

    def scan(self, skip: set[Path]) -> tuple[dict[Path, str], list[str]]:
        """Database files under the root (path -> format) not in ``skip``, and blind spots."""
        found: dict[Path, str] = {}
        blind: list[str] = []
        stack, seen = [(self.root, 0)], 0
        while stack:
            folder, depth = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in sorted(entries, key=lambda e: e.name):
                seen += 1
                if seen > MAX_ENTRIES:
                    blind.append(
                        f"the work directory holds more than {MAX_ENTRIES} entries: the rest "
                        "were not checked for databases"
                    )
                    return found, blind
                path = Path(entry.path)
                if path in skip:
                    continue
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    blind += self._link(path, skip)
                elif stat.S_ISDIR(st.st_mode):
                    if depth + 1 < MAX_DEPTH:
                        stack.append((path, depth + 1))
                    else:
                        blind.append(f"{self._rel(path)}: nested deeper than {MAX_DEPTH} folders, not checked")
                elif stat.S_ISREG(st.st_mode):
                    fmt = self._format(path, st)
                    if fmt:
                        found[path] = fmt
        return found, blind

    def _link(self, path: Path, skip: set[Path]) -> list[str]:
        try:
            target = Path(os.path.realpath(path))
            st = os.stat(target)
        except OSError:
            return []
        if target in skip or target in self.known:
            return []
        if stat.S_ISDIR(st.st_mode):
            return [f"{self._rel(path)}: a link to the folder {target}, which the audit does not check"]
        if stat.S_ISREG(st.st_mode) and integrity.db_format(target):
            return [f"{self._rel(path)}: a link to the database {target}, which the audit did not hand out"]
        return []

    def _rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    # ------------------------------------------------------------------ judging

    def check(self, skip: set[Path], fixtures: list[Pristine], current: list[Pristine]) -> tuple[list[str], list[str]]:
        """(findings, blind spots) after a call. ``fixtures``: every pristine fixture handed
        out in this worker; ``current``: those of the task just called (preferred origin)."""
        found, blind = self.scan(skip)
        for gone in [p for p in self.known if p not in found]:
            del self.known[gone]
        findings = []
        for path, fmt in sorted(found.items()):
            old = self.known.get(path)
            if old is None or integrity.sidecars(path, fmt):
                digest = _digest(path, fmt)
                if old is not None and digest == old.seal.digest:
                    continue
            else:
                same, digest = old.seal.holds(path, lambda p: _digest(p, fmt))  # noqa: B023 (called now)
                if same:
                    continue
            if digest is None:
                continue
            finding, spot = self._judge(path, fmt, digest, old, fixtures, current)
            findings += finding
            blind += spot
        return findings, blind

    def _judge(
        self, path: Path, fmt: str, digest: str, old: _Derived | None, fixtures: list[Pristine], current: list[Pristine]
    ) -> tuple[list[str], list[str]]:
        same = next((p for p in fixtures if p.digest == digest), None)
        if same is not None:  # a byte copy of a pristine fixture: nothing to compare
            self.known[path] = _Derived(fmt, Seal(digest), same)
            return [], []
        now = integrity.tables(path, fmt)
        origin = _origin(now, fmt, fixtures, current) or (old.origin if old else None)
        if origin is None:
            self.known[path] = _Derived(fmt, Seal(digest), None)
            why = "holds none of the fixture's tables" if not isinstance(now, str) else f"cannot be read ({now})"
            return [], [
                f"{self._rel(path)}: a database in the work directory that {why}; "
                "the audit cannot tell a candidate's writes to it from the verifier's"
            ]
        before = origin.tables()
        if isinstance(now, str) or isinstance(before, str):
            harmed = True
        else:
            lost, changed, _ = integrity.damage(before, now)
            harmed = bool(lost or changed)
        if not harmed:  # the fixture's tables intact (the scorer may add its own)
            self.known[path] = _Derived(fmt, Seal(digest), origin)
            return [], []
        text = integrity.describe(before, now)
        if fmt == origin.fmt:
            integrity.restore(path, origin.path, in_place=fmt == "sqlite")
            digest, note = origin.digest, "restored"
        else:
            note = "not restored (another format than the fixture)"
        self.known[path] = _Derived(fmt, Seal(digest), origin)
        return [
            f"modified_fixture:{self._rel(path)}, a copy of {origin.name} the verifier made in its "
            f"work directory: {text} ({note})"
        ], []


def _origin(now, fmt: str, fixtures: list[Pristine], current: list[Pristine]) -> Pristine | None:
    """The fixture a database was derived from: the one sharing most table names with it;
    on a tie, one of the same format, of the task just called."""
    if isinstance(now, str) or not now:
        return None
    names = {n.lower() for n in now}
    best, best_overlap = None, 0
    order = [*current, *(f for f in fixtures if f not in current)]
    for p in sorted(order, key=lambda p: p.fmt != fmt):  # stable: the task's own first within a format
        before = p.tables()
        if isinstance(before, str):
            continue
        overlap = len(names & {n.lower() for n in before})
        if overlap > best_overlap:
            best, best_overlap = p, overlap
    return best


def _open_files(pid: str) -> set[Path] | None:
    fd_dir = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return None
    out = set()
    for fd in fds:
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("/"):  # not a pipe, socket or anonymous inode
            out.add(Path(target.removesuffix(" (deleted)")))
    return out


def open_databases(covered: set[Path], covered_dirs: set[Path], root: Path) -> list[str]:
    """Blind spots: database files this process holds open that are neither ``covered``, in
    ``covered_dirs`` (the audit's own caches), nor open in the parent (the audit itself:
    a worker inherits the parent's connections when it is forked)."""
    mine = _open_files("self")
    if mine is None:
        return ["cannot list the worker's open files (no /proc): databases it holds open are not checked"]
    loose = [
        p
        for p in mine
        if p not in covered and p.parent not in covered_dirs and not _sidecar_of(p, covered) and integrity.db_format(p)
    ]
    if loose:
        parent = _open_files(str(os.getppid())) or set()
        loose = [p for p in loose if p not in parent]
    # Relative inside the work directory: its name is random, and reports are deterministic.
    shown = [p.relative_to(root) if p.is_relative_to(root) else p for p in loose]
    return sorted(f"{p}: a database the worker holds open that the audit did not hand out" for p in shown)


def _sidecar_of(path: Path, covered: Iterable[Path]) -> bool:
    name = str(path)
    return any(name == f"{c}{s}" for c in covered for s in ("-wal", "-journal", "-shm", ".wal"))
