"""What a verifier under audit may touch, and the findings when it touches more.

Each worker hands the verifier private copies of the task's fixtures, inside its own work
directory; the cached fixtures themselves are never given out:

* ``task.database`` and ``metadata["database_file"]``: a copy of the DuckDB fixture
  (``<workdir>/db/<name>.duckdb``);
* for tasks loaded with ``--format spider``: a copy of the dataset's SQLite file, where
  Spider/BIRD graders look for it: ``metadata["sqlite_file"]`` is
  ``<metadata["db_dir"]>/<db_id>/<db_id>.sqlite`` (the layout of test-suite-sql-eval's
  ``--db`` folder).

After every call (``check_and_restore``), by content hash (SHA-256, skipped only while a
file's ctime has not moved: ``integrity.Seal``; a same-size write with the mtime put back is
caught):

* each copy handed out for the task, with any write-ahead log or rollback journal left
  beside it: a change is a ``modified_fixture`` finding that names the tables lost,
  changed or gained, and the pristine copy is put back so the next call is judged on an
  intact fixture;
* the dataset's own SQLite file (``metadata["sqlite_source"]``, never handed out): a grader
  configured with the dataset's path opens it directly. Every worker's verifier may, so
  it is judged by its tables (another worker's restore rewrites header bytes), a change
  is a finding that says the write may come from a call running beside this one, and it
  is put back from the audit's byte copy through SQLite's backup API (SQLite's locks);
* the task's distilled test-suite databases (``metadata["databases"]``, shared by all
  workers, read by the strong reference verifier): a change is a finding (they cannot be
  restored from here; the distillation cache re-checks their hashes on the next run);
* databases the verifier derives from its fixture in its work directory, and what the guard
  cannot see (``derived.py``): blind spots come back as ``unobserved:...`` entries;
* a secret file in the work directory (``va_secret.csv``, which hostile candidates try to
  ``read_csv``) is watched with inotify: an open of it is a ``read_outside`` finding. The
  file is per worker, so a read is never attributed to another worker's call.
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...models import Task
from . import integrity
from .derived import WorkDirDatabases, open_databases
from .integrity import Pristine, Seal

SECRET_NAME = "va_secret.csv"
SECRET_TEXT = "secret\nva-canary-secret-row\n"
HANDOUT_DIRS = ("db", "spider")  # under the work directory

_IN_ACCESS, _IN_OPEN = 0x1, 0x20
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class _Watched:
    """A file checked after every call of the tasks that use it."""

    path: Path
    label: str  # names the file in a finding: "the SQLite copy concert.sqlite"
    fmt: str
    seal: Seal  # what it must hash to
    pristine: Pristine | None  # where it is restored from; None: not restorable here
    in_place: bool = True
    shared: bool = False  # other workers use the same file (restored through SQLite's locks)


@dataclass
class _Worker:
    workdir: Path
    watched: dict[Path, _Watched] = field(default_factory=dict)
    by_task: dict[str, list[Path]] = field(default_factory=dict)  # task id -> watched paths
    pristine: dict[Path, Pristine] = field(default_factory=dict)  # cached fixture -> its reading
    derived: WorkDirDatabases | None = None
    reported: set[str] = field(default_factory=set)  # blind spots already sent once
    skip: set[Path] | None = None  # _handed_out_files, reset when a file is handed out
    unwatched: set[Path] = field(default_factory=set)  # dataset files that cannot be watched
    pending: list[str] = field(default_factory=list)  # blind spots found outside a check
    secret_fd: int | None = None


_workers: dict[str, _Worker] = {}  # per worker process: workdir -> its state
_by_view: dict[str, _Worker] = {}  # the handed-out database path -> the worker state it belongs to
_watch: dict[str, int | None] = {}  # workdir -> inotify fd of the secret (None where unavailable)


def _drain(fd: int | None) -> bool:
    """True when the watched secret was opened or read since the last drain."""
    if fd is None:
        return False
    seen = False
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # BlockingIOError: nothing more
            return seen
        if not data:
            return seen
        seen = True


def _watch_secret(workdir: str) -> int | None:
    if workdir in _watch:
        return _watch[workdir]
    secret = Path(workdir) / SECRET_NAME
    secret.write_text(SECRET_TEXT)
    fd = None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0 or libc.inotify_add_watch(fd, str(secret).encode(), _IN_OPEN | _IN_ACCESS) < 0:
            fd = None
    except (OSError, AttributeError):  # not Linux: no read detection, the rest still works
        fd = None
    _drain(fd)
    _watch[workdir] = fd
    return fd


def _worker(workdir: str) -> _Worker:
    state = _workers.get(workdir)
    if state is None:
        state = _workers[workdir] = _Worker(Path(workdir), derived=WorkDirDatabases(Path(workdir)))
        state.secret_fd = _watch_secret(workdir)
    return state


def _pristine(state: _Worker, source: Path, fmt: str, name: str) -> Pristine:
    if source not in state.pristine:
        state.pristine[source] = Pristine(source, fmt, name)
    return state.pristine[source]


def _hand_out(state: _Worker, source: Path, target: Path, fmt: str, label: str) -> Path:
    """A private copy of ``source`` at ``target``, watched from now on."""
    if target not in state.watched:
        pristine = _pristine(state, source, fmt, target.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        integrity.restore(target, source, in_place=False)
        state.watched[target] = _Watched(target, label, fmt, Seal(pristine.digest), pristine, in_place=fmt == "sqlite")
    return target


def _sqlite_target(state: _Worker, source: Path, db_id: str) -> Path:
    """``<workdir>/spider/<db_id>/<db_id>.sqlite``; another folder when two datasets of one
    audit share a db_id."""
    name = _SAFE_NAME.sub("_", db_id) or "database"
    for folder in ("spider", *(f"spider-{i}" for i in range(2, 100))):
        target = state.workdir / folder / name / f"{name}.sqlite"
        held = state.watched.get(target)
        if held is None or (held.pristine is not None and held.pristine.path == source):
            return target
    raise RuntimeError(f"more than 99 databases named {db_id!r}")


def private_view(task: Task, workdir: str) -> Task:
    """The task as the verifier sees it: private, restorable copies of its databases."""
    state = _worker(workdir)
    if not task.database:
        return task
    watched: list[Path] = []
    duck = _hand_out(
        state,
        Path(task.database),
        state.workdir / "db" / Path(task.database).name,
        "duckdb",
        f"the DuckDB copy {Path(task.database).name}",
    )
    watched.append(duck)
    meta = {k: v for k, v in task.metadata.items() if k != "sqlite_source"}
    meta["database_file"] = str(duck)
    staged = task.metadata.get("sqlite_file")
    if staged:
        db_id = str(task.metadata.get("db_id") or Path(staged).stem)
        target = _sqlite_target(state, Path(staged), db_id)
        lite = _hand_out(state, Path(staged), target, "sqlite", f"the SQLite copy {target.name}")
        watched.append(lite)
        meta.update(sqlite_file=str(lite), db_dir=str(lite.parent.parent))
        watched += _watch_original(state, task, Path(staged))
    # The fuzzed SQLite copies (--dialect sqlite) are shared and read-only like the DuckDB ones.
    for shared in [*task.metadata.get("databases", []), *task.metadata.get("sqlite_databases", [])]:
        path = Path(shared)
        if path not in state.watched and integrity.is_regular(path):
            state.watched[path] = _Watched(
                path,
                f"the shared distilled database {path.name}",
                "sqlite" if path.suffix == ".sqlite" else "duckdb",
                Seal(integrity.content_hash(path) or ""),
                None,
            )
        if path in state.watched:
            watched.append(path)
    state.by_task[task.id] = watched
    state.skip = None
    _by_view[str(duck)] = state
    return task.model_copy(update={"database": str(duck), "metadata": meta})


def _watch_original(state: _Worker, task: Task, staged: Path) -> list[Path]:
    source = task.metadata.get("sqlite_source")
    if not source:
        return []
    path = Path(source)
    if path in state.unwatched:
        return []
    if path not in state.watched:
        pristine = _pristine(state, staged, "sqlite", path.name)
        now = integrity.content_hash(path)
        if now != pristine.digest:
            state.unwatched.add(path)
            state.pending.append(
                f"{path}: the dataset's own file changed since the suite was loaded, so the "
                "audit cannot tell what a verifier that opens it directly does to it"
            )
            return []
        label = (
            f"the dataset's own file {path} (not a copy; every worker's verifier may open it, so the write "
            "may come from a call running beside this one)"
        )
        state.watched[path] = _Watched(path, label, "sqlite", Seal(now), pristine, shared=True)
    return [path]


def _blind(state: _Worker, spots: list[str]) -> list[str]:
    """Each blind spot once per worker, as ``unobserved:...`` entries."""
    new = [s for s in spots if s not in state.reported]
    state.reported.update(new)
    return [f"unobserved:{s}" for s in new]


def _check(w: _Watched) -> str | None:
    left = integrity.sidecars(w.path, w.fmt)
    if left:
        now = integrity.content_hash(w.path)
    else:
        same, now = w.seal.holds(w.path, integrity.content_hash)
        if same:
            return None
    if now is None:
        text = "it was deleted or replaced by something that is not a file"
    else:
        before = w.pristine.tables() if w.pristine is not None else None
        after = integrity.tables(w.path, w.fmt)
        # A shared file whose tables are intact: another worker's restore (its own header
        # bytes) or a transaction running in another worker; its own check judges that one.
        if w.shared and after == before:
            w.seal.reseal(now)
            return None
        text = integrity.describe(before, after) if before is not None else "its content changed"
        if left:
            text += f"; {', '.join(p.name for p in left)} left beside it (writes or an open transaction)"
    if w.pristine is not None and w.shared:
        integrity.restore_shared_sqlite(w.path, w.pristine.path)
        w.seal.reseal(integrity.content_hash(w.path) or "")  # same tables, its own header bytes
        text += " (restored)"
    elif w.pristine is not None:
        integrity.restore(w.path, w.pristine.path, in_place=w.in_place)
        w.seal.reseal(w.pristine.digest)
        text += " (restored)"
    else:
        w.seal.reseal(now or "")  # reported once; the next run's distillation cache re-checks it
    return f"modified_fixture:{w.label}: {text}"


def check_and_restore(task: Task, view: Task) -> list[str]:
    state = _by_view.get(view.database or "")
    if state is None:  # no database handed out: only the secret
        return [f"read_outside:{SECRET_NAME}"] if _drain(_watch.get(os.getcwd())) else []
    findings = []
    mine = state.by_task.get(task.id, [])
    for path in mine:
        found = _check(state.watched[path])
        if found:
            findings.append(found)
    current = [w.pristine for w in (state.watched[p] for p in mine) if w.pristine is not None]
    fixtures = list(state.pristine.values())
    skip = _handed_out_files(state)
    derived, blind = state.derived.check(skip, fixtures, current)
    findings += derived
    covered = set(state.watched) | set(state.pristine) | set(state.derived.known)
    dirs = {p.parent for p in state.pristine} | {w.path.parent for w in state.watched.values() if w.pristine is None}
    findings += _blind(state, state.pending + blind + open_databases(covered, dirs, state.workdir))
    state.pending.clear()
    if _drain(state.secret_fd):
        findings.append(f"read_outside:{SECRET_NAME}")
    return findings


def _handed_out_files(state: _Worker) -> set[Path]:
    """What the work-directory scan skips: the handed-out files and their journals."""
    if state.skip is None:
        state.skip = {state.workdir / SECRET_NAME}
        for path in state.watched:
            state.skip.add(path)
            state.skip.update(Path(f"{path}{s}") for s in ("-wal", "-journal", "-shm", ".wal"))
    return state.skip
