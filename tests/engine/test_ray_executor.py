"""``--executor ray`` on a real two-node Ray cluster (both nodes on this machine, started
with the real ``ray start``): the same verdicts as the local pool, error verdicts of the
right kinds, a node killed mid-audit losing and doubling no verdict, resume across
executors, and the messages when Ray is missing or the options are wrong.

One cluster for the module (tests/ray_cluster.py: 13-30 s to start on 2 cores); its
processes are found by their temp dirs and killed by PID at the end, whatever happened
(``ray stop --force`` would also stop any other Ray on the machine).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest
from ray_cluster import LocalCluster, kill, process_tree

from verifier_audit.cli import main
from verifier_audit.engine import ray_executor
from verifier_audit.engine.audit import AuditOptions, prepare, run_settings
from verifier_audit.errors import InputError
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite, select

HAS_RAY = importlib.util.find_spec("ray") is not None and sys.platform.startswith("linux")
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (pip install 'verifier-audit[ray]')")

# The verifiers under audit, as a user's file. ``hostile`` misbehaves on the candidates whose
# text hashes to 0 mod K, by the first of its rules that picks one (hang, exit, segfault,
# raise), and otherwise scores like a plain substring check; ``slow`` takes 30 ms a call.
VERIFIERS = """
import ctypes, os, time, zlib

def _picked(text, k):
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % k == 0

def _score(completion, reference):
    return 1.0 if reference.strip() in completion else 0.0

def hostile(completion, reference):
    if _picked(completion, 60):
        time.sleep(60)
    if _picked(completion, 25):
        os._exit(3)
    if _picked(completion + "!", 20):
        ctypes.string_at(0)  # segfault
    if _picked(completion, 10):
        raise ValueError("no answer here")
    return _score(completion, reference)

def slow(completion, reference):
    time.sleep(0.03)
    return _score(completion, reference)
