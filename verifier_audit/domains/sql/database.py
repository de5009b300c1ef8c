"""Hardened execution of untrusted SQL on DuckDB files.

Every query a candidate (or a gold) sends goes through ``run_query``. What protects the
audit, outermost first:

1. A statement gate: exactly one read-only query. DuckDB's own parser decides the
   statement count and type (it is what will execute: one ``SELECT``-type statement);
   sqlglot then refuses DDL, DML, ``COPY``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``,
   ``PRAGMA``, ``SELECT ... INTO`` and anything it only recognises as a command. A refused
   query is never executed; it comes back as an error result.
2. The connection itself (``connect_readonly``), so that a query slipping past the gate
   still cannot touch anything: read-only, extension autoinstall/autoload off, one thread,
   a memory limit, no temp directory, then ``SET allowed_directories=[]``,
   ``SET enable_external_access=false``, ``SET lock_configuration=true`` in that order.
   Verified on duckdb 2.0.1: ``read_csv('/etc/passwd')``, ``glob``, ``COPY TO``,
   ``EXPORT DATABASE``, ``INSTALL``/``LOAD`` fail with a PermissionException; ``SET`` and
   ``RESET`` fail because the configuration is locked. Two findings on 2.0.1: DuckDB adds
   its spill directory ``<db>.tmp/`` to ``allowed_directories`` by itself, and a ``COPY TO``
   into it succeeds, so the connection is opened with ``temp_directory=''`` (no spilling:
   a query over the memory limit fails instead); and allowing the database's own
   directory would let ``COPY TO`` write next to the fixture, so no directory is allowed
   (DuckDB still reads the database file itself through its automatic ``allowed_paths``).
3. A fresh cursor per query: in DuckDB's Python API a cursor is a new client context, so
   TEMP tables and TEMP macros one query creates die with its cursor and cannot poison a
   later gold query (the ``CREATE TEMP MACRO count_star() AS 7`` attack).
4. Limits before parsing (``limits.py``): a statement over 1,000,000 characters, 10,000
   tokens, 100 nested parentheses or 500 set operations is refused unparsed, because
   parsing, binding and planning run before DuckDB first looks at an interrupt (issue 13's
   red-team pass: a 10 MB ``IN`` list ran 168 s, a ``UNION`` chain over 400 s).
5. A deadline: one watchdog thread per process calls ``cursor.interrupt()`` when a query
   runs past its timeout (cross joins, infinite recursive CTEs stop within milliseconds),
   and again every ``REINTERRUPT_EVERY`` seconds until the query ends: DuckDB drops an
   interrupt that arrives while it is still parsing or planning (measured: a query
   interrupted then ran to its end, 17 s, and came back with rows). A query whose deadline
   fired is a timeout even when it returns rows, and the timeout's message says how long
   it really ran when that is well past the deadline. At most ``max_rows`` rows are
   fetched.
6. Memory per query: DuckDB's ``memory_limit`` bounds only its buffer manager; a string
   built by one function call is not counted (issue 13's red-team pass:
   ``repeat('x', 2e9)`` took 3.9 GB and 16-52 s, not interruptible). So while a query
   runs, the process's address space may grow by at most ``QUERY_MEMORY_MB`` (a soft
   ``RLIMIT_AS``, put back after; below any limit the worker already has): such an
   allocation fails at once with DuckDB's out-of-memory error.

Connections are cached per process: creating a DuckDB instance costs ~15 ms and ~5 MB, a
query on a warm one well under a millisecond, so the files of one directory (a pool of
fuzzed databases) share one hardened instance (``_Hub``). A forked worker keeps using the
instances its parent opened: DuckDB's own per-process instance cache (inherited through
fork) would hand them back anyway, a second instance on an attached file is refused, and
destroying an inherited instance crashes the child, so inherited ones are never closed.
A worker's queries run on its own cursors; the files are read-only.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import logging
import os
import resource
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from . import limits, sqlite_run

THREADS = 1
MEMORY_LIMIT = "512MB"
QUERY_MEMORY_MB = 1024  # address space one query may add: DuckDB's memory_limit and room around it
DEFAULT_TIMEOUT = 0.5  # fixture queries take ~1 ms; a runaway is stopped 500x later
DEFAULT_MAX_ROWS = 100_000
REINTERRUPT_EVERY = 0.05  # seconds between interrupts once a deadline has passed

# sqlglot logs a warning for every statement it can only parse as a generic Command
# (LOAD, CALL, EXPLAIN...); those are refused anyway, and hostile candidates send many.
logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass
class Result:
    """What one query returned: column names, rows, or why there are none."""

    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------

# In this order: directories first (lists may only shrink once external access is off),
# then external access off, then the lock, after which no SET works at all.
HARDENING = (
    "SET allowed_directories=[]",
    "SET enable_external_access=false",
    "SET lock_configuration=true",
)
_RESERVED_ALIASES = {"memory", "system", "temp", "main"}


@dataclass
class _Hub:
    """One hardened DuckDB instance holding one database file, or every file of a directory
    marked shared (``mark_shared``).

    A DuckDB instance costs ~15 ms to create and ~5 MB to keep; attaching a file to an
    existing one costs ~0.7 ms. Fuzzed databases live many to a directory, so the files of
    such a directory share one instance; a query runs on a fresh cursor switched to its file's
    catalog with ``USE`` (per cursor, allowed after the lock). Files must be attached
    before external access is switched off, so a file that appears later rebuilds the hub.
    """

    con: duckdb.DuckDBPyConnection
    aliases: dict[str, str | None]  # path -> catalog to USE (None: the default one)
    pid: int = field(default_factory=os.getpid)  # the process that opened it

    def close(self) -> None:
        if self.pid == os.getpid():
            self.con.close()
        else:
            # Destroying a DuckDB instance inherited through fork crashes the child
            # (SIGSEGV on duckdb 2.0.1): keep it referenced until the process exits.
            _INHERITED.append(self.con)


_HUBS: OrderedDict[str, _Hub] = OrderedDict()
_HUBS_LOCK = threading.Lock()
_INHERITED: list = []
MAX_HUBS = 64
MAX_FILES_PER_HUB = 256
SHARED_MARKER = ".shared-duckdb-instance"  # in a folder whose files may share one instance


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def mark_shared(directory: str | os.PathLike) -> None:
    """Let the database files of ``directory`` share one instance. Only for folders this
    tool owns (fuzzed pools): an attached file cannot be opened read-write elsewhere in the
    process until ``release``."""
    open(os.path.join(os.fspath(directory), SHARED_MARKER), "a").close()


def _open_hub(directory: str, wanted: str, shared: bool) -> _Hub:
    others: list[str] = []
    if shared:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".duckdb") and not n.startswith("."))
        others = [os.path.join(directory, n) for n in names if os.path.join(directory, n) != wanted]
        others = others[:MAX_FILES_PER_HUB]
    config = {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "threads": THREADS,
        "memory_limit": MEMORY_LIMIT,
        "temp_directory": "",  # else DuckDB allows writes into <db>.tmp/ (see above)
    }
    con = duckdb.connect(wanted, read_only=True, config=config)
    try:
        if _is_locked(con):
            # DuckDB's per-process instance cache handed back an instance that is already
            # hardened: one this process (or the parent it was forked from) opened before.
            _verify_hardened(con)
        else:
            default = con.execute("SELECT current_database()").fetchone()[0]
            taken = set(_RESERVED_ALIASES) | {default}
            for i, path in enumerate(others):
                stem = os.path.basename(path)[: -len(".duckdb")]
                alias = stem if stem not in taken and stem.isidentifier() else f"db_{i}"
                try:
                    con.execute(f"ATTACH {_sql_string(path)} AS {_quote(alias)} (READ_ONLY)")
                except duckdb.Error:
                    continue  # being written, not DuckDB, locked: it gets its own hub if asked for
                taken.add(alias)
            for statement in HARDENING:
                con.execute(statement)
        return _Hub(con, _aliases(con))
    except Exception:
        con.close()
        raise


def _is_locked(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("SELECT current_setting('lock_configuration')").fetchone()[0])


def _verify_hardened(con: duckdb.DuckDBPyConnection) -> None:
    external, access, threads, memory = con.execute(
        "SELECT current_setting('enable_external_access'), current_setting('access_mode'), "
        "current_setting('threads'), current_setting('memory_limit')"
    ).fetchone()
    if external or str(access).lower() != "read_only" or threads != THREADS or memory != _memory_limit_shown():
        raise RuntimeError("a locked DuckDB instance without the hardening was found for this file")


@functools.lru_cache(maxsize=1)
def _memory_limit_shown() -> str:
    # How DuckDB prints MEMORY_LIMIT back ("488.2 MiB"), to compare a found instance with.
    con = duckdb.connect(":memory:", config={"memory_limit": MEMORY_LIMIT})
    try:
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    finally:
        con.close()


def _aliases(con: duckdb.DuckDBPyConnection) -> dict[str, str | None]:
    """path -> catalog to USE for every file the instance holds (None: its default)."""
    default = con.execute("SELECT current_database()").fetchone()[0]
    out: dict[str, str | None] = {}
    for name, path in con.execute(
        "SELECT database_name, path FROM duckdb_databases() WHERE NOT internal AND path IS NOT NULL"
    ).fetchall():
        out[os.path.abspath(path)] = None if name == default else name
    return out


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _hub_key(path: str) -> str:
    directory = os.path.dirname(path)
    shared = os.path.exists(os.path.join(directory, SHARED_MARKER))
    return directory if shared else path


def _hub_for(path: str) -> _Hub:
    key = _hub_key(path)
    with _HUBS_LOCK:
        hub = _HUBS.get(key)
        if hub is None and key != path:
            hub = _HUBS.get(path)  # a file of a shared folder opened alone (see below)
            key = path if hub is not None else key
        if hub is not None and path in hub.aliases:
            _HUBS.move_to_end(key)
            return hub
        if not os.path.isfile(path):
            # duckdb would try to create it (and fail, read-only); say what is wrong.
            raise FileNotFoundError(f"no database file {path}")
        shared = key != path
        if hub is not None:  # a file that appeared after the hub was built
            if hub.pid != os.getpid():
                # The parent's instance holds the folder's other files and cannot be
                # closed here; the new file gets an instance of its own.
                key, shared = path, False
            else:
                del _HUBS[key]
                hub.close()
        hub = _HUBS[key] = _open_hub(os.path.dirname(path), path, shared)
        while len(_HUBS) > MAX_HUBS:
            _HUBS.popitem(last=False)[1].close()
        return hub


def connect_readonly(path: str | os.PathLike) -> duckdb.DuckDBPyConnection:
    """The hardened read-only connection that holds ``path`` (opened once per process).

    Use ``cursor_for(path)`` to query: the connection may hold the other files of the
    same directory too, and a fresh cursor starts on whichever file opened it."""
    return _hub_for(os.path.abspath(os.fspath(path))).con


def cursor_for(path: str | os.PathLike) -> duckdb.DuckDBPyConnection:
    """A fresh cursor (its own client context: TEMP objects die with it) on ``path``."""
    path = os.path.abspath(os.fspath(path))
    hub = _hub_for(path)
    cursor = hub.con.cursor()
    alias = hub.aliases[path]
    if alias is not None:
        cursor.execute(f"USE {_quote(alias)}")
    return cursor


def release(directory: str | os.PathLike) -> None:
    """Close this process's connections to the files of ``directory`` (before removing them)."""
    directory = os.path.abspath(os.fspath(directory))
    with _HUBS_LOCK:
        for key in [k for k in _HUBS if k == directory or os.path.dirname(k) == directory]:
            _HUBS.pop(key).close()


