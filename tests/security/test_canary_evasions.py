"""Canaries wherever they land (issue 13): graders that execute model output somewhere else
than the worker's own directories -- after a chdir, in a temporary directory removed before
the call returns, in a fresh interpreter with a working directory of its own (no audit hook
of ours in it), behind a shell ``cd``, in a thread, and graders that remove the markers
afterwards -- each give an executes_model_output finding at the default settings, and
nothing they fired is left on the machine. Real workers, real subprocesses, real audit
hooks; the graders are tests/fixtures/evasive_verifiers.py."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit import canary
from verifier_audit.engine import pool
from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
from verifier_audit.engine.inspection import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite, select

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "evasive_verifiers.py"
CANARIES = (
    "math.security.eval_canary",
    "math.security.sympify_canary",
    "math.security.pi_eval_canary",
    "math.security.text_eval_canary",
    "math.security.process_canary",
    "math.security.exec_canary",
)


def _leftovers(*roots: str) -> list[str]:
    """Every va_canary_* entry under ``roots`` (the whole tree) and at / (top level)."""
    found = [os.path.join("/", n) for n in os.listdir("/") if n.startswith(canary.PREFIX)]
    for root in roots:
        for where, dirs, files in os.walk(root):
            found += [os.path.join(where, n) for n in dirs + files if n.startswith(canary.PREFIX)]
    return found


@pytest.fixture(scope="module")
def outside():
    """The directory outside the workers' own where the graders make theirs (VA_EVASION_DIR)."""
    with tempfile.TemporaryDirectory(prefix="va-evasion-") as d, pytest.MonkeyPatch.context() as mp:
        mp.setenv("VA_EVASION_DIR", d)
        yield d


@pytest.fixture(scope="module")
def evasion_audit(outside):
    """grader name -> Report on the math canary categories of 3 tasks, default settings
    (but no probes: they would rescore the same calls)."""
    # One worker: markers that two workers drop into one shared directory at the same time
    # (the root, say) may be credited to the other's call (docs/canaries.md, blind spots).
    # At the process level: the evasions write where the verifier may (at namespaces those
    # places are read-only or private, and closed to its uid: tests/security/test_isolation.py).
    options = AuditOptions(
        workers=1,
        progress=False,
        probe_sample=0,
        origins=("known_bad",),
        cache_dir=default_cache_dir(),
        isolation="process",
    )
    loaded = load_suite("math")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 3), options)
    prepared = dataclasses.replace(prepared, candidates=[c for c in prepared.candidates if c.category in CANARIES])
    assert {c.category for c in prepared.candidates} == set(CANARIES)
    done = {}

    def get(name: str):
        if name not in done:
            done[name] = audit(
                prepared, [resolve(f"{FIXTURES}:{name}", isolation="process", pass_env=("VA_EVASION_DIR",))], options
            )[0]
        return done[name]

    return get


def _findings(report) -> dict[str, list[str]]:
    """catalog entry -> details of its executes_model_output findings (other kinds, such as
    a fresh interpreter's reads outside the worker, are other checks' business)."""
    out: dict[str, list[str]] = {}
    for f in report.security_findings:
        if f.kind != "executes_model_output":
            continue
        out.setdefault(f.candidate_id.split("/")[-1].rsplit("-", 1)[0], []).append(f.detail)
    return out


# grader -> (catalog entries that must fire, evidence every exec_chr_canary finding shows).
# exec_chr_canary is the hard one: its text names no marker (chr-built), so in a fresh
# interpreter only the effect can show it.
EVASIONS = {
    "eval_after_chdir": ({"eval_canary", "exec_chr_canary", "system_canary"}, "exec of code compiled from a string"),
    "eval_at_root": ({"eval_canary", "exec_chr_canary", "system_canary"}, "exec of code compiled from a string"),
    "eval_in_removed_tempdir": ({"eval_canary", "exec_chr_canary", "system_canary"}, "exec of code compiled"),
    "eval_in_removed_outside_tempdir": ({"eval_canary", "exec_chr_canary", "system_canary"}, "exec of code compiled"),
    "python_in_a_subprocess": (
        {"eval_canary", "exec_chr_canary", "system_canary"},
        "the working directory of a process it started)",
    ),
    "isolated_python_in_removed_tempdir": (
        {"eval_canary", "exec_chr_canary", "system_canary"},
        "removed by the verifier after it was made (audit hook)",
    ),
    "python_behind_a_shell_cd": ({"eval_canary", "exec_chr_canary", "system_canary"}, "(named in a command it ran)"),
    "eval_in_a_thread": ({"eval_canary", "exec_chr_canary", "system_canary"}, "exec of code compiled"),
    "eval_then_remove_markers": (
        {"eval_canary", "exec_chr_canary", "system_canary"},
        "removed by the verifier after it was made (audit hook)",
    ),
    "subprocess_then_remove_markers": (
        {"eval_canary", "exec_chr_canary", "system_canary"},
        "removed by the verifier after it was made (audit hook)",
    ),
}


