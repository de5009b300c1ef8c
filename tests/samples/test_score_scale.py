"""``score`` at scale (issue 17): samples streamed in blocks, memory bounded by the block.

* The Report built from a stream of verdicts (``report/tally.py``) is the one
  ``build_report`` builds from all of them at once, byte for byte, on any input (Hypothesis).
* ``score`` on 10,000 samples in blocks of 1,250 never holds more than a few blocks' worth of
  ``Candidate``, ``Sample`` or ``Verdict`` objects (counted with ``gc`` after every block of
  every pass), and its figures are the ones the samples were built to give.
* The same samples scored in any block size give the same reports and samples sections as
  one block; a resume in another block size gives the uninterrupted run's report.
No test here asserts a time.
"""

from __future__ import annotations

import gc
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_samples_score import SUBSTRING, base_texts, refs, rl_texts, write_samples_file  # noqa: F401 - refs: a fixture

from verifier_audit.engine.audit import AuditOptions, Prepared, candidates_hash
from verifier_audit.errors import InputError
from verifier_audit.loading import resolve
from verifier_audit.metrics import wilson
from verifier_audit.models import Candidate, Checks, DroppedCandidate, GateConfig, Task, Verdict, to_json
from verifier_audit.report.build import build_report
from verifier_audit.report.tally import ReportTally
from verifier_audit.samples.records import Manifest, Sample, manifest_line, read_samples
from verifier_audit.samples.score import files as score_files
from verifier_audit.samples.score import probe_pool, score_samples
from verifier_audit.suites import load_suite

STRONG = "verifier_audit.domains.math.verifiers:strong"

# ------------------------------------------------------------------ the tally is build_report

TASKS = [
    Task(id=f"t{i}", domain="math", prompt="p", reference=str(i), split=("train", "heldout", "shifted")[i % 3])
    for i in range(4)
]
ERRORS = [
    "timeout after 10s",
    "crash: exit code 1",
    "ValueError: bad",
    "ValueError: worse",
    "KeyError: 'x'",
    "ScoreOutOfRange: returned nan; a score is a finite number",
]  # counted in out_of_range too
SECURITY = ["executes_model_output:canary 1", "unobserved:network", "modified_fixture:db"] + [
    f"unobserved:spot {j:02d}" for j in range(30)
]  # more distinct spots than a report lists


@st.composite
def audits(draw):
    n = draw(st.integers(0, 40))
    candidates, verdicts = [], {}
    for i in range(n):
        origin = draw(st.sampled_from(["sampled", "near_miss", "known_bad", "equivalent"]))
        c = Candidate(
            id=f"c{draw(st.integers(0, 3))}-{i}",
            task_id=draw(st.sampled_from(TASKS)).id,
            text=draw(st.sampled_from(["a", "b" * 500, "c\ud800"])),
            origin=origin,
            category=f"math.{origin}.{draw(st.sampled_from(['x', 'y']))}",
            severity=draw(st.sampled_from(["low", "medium", "high", "critical"])),
            label=draw(st.sampled_from(["correct", "incorrect"])),
            note=f"n{i}",
            slices=draw(st.lists(st.sampled_from(["answer:int", "answer:frac", "size:big"]), unique=True, max_size=2)),
        )
        candidates.append(c)
        if draw(st.integers(0, 9)) == 0:
            continue  # no verdict: left out of the report
        security = draw(st.lists(st.sampled_from(SECURITY), max_size=3))
        if draw(st.booleans()):
            verdicts[c.id] = Verdict(
                verifier="v",
                candidate_id=c.id,
                status="ok",
                security=security,
                score=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, -1.0])),
            )
        else:
            verdicts[c.id] = Verdict(
                verifier="v", candidate_id=c.id, status="error", security=security, error=draw(st.sampled_from(ERRORS))
            )
    dropped = [
        DroppedCandidate(
            id=f"d{i}",
            task_id=draw(st.sampled_from(TASKS)).id,
            category="math.near_miss.x",
            reason=draw(st.sampled_from(["equivalent_mutant", "oracle_unknown"])),
        )
        for i in range(draw(st.integers(0, 3)))
    ]
    return candidates, verdicts, dropped


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(audits(), st.sampled_from([0.5, 0.3]))
def test_the_tally_of_a_stream_is_the_report_of_the_whole(audit, threshold):
    candidates, verdicts, dropped = audit
    if len({c.id for c in candidates}) < len(candidates):
        return  # ids are unique in an audit
    prepared = Prepared("s", "h", "math", TASKS, candidates, dropped)
    options = AuditOptions(threshold=threshold, gate=GateConfig(min_slice_n=2))
    spec = resolve(STRONG)
    checks = Checks(sample=0, thread_count=4)
    whole = build_report(prepared, spec, verdicts, options, {"suite": "s"}, checks=checks)
    tally = ReportTally({t.id: t for t in TASKS}, threshold)
    for c in candidates:
        if c.id in verdicts:
            tally.add(c, verdicts[c.id])
    streamed = tally.report(
        spec,
        options,
        {"suite": "s"},
        suite="s",
        dropped=prepared.dropped_counts,
        equivalent=Counter(d.task_id for d in dropped if d.reason == "equivalent_mutant"),
        checks=checks,
    )
    assert to_json(streamed) == to_json(whole)