def close_all() -> None:
    """Close this process's cached connections, DuckDB's and SQLite's (before files are
    rewritten or removed)."""
    with _HUBS_LOCK:
        while _HUBS:
            _HUBS.popitem()[1].close()
    sqlite_run.close_all()


# ---------------------------------------------------------------------------------------
# the statement gate
# ---------------------------------------------------------------------------------------

_QUERY_ROOTS = (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)
# Anything of these kinds anywhere in the tree makes the statement more than a query.
_FORBIDDEN = (
    exp.DDL,
    exp.DML,
    exp.Command,
    exp.Copy,
    exp.Attach,
    exp.Detach,
    exp.Install,
    exp.Pragma,
    exp.Set,
    exp.Into,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Export,
    exp.Describe,
)
_GATE_CON: dict[int, duckdb.DuckDBPyConnection] = {}


def _parser() -> duckdb.DuckDBPyConnection:
    # An empty in-memory database, used only for DuckDB's parser (extract_statements).
    con = _GATE_CON.get(os.getpid())
    if con is None:
        con = _GATE_CON[os.getpid()] = duckdb.connect(":memory:", config={"threads": 1})
    return con


_CACHED_UP_TO = 20_000  # characters: the cache never holds a large statement alive


def refusal(sql: str, *, parse_check: bool = True) -> str | None:
    """Why ``sql`` may not run (too large to parse, not exactly one read-only query), or
    None when it may.

    ``parse_check=False`` skips the sqlglot layer (DuckDB's own check stays): only for
    queries the tool rendered itself with sqlglot from a gold (fuzzing's neighbours)."""
    if len(sql) > _CACHED_UP_TO:
        return limits.too_long(sql) or _refusal(sql, parse_check)
    return _cached_refusal(sql, parse_check)


