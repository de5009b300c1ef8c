"""Issue 31 item 1: the results file's fingerprint covers everything that changes what the
verifier receives or how its answers are read, so that no resume reuses, and no run
overwrites, the verdicts of other settings (engine/audit.py ``run_settings``,
engine/store.py).

End to end through the real command on a tiny suite written here, whose two reference
fields ``final`` and ``alt`` disagree (so the two mappings give other verdicts), with one
audit shared by the tests (``--limit 2``); the rest is a property of ``run_settings``."""

import dataclasses
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_support import ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.engine.audit import NOT_FINGERPRINTED, run_settings
from verifier_audit.engine.options import AuditOptions, Prepared
from verifier_audit.engine.slices import SliceWeights
from verifier_audit.engine.store import fingerprint, settings_difference
from verifier_audit.isolation import resolve_level
from verifier_audit.loading import VerifierSpec
from verifier_audit.models import Candidate, GateConfig, Task

pytestmark = pytest.mark.slow

SUITE = [
    {"id": "t1", "prompt": "What is 2+3?", "final": "5", "alt": "7"},
    {"id": "t2", "prompt": "What is 4*4?", "final": "16", "alt": "12"},
]
VERIFIER = '''
def grade(completion, reference):
    """Pays a completion that ends with the reference."""
    return 1.0 if completion.strip().rstrip(".").endswith(reference) else 0.0


def also_grade(completion, reference):
    """The same, under another name: a second entry of the config."""
    return grade(completion, reference)
'''


def _results_path(run) -> Path:
    """The results file a run names on stderr ("results: PATH")."""
    lines = [line for line in run.stderr.splitlines() if line.startswith("results: ")]
    assert len(lines) == 1, run.stderr
    return Path(lines[0][len("results: ") :])


def _header(path: Path) -> dict:
    return json.loads(path.read_text().splitlines()[0])


# No test here is about the probes or the pool: one worker (a second is a start-up more per
# run), no determinism or format probe; the same for every run, so no difference they make.
QUICK = ("--no-progress", "--probe-sample", "0", "--no-format-probe", "--workers", "1")


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    """One audit of the tiny suite read with ``--field reference=final`` into the default
    results path (made from the fingerprint), and a way to run the command again."""
    work = tmp_path_factory.mktemp("resume")
    suite, verifier = work / "suite.jsonl", work / "grade.py"
    suite.write_text("".join(json.dumps(row) + "\n" for row in SUITE))
    verifier.write_text(VERIFIER)
    env = {"VERIFIER_AUDIT_CACHE": str(work / "cache")}
    base = [
        "run",
        "--suite",
        str(suite),
        "--verifier",
        f"{verifier}:grade",
        "--limit",
        "2",
        *QUICK,
    ]

    def again(*args):
        return run_cli(*base, *args, env=env)

    first = again("--field", "reference=final", "--json", str(work / "final.json"))
    assert first.returncode in (0, 1), first.stderr
    return SimpleNamespace(
        work=work,
        again=again,
        results=_results_path(first),
        report=work / "final.json",
        suite=suite,
        verifier=verifier,
        env=env,
    )


def test_a_resume_after_a_mapping_change_is_refused_naming_the_mapping(audit):
    before = audit.results.read_bytes()
    r = audit.again("--field", "reference=alt", "--results", str(audit.results), "--resume")
    assert r.returncode == 2, r.stdout + r.stderr
    assert 'fields (--field) was ["reference=final"], now ["reference=alt"]' in r.stderr
    assert "run without --resume" in r.stderr and str(audit.results) in r.stderr
    assert audit.results.read_bytes() == before  # refused, not touched


def test_the_other_mapping_gets_its_own_candidates_verdicts_and_file(audit):
    r = audit.again("--field", "reference=alt", "--json", str(audit.work / "alt.json"))
    assert r.returncode in (0, 1), r.stderr
    alt = _results_path(r)
    assert alt != audit.results
    old, new = _header(audit.results)["settings"], _header(alt)["settings"]
    # The candidate cache keys on the tasks as read: the alt references make other candidates.
    assert old["candidates_hash"] != new["candidates_hash"]
    assert old["tasks_hash"] != new["tasks_hash"]
    final, other = (json.loads(p.read_text()) for p in (audit.report, audit.work / "alt.json"))
    assert final["coverage_debt"] != other["coverage_debt"] or final["categories"] != other["categories"]


def test_a_search_run_does_not_overwrite_the_plain_runs_results(audit):
    before = audit.results.read_bytes()
    r = audit.again("--field", "reference=final", "--search", "30")
    assert r.returncode in (0, 1), r.stderr
    searched = _results_path(r)
    assert searched != audit.results and searched.is_file()
    assert _header(searched)["settings"]["search"] == 30
    assert audit.results.read_bytes() == before


def test_a_fresh_run_into_another_audits_results_is_refused(audit):
    before = audit.results.read_bytes()
    r = audit.again("--field", "reference=final", "--threshold", "0.7", "--results", str(audit.results))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "threshold (--threshold) was 0.5, now 0.7" in r.stderr
    assert "a new path" in r.stderr and "delete this file" in r.stderr
    assert audit.results.read_bytes() == before