# --------------------------------------------------------------- reading: one bit per sample


def test_duplicates_are_found_without_a_dict_of_samples_and_name_both_lines(tmp_path):
    manifest = Manifest(model="m", model_name="m", suite="math", task_count=1, tool_version="t", source="import:jsonl")
    rows = [dict(task_id="math-0001", sample_index=i, model="m", prompt="p", text="x") for i in (0, 9, 5_000_000, 9)]
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join([manifest_line(manifest)] + [json.dumps(r) for r in rows]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"d.jsonl:5: duplicate sample 'math-0001' #9 \(first on line 3\)"):
        read_samples(path)


def test_plain_json_fields_agree_with_the_validated_sample():
    line = json.dumps({"task_id": "t", "sample_index": 2, "model": "m", "prompt": "p", "text": "x"})
    assert score_files.line_fields(Path("f"), 2, line) == ("t", 2, "m", "x", None)
    coerced = json.dumps(
        {"task_id": "t", "sample_index": 2.0, "model": "m", "prompt": "p", "text": "x", "source": "a:1"}
    )
    assert score_files.line_fields(Path("f"), 2, coerced) == (
        "t",
        2,
        "m",
        "x",
        "a:1",
    )  # as pydantic reads 2.0: the index 2


# ------------------------------------------------------------ 10,000 samples, blocks of 1,250

# Eight blocks of each pass, as with 20,000 in blocks of 2,500 (half the CPU): the bound below
# (three blocks and the probes' pool) stays under half of N, and a kind held whole reaches N.
N, BLOCK, TASK_IDS = 10_000, 1_250, 50
VERIFIER = (
    'def verify(completion, reference):\n    return 1.0 if ("\\\\boxed{" + reference + "}") in completion else 0.0\n'
)


def _kind(i: int) -> str:
    return ("right", "right", "right", "wrong", "hedge")[i % 5] if i % 50 else "own"


