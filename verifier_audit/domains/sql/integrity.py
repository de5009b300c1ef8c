"""What a database file holds, and whether it still holds it: the file-level tools of the
fixture guard (``guard.py``, ``derived.py``).

* ``content_hash``: SHA-256 of the bytes. Size and mtime prove nothing (a verifier may
  write the same number of bytes and put the mtime back); ``Seal`` skips the hash only
  while the file's ctime, which no system call sets, has not moved.
* ``db_format``: ``"sqlite"`` or ``"duckdb"`` by the file's own header, not its name.
* ``tables``: per table (and view), its row count and a digest of its rows, read from a
  private temporary copy: the guard never opens a verifier's file with a database engine,
  which could write to it (a rollback, a checkpoint) or be refused by a connection the
  verifier still holds.
* ``describe``: which tables a change lost, changed or added, for a finding's text.
* ``restore``: put the pristine bytes back without following links a verifier planted.
* ``record_hash`` / ``cached_intact``: the cache's own files (base fixtures, fuzzed and
  distilled databases, converted and staged datasets) carry their SHA-256 beside them
  (``<file>.sha256``), written with the file; before a cached file is used its bytes are
  hashed again, and one that does not match (or whose record is gone) is removed with a
  warning on stderr, so the caller rebuilds it. A verifier can reach these files (the
  distilled ones are handed to it by path); without this, a same-size edit with the mtime
  put back changed the next audit's debt with no warning.

Files are opened only after ``lstat`` says they are regular files: a verifier may replace
its copy with a FIFO (reading it would hang the check) or a link to a file elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # at offset 8 of a DuckDB file
MAX_DIGEST_ROWS = 200_000  # a larger table is compared by its row count only
# Journals beside a database that hold writes (or an open write transaction) the file
# itself does not show yet; SQLite's shared-memory index (-shm) only exists beside them.
SIDECARS = {"sqlite": ("-wal", "-journal"), "duckdb": (".wal",)}
_REMOVED_ON_RESTORE = ("-wal", "-journal", "-shm", ".wal")

Tables = dict[str, tuple[int, str]]  # name -> (rows, digest of the rows; "" when not digested)


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _open_regular(path: Path) -> int:
    """A read-only fd of ``path``, refusing links and non-regular files."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path}: not a regular file")
    return fd