def test_a_restart_with_the_same_settings_is_allowed(audit):
    header = _header(audit.results)
    r = audit.again("--field", "reference=final", "--results", str(audit.results))
    assert r.returncode in (0, 1), r.stderr
    assert _header(audit.results) == header


def test_groups_of_other_settings_told_one_results_file_each_get_their_own(audit):
    # Two verifiers of other thresholds are two groups (plan.make_groups); --results FILE
    # gives the second FILE-2, where it used to write over the first group's verdicts.
    config = audit.work / "pyproject.toml"
    config.write_text(
        f'[[tool.verifier_audit.verifiers]]\nspec = "{audit.verifier}:grade"\n\n'
        f'[[tool.verifier_audit.verifiers]]\nspec = "{audit.verifier}:also_grade"\nthreshold = 0.7\n'
    )
    results = audit.work / "groups.jsonl"
    args = [
        "run",
        "--suite",
        str(audit.suite),
        "--field",
        "reference=final",
        "--limit",
        "2",
        *QUICK,
        "--config",
        str(config),
        "--results",
        str(results),
    ]
    r = run_cli(*args, env=audit.env)
    assert r.returncode in (0, 1), r.stderr
    second = audit.work / "groups-2.jsonl"
    thresholds = [_header(p)["settings"]["threshold"] for p in (results, second)]
    assert thresholds == [0.5, 0.7]
    r = run_cli(*args, "--resume", env=audit.env)  # each group resumes from its own file
    assert r.returncode in (0, 1), r.stderr


def test_a_results_file_of_an_older_header_is_refused_on_resume(audit):
    # What verifier-audit wrote before issue 31: the same header without the new keys.
    new_keys = (
        "domain",
        "format",
        "fields",
        "db_dir",
        "tasks_hash",
        "threshold",
        "answer_formats",
        "search",
        "oracle_timeout",
    )
    old = audit.work / "older.jsonl"
    shutil.copy(audit.results, old)
    lines = old.read_text().splitlines()
    header = json.loads(lines[0])
    header["settings"] = {k: v for k, v in header["settings"].items() if k not in new_keys}
    header["fingerprint"] = fingerprint(header["settings"])
    old.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    r = audit.again("--field", "reference=final", "--results", str(old), "--resume")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "written by an older verifier-audit that did not record" in r.stderr
    assert "fields (--field)" in r.stderr and "run without --resume" in r.stderr


def test_the_difference_names_the_flags_first_and_clips_long_values():
    old = {"seed": 0, "candidates_hash": "a" * 16, "verifier_sources": ["x" * 200]}
    new = {"seed": 7, "candidates_hash": "b" * 16, "verifier_sources": ["y" * 200]}
    said = settings_difference(old, new)
    assert said.index("seed (--seed) was 0, now 7") < said.index("candidates_hash")
    assert len(said) < 400 and "…" in said


# --- the property: what is fingerprinted, and what is not ---------------------------------

SPEC = VerifierSpec(spec=f"{ROOT / 'examples' / 'math_verifiers.py'}:substring", name="substring", style="native")
TASKS = [Task(id=f"t{i}", domain="math", prompt=f"What is {i}+1?", reference=str(i + 1)) for i in range(2)]
CANDIDATES = [
    Candidate(
        id=f"t{i}/c",
        task_id=f"t{i}",
        text=f"The answer is {i + 1}.",
        origin="equivalent",
        category="math.equivalent.plain",
        label="correct",
    )
    for i in range(2)
]
BASE = (
    Prepared(
        "suite.jsonl",
        "abc",
        "math",
        TASKS,
        CANDIDATES,
        [],
        None,
        None,
        {"format": "jsonl", "fields": ["reference=final"], "db_dir": None},
    ),
    [SPEC],
    AuditOptions(),
)


def _option(name, values):
    return (lambda p, s, o, v: (p, s, dataclasses.replace(o, **{name: v}))), values


def _prepared(**change):
    return lambda p, s, o, v: (dataclasses.replace(p, **{k: f(p, v) for k, f in change.items()}), s, o)


def _spec(name, values):
    return (lambda p, s, o, v: (p, [dataclasses.replace(s[0], **{name: v})], o)), values