def _text(kind: str, r: str, i: int) -> str:
    return {
        "right": f"\\boxed{{{r}}}",
        "wrong": f"\\boxed{{{r}1}}",
        "hedge": f"\\boxed{{{r}}} or \\boxed{{{r}1}}",
        "own": f"Step {i}: \\boxed{{{r}}}",
    }[kind]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """N samples of two models on TASK_IDS math tasks with integer references: of every 5, 3
    right, 1 wrong, 1 hedge (the verifier pays it); every 50th is a text of its own (right)."""
    d = tmp_path_factory.mktemp("big")
    tasks = [t for t in load_suite("math").tasks if t.reference.isdigit()][:TASK_IDS]
    paths = []
    for name, role, offset in (("base", "base", 0), ("rl", "rl", N // 2)):
        manifest = Manifest(
            model=name,
            model_name=name,
            suite="math",
            task_count=len(tasks),
            tool_version="t",
            source="import:jsonl",
            role=role,
        )
        lines = [manifest_line(manifest)]
        index = Counter()
        for i in range(offset, offset + N // 2):
            t = tasks[i % len(tasks)]
            lines.append(
                json.dumps(
                    {
                        "task_id": t.id,
                        "sample_index": index[t.id],
                        "split": t.split,
                        "model": name,
                        "prompt": "p",
                        "text": _text(_kind(i), t.reference, i),
                    }
                )
            )
            index[t.id] += 1
        path = d / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    verifier = d / "v.py"
    verifier.write_text(VERIFIER, encoding="utf-8")
    return d, paths, f"{verifier}:verify"


def _live() -> dict[str, int]:
    counts = Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        if kind is Candidate or kind is Sample or kind is Verdict:
            counts[kind.__name__] += 1
    return counts


def test_ten_thousand_samples_in_blocks_hold_a_few_blocks_of_objects(big):
    d, (base, rl), verifier = big
    peaks: Counter = Counter()
    blocks: Counter = Counter()
    # What other tests left alive in this process (a worker of pytest-xdist runs many files)
    # is not this run's: counted from here.
    before = _live()

    def on_block(phase: str, number: int) -> None:
        blocks[phase] += 1
        for kind, n in _live().items():
            peaks[kind] = max(peaks[kind], n - before[kind])

    # One worker: each block of each pass is a pool start, and a second worker there is a
    # start-up more per block; what is bounded here is the objects of this process.
    options = AuditOptions(workers=1, probe_sample=4, progress=False, results=d / "results.jsonl")
    result = score_samples([rl], [resolve(verifier)], options, base=[base], block_size=BLOCK, on_block=on_block)
    assert blocks == {"label": N // BLOCK, "audit": N // BLOCK}
    # Counted at the end of each block of each pass, while the block is still referenced: its
    # candidates (the verifier's view is the same objects here), their verdicts and the probes'
    # pool (a few per category and task). Held whole, each kind would reach N.
    bound = 3 * BLOCK + 500
    assert max(peaks.values()) <= bound < N / 2, peaks
    assert peaks["Sample"] <= 2  # samples are parsed one line at a time, none kept
    report, section = result.reports[0], result.sections[0]
    assert report.n_candidates == N and section.samples == N and section.undecidable == 0
    wrong = sum(_kind(i) in ("wrong", "hedge") for i in range(N))
    hedges = sum(_kind(i) == "hedge" for i in range(N))
    assert (section.accepted_but_wrong, section.rejected_but_right) == (hedges, 0)
    assert round(report.false_acceptance_rate * wrong) == hedges and report.false_acceptance_ci == wilson(hedges, wrong)
    by_model = {g.name: g for g in section.by_model}
    assert by_model["rl"].samples == by_model["base"].samples == N // 2
    assert len(section.disagreements) == 50  # the first max_listed of the kind that has any
    assert report.checks.determinism.sampled == 4 and report.checks.determinism.disagreed == 0
    assert sum(report.checks.splits.values()) == N
    # every verdict is in the results file, as before
    with options.results.open() as fh:
        assert sum(1 for _ in fh) == N + 1


# ------------------------------------------------------------- any block size, same report


@pytest.fixture(scope="module")
def small(refs, tmp_path_factory):  # noqa: F811 - refs is the fixture of test_samples_score
    d = tmp_path_factory.mktemp("small")
    return (
        d,
        write_samples_file(d / "base.jsonl", "base-7b", base_texts(refs)),
        write_samples_file(d / "rl.jsonl", "qwen2.5-rl", rl_texts(refs)),
    )


def _score(d: Path, rl: Path, base: Path, block: int, name: str, probes: int = 0, **kw):
    """One worker: a block is a pool start, and what these tests compare is the blocks, not
    the pool (tests/samples/test_samples_score.py scores with two)."""
    options = AuditOptions(workers=1, probe_sample=probes, progress=False, results=d / name, **kw)
    return score_samples([rl], [resolve(SUBSTRING)], options, base=[base], block_size=block)


@pytest.fixture(scope="module")
def one_block(small):
    d, base, rl = small
    return _score(d, rl, base, 10_000, "one.jsonl", probes=3)


def _timeless(result) -> dict:
    """A result's JSON but for the call times (Report.latency), which two runs of the same
    samples never share, and the flip probe's counts (checks.nondeterminism): past a block,
    the probes pick from ProbePool's bounded sample, and how many of its candidates are
    flip-prone (partial scores, misjudged, near-misses) depends on which are in it -- the
    determinism probe's counts do not, it takes probe_sample of them either way."""
    data = json.loads(result.to_json())
    for report in data["reports"]:
        report["latency"] = None
        if report["checks"] is not None:
            report["checks"]["nondeterminism"] = None
    return data


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(block=st.integers(3, 29))  # 3 to 10 blocks of the 30 samples (a block is a pool start)
def test_any_block_size_gives_the_one_block_reports_and_sections(small, one_block, block):
    d, base, rl = small
    blocked = _score(d, rl, base, block, f"b{block}.jsonl", probes=3)
    assert _timeless(blocked) == _timeless(one_block)


def test_the_streamed_candidates_hash_is_the_engines(small, one_block):
    """The results file's fingerprint holds the candidates' hash, summed one candidate at a
    time: it is ``candidates_hash`` of the candidates the in-memory score built."""
    from verifier_audit.domains import get_domain
    from verifier_audit.samples.importers import sanitize

    d, base, rl = small
    tasks = {t.id: t for t in load_suite("math").tasks}
    oracle = get_domain("math")
    cands = []
    for fi, (path, model) in enumerate(((base, "base-7b"), (rl, "qwen2.5-rl"))):
        for s in read_samples(path).samples:
            label = oracle.label(s.text, tasks[s.task_id]).label
            cands.append(
                Candidate(
                    id=f"{fi}:{s.task_id}#{s.sample_index}",
                    task_id=s.task_id,
                    text=s.text,
                    origin="sampled",
                    label=label,
                    category=f"math.sampled.{sanitize(model)}.{tasks[s.task_id].split}.{label}",
                )
            )
    settings_ = one_block.reports[0].settings
    assert settings_["n_candidates"] == len(cands) == 30
    assert settings_["candidates_hash"] == candidates_hash(cands)


def test_a_resume_in_another_block_size_gives_the_uninterrupted_report(small, one_block, capsys):
    d, base, rl = small
    first = _score(d, rl, base, 4, "resumed.jsonl")
    path = first.results_path
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:12]))  # the header and 11 verdicts: interrupted
    again = _score(d, rl, base, 7, "resumed.jsonl", resume=True)
    after = path.read_text().splitlines()
    assert len(after) == len(lines) and after[:12] == [line.rstrip("\n") for line in lines[:12]]  # 19 calls redone
    assert _timeless(again) == _timeless(first)
    assert (
        json.loads(again.to_json())["reports"][0]["categories"]
        == json.loads(one_block.to_json())["reports"][0]["categories"]
    )
    assert "warning" not in capsys.readouterr().err


def test_a_file_that_changes_while_it_is_read_is_an_input_error(small, tmp_path):
    d, base, rl = small
    mine = tmp_path / "rl.jsonl"
    mine.write_bytes(rl.read_bytes())

    def grow(phase: str, number: int) -> None:
        if phase == "label" and number == 0:
            with mine.open("a", encoding="utf-8") as fh:
                fh.write(
                    json.dumps(
                        {
                            "task_id": "math-0001",
                            "sample_index": 99,
                            "model": "qwen2.5-rl",
                            "prompt": "p",
                            "text": "\\boxed{1}",
                        }
                    )
                    + "\n"
                )

    options = AuditOptions(workers=1, probe_sample=0, progress=False, results=tmp_path / "r.jsonl")
    with pytest.raises(InputError, match="changed while score was reading it"):
        score_samples([mine], [resolve(SUBSTRING)], options, block_size=5, on_block=grow)


GSM8K_ONLY = (
    "import re\n\ndef verify(completion, reference):\n"
    '    m = re.search(r"#### (\\S+)\\s*$", completion)\n'
    "    return 1.0 if m and m.group(1) == reference else 0.0\n"
)


def test_candidates_rewritten_into_the_verifiers_format_block_by_block_as_in_one(small, tmp_path):
    """A verifier that reads only '#### n' is shown every block rewritten into that format
    (and relabelled by the oracle), with the rewrite's counts summed over the blocks."""
    d, base, rl = small
    verifier = tmp_path / "gsm8k_only.py"
    verifier.write_text(GSM8K_ONLY, encoding="utf-8")
    out = {}
    for block in (10_000, 7):
        options = AuditOptions(workers=1, probe_sample=0, progress=False, results=tmp_path / f"r{block}.jsonl")
        out[block] = score_samples([rl], [resolve(f"{verifier}:verify")], options, base=[base], block_size=block)
    formats = out[7].reports[0].formats
    assert formats.audited_in == "gsm8k" and formats.rewritten + formats.kept + formats.left_out > 0
    assert _timeless(out[7]) == _timeless(out[10_000])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(TASKS), st.sampled_from([0.0, 1.0, None])), max_size=60),
    st.integers(1, 3),
    st.integers(0, 20),
    st.integers(0, 20),
)
def test_the_probe_pool_past_its_cap_does_not_depend_on_the_cap(stream_, k, cap_a, cap_b):
    """Within its cap the pool is every candidate (the probes choose as in one block); past
    it, the same bounded pool whatever the cap (so whatever the block size)."""
    rows = []
    for i, (cat, task, score) in enumerate(stream_):
        c = Candidate(id=f"c{i}", task_id=task.id, text="x", origin="sampled", category=cat, label="correct")
        v = (
            Verdict(verifier="v", candidate_id=c.id, status="ok", score=score)
            if score is not None
            else Verdict(verifier="v", candidate_id=c.id, status="error", error="timeout after 1s")
        )
        rows.append((c, v))
    base = Prepared("s", "h", "math", TASKS, [], [])
    views = []
    for cap in (cap_a, cap_b):
        pool = probe_pool.ProbePool(cap, k, seed=3)
        for c, v in rows:
            pool.add(c, v)
        view, verdicts = pool.view(base)
        ids = [c.id for c in view.candidates]
        assert set(ids) == set(verdicts) and ids == sorted(ids, key=lambda s: int(s[1:]))  # in stream order
        if len(rows) <= cap:
            assert ids == [c.id for c, _ in rows]
        else:
            for cat in "abc":
                scored = [c.id for c, v in rows if c.category == cat and v.status == "ok"]
                assert len([i for i in ids if i in scored]) >= min(k, len(scored))
            views.append(ids)
    if len(views) == 2:
        assert views[0] == views[1]


def test_the_cli_takes_a_block_size(small, one_block, tmp_path, capsys):
    from test_samples_score import _cli

    d, base, rl = small
    out = tmp_path / "r.json"
    common = [
        "--probe-sample",
        "3",
        "--no-config",
        "--no-progress",
        "--workers",
        "1",
        "--results",
        str(tmp_path / "r.jsonl"),
    ]
    assert (
        _cli(
            [
                "score",
                str(rl),
                "--base",
                str(base),
                "--verifier",
                SUBSTRING,
                *common,
                "--block-size",
                "6",
                "--json",
                str(out),
            ]
        )
        == 1
    )  # the substring verifier fails the gate
    data = json.loads(out.read_text())
    assert data["samples"] == json.loads(one_block.to_json())["samples"]
    with pytest.raises(SystemExit):
        _cli(["score", str(rl), "--verifier", SUBSTRING, *common, "--block-size", "0"])
    assert "--block-size" in capsys.readouterr().err