def content_hash(path: Path) -> str | None:
    """SHA-256 of a regular file's bytes; None when it is missing or not a regular file."""
    try:
        fd = _open_regular(path)
    except OSError:
        return None
    h = hashlib.sha256()
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        while n := fh.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def signature(path: Path) -> tuple[int, int, int, int] | None:
    """(inode, size, mtime, ctime) of ``path`` itself, not what a link points to."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def db_format(path: Path) -> str | None:
    """``"sqlite"``, ``"duckdb"`` or None, from the first bytes of a regular file."""
    try:
        fd = _open_regular(path)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(16)
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head[8:12] == DUCKDB_MAGIC:
        return "duckdb"
    return None


def sidecars(path: Path, fmt: str) -> list[Path]:
    """The journal files an engine keeps beside a database, that exist and are not empty
    (a left-over one holds writes the main file does not show yet)."""
    out = []
    for suffix in SIDECARS.get(fmt, ()):
        side = Path(f"{path}{suffix}")
        try:
            if os.lstat(side).st_size > 0:
                out.append(side)
        except OSError:
            pass
    return out


def tables(path: Path, fmt: str) -> Tables | str:
    """The tables of a database file (with its journal), or why they cannot be read."""
    with tempfile.TemporaryDirectory(prefix="va-guard-") as tmp:
        copy = Path(tmp) / f"copy.{fmt}"
        try:
            _copy_regular(path, copy)
            # Committed writes may sit in the write-ahead log; a rollback journal holds the
            # old pages of an open transaction, which would hide what the file now holds.
            for side in sidecars(path, fmt):
                if side.name.endswith("wal"):
                    _copy_regular(side, Path(f"{copy}{side.name[len(path.name) :]}"))
            return _sqlite_tables(copy) if fmt == "sqlite" else _duckdb_tables(copy)
        except Exception as exc:  # noqa: BLE001 - a corrupt file: say so, never fail the check
            return f"{type(exc).__name__}: {str(exc)[:120]}"


def _copy_regular(source: Path, target: Path) -> None:
    fd = _open_regular(source)
    with os.fdopen(fd, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def _digest(rows) -> str:
    return hashlib.sha256("\n".join(sorted(map(repr, rows))).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_tables(path: Path) -> Tables:
    con = sqlite3.connect(path)
    try:
        con.text_factory = bytes  # dirty text (BIRD) compares as bytes, never fails to decode
        names = [
            (r[0].decode("utf-8", "replace"), r[1].decode())
            for r in con.execute(
                "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {name: _count_and_digest(con, _quote(name)) if kind == "table" else (-1, "view") for name, kind in names}
    finally:
        con.close()


def _duckdb_tables(path: Path) -> Tables:
    import duckdb

    con = duckdb.connect(
        str(path), read_only=True, config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    try:
        names = con.execute(
            "SELECT table_schema, table_name, table_type FROM information_schema.tables "
            "WHERE table_catalog = current_database()"
        ).fetchall()
        out = {}
        for schema, name, kind in names:
            label = name if schema == "main" else f"{schema}.{name}"
            out[label] = (
                _count_and_digest(con, f"{_quote(schema)}.{_quote(name)}") if kind == "BASE TABLE" else (-1, "view")
            )
        return out
    finally:
        con.close()


def _count_and_digest(con, table: str) -> tuple[int, str]:
    rows = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    if rows > MAX_DIGEST_ROWS:
        return rows, ""
    return rows, _digest(con.execute(f"SELECT * FROM {table}").fetchall())


# Hashing every watched file after every call costs more than most verifier calls (the
# built-in suite hands out 8.7 MB a task, measured), so a file's signature is compared
# first. Any write, and any utime() that puts an mtime back, moves a file's ctime, which
# no system call sets; a ctime is only as fine as the kernel's clock tick, so a signature
# taken less than CTIME_MARGIN_NS after the file's ctime is not trusted, and the file is
# hashed on every check until it is. Journals beside a file are looked at every time
# (writes into a write-ahead log leave the file itself untouched).
CTIME_MARGIN_NS = 2_000_000_000


class Seal:
    """What a file must hash to, and the signature that lets a check skip the hash."""

    def __init__(self, digest: str):
        self.digest = digest
        self._signature: tuple | None = None
        self._signed_at = 0

    def reseal(self, digest: str) -> None:
        self.digest, self._signature = digest, None

    def holds(self, path: Path, digest: Callable[[Path], str | None]) -> tuple[bool, str | None]:
        """(unchanged, the content hash now) -- the hash is the old one when skipped."""
        sig = signature(path)
        if sig is not None and sig == self._signature and self._signed_at - sig[3] > CTIME_MARGIN_NS:
            return True, self.digest
        signed_at = time.time_ns()  # before hashing: a write during the hash moves the ctime past it
        now = digest(path)
        if now is not None and now == self.digest:
            self._signature, self._signed_at = sig, signed_at
            return True, now
        return False, now


class Pristine:
    """A database file as handed out: its bytes' hash, and its tables read once, lazily
    (only a change needs them)."""

    def __init__(self, path: Path, fmt: str, name: str | None = None):
        self.path, self.fmt = Path(path), fmt
        self.name = name or self.path.name  # as handed out
        self.digest = content_hash(self.path) or ""
        self._tables: Tables | str | None = None

    def tables(self) -> Tables | str:
        if self._tables is None:
            self._tables = tables(self.path, self.fmt)
        return self._tables


def _names(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def damage(before: Tables, after: Tables) -> tuple[list[str], list[str], list[str]]:
    """(lost, changed, added) table names from ``before`` to ``after``."""
    lost = sorted(t for t in before if t not in after)
    changed = sorted(t for t in before if t in after and after[t] != before[t])
    added = sorted(t for t in after if t not in before)
    return lost, changed, added


def describe(before: Tables | str, after: Tables | str) -> str:
    """What changed between two ``tables`` readings, in words."""
    if isinstance(after, str):
        return f"its tables can no longer be read ({after})"
    if isinstance(before, str):
        return f"the bytes changed (the original's tables could not be read: {before})"
    lost, changed, added = damage(before, after)
    parts = []
    if lost:
        parts.append(f"lost tables {_names(lost)}")
    if changed:
        parts.append(
            "changed "
            + _names(
                [f"{t} (rows {before[t][0]} -> {after[t][0]})" if before[t][0] != after[t][0] else t for t in changed]
            )
        )
    if added:
        parts.append(f"gained tables {_names(added)}")
    return "; ".join(parts) or "the bytes changed, the tables and rows did not (a PRAGMA, VACUUM or checkpoint)"


def restore(path: Path, pristine: Path, *, in_place: bool) -> None:
    """Put ``pristine``'s bytes at ``path`` and remove journals beside it.

    ``in_place`` rewrites the same inode, so a connection the verifier keeps open (SQLite
    re-reads a file whose change counter moved) sees the restored data; otherwise a fresh
    file replaces it (DuckDB caches blocks, and must not see its file change under it)."""
    for suffix in _REMOVED_ON_RESTORE:
        _remove(Path(f"{path}{suffix}"))
    if in_place and is_regular(path):
        os.chmod(path, 0o644, follow_symlinks=False)
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "wb") as dst, open(pristine, "rb") as src:
            shutil.copyfileobj(src, dst, 1 << 20)
            dst.truncate()
        return
    _remove(path)
    shutil.copyfile(pristine, path)
    os.chmod(path, 0o644)  # writable on purpose: a verifier that writes is what we detect


def restore_shared_sqlite(path: Path, pristine: Path, timeout: float = 5.0) -> None:
    """Put ``pristine`` back into a SQLite file other processes may be using, through
    SQLite's backup API: it takes SQLite's own locks, so a connection in another worker
    never reads a half-written file. A file SQLite cannot open as a database any more gets
    the pristine bytes directly."""
    src = sqlite3.connect(f"file:{pristine}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(path, timeout=timeout)
        try:
            src.backup(dst)
            return
        except sqlite3.DatabaseError as exc:
            if "not a database" not in str(exc) and "malformed" not in str(exc):
                raise
        finally:
            dst.close()
    finally:
        src.close()
    restore(path, pristine, in_place=True)


def _remove(path: Path) -> None:
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


# ---------------------------------------------------------------------------------------
# the cache's own files
# ---------------------------------------------------------------------------------------

HASH_SUFFIX = ".sha256"
_CACHE_SEALS: dict[Path, Seal] = {}


def _record_of(path: Path) -> Path:
    return Path(f"{path}{HASH_SUFFIX}")


def record_hash(path: Path, digest: str) -> None:
    """Record ``digest`` as what the cached file ``path`` must hash to (atomically)."""
    record = _record_of(path)
    temp = record.parent / f".{record.name}.{os.getpid()}.tmp"
    temp.write_text(digest + "\n")
    os.chmod(temp, 0o444)
    os.replace(temp, record)


def _recorded(path: Path) -> str | None:
    try:
        fd = _open_regular(_record_of(path))
    except OSError:
        return None
    with os.fdopen(fd, "r", encoding="ascii", errors="replace") as fh:
        text = fh.read(128).strip()
    return text if len(text) == 64 else None


def cached_intact(path: Path, what: str = "cached database") -> bool:
    """True when ``path`` is a regular file whose bytes hash to the digest recorded beside
    it. One that is there but does not (its bytes changed, its record is missing or
    unreadable, it is a link or not a file) is removed with its record and a warning on
    stderr, and False is returned, so that the caller builds it again; False when absent."""
    path = Path(path)
    try:
        os.lstat(path)
    except OSError:
        return False
    recorded = _recorded(path)
    if recorded is None:
        now = content_hash(path)
    else:
        # Within one process the hash is skipped while the file's ctime has not moved (a
        # pytest session or the API prepares many times); each new process hashes once.
        seal = _CACHE_SEALS.get(path)
        if seal is None or seal.digest != recorded:
            seal = _CACHE_SEALS[path] = Seal(recorded)
        same, now = seal.holds(path, content_hash)
        if same:
            return True
    why = (
        "has no recorded content hash"
        if recorded is None
        else "is not a regular file"
        if now is None
        else "does not match its recorded content hash (changed since it was written)"
    )
    print(f"verifier-audit: warning: the {what} {path} {why}: rebuilding it", file=sys.stderr)
    _CACHE_SEALS.pop(path, None)
    _remove(path)
    _remove(_record_of(path))
    for suffix in _REMOVED_ON_RESTORE:
        _remove(Path(f"{path}{suffix}"))
    return False
