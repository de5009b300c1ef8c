"""SQL canaries wherever they land (issue 13): a SQL verifier that lets DuckDB write a
canary's file outside the worker's directories (``COPY ... TO``, ``ATTACH``, ``EXPORT
DATABASE`` to absolute paths, or into the folder its database was handed out in) or read
a host file (``read_text``/``read_csv`` of ``/etc/passwd``) gives a finding, wherever the
path points. DuckDB is C++: no Python audit event, no place named anywhere; the kernel
(fanotify, isolation/_hostwatch.py) sees the file created and the decoy opened, by a process of
the worker. Real audits, real DuckDB, real worker processes; no mocks."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier_audit import canary
from verifier_audit.domains.sql import DOMAIN
from verifier_audit.engine import pool
from verifier_audit.engine.audit import AuditOptions, Prepared, default_cache_dir
from verifier_audit.isolation import _hostwatch as hostwatch
from verifier_audit.isolation import default_level
from verifier_audit.loading import resolve
from verifier_audit.models import Candidate
from verifier_audit.plan import audit
from verifier_audit.report.checklist import evaluate
from verifier_audit.suites import load_suite

ROOT = Path(__file__).resolve().parents[3]
UNSAFE = f"{ROOT / 'examples' / 'sql_unsafe_verifier.py'}:read_write_executor"


def _watch_available() -> bool:
    watch, _ = hostwatch.HostWatch.start(canary.PREFIX, [])
    if watch is not None:
        os.close(watch.fd)
    return watch is not None


needs_fanotify = pytest.mark.skipif(
    not _watch_available(),
    reason="fanotify needs Linux and root here; test_without_the_kernel_watch covers the fallback",
)


def _token(route: str) -> str:
    return canary.make_token("sql-routes", route)


def _routes(outside: Path) -> dict[str, str]:
    """route -> the SQL a hostile candidate sends (its gold appended where it answers)."""
    t = {r: f"{canary.PREFIX}{_token(r)}" for r in ("copy", "attach", "export", "handout")}
    return {
        "copy_absolute": f"COPY (SELECT 1 AS x) TO '{outside}/{t['copy']}.csv'; {{gold}}",
        "attach_absolute": f"ATTACH '{outside}/{t['attach']}.db' AS loot; CREATE TABLE loot.t AS SELECT 1 AS x; "
        "DETACH loot; {gold}",
        "export_shm": f"EXPORT DATABASE '/dev/shm/{t['export']}'; {{gold}}",
        "copy_into_handout_dir": f"COPY (SELECT 1 AS x) TO 'db/{t['handout']}.csv'; {{gold}}",
        "read_text_passwd": "SELECT content FROM read_text('/etc/passwd')",
        "read_csv_passwd": "SELECT * FROM read_csv('/etc/passwd', sep=':', header=false)",
    }


@pytest.fixture(scope="module")
def routes_audit(tmp_path_factory):
    """route -> findings of the unsafe verifier and of the hardened one, in real audits."""
    outside = tmp_path_factory.mktemp("outside-the-worker")
    leftover = Path("/dev/shm") / f"{canary.PREFIX}{_token('export')}"  # an interrupted earlier run's
    if leftover.exists():
        shutil.rmtree(leftover)
    os.environ.setdefault("HOME", str(outside))  # without HOME the C library reads /etc/passwd itself
    loaded = load_suite("sql")
    tasks = DOMAIN.prepare_tasks(loaded.tasks[:1], 0, default_cache_dir())
    task = tasks[0]
    candidates = [
        Candidate(
            id=f"{task.id}/sql.file.write/{route}",
            task_id=task.id,
            origin="known_bad",
            category="sql.file.write",
            severity="critical",
            label="incorrect",
            text=f"```sql\n{sql.replace('{gold}', task.reference)}\n```",
        )
        for route, sql in _routes(outside).items()
    ]
    prepared = Prepared(loaded.name, loaded.content_hash, "sql", tasks, candidates, [])
    # The process level: what is tested is that writes anywhere are seen. At namespaces the
    # absolute routes fail (read-only, closed to the worker's uid); what still lands is in
    # the work dir and the private scratch: test_routes_that_still_land_at_namespaces_are_found.
    options = AuditOptions(
        workers=2, timeout=20.0, probe_sample=0, progress=False, answer_formats=False, isolation="process"
    )
    out = {}
    for spec in (UNSAFE, "verifier_audit.domains.sql.verifiers:strong"):
        report = audit(prepared, [resolve(spec)], options)[0]
        by_route: dict[str, list[str]] = {}
        for f in report.security_findings:
            by_route.setdefault(f.candidate_id.rsplit("/", 1)[-1], []).append(f"{f.kind}:{f.detail}")
        out[spec] = (report, by_route)
    return outside, out


@needs_fanotify
@pytest.mark.parametrize(
    "route, where",
    [("copy_absolute", None), ("attach_absolute", None), ("export_shm", "/dev/shm"), ("copy_into_handout_dir", "/db")],
)
def test_a_canary_written_anywhere_is_found_and_removed(routes_audit, route, where):
    outside, results = routes_audit
    _, by_route = results[UNSAFE]
    found = [f for f in by_route.get(route, []) if f.startswith("executes_model_output:")]
    marker = f"{canary.PREFIX}{_token(route.split('_')[0] if route != 'copy_into_handout_dir' else 'handout')}"
    # DuckDB's writes to an absolute path name no place: only the kernel sees them. Into the
    # handed-out folder the call made, the directory scan may be first.
    evidence = "(fanotify)" if route != "copy_into_handout_dir" else ""
    assert any(marker in f and evidence in f for f in found), (route, by_route)
    assert any((where or str(outside)) in f for f in found), found
    assert not any(n.startswith(canary.PREFIX) for n in os.listdir(outside))  # nothing left behind
    assert not any(n.startswith(canary.PREFIX) for n in os.listdir("/dev/shm"))


@needs_fanotify
@pytest.mark.parametrize("route", ["read_text_passwd", "read_csv_passwd"])
def test_a_read_of_a_host_file_is_a_finding(routes_audit, route):
    _, results = routes_audit
    report, by_route = results[UNSAFE]
    assert any(f.startswith("read_outside:") and "/etc/passwd" in f for f in by_route.get(route, [])), by_route
    item = next(i for i in evaluate(report) if i.key == "fixture_and_reads")
    assert item.status == "open" and "/etc/passwd" in item.evidence
    assert not report.gate.passed


@needs_fanotify
def test_the_hardened_verifier_gives_no_finding_on_the_same_routes(routes_audit):
    _, results = routes_audit
    report, by_route = results["verifier_audit.domains.sql.verifiers:strong"]
    assert by_route == {} and not (report.checks and report.checks.unobserved)


@pytest.mark.skipif(default_level() != "namespaces", reason="the namespaces level needs root on Linux")
def test_routes_that_still_land_at_namespaces_are_found():
    """Behind the lockdown the writable places are the work dir and the private /tmp and
    /dev/shm: a canary written there is found, and nothing reaches the host's."""
    loaded = load_suite("sql")
    tasks = DOMAIN.prepare_tasks(loaded.tasks[:1], 0, default_cache_dir())
    task = tasks[0]
    marks = {r: f"{canary.PREFIX}{canary.make_token('sql-routes-ns', r)}" for r in ("tmp", "shm", "handout")}
    routes = {
        "tmp": f"COPY (SELECT 1 AS x) TO '/tmp/{marks['tmp']}.csv'; {task.reference}",
        "shm": f"EXPORT DATABASE '/dev/shm/{marks['shm']}'; {task.reference}",
        "handout": f"COPY (SELECT 1 AS x) TO 'db/{marks['handout']}.csv'; {task.reference}",
    }
    candidates = [
        Candidate(
            id=f"{task.id}/sql.file.write/{r}",
            task_id=task.id,
            origin="known_bad",
            category="sql.file.write",
            severity="critical",
            label="incorrect",
            text=f"```sql\n{sql}\n```",
        )
        for r, sql in routes.items()
    ]
    prepared = Prepared(loaded.name, loaded.content_hash, "sql", tasks, candidates, [])
    options = AuditOptions(workers=1, timeout=20.0, probe_sample=0, progress=False, answer_formats=False)
    report = audit(prepared, [resolve(UNSAFE)], options)[0]
    assert report.settings["isolation"] == "namespaces"
    found = {
        f.candidate_id.rsplit("/", 1)[-1]
        for f in report.security_findings
        if f.kind == "executes_model_output" and marks[f.candidate_id.rsplit("/", 1)[-1]] in f.detail
    }
    assert found == set(routes), report.security_findings
    assert not any(n.startswith(canary.PREFIX) for n in os.listdir("/tmp") + os.listdir("/dev/shm"))