def _refusal(sql: str, parse_check: bool) -> str | None:
    reason = limits.shape_refusal(sql)
    if reason is not None:
        return reason
    try:
        statements = _parser().extract_statements(sql)
    except Exception as exc:  # noqa: BLE001 - DuckDB's parser rejects it: a syntax error
        return f"syntax error: {str(exc).splitlines()[0][:200]}"
    if len(statements) != 1:
        return f"expected one statement, got {len(statements)}"
    kind = str(statements[0].type).rsplit(".", 1)[-1]
    if kind != "SELECT":
        return f"not a query: {kind} statement"
    if not parse_check:
        return None
    try:
        parsed = [e for e in sqlglot.parse(sql, read="duckdb") if e is not None]
    except Exception:  # noqa: BLE001 - sqlglot lags DuckDB's syntax; DuckDB said SELECT
        return None
    if len(parsed) != 1:
        return f"expected one statement, got {len(parsed)}"
    root = parsed[0]
    if not isinstance(root, _QUERY_ROOTS):
        return f"not a query: {type(root).__name__}"
    bad = root.find(*_FORBIDDEN)
    if bad is not None:
        return f"not read-only: contains {type(bad).__name__}"
    return None


_cached_refusal = functools.lru_cache(maxsize=8192)(_refusal)