# Each fingerprinted setting: how to change it, and values other than BASE's.
FINGERPRINTED = {
    "seed": _option("seed", st.integers(1, 10**6)),
    "timeout": _option("timeout", st.floats(0.1, 9.9)),
    "oracle_timeout": _option("oracle_timeout", st.floats(0.1, 9.9)),
    "memory_mb": _option("memory_mb", st.sampled_from([None, 512, 8192])),
    "threshold": _option("threshold", st.floats(0.0, 1.0).filter(lambda x: x != 0.5)),
    "origins": _option("origins", st.sampled_from([("near_miss",), ("known_bad", "equivalent")])),
    "answer_formats": _option("answer_formats", st.just(False)),
    "isolation": _option(
        "isolation",
        st.sampled_from([level for level in ("none", "process", "namespaces") if level != resolve_level(None)]),
    ),
    "search": _option("search", st.integers(1, 5000)),
    "source_guided": _option("source_guided", st.just(False)),
    "fields": (
        _prepared(reading=lambda p, v: {**p.reading, "fields": v}),
        st.lists(st.sampled_from(["reference=alt", "prompt=question", "reference=answer"]), min_size=1),
    ),
    "format": (_prepared(reading=lambda p, v: {**p.reading, "format": v}), st.sampled_from(["gsm8k", "math"])),
    "db_dir": (_prepared(reading=lambda p, v: {**p.reading, "db_dir": v}), st.text(min_size=1)),
    "dialect": (_prepared(reading=lambda p, v: {**p.reading, "dialect": v}), st.sampled_from(["sqlite", "duckdb"])),
    "repo_dir": (_prepared(reading=lambda p, v: {**p.reading, "repo_dir": v}), st.text(min_size=1)),
    "tasks": (
        _prepared(tasks=lambda p, v: [p.tasks[0].model_copy(update={"reference": v}), *p.tasks[1:]]),
        st.text().filter(lambda x: x != "1"),
    ),
    "candidates": (
        _prepared(candidates=lambda p, v: [p.candidates[0].model_copy(update={"text": v}), *p.candidates[1:]]),
        st.text().filter(lambda x: x != "The answer is 1."),
    ),
    "suite": (_prepared(suite_name=lambda p, v: v), st.text().filter(lambda x: x != "suite.jsonl")),
    "suite_hash": (_prepared(suite_hash=lambda p, v: v), st.text().filter(lambda x: x != "abc")),
    "split": (_prepared(split=lambda p, v: v), st.sampled_from(["train", "heldout", "shifted"])),
    "limit": (_prepared(limit=lambda p, v: v), st.integers(1, 100)),
    "style": _spec("style", st.sampled_from(["verl", "trl", "pair"])),
    "verifier options": _spec(
        "options",
        st.lists(st.tuples(st.text(min_size=1), st.text()), min_size=1).map(lambda pairs: tuple(sorted(pairs))),
    ),
    "part": _spec("part", st.text(min_size=1)),
}

# Each option left out: values other than BASE's, which must not change the fingerprint.
NOT_CHANGING = {
    "workers": st.integers(1, 64),
    "executor": st.just("ray"),
    "ray_address": st.text(min_size=1),
    "progress": st.booleans(),
    "quiet_workers": st.just(False),
    "probe_sample": st.integers(0, 500),
    "gate": st.builds(GateConfig, max_debt=st.floats(0, 1), waived_categories=st.lists(st.text())),
    "enforce_gate": st.just(False),
    "weights": st.just(SliceWeights("mine.jsonl", "topic", {"topic:algebra": 1.0})),
    "slice_field": st.text(min_size=1).filter(lambda x: x != "slice"),
    "cache_dir": st.just(Path("/elsewhere")),
    "file_mb": st.sampled_from([None, 1, 64]),
    "max_processes": st.sampled_from([None, 1, 64]),
    "results": st.just(Path("/elsewhere/results.jsonl")),
    "resume": st.just(True),
}


def _fp(prepared, specs, options) -> str:
    return fingerprint(run_settings(prepared, specs, options))


def test_every_option_is_either_fingerprinted_or_said_to_change_no_verdict():
    names = {f.name for f in dataclasses.fields(AuditOptions)}
    assert set(NOT_FINGERPRINTED) <= names
    assert names - set(NOT_FINGERPRINTED) <= set(FINGERPRINTED)  # a new option must be classified
    assert set(NOT_CHANGING) == set(NOT_FINGERPRINTED)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_changing_one_fingerprinted_setting_changes_the_fingerprint(data):
    name = data.draw(st.sampled_from(sorted(FINGERPRINTED)), label="setting")
    change, values = FINGERPRINTED[name]
    assert _fp(*change(*BASE, data.draw(values, label=name))) != _fp(*BASE), name


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_changing_an_option_left_out_keeps_the_fingerprint(data):
    name = data.draw(st.sampled_from(sorted(NOT_CHANGING)), label="option")
    options = dataclasses.replace(BASE[2], **{name: data.draw(NOT_CHANGING[name], label=name)})
    assert _fp(BASE[0], BASE[1], options) == _fp(*BASE), name


@pytest.mark.parametrize("suite", ["sql", "code"])
def test_the_fingerprint_does_not_depend_on_the_cache_folder_or_timings(suite, tmp_path):
    """The SQL domain adds database paths under the cache folder to its tasks, the code domain
    the timings of its reference runs: neither may change the fingerprint, or a resume (or
    a run on another machine's cache) would be refused for nothing."""
    from verifier_audit.engine.audit import prepare
    from verifier_audit.suites import load_suite, select

    loaded = load_suite(suite)
    tasks = select(loaded, None, 1)
    prints = set()
    for k in range(2):
        options = AuditOptions(cache_dir=tmp_path / f"cache{k}", workers=1)
        prepared = prepare(loaded.name, loaded.content_hash, tasks, options, reading={"format": "jsonl", "fields": []})
        prints.add(fingerprint(run_settings(prepared, [SPEC], options)))
    assert len(prints) == 1