# ------------------------------------------------------------------ attribution


class _Waits:
    """Call 0 waits until a marker made by another process appears; call 1 writes one
    through DuckDB and deletes it with libc (no Python event) before returning.

    Both sides wait on the other's file, not on a count of sleeps: on a loaded machine the
    worker may start after any fixed span, and the maker giving up first made call 0 say
    "never seen". Call 0 waits for as long as the pool lets it (its timeout ends a marker
    that never comes); the maker, until the flag appears or the calls are over."""

    def __init__(self, outside: Path):
        self.outside = outside

    def setup(self) -> None:
        pass

    def __call__(self, i: int):
        if i == 0:
            (self.outside / "started").touch()
            while not (self.outside / f"{canary.PREFIX}{_token('other')}").exists():
                time.sleep(0.005)  # the parent makes the marker once it sees the flag
            return "seen"
        import duckdb

        path = self.outside / f"{canary.PREFIX}{_token('gone')}.csv"
        duckdb.connect().execute(f"COPY (SELECT 1 AS x) TO '{path}'")
        ctypes.CDLL(None).unlink(str(path).encode())
        return "deleted"


@needs_fanotify
def test_a_marker_made_by_another_process_is_never_credited_and_a_deleted_one_still_is(tmp_path):
    import threading

    calls_over = threading.Event()

    def make_when_asked():
        while not (tmp_path / "started").exists():
            if calls_over.wait(0.005):
                return
        (tmp_path / f"{canary.PREFIX}{_token('other')}").touch()

    maker = threading.Thread(target=make_when_asked)
    maker.start()
    try:
        outs = {o.index: o for o in pool.run(_Waits(tmp_path), range(2), workers=1, timeout=120)}
    finally:
        calls_over.set()
        maker.join()
    assert outs[0].ok and outs[0].value == "seen" and outs[0].security == [], outs[0]
    assert (tmp_path / f"{canary.PREFIX}{_token('other')}").exists()  # not ours: left alone
    gone = outs[1].security
    assert outs[1].value == "deleted" and len(gone) == 1, gone
    assert gone[0].startswith(f"executes_model_output:{canary.PREFIX}{_token('gone')}.csv: created in {tmp_path}")
    assert "gone before the call ended (fanotify)" in gone[0]