"""


def _picked(text: str, k: int) -> bool:
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % k == 0


# --- the cluster ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    if not HAS_RAY:
        pytest.skip("Ray is not installed")
    with LocalCluster() as c:
        yield c


# --- audits --------------------------------------------------------------------------------


def _options(tmp_path: Path, name: str, executor: str, cluster=None, **kw) -> AuditOptions:
    return AuditOptions(
        seed=0,
        workers=2,
        results=tmp_path / f"{name}.jsonl",
        cache_dir=None,
        progress=False,
        probe_sample=0,
        answer_formats=False,
        executor=executor,
        ray_address=cluster.address if cluster else None,
        **kw,
    )


def _tasks(limit: int):
    suite = load_suite("math")
    return suite, select(suite, None, limit)


def _verdicts(path: Path) -> list[dict]:
    # A call scored again (a probed call whose worker died: engine/audit.py) has a later line
    # in the results file, which stands.
    last = {}
    for line in path.read_text().splitlines()[1:]:
        row = json.loads(line)
        last[(row.get("verifier"), row["candidate_id"])] = row
    return list(last.values())


def _figures(report) -> tuple:
    return (
        report.coverage_debt,
        report.false_acceptance_rate,
        report.false_rejection_rate,
        report.error_rate,
        report.gate.passed,
        [(c.name, c.n, c.accepted) for c in report.categories],
    )


@needs_ray
def test_same_candidates_verdicts_and_report_as_the_local_pool(cluster, tmp_path):
    suite, tasks = _tasks(2)
    specs = [resolve("verifier_audit.domains.math.verifiers:last_number")]
    runs = {}
    for executor in ("local", "ray"):
        options = _options(tmp_path, executor, executor, cluster if executor == "ray" else None)
        prepared = prepare(suite.name, suite.content_hash, tasks, options)  # the oracle runs on the executor too
        reports = audit(prepared, specs, options)
        verdicts = {(v["verifier"], v["candidate_id"]): (v["status"], v["score"]) for v in _verdicts(options.results)}
        runs[executor] = (
            [c.id for c in prepared.candidates],
            prepared.dropped_counts,
            verdicts,
            _figures(reports[0]),
            run_settings(prepared, specs, options),
        )
    local, on_ray = runs["local"], runs["ray"]
    assert len(local[0]) > 100
    assert on_ray[0] == local[0] and on_ray[1] == local[1]  # same candidates kept and dropped
    assert len(on_ray[2]) == len(local[0]) and on_ray[2] == local[2]  # one verdict each, the same
    assert on_ray[3] == local[3]
    assert on_ray[4] == local[4]  # the executor is not part of the results' fingerprint


@needs_ray
def test_hangs_crashes_and_exceptions_are_error_verdicts_of_their_kind(cluster, tmp_path):
    path = tmp_path / "rewards.py"
    path.write_text(VERIFIERS)
    suite, tasks = _tasks(1)
    # 4 s, not less: the suite's two 2 MB answers (math.hostile.huge_output) took over 1.5 s
    # of wall time each through Ray on a fully loaded machine, which is a timeout by contract.
    options = _options(tmp_path, "hostile", "ray", cluster, timeout=4.0)
    prepared = prepare(suite.name, suite.content_hash, tasks, options)
    report = audit(prepared, [resolve(f"{path}:hostile")], options)[0]
    texts = {c.id: c.text for c in prepared.candidates}
    rows = _verdicts(options.results)
    assert sorted(r["candidate_id"] for r in rows) == sorted(texts)  # the audit completed, one verdict each

    def expected(text: str):  # the verifier's own rules, in its order
        if _picked(text, 60):
            return "timeout after 4s"
        if _picked(text, 25):
            return "crash: exit code 3"
        if _picked(text + "!", 20):
            return "crash: killed by signal SIGSEGV"
        if _picked(text, 10):
            return "ValueError: no answer here"
        return None

    wanted = {i: expected(t) for i, t in texts.items()}
    got = {r["candidate_id"]: r["error"] if r["status"] == "error" else None for r in rows}
    assert got == wanted
    kinds = set(wanted.values()) - {None}
    assert len(kinds) == 4, f"the sizes pick no candidate for some misbehaviour: {kinds}"
    assert all(r["score"] is not None for r in rows if r["status"] == "ok")
    assert report.error_rate == pytest.approx(sum(e is not None for e in wanted.values()) / len(texts), abs=1e-6)


class Hostile:
    """A forked job (as the oracle's): call 1 hangs, 2 exits, 3 segfaults, 4 raises."""

    def setup(self):
        pass

    def __call__(self, i):
        import ctypes
        import os

        if i == 1:
            time.sleep(60)
        if i == 2:
            os._exit(1)
        if i == 3:
            ctypes.string_at(0)
        if i == 4:
            raise KeyError(i)
        return 2 * i


@needs_ray
def test_the_contract_of_pool_run_for_a_forked_job(cluster):
    waits: list[list[float]] = []
    # 4 s, not 1: on a loaded machine a fresh worker that imports ctypes and exits can take
    # over a second of wall time from its dispatch, and that is a timeout by the contract.
    outs = list(ray_executor.run(Hostile(), range(12), timeout=4.0, on_wait=waits.append, address=cluster.address))
    by_index = {o.index: o for o in outs}
    assert len(outs) == len(by_index) == 12
    assert (by_index[1].error_kind, by_index[1].error) == ("timeout", "timeout after 4s")
    assert by_index[2].error == "crash: exit code 1" and by_index[3].error == "crash: killed by signal SIGSEGV"
    assert (by_index[4].error_kind, by_index[4].error) == ("exception", "KeyError: 4")
    assert all(by_index[i].ok and by_index[i].value == 2 * i for i in range(12) if i not in (1, 2, 3, 4))
    # The progress bar's feed: while the hang ran, the chunks in flight and when they began.
    # (Counted, not timed: at least two feeds, some with a chunk in flight, each a list of
    # start times, never more than the chunks the cluster's CPUs allow at once.)
    assert len(waits) >= 2 and any(waits)
    assert all(isinstance(t, float) for w in waits for t in w) and max(map(len, waits)) <= 2


@needs_ray
def test_resume_across_executors(cluster, tmp_path):
    suite, tasks = _tasks(1)
    specs = [resolve("verifier_audit.domains.math.verifiers:substring")]
    local = _options(tmp_path, "resumed", "local")
    prepared = prepare(suite.name, suite.content_hash, tasks, local)
    first = audit(prepared, specs, local)[0]
    lines = local.results.read_text().splitlines(keepends=True)
    local.results.write_text("".join(lines[: len(lines) // 2]))  # a driver killed half way
    kept = {v["candidate_id"] for v in _verdicts(local.results)}
    resumed = _options(tmp_path, "resumed", "ray", cluster, resume=True)
    second = audit(prepared, specs, resumed)[0]
    rows = _verdicts(resumed.results)
    assert sorted(r["candidate_id"] for r in rows) == sorted(c.id for c in prepared.candidates)
    assert {r["candidate_id"] for r in rows[: len(kept)]} == kept  # kept, not redone
    assert _figures(second) == _figures(first)


@needs_ray
def test_a_verifier_that_cannot_start_is_the_local_pools_error(cluster, tmp_path):
    from verifier_audit.engine.inspection import resolve as inspected
    from verifier_audit.engine.pool import PoolError

    path = tmp_path / "broken.py"
    # Its import fails after the first one (as a CUDA initialisation after a fork would): the
    # first, its inspection (at the process level, whose write reaches the host), reads the
    # spec, and the pool's setup on the node is what fails.
    path.write_text(
        "import pathlib\nseen = pathlib.Path(__file__).with_name('inspected')\n"
        "if seen.exists():\n    raise RuntimeError('missing model weights')\nseen.touch()\n\n"
        "def reward(completion, reference):\n    return 1.0\n"
    )
    suite, tasks = _tasks(1)
    prepared = prepare(suite.name, suite.content_hash, tasks, _options(tmp_path, "prep", "local"))
    messages = {}
    for executor in ("local", "ray"):
        with pytest.raises(PoolError) as err:
            spec = inspected(f"{path}:reward", isolation="process")
            audit(prepared, [spec], _options(tmp_path, f"broken-{executor}", executor, cluster))
        messages[executor] = str(err.value)
    assert "worker setup failed" in messages["ray"] and "missing model weights" in messages["ray"]
    assert messages["ray"] == messages["local"]


@needs_ray
def test_a_node_killed_mid_audit_loses_and_doubles_no_verdict(cluster, tmp_path):
    """Runs last: the cluster has one node left after it."""
    import ray

    path = tmp_path / "rewards.py"
    path.write_text(VERIFIERS)
    # 3 tasks (~270 calls of 30 ms): on a loaded machine the second node's worker took longer
    # to start than 1 task's calls took on the head node, and the node was killed idle.
    suite, tasks = _tasks(3)
    options = _options(tmp_path, "killed", "ray", cluster)
    prepared = prepare(suite.name, suite.content_hash, tasks, options)
    killed: dict = {}

    def kill_the_second_node() -> None:
        # Once verdicts stream in and the node is running a chunk (its Ray worker's title).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = len(options.results.read_text().splitlines()) - 1 if options.results.exists() else 0
            tree = process_tree([cluster.node_dir])
            if done >= 5 and any(cmd.startswith("ray::_chunk") for cmd in tree.values()):
                kill(tree)
                killed.update(done=done, pids=len(tree))
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_second_node, daemon=True)
    killer.start()
    report = audit(prepared, [resolve(f"{path}:slow")], options)[0]
    killer.join(timeout=5)
    assert killed, "the second node never ran a chunk"
    rows = _verdicts(options.results)
    ids = [r["candidate_id"] for r in rows]
    assert len(ids) == len(set(ids)) == len(prepared.candidates)  # none lost, none doubled
    assert set(ids) == {c.id for c in prepared.candidates}
    assert killed["done"] < len(ids)  # it died mid-audit
    assert all(r["status"] == "ok" for r in rows) and report.error_rate == 0.0
    deadline = time.monotonic() + 10
    while process_tree([cluster.node_dir]) and time.monotonic() < deadline:  # nothing of the node is left
        time.sleep(0.1)
    assert not process_tree([cluster.node_dir])
    assert sum(n["Alive"] for n in ray.nodes()) <= 2


# --- messages (no cluster) -----------------------------------------------------------------


def test_without_ray_the_message_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(InputError, match=r"--executor ray needs Ray: pip install 'verifier-audit\[ray\]'"):
        ray_executor.import_ray()
    code = main(["run", "--executor", "ray", "--limit", "1", "--no-cache", "--no-progress", "--no-config"])
    assert code == 2
    assert "error: --executor ray needs Ray: pip install 'verifier-audit[ray]'" in capsys.readouterr().err


def test_an_address_where_nothing_answers_fails_at_once():
    from ray_cluster import free_port

    with pytest.raises(InputError, match=r"--ray-address 127.0.0.1:\d+: no Ray cluster answers there"):
        ray_executor._check_reachable(f"127.0.0.1:{free_port()}")
    with pytest.raises(InputError, match="Ray Client addresses are not supported"):
        ray_executor._check_reachable("ray://head:10001")


def test_ray_address_needs_the_ray_executor(capsys):
    code = main(["run", "--ray-address", "auto", "--limit", "1", "--no-cache", "--no-progress", "--no-config"])
    assert code == 2 and "--ray-address auto: needs --executor ray" in capsys.readouterr().err


def test_config_keys_are_checked_with_file_and_line(tmp_path, monkeypatch):
    from verifier_audit.config import load_config

    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.verifier_audit]\nsuite = "math"\nexecutor = "rayy"\n')
    with pytest.raises(InputError, match=r"pyproject.toml:3: tool.verifier_audit.executor = 'rayy' is not allowed"):
        load_config(path)
    path.write_text('[tool.verifier_audit]\nsuite = "math"\nray_address = "auto"\n')
    with pytest.raises(
        InputError,
        match=r"pyproject.toml:3: tool.verifier_audit.ray_address = 'auto' needs "
        r"executor = \"ray\"",
    ):
        load_config(path)
    path.write_text('[tool.verifier_audit]\nexecutor = "ray"\nray_address = "10.0.0.1:6379"\n')
    config = load_config(path)
    assert (config.executor, config.ray_address) == ("ray", "10.0.0.1:6379")

    from verifier_audit.plan import audit_options

    monkeypatch.setitem(sys.modules, "ray", None)  # the check before the preparation needs Ray itself
    with pytest.raises(InputError, match="needs Ray"):
        audit_options({}, config)
    options, _ = audit_options({"executor": "local"}, config)  # the command line wins, the config's cluster goes
    assert (options.executor, options.ray_address) == ("local", None)
