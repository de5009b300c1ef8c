"""Canaries the verifier cannot switch off (issue 30, item 3).

The grader of the issue, written here into a file: before each call it replaces
``Tripwires.collect`` and ``Lockdown.sweep`` with ``lambda self: []``, wraps the worker's
``_send`` so that every result goes out with an empty ``fired`` field, closes every
descriptor it did not open (the kernel watch's and the tripwire log's, when they lived in
its process), tries to kill the worker's init and parent, and only then ``eval``s every
boxed answer and ``exec``s every Python block -- then removes the markers. Before the
witness (isolation/_witness.py) it got no finding, ``gate: PASSED`` and "checked: does not
execute model output". Now each route's effect is seen from outside its process: the file
or directory a canary makes, the ``mkdir`` process of the ``system`` form, the import of
``vacanary<token>``. Real workers, real fanotify, real audits on the math catalog's canary
categories, at the default isolation (``namespaces`` as root) and at ``process``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit import canary
from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
from verifier_audit.isolation import _hostwatch as hostwatch
from verifier_audit.isolation import _witness as witness
from verifier_audit.isolation import default_level
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.report.checklist import evaluate
from verifier_audit.suites import load_suite, select

CANARIES = ("math.security.eval_canary", "math.security.process_canary", "math.security.exec_canary")

# The tampering every grader below does before each call (the issue's, and a bit more).
_SWITCH_OFF = '''
import gc, glob, os, re, shutil, signal, sys

_keep = None


def _module(name):
    """The audit's module ``name``, wherever it is: out of ``sys.modules`` (the worker hides
    the audit there), the live one is still on the heap."""
    found = sys.modules.get(name)
    if found is None:
        import types

        found = next((m for m in gc.get_objects() if isinstance(m, types.ModuleType)
                      and getattr(m, "__name__", None) == name and getattr(m, "__file__", None)), None)
    return found


def _switch_off(kill=True):
    global _keep
    tripwires = _module("verifier_audit.isolation._tripwires")
    if tripwires is not None:
        tripwires.Tripwires.collect = lambda self: []
        tripwires._sink = None  # the audit hook writes nowhere
    lockdown = _module("verifier_audit.isolation._lockdown")
    if lockdown is not None:
        lockdown.Lockdown.sweep = lambda self: []
    worker = _module("verifier_audit.engine.worker_main")
    if worker is not None and not getattr(worker._send, "tampered", False):
        send = worker._send

        def _send(conn, message):
            if isinstance(message, list) and len(message) == 6:
                message = message[:5] + [[]]  # the result, without what fired
            send(conn, message)

        _send.tampered = True
        worker._send = _send
    if _keep is None:  # every descriptor but stdio and the pipe its results go out on
        from multiprocessing.connection import Connection

        _keep = {0, 1, 2} | {c.fileno() for c in gc.get_objects() if isinstance(c, Connection) and not c.closed}
    for fd in range(3, 1024):
        if fd not in _keep:
            try:
                os.close(fd)
            except OSError:
                pass
    for pid in {1, os.getppid()} if kill else ():  # the init of its PID namespace: the witness
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _clean_up():
    for path in glob.glob("va_canary_*") + glob.glob(os.path.join(os.environ.get("TMPDIR", "/tmp"), "va_canary_*")):
        shutil.rmtree(path, ignore_errors=True)
'''

_GRADERS = (
    _SWITCH_OFF
    + '''

def runs_everything(completion, reference):
    """Evals every boxed answer and execs every Python block, then hides the markers."""
    _switch_off()
    for block in re.findall(r"```python\\n(.*?)```", completion, re.S):
        try:
            exec(block, {})
        except BaseException:
            pass
    for answer in re.findall(r"\\\\boxed\\{(.*)\\}", completion):
        try:
            eval(answer)
        except BaseException:
            pass
    _clean_up()
    return True


def runs_in_scratch(completion, reference):
    """The same, in a shared temporary directory (behind the lockdown: the worker's private
    scratch, an overlay's upper layer or a tmpfs of its own)."""
    _switch_off()
    here = os.getcwd()
    os.chdir(("/tmp", "/var/tmp", "/dev/shm")[len(completion) % 3])
    try:
        for answer in re.findall(r"\\\\boxed\\{(.*)\\}", completion):
            try:
                eval(answer)
            except BaseException:
                pass
        _clean_up()
    finally:
        os.chdir(here)
    return True


def dies_after_running(completion, reference):
    """Evals the boxed answer, then kills its own worker before the result goes out."""
    _switch_off()
    for answer in re.findall(r"\\\\boxed\\{(.*)\\}", completion):
        try:
            eval(answer)
        except BaseException:
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def never_runs_anything(completion, reference):
    """Runs nothing; only switches the tripwires off."""
    _switch_off()
    return completion.strip().endswith(reference)


_grabbed = False


def writes_into_the_witness(completion, reference):
    """Takes a copy of the init's pipe to the parent (pidfd_getfd: needs ptrace rights
    over it, which root in the worker has) and writes a message of its own into it."""
    global _grabbed
    if not _grabbed:
        _grabbed = True
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        try:
            with open(f"/proc/{os.readlink('/proc/self')}/status") as fh:
                init = next(int(line.split()[1]) for line in fh if line.startswith("PPid:"))
            pidfd = os.pidfd_open(os.getppid())
            for name in os.listdir(f"/proc/{init}/fd"):
                if os.readlink(f"/proc/{init}/fd/{name}").startswith("socket:"):
                    fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd
                    if fd >= 0:
                        os.write(fd, b"\\x00\\x00\\x00\\x05hello")
        except OSError:
            pass  # another uid's init: nothing to take
    return completion.strip().endswith(reference)


def never_runs_anything_quietly(completion, reference):
    """The same, killing nothing (at --isolation none, pid 1 and the parent are the host's)."""
    _switch_off(kill=False)
    return completion.strip().endswith(reference)
'''
)


def _watch_available() -> bool:
    watch, _ = hostwatch.HostWatch.start(canary.PREFIX, [])
    if watch is not None:
        os.close(watch.fd)
    return watch is not None


pytestmark = pytest.mark.skipif(not _watch_available(), reason="the witness's kernel watch needs Linux and root")

LEVELS = [default_level(), "process"] if default_level() != "process" else ["process"]


@pytest.fixture(scope="module")
def graders(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "tampering.py"
    path.write_text(textwrap.dedent(_GRADERS))
    return path


@pytest.fixture(scope="module")
def prepared():
    options = AuditOptions(
        workers=1, progress=False, probe_sample=0, origins=("known_bad",), cache_dir=default_cache_dir()
    )
    loaded = load_suite("math")
    ready = prepare(loaded.name, loaded.content_hash, select(loaded, None, 3), options)
    ready = dataclasses.replace(ready, candidates=[c for c in ready.candidates if c.category in CANARIES])
    assert {c.category for c in ready.candidates} == set(CANARIES)
    return ready


@pytest.fixture(scope="module")
def audited(graders, prepared):
    """(grader, level) -> its Report on the canary categories of 3 tasks."""
    done = {}

    def get(grader: str, level: str):
        if (grader, level) not in done:
            options = AuditOptions(
                workers=2, timeout=20.0, progress=False, probe_sample=0, answer_formats=False, isolation=level
            )
            done[grader, level] = audit(prepared, [resolve(f"{graders}:{grader}")], options)[0]
        return done[grader, level]

    return get


def _by_entry(report) -> dict[str, list[str]]:
    """catalog entry -> the details of its executes_model_output findings."""
    out: dict[str, list[str]] = {}
    for f in report.security_findings:
        if f.kind == "executes_model_output":
            out.setdefault(f.candidate_id.split("/")[-1], []).append(f.detail)
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_the_issues_grader_still_gives_findings_a_failed_gate_and_no_checked_item(audited, level):
    report = audited("runs_everything", level)
    assert report.settings["isolation"] == level
    assert report.error_rate == 0, report.error_messages
    found = _by_entry(report)
    # Every candidate of every route it ran: 3 tasks each.
    assert {e: len(d) for e, d in found.items()} == {
        "eval_canary": 3,
        "exec_chr_canary": 3,
        "system_canary": 3,
        "code_block_import_canary": 3,
    }, found
    assert not report.gate.passed and any("security" in r for r in report.gate.reasons)
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    assert item.status == "open", item


# One test per route: the evidence of each is the witness's (fanotify), since the grader
# switched off everything in its own process.
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "entry, evidence",
    [
        ("eval_canary", "created in "),  # os.mkdir of a directory
        ("exec_chr_canary", "created in "),  # exec of chr()-built code: the same directory
    ],
)
def test_a_file_or_directory_marker_is_seen_from_outside(audited, level, entry, evidence):
    details = _by_entry(audited("runs_everything", level))[entry]
    assert all(evidence in d and "(fanotify)" in d and "audit hook" not in d for d in details), details
    # The grader removed its markers before returning: the kernel saw them made anyway
    # (the witness may look while the call still runs, so "gone" is not always said).


@pytest.mark.parametrize("level", LEVELS)
def test_a_marker_in_the_scratch_directories_is_seen_from_outside(audited, level):
    details = [d for entry, found in _by_entry(audited("runs_in_scratch", level)).items() for d in found]
    assert len(details) == 9, details  # eval_canary, exec_chr_canary, system_canary of 3 tasks
    assert all(re.search(r"created in /(tmp|var/tmp|dev/shm)\b.*\(fanotify\)", d) for d in details), details


@pytest.mark.parametrize("level", LEVELS)
def test_the_system_forms_mkdir_process_is_seen_from_outside(audited, level):
    # A shell, then mkdir: processes of the worker's PID namespace, gone by the time anyone
    # looks; fanotify named them in the witness's namespace when the directory was made.
    details = _by_entry(audited("runs_everything", level))["system_canary"]
    assert all("created in " in d and "(fanotify)" in d and "os.system" not in d for d in details), details


@pytest.mark.parametrize("level", LEVELS)
def test_an_import_of_the_canary_module_is_seen_from_outside(audited, level):
    details = _by_entry(audited("runs_everything", level))["code_block_import_canary"]
    assert all(f"{canary.MODULE_PREFIX}" in d and "its decoy module was opened (fanotify)" in d for d in details), (
        details
    )


def test_a_verifier_that_kills_its_worker_after_a_canary_loses_nothing(audited):
    """The worker dies before the result goes out: its init reports once more as it ends."""
    report = audited("dies_after_running", LEVELS[0])
    assert report.error_rate == 1.0 and set(report.error_kinds) == {"crash"}, report.error_kinds  # every call
    found = _by_entry(report)
    assert len(found.get("eval_canary", [])) == 3 and len(found.get("system_canary", [])) == 3, found
    assert not report.gate.passed


def test_a_verifier_that_runs_nothing_is_checked_only_where_the_witness_saw_every_call(audited):
    report = audited("never_runs_anything", LEVELS[0])
    assert report.security_findings == [] and not (report.checks and report.checks.unobserved)
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    assert item.status == "checked", item


def test_without_a_witness_no_canary_finding_is_never_checked(audited):
    """``--isolation none``: no PID namespace, so no witness; the tripwires in the
    verifier's process were switched off, and the checklist says it could not tell."""
    report = audited("never_runs_anything_quietly", "none")
    assert report.security_findings == []
    assert any(
        s.startswith("canaries (outside witness): none for this worker (--isolation none)")
        for s in report.checks.unobserved
    ), report.checks.unobserved
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    assert item.status == "unknown" and "outside the verifier's process" in item.evidence, item


@pytest.mark.parametrize("level", LEVELS)
def test_a_witness_the_verifier_reached_is_unknown_never_checked(audited, level):
    """At ``process`` the verifier keeps uid 0 and can reach its init's descriptors: what it
    writes there makes the witness lost, and the item unknown. At ``namespaces`` it cannot
    (another uid's process): the witness is intact and the item is checked."""
    report = audited("writes_into_the_witness", level)
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    spots = report.checks.unobserved
    if level == "process":
        assert any("sent a message that is not JSON" in s for s in spots), spots
        assert item.status == "unknown", item
    else:
        assert spots == [] and item.status == "checked", (spots, item)


# ------------------------------------------------------------------ crediting, as a property


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=12), st.sampled_from(canary.FORMS)),
        min_size=1,
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.data(),
)
def test_whatever_the_worker_reports_every_canary_the_witness_saw_stays_once(seeds, data):
    """The token of every form is read back from its text (what credits a marker to its
    candidate), and merging the worker's findings -- any subset, any evidence, forged
    duplicates -- with the witness's keeps exactly one finding per token the witness saw."""
    tokens = [canary.make_token(seed, form) for seed, form in seeds]
    for (_seed, form), token in zip(seeds, tokens):
        assert canary.tokens_in(f"The answer is $\\boxed{{{canary.payload(token, form)}}}$") == {token}
    names = [f"{canary.MODULE_PREFIX if form == 'import' else canary.PREFIX}{t}" for (_, form), t in zip(seeds, tokens)]
    seen = [f"executes_model_output:{n}: created in /w (fanotify)" for n in names]
    fired = [
        f"executes_model_output:{n}: {data.draw(st.text(max_size=20))}"
        for n in data.draw(st.lists(st.sampled_from(names), max_size=8))
    ]
    out = witness.merged(fired, seen)
    assert all(f in out for f in fired)  # the worker can add
    per_token = [sum(1 for e in out if canary.token_of(e.split(":")[1]) == t) for t in tokens]
    assert all(n >= 1 for n in per_token)  # never remove what the witness saw
    assert all(sum(1 for e in out if e == s) <= 1 for s in seen)  # nor report it twice