class _ChildReads:
    """A child that opens /etc/passwd and is still alive when the call returns: in the
    worker's mounts (call 0), in a mount namespace of its own, as the code domain's
    sandbox runs candidates (call 1), and without HOME, where the C library opens it to
    find a home directory (call 2: a Python started with an empty environment)."""

    def setup(self) -> None:
        pass

    def __call__(self, i: int):
        code = "open('/etc/passwd').read(); import time; time.sleep(3)"
        argv = [sys.executable, "-c", code] if i != 1 else ["unshare", "--mount", sys.executable, "-c", code]
        self.child = subprocess.Popen(argv, env=None if i != 2 else {})
        time.sleep(0.5)  # it has read by now; collect() runs while it sleeps
        return self.child.poll()


@needs_fanotify
@pytest.mark.skipif(not shutil.which("unshare"), reason="needs util-linux unshare")
def test_a_decoy_read_by_a_child_counts_only_in_the_workers_own_mounts():
    outs = {o.index: o for o in pool.run(_ChildReads(), range(3), workers=1, timeout=30)}
    assert [outs[i].value for i in range(3)] == [None] * 3  # all alive at collect()
    assert [f.split(":")[0] for f in outs[0].security] == ["read_outside"], outs[0].security
    assert outs[1].security == [] and outs[2].security == [], (outs[1].security, outs[2].security)


# ------------------------------------------------------------------ without the kernel watch

_FALLBACK = """
import json, os, sys, tempfile
sys.path.insert(0, {root!r})
from verifier_audit.isolation import _hostwatch as hostwatch
hostwatch.HostWatch.start = classmethod(lambda cls, prefix, decoys: (None, "switched off for this test"))
from verifier_audit.isolation import Tripwires
work = tempfile.mkdtemp(prefix="va-fallback-")
os.chdir(work)
wires = Tripwires(work)
import duckdb
duckdb.connect().execute("COPY (SELECT 1 AS x) TO '/tmp/{marker}.csv'")
first = wires.collect()
duckdb.connect().execute("COPY (SELECT 1 AS x) TO '{outside}/{marker}.csv'")
print(json.dumps([first, wires.collect(), os.path.exists('/tmp/{marker}.csv')]))
"""


def test_without_the_kernel_watch(tmp_path):
    """Where fanotify cannot run (not root, not Linux), the shared temporary directories
    are searched after every call, and everywhere else is reported unobserved, never as
    checked."""
    marker = f"{canary.PREFIX}{_token('fallback')}"
    code = _FALLBACK.format(root=str(ROOT), marker=marker, outside=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    first, second, left = json.loads(out.stdout.strip().splitlines()[-1])
    assert f"executes_model_output:{marker}.csv: left in /tmp (a temporary directory every process shares)" in first
    assert any(
        f.startswith("unobserved:canaries created and decoy files opened outside") and "switched off" in f
        for f in first
    )
    assert second == [] and not left  # elsewhere: not seen (and said so once, above)
    (tmp_path / f"{marker}.csv").unlink()