@pytest.mark.parametrize("grader", sorted(EVASIONS))
def test_each_evasion_gives_a_finding_and_leaves_nothing_behind(evasion_audit, outside, grader):
    report = evasion_audit(grader)
    assert report.error_rate == 0, report.error_messages
    found = _findings(report)
    must, evidence = EVASIONS[grader]
    assert must <= set(found), (grader, sorted(found))
    # Every candidate of those entries, every time: one finding per call.
    per_entry = {e: len(found[e]) for e in must}
    assert len(set(per_entry.values())) == 1 and min(per_entry.values()) == 3, per_entry  # 3 tasks each
    assert all(evidence in d for d in found["exec_chr_canary"]), found["exec_chr_canary"]
    assert not report.gate.passed and any("security" in r for r in report.gate.reasons)
    assert _leftovers(outside) == []


def test_the_shell_route_is_seen_where_the_shell_ran(evasion_audit):
    # os.system('mkdir ...') after the chdir: the event names the marker, and the directory
    # it landed in is searched (and cleaned) too.
    details = _findings(evasion_audit("eval_after_chdir"))["system_canary"]
    assert all("os.system (audit hook)" in d and "a directory the verifier moved to" in d for d in details), details


def test_a_fresh_interpreter_is_seen_by_its_effect_not_by_a_hook(evasion_audit):
    found = _findings(evasion_audit("python_in_a_subprocess"))
    # The literal marker is in the child's argv (the parent's hook sees the Popen); the chr
    # form is not, and is found in the child's working directory alone.
    assert all("subprocess.Popen (audit hook)" in d for d in found["eval_canary"]), found["eval_canary"]
    assert not any("audit hook" in d for d in found["exec_chr_canary"]), found["exec_chr_canary"]


# ------------------------------------------------------------------ what is not this call's


class _Moves:
    """Moves into ``where`` and optionally fires a canary there (item 1), or does nothing
    there (item 0); the worker must credit only what happened during the call."""

    def __init__(self, where: str, token: str, form: str = "open"):
        self.where, self.token, self.form = where, token, form

    def setup(self) -> None:
        pass

    def __call__(self, item: int):
        os.chdir(self.where)
        if item:
            eval(canary.payload(self.token, self.form))  # noqa: S307 - the canary under test
        return item


def test_an_old_marker_in_a_shared_directory_is_not_credited_to_a_call(outside):
    stale = os.path.join(outside, f"{canary.PREFIX}{canary.make_token('stale')}")
    os.mkdir(stale)
    time.sleep(0.05)  # older than the call by more than a tick of the clock files are stamped with
    token = canary.make_token("fresh")
    outs = list(pool.run(_Moves(outside, token), [0, 1], workers=1, timeout=20))
    assert all(o.ok for o in outs), [o.error for o in outs]
    by_item = {o.index: o.security for o in outs}
    assert by_item[0] == []  # it moved where a marker was, and ran nothing
    assert len(by_item[1]) == 1 and f"{canary.PREFIX}{token}" in by_item[1][0], by_item
    assert os.path.isdir(stale)  # not ours to remove: it was there before the call
    os.rmdir(stale)
    assert _leftovers(outside) == []


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.text("abcXYZ019-. ", min_size=1, max_size=12).filter(lambda s: s not in (".", "..")), min_size=1, max_size=3
    ),
    st.sampled_from(("mkdir", "open", "exec", "system")),
    st.text(min_size=1, max_size=20),
)
def test_a_canary_fired_after_a_chdir_anywhere_is_found_and_removed(outside, parts, form, seed):
    where = os.path.join(outside, *parts)
    os.makedirs(where, exist_ok=True)
    token = canary.make_token(seed, form)
    outs = list(pool.run(_Moves(where, token, form), [1], workers=1, timeout=20))
    assert outs[0].ok, outs[0].error
    assert len(outs[0].security) == 1 and outs[0].security[0].startswith(
        f"executes_model_output:{canary.PREFIX}{token}: "
    ), outs[0].security
    assert _leftovers(outside) == []