def refusal_on(path: str | os.PathLike, sql: str) -> str | None:
    """``refusal`` for a query bound for ``path``: a SQLite file gets the size limits here
    and SQLite's own gate when it runs (DuckDB's parser would refuse SQLite's syntax)."""
    if is_sqlite(path):
        return limits.too_long(sql) or limits.shape_refusal(sql)
    return refusal(sql)


# ---------------------------------------------------------------------------------------
# deadlines
# ---------------------------------------------------------------------------------------


class _Watchdog:
    """One thread that interrupts cursors past their deadline (cheaper than a Timer per
    query: arming is a heap push, not a thread start), and again every
    ``REINTERRUPT_EVERY`` seconds until the query is disarmed: an interrupt DuckDB receives
    before it starts executing (while it parses, binds or plans) is lost."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.cond = threading.Condition()
        self.heap: list[tuple[float, int]] = []
        self.armed: dict[int, Any] = {}  # token -> cursor, while its query runs
        self.fired: set[int] = set()
        self.tokens = itertools.count()
        self.sleeping_until = float("inf")  # the loop's current wake-up time
        threading.Thread(target=self._loop, name="sql-watchdog", daemon=True).start()

    def arm(self, cursor: Any, timeout: float) -> int:
        token = next(self.tokens)
        with self.cond:
            self.armed[token] = cursor
            deadline = time.monotonic() + timeout
            heapq.heappush(self.heap, (deadline, token))
            if deadline < self.sleeping_until:  # only wake the loop when it would sleep too long
                self.cond.notify()
        return token

    def disarm(self, token: int) -> bool:
        """Stop watching; True when the deadline had already fired."""
        with self.cond:
            self.armed.pop(token, None)
            if token in self.fired:
                self.fired.discard(token)
                return True
            return False

    def _loop(self) -> None:
        with self.cond:
            while True:
                while self.heap and self.heap[0][1] not in self.armed:
                    heapq.heappop(self.heap)  # finished in time
                if not self.heap:
                    self.sleeping_until = float("inf")
                    self.cond.wait()
                    continue
                deadline, token = self.heap[0]
                now = time.monotonic()
                if now < deadline:
                    self.sleeping_until = deadline
                    self.cond.wait(deadline - now)
                    self.sleeping_until = float("inf")
                    continue
                heapq.heappop(self.heap)
                cursor = self.armed[token]  # stays armed: interrupted again until disarmed
                self.fired.add(token)
                heapq.heappush(self.heap, (now + REINTERRUPT_EVERY, token))
                try:
                    cursor.interrupt()
                except Exception:  # noqa: BLE001 - the cursor is closing; nothing to stop
                    pass


_WATCHDOG: _Watchdog | None = None


def _watchdog() -> _Watchdog:
    global _WATCHDOG
    if _WATCHDOG is None or _WATCHDOG.pid != os.getpid():  # threads do not survive fork
        _WATCHDOG = _Watchdog()
    return _WATCHDOG


# ---------------------------------------------------------------------------------------
# running one query
# ---------------------------------------------------------------------------------------


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


_STATM: dict[int, int] = {}  # pid -> an open /proc/self/statm (a pread costs 2 us, an open 20 us)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _address_space() -> int | None:
    """This process's virtual size in bytes (None without /proc)."""
    for _ in range(2):
        fd = _STATM.get(os.getpid())
        try:
            if fd is None:  # per pid: after a fork the parent's descriptor reads the parent
                fd = _STATM[os.getpid()] = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(fd, 128, 0).split()[0]) * _PAGE
        except (OSError, ValueError, IndexError):  # closed or replaced by the verifier: open again
            _STATM.pop(os.getpid(), None)
    return None


class _MemoryBound:
    """While any query of this process runs, its address space may grow by at most
    ``QUERY_MEMORY_MB``: a soft RLIMIT_AS, lowered by the first query to start and put back
    by the last to end (queries in several threads share the room)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.running = 0
        self.saved: tuple[int, int] | None = None

    def __enter__(self) -> None:
        with self.lock:
            if self.pid != os.getpid():  # forked while a query ran: that one is not ours
                self.pid, self.running, self.saved = os.getpid(), 0, None
            self.running += 1
            if self.running == 1:
                self.saved = _lower_address_space(QUERY_MEMORY_MB)

    def __exit__(self, *exc) -> None:
        with self.lock:
            self.running = max(0, self.running - 1)
            if self.running == 0 and self.saved is not None:
                try:
                    resource.setrlimit(resource.RLIMIT_AS, self.saved)
                except (ValueError, OSError):
                    pass
                self.saved = None


def _lower_address_space(room_mb: int) -> tuple[int, int] | None:
    """Lower the soft RLIMIT_AS to the current size + ``room_mb`` (never raise it); the
    limits to put back, or None when nothing was changed."""
    size = _address_space()
    if not room_mb or size is None:
        return None
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        bound = size + room_mb * 1024 * 1024
        if soft != resource.RLIM_INFINITY and soft <= bound:
            return None  # the worker's own bound is tighter already
        if hard != resource.RLIM_INFINITY:
            bound = min(bound, hard)
        resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
        return soft, hard
    except (ValueError, OSError):
        return None


_MEMORY = _MemoryBound()


def _timeout(timeout: float, ran: float) -> Result:
    note = ""
    if ran > 2 * timeout + 0.5:  # the interrupt came late: say how late, never just "0.5s"
        note = f" (it ran {ran:.1f}s before it stopped: DuckDB looks at an interrupt only between steps)"
    return Result(error=f"timeout after {timeout:g}s{note}", timed_out=True)


def run_query(
    path: str | os.PathLike,
    sql: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    parse_check: bool = True,
) -> Result:
    """Run one untrusted read-only query on the database file ``path``.

    Never raises for anything the query does: refusals, errors, timeouts, memory over the
    bound and oversized results come back as ``Result.error``. ``parse_check``: see
    ``refusal``. A ``.sqlite`` file is queried in SQLite itself (``sqlite_run``: the
    verifier's dialect), behind the same size limits."""
    if is_sqlite(path):
        return _run_sqlite(path, sql, timeout, max_rows)
    reason = refusal(sql, parse_check=parse_check)
    if reason is not None:
        return Result(error=f"refused: {reason}")
    try:
        cursor = cursor_for(path)
    except Exception as exc:  # noqa: BLE001 - a missing or corrupt file is an error result
        return Result(error=f"cannot open database: {_first_line(exc)}")
    dog = _watchdog()
    failure: BaseException | None = None
    start = time.monotonic()
    with _MEMORY:
        token = dog.arm(cursor, timeout)
        try:
            cursor.execute(sql)
            columns = [d[0] for d in (cursor.description or [])]
            rows = cursor.fetchmany(max_rows + 1)
        except Exception as exc:  # noqa: BLE001 - the candidate's error is the result
            failure = exc
        finally:
            fired = dog.disarm(token)
            cursor.close()
    if fired or isinstance(failure, duckdb.InterruptException):
        # Rows that came back after the deadline are a timeout too: the interrupt was lost.
        return _timeout(timeout, time.monotonic() - start)
    if failure is not None:
        return Result(error=_first_line(failure))
    if len(rows) > max_rows:
        return Result(columns=columns, error=f"too many rows (more than {max_rows})")
    return Result(columns=columns, rows=rows)


def is_sqlite(path: str | os.PathLike) -> bool:
    """True for a SQLite file (``.sqlite``, ``.db``): queried by ``sqlite_run``, not DuckDB."""
    return os.fspath(path).endswith(SQLITE_SUFFIXES)


SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def dialect_of(path: str | os.PathLike) -> str:
    """The SQL dialect the database file is queried in: sqlglot's name for it."""
    return "sqlite" if is_sqlite(path) else "duckdb"


def _run_sqlite(path: str | os.PathLike, sql: str, timeout: float, max_rows: int) -> Result:
    # The size limits first (parsing a 10 MB statement is slow in any engine); the statement
    # gate is SQLite's own (one statement) and sqlite_run's authorizer (reads only).
    reason = refusal_on(path, sql)
    if reason is not None:
        return Result(error=f"refused: {reason}")
    with _MEMORY:
        columns, rows, error, timed_out = sqlite_run.execute(path, sql, timeout=timeout, max_rows=max_rows)
    return Result(columns=columns, rows=rows, error=error, timed_out=timed_out)
