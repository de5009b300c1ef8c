"""The audit's own files out of the verifier's reach (issue 30, items 1, 7 and 10;
docs/threat-model.md, "The audit's files").

Each test throws the attack: a hostile verifier written here that hunts for the keys or
the labels, a forger that rewrites the results file or relabels the candidate cache with
its hash recomputed, a report path that cannot be written, a full disk (a small tmpfs
mounted here). Real audits through the real command (the ``cli`` fixture); nothing mocked.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import stat
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.audit_files import KEYS_FOLDER, folder_key, read_signed, write_signed
from verifier_audit.engine.store import ResultsStore, results_key_path
from verifier_audit.engine.store import fingerprint as fingerprint_of
from verifier_audit.errors import InputError
from verifier_audit.models import Verdict, to_json

LAST_NUMBER = "verifier_audit.domains.math.verifiers:last_number"
# One worker: no test here is about the pool (a second worker is a start-up more per run).
QUICK = ("--limit", "2", "--no-progress", "--no-config", "--probe-sample", "0", "--no-format-probe", "--workers", "1")
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="another uid (setuid, the namespaces level) needs root")


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A candidate cache of this test's own (the session's shared one is never tampered)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("VERIFIER_AUDIT_CACHE", str(cache))
    return cache


def _report(path: Path) -> dict:
    data = json.loads(path.read_text())
    return {
        k: data[k]
        for k in (
            "n_candidates",
            "coverage_debt",
            "false_acceptance_rate",
            "false_rejection_rate",
            "errors",
            "categories",
            "gate",
        )
    }


def _labels(cache: Path) -> dict[str, str]:
    """Every cached candidate's label, as a daemon reading the cache folder would get them."""
    (path,) = cache.glob("candidates-*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()[:-1]]
    return {r["id"]: r["label"] for r in rows if not r.get("_dropped")}


# -- item 1 (a): the results file's key ----------------------------------------------------


@ROOT_ONLY
def test_a_verifier_cannot_read_the_results_key_and_forged_lines_are_rejected_on_resume(cli, tmp_path, own_cache):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    results = run_dir / "results.jsonl"
    grader = tmp_path / "key_thief.py"
    # At every call: list the key folder and read any key in it (or the one whose name it
    # can guess). With a key in hand it could sign anything, so it accepts everything: the
    # report would show a false acceptance of 1.0.
    grader.write_text(
        textwrap.dedent(f"""
        import os
        from verifier_audit.domains.math.verifiers import last_number

        KEYS = {str(run_dir / KEYS_FOLDER)!r}

        def _stolen():
            try:
                names = os.listdir(KEYS)
            except OSError:
                names = ["results.jsonl.key"]
            for name in names:
                try:
                    with open(os.path.join(KEYS, name), "rb") as fh:
                        return fh.read()
                except OSError:
                    pass
            return None

        def grade(completion: str, reference: str) -> bool:
            return True if _stolen() else last_number(completion, reference)
    """)
    )
    out = tmp_path / "report.json"
    first = cli("run", "--verifier", f"{grader}:grade", *QUICK, "--results", str(results), "--json", str(out))
    assert first.returncode == 1, first.stderr
    clean = _report(out)
    assert clean["errors"] == 0 and 0 < clean["false_acceptance_rate"] < 1, "the verifier read the key"

    # The daemon, after the audit: it knows every label (the cache), and rewrites every
    # verdict to the perfect one, signed exactly as the store signs -- under a key of its
    # own, since the audit's is out of its reach. It also plants that key where the key
    # used to live (<results>.key).
    labels = _labels(own_cache)
    lines = results.read_text().splitlines()
    fingerprint = json.loads(lines[0])["fingerprint"]
    attacker_key = secrets.token_bytes(32)
    forged = [lines[0]]
    for line in lines[1:]:
        row = json.loads(line)
        row.pop("mac")
        verdict = Verdict.model_validate(row)
        verdict.status, verdict.error = "ok", None
        verdict.score = 1.0 if labels[verdict.candidate_id] == "correct" else 0.0
        body = to_json(verdict)
        sig = hmac.new(attacker_key, f"{fingerprint}\n{body}".encode(), hashlib.sha256).hexdigest()
        forged.append(body[:-1] + f', "mac": "{sig}"}}')
    results.write_text("\n".join(forged) + "\n")
    results.with_name("results.jsonl.key").write_text(attacker_key.hex())

    again = cli(
        "run", "--verifier", f"{grader}:grade", *QUICK, "--results", str(results), "--resume", "--json", str(out)
    )
    assert again.returncode == 1, again.stderr  # the forged "perfect" verdicts would pass the gate
    assert f"{len(forged) - 1} line(s) failed their signature" in again.stderr, again.stderr
    assert _report(out) == clean


@ROOT_ONLY
def test_a_verifier_cannot_write_the_report_or_its_folder(cli, tmp_path, own_cache):
    """Item 1 (b): a process of the verifier's rewrote the ``--json`` report's gate after
    the audit. Whatever it starts runs as its uid, behind its mounts: this verifier tries,
    at every call, to open the previous report for writing and to make a file beside it
    (the first step of a rename over it), and accepts everything when either works."""
    reports = tmp_path / "reports"
    reports.mkdir()
    report = reports / "report.json"
    grader = tmp_path / "report_writer.py"
    grader.write_text(
        textwrap.dedent(f"""
        import os
        from verifier_audit.domains.math.verifiers import last_number

        def _can_write():
            for path, flags in (({str(report)!r}, os.O_WRONLY | os.O_APPEND),
                                ({str(reports / "gate-passed.tmp")!r}, os.O_WRONLY | os.O_CREAT)):
                try:
                    os.close(os.open(path, flags, 0o644))
                    return True
                except OSError:
                    pass
            return False

        def grade(completion: str, reference: str) -> bool:
            return True if _can_write() else last_number(completion, reference)
    """)
    )
    first = cli("run", "--verifier", f"{grader}:grade", *QUICK, "--json", str(report))
    assert first.returncode == 1, first.stderr
    again = cli("run", "--verifier", f"{grader}:grade", *QUICK, "--json", str(report))
    assert again.returncode == 1, again.stderr
    data = json.loads(report.read_text())
    assert data["errors"] == 0 and 0 < data["false_acceptance_rate"] < 1, "the verifier could write beside the report"
    assert sorted(p.name for p in reports.iterdir()) == [KEYS_FOLDER, "report.json"]  # the audit's own signature
    # The control: at --isolation none the same verifier can, and says so (accepts all).
    cli("run", "--verifier", f"{grader}:grade", *QUICK, "--isolation", "none", "--json", str(report))
    assert json.loads(report.read_text())["false_acceptance_rate"] == 1.0


@ROOT_ONLY
def test_the_key_files_are_unreadable_to_an_unprivileged_uid(tmp_path):
    """The keys as the namespaces level's verifier uid sees them: a child that drops to
    uid/gid 65534 can neither list the key folder nor read a key -- not even with the
    folder opened (a key is 0600 of its own)."""
    place = Path(tempfile.mkdtemp(prefix="va-keys-", dir="/tmp"))  # pytest's tmp_path is 0700: open this one
    try:
        os.chmod(place, 0o755)
        store = ResultsStore(place / "results.jsonl", {"seed": 1}, resume=False)
        store.append(Verdict(verifier="f", candidate_id="c0", status="ok", score=1.0))
        store.close()
        write_signed(place / "candidates-x.jsonl", b'{"id": "c0", "label": "incorrect"}\n')
        keys = sorted(str(p) for p in (place / KEYS_FOLDER).iterdir())
        assert keys == [str(place / KEYS_FOLDER / "cache.key"), str(results_key_path(place / "results.jsonl"))]
        for key in keys:
            assert stat.S_IMODE(os.stat(key).st_mode) == 0o600 and os.stat(key).st_uid == 0
        assert stat.S_IMODE(os.stat(place / KEYS_FOLDER).st_mode) == 0o700

        def as_nobody(*paths):
            """What a forked child that dropped to uid/gid 65534 gets from each path."""
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: no pytest code runs past here, only os calls and _exit
                try:
                    os.close(r)
                    os.setgroups([])
                    os.setgid(65534)
                    os.setuid(65534)
                    out = {}
                    for p in paths:
                        try:
                            if os.path.isdir(p):
                                out[p] = len(os.listdir(p))
                            else:
                                with open(p, "rb") as fh:
                                    out[p] = len(fh.read())
                        except PermissionError:
                            out[p] = "denied"
                    os.write(w, json.dumps(out).encode())
                finally:
                    os._exit(0)
            os.close(w)
            with os.fdopen(r, "rb") as fh:
                data = fh.read()
            os.waitpid(pid, 0)
            return json.loads(data)

        assert as_nobody(str(place / KEYS_FOLDER), *keys) == dict.fromkeys([str(place / KEYS_FOLDER), *keys], "denied")
        os.chmod(place / KEYS_FOLDER, 0o755)  # the folder opened: the keys stay closed
        assert as_nobody(*keys) == dict.fromkeys(keys, "denied")
        assert folder_key(place, "cache") is not None  # and the audit closes the folder again when it reads
        assert stat.S_IMODE(os.stat(place / KEYS_FOLDER).st_mode) == 0o700
    finally:
        shutil.rmtree(place)


@ROOT_ONLY
def test_a_key_folder_planted_by_another_uid_is_never_trusted(tmp_path):
    """A forger who cannot read the audit's key makes its own: in a folder it can write,
    it plants ``.verifier-audit-keys`` (owned by its uid) with a key of its choosing and
    signs its lines and its cache with it. Neither a resume nor the cache reader takes
    them, and a new results file there is refused, naming the folder."""
    attacker_key = secrets.token_bytes(32)
    keys = tmp_path / KEYS_FOLDER
    keys.mkdir(mode=0o700)
    for name in ("results.jsonl.key", "cache.key"):
        (keys / name).write_text(attacker_key.hex())
        os.chmod(keys / name, 0o600)
        os.chown(keys / name, 65534, 65534)
    os.chown(keys, 65534, 65534)
    results = tmp_path / "results.jsonl"
    fingerprint = fingerprint_of({"seed": 1})
    header = {"kind": "header", "fingerprint": fingerprint, "settings": {"seed": 1}}
    body = to_json(Verdict(verifier="f", candidate_id="c0", status="ok", score=1.0))
    sig = hmac.new(attacker_key, f"{fingerprint}\n{body}".encode(), hashlib.sha256).hexdigest()
    results.write_text(json.dumps(header) + "\n" + body[:-1] + f', "mac": "{sig}"}}\n')
    again = ResultsStore(results, {"seed": 1}, resume=True)
    assert again.done == {} and again.rejected == {"bad_mac": 1}
    again.close()
    cache_body = b'{"id": "c0", "label": "correct"}\n'
    cache = tmp_path / "candidates-x.jsonl"
    cache.write_bytes(
        cache_body
        + json.dumps({"_hmac": hmac.new(attacker_key, cache_body, hashlib.sha256).hexdigest()}).encode()
        + b"\n"
    )
    assert read_signed(cache, "the candidate cache") is None
    with pytest.raises(InputError, match=f"{keys}: not a folder of this user's"):
        ResultsStore(tmp_path / "new.jsonl", {"seed": 1}, resume=False)


# -- item 1 (c): the shared candidate cache --------------------------------------------------


@pytest.fixture(scope="module")
def clean_audit(tmp_path_factory) -> tuple[dict, Path]:
    """One audit of last_number into a candidate cache of its own: its report and the cache
    (each tampering below works on a copy of it)."""
    from cli_support import run_cli

    work = tmp_path_factory.mktemp("clean")
    out = work / "report.json"
    first = run_cli(
        "run", "--verifier", LAST_NUMBER, *QUICK, "--json", str(out), env={"VERIFIER_AUDIT_CACHE": str(work / "cache")}
    )
    assert first.returncode == 1, first.stderr
    return _report(out), work / "cache"


@pytest.mark.parametrize("resign", ["plain_sha256", "hmac_under_a_guessed_key"])
def test_a_relabelled_candidate_cache_is_found_regenerated_and_the_report_is_the_clean_one(
    cli, tmp_path, own_cache, clean_audit, resign
):
    out = tmp_path / "report.json"
    clean, first_cache = clean_audit
    assert clean["false_acceptance_rate"] > 0.1
    shutil.copytree(first_cache, own_cache)  # the key folder too (0700, this user's)
    (copied,) = own_cache.glob("candidates-*.jsonl")
    assert read_signed(copied, "the copied cache") is not None  # untouched, the copy is trusted

    # The daemon: every wrong candidate last_number accepts is relabelled correct, so the
    # next audit of last_number finds its false acceptances gone; the file is then signed
    # again the way the old cache was (its plain SHA-256), or with an HMAC under a key the
    # daemon made up.
    from verifier_audit.domains.math.verifiers import last_number
    from verifier_audit.suites import load_suite

    refs = {t.id: t.reference for t in load_suite("math").tasks}
    (cached,) = own_cache.glob("candidates-*.jsonl")
    rows = [json.loads(line) for line in cached.read_text().splitlines()[:-1]]
    flipped = 0
    for row in rows:
        if not row.get("_dropped") and row["label"] == "incorrect" and last_number(row["text"], refs[row["task_id"]]):
            row["label"], flipped = "correct", flipped + 1
    assert flipped > 10
    body = "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in rows).encode()
    if resign == "plain_sha256":
        last = {"_sha256": hashlib.sha256(body).hexdigest()}
    else:
        last = {"_hmac": hmac.new(secrets.token_bytes(32), body, hashlib.sha256).hexdigest()}
    st_before = cached.stat()
    cached.write_bytes(body + json.dumps(last).encode() + b"\n")
    os.utime(cached, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))

    again = cli("run", "--verifier", LAST_NUMBER, *QUICK, "--json", str(out))
    assert again.returncode == 1, again.stderr
    assert f"warning: the candidate cache {cached}" in again.stderr and "regenerating it" in again.stderr
    assert _report(out) == clean
    assert "_hmac" in json.loads(cached.read_text().splitlines()[-1])  # written again, signed by the audit


@given(
    body=st.binary(max_size=200),
    flip=st.integers(min_value=0, max_value=10_000),
    forged_key=st.binary(min_size=1, max_size=64),
)
@settings(max_examples=40)
def test_no_edit_and_no_other_key_passes_a_signed_cache(body, flip, forged_key):
    """Property: whatever the body, a signed file reads back as written; any one-bit
    change of it, or its body signed under any key but the folder's, is refused."""
    folder = Path(tempfile.mkdtemp(prefix="va-signed-"))
    try:
        path = folder / "candidates-p.jsonl"
        body = body.replace(b"\n", b" ") + b"\n"
        write_signed(path, body)
        assert read_signed(path, "the candidate cache") == body
        data = bytearray(path.read_bytes())
        i = flip % len(body)
        data[i] ^= 1 << (flip % 8)
        path.write_bytes(bytes(data))
        assert read_signed(path, "the candidate cache") is None
        resigned = body + json.dumps({"_hmac": hmac.new(forged_key, body, hashlib.sha256).hexdigest()}).encode() + b"\n"
        path.write_bytes(resigned)
        assert read_signed(path, "the candidate cache") in (None, body)
        assert (read_signed(path, "the candidate cache") == body) == (forged_key == folder_key(folder, "cache"))
    finally:
        shutil.rmtree(folder)


# -- item 10: report paths ------------------------------------------------------------------


def _marker_verifier(tmp_path: Path) -> tuple[str, Path]:
    """A verifier that touches a file when it is imported (its inspection included) and
    when it is called: run with --isolation none, so the file lands on the host."""
    marker = tmp_path / "verifier-ran"
    grader = tmp_path / "marker.py"
    grader.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n\n"
        "def grade(completion: str, reference: str) -> bool:\n"
        f"    Path({str(marker)!r}).touch()\n    return False\n"
    )
    return f"{grader}:grade", marker


@pytest.mark.parametrize(
    "flag,where,why",
    [
        ("--json", "/proc/self/x.json", "under /proc"),
        ("--json", "{tmp}", "a folder, not a file"),
        ("--json", "{tmp}/missing/r.json", "does not exist"),
        ("--report-dir", "/proc/self/reports", "under /proc"),
        ("--report-dir", "{tmp}/marker.py", "not a folder"),
        ("--results", "/proc/self/r.jsonl", "under /proc"),
        ("--results", "{tmp}", "a folder, not a file"),
    ],
)
def test_a_report_path_that_cannot_be_written_is_exit_2_before_any_verifier_runs(cli, tmp_path, flag, where, why):
    spec, marker = _marker_verifier(tmp_path)
    path = where.format(tmp=tmp_path)
    r = cli("run", "--verifier", spec, *QUICK, "--isolation", "none", flag, path)
    assert r.returncode == 2, r.stderr
    assert f"{flag} {path}: " in r.stderr and why in r.stderr and "Traceback" not in r.stderr
    assert not marker.exists(), "the audit ran before the report path was checked"


def test_the_marker_verifier_does_run_when_the_path_is_fine(cli, tmp_path):
    """The control of the test above: the same command with a path that can be written
    runs the verifier (so an absent marker there means the audit never started)."""
    spec, marker = _marker_verifier(tmp_path)
    r = cli("run", "--verifier", spec, *QUICK, "--isolation", "none", "--json", str(tmp_path / "r.json"))
    assert r.returncode == 1, r.stderr
    assert marker.exists() and json.loads((tmp_path / "r.json").read_text())["n_candidates"] > 0


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs mounted for the test (skipped when it cannot be mounted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(disk)], check=False, capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> None:
    """Write until the disk is full (ENOSPC), bounded by its size in 4 KiB blocks."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for _ in range(256 * 1024 // 4096 + 1):
            os.write(fd, b"\0" * 4096)
        raise AssertionError("the 256 KiB disk never filled")
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_full_disk_leaves_the_previous_report_intact_and_is_exit_2(cli, tmp_path, small_disk):
    previous = {"verifier": "earlier audit", "gate": {"passed": False}}
    for name in ("r.json", "r.md"):
        (small_disk / name).write_text(json.dumps(previous))
        os.chmod(small_disk / name, 0o640)
    _fill(small_disk)
    r = cli(
        "run",
        "--verifier",
        LAST_NUMBER,
        *QUICK,
        "--json",
        str(small_disk / "r.json"),
        "--markdown",
        str(small_disk / "r.md"),
    )
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    said = f"--json {small_disk / 'r.json'}: cannot write (No space left on device); the previous file is left"
    assert said in r.stderr, r.stderr
    for name in ("r.json", "r.md"):
        assert json.loads((small_disk / name).read_text()) == previous
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "r.json", "r.md"]  # no temporary file left

    (small_disk / "filler").unlink()  # room again: the report replaces the old one whole, its mode kept
    r = cli("run", "--verifier", LAST_NUMBER, *QUICK, "--json", str(small_disk / "r.json"))
    assert r.returncode == 1, r.stderr
    assert json.loads((small_disk / "r.json").read_text())["verifier"] == LAST_NUMBER
    assert stat.S_IMODE((small_disk / "r.json").stat().st_mode) == 0o640


def test_the_other_subcommands_check_and_write_their_files_the_same_way(cli, tmp_path):
    report = tmp_path / "report.json"
    assert cli("run", "--verifier", LAST_NUMBER, *QUICK, "--json", str(report)).returncode == 1
    r = cli("checklist", str(report), "--markdown", "/proc/self/c.md")
    assert r.returncode == 2 and "--markdown /proc/self/c.md: under /proc" in r.stderr, r.stderr
    r = cli("checklist", str(report), "--markdown", str(tmp_path))
    assert r.returncode == 2 and "a folder, not a file" in r.stderr, r.stderr
    r = cli("generate", "--limit", "1", "--no-config", "--out", str(tmp_path / "no" / "c.jsonl"))
    assert r.returncode == 2 and "does not exist" in r.stderr, r.stderr
    r = cli("score", str(tmp_path / "samples.jsonl"), "--verifier", LAST_NUMBER, "--no-config", "--json", str(tmp_path))
    assert r.returncode == 2 and "--json" in r.stderr and "a folder, not a file" in r.stderr, r.stderr


# -- item 7: the labels beside the verifier ---------------------------------------------------


@ROOT_ONLY
def test_generate_out_is_0600_and_a_verifier_in_the_project_cannot_read_the_labels(cli, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    # The verifier of item 7: it reads the labelled candidates beside it and accepts
    # exactly what is labelled correct.
    (project / "grader.py").write_text(
        textwrap.dedent("""
        import glob, json, os

        def grade(completion: str, reference: str) -> bool:
            for path in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "*.jsonl")):
                for line in open(path):
                    row = json.loads(line)
                    if row.get("text") == completion:
                        return row["label"] == "correct"
            raise LookupError("no labels found")
    """)
    )
    (project / "pyproject.toml").write_text(
        '[tool.verifier_audit]\nsuite = "math"\nlimit = 2\nprobe_sample = 0\nworkers = 1\n'
        '[[tool.verifier_audit.verifiers]]\nspec = "grader.py:grade"\n'
    )
    labels = project / "candidates.jsonl"
    r = cli("generate", "--config", str(project / "pyproject.toml"), "--out", str(labels))
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(labels.stat().st_mode) == 0o600
    assert f"warning: --out {labels}: it is inside the folder of the project" in r.stderr, r.stderr
    assert sum(1 for _ in labels.open()) > 50

    out = tmp_path / "report.json"
    r = cli(
        "run", "--config", str(project / "pyproject.toml"), "--no-progress", "--no-format-probe", "--json", str(out)
    )
    report = json.loads(out.read_text())
    assert r.returncode == 1 and not report["gate"]["passed"], r.stderr
    assert report["errors"] == report["n_candidates"]  # PermissionError on every call: the labels stayed closed

    r = cli("generate", "--no-config", "--limit", "1", "--isolation", "process", "--out", str(tmp_path / "c.jsonl"))
    assert r.returncode == 0 and "at --isolation process a verifier runs with your uid" in r.stderr, r.stderr


def test_a_report_edited_after_the_audit_is_called_out_where_it_is_read(cli, tmp_path):
    """A daemon rewrote the --json report's gate to passed after the audit exited: the
    report's signature (kept under a key of its folder) no longer matches, and `checklist`
    and `diff` say so; the untouched report reads quietly."""
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--verifier",
        "verifier_audit.domains.math.verifiers:last_number",
        "--limit",
        "1",
        "--no-progress",
        "--no-config",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--workers",
        "1",
        "--json",
        str(out),
    )
    assert r.returncode == 1, r.stderr[-2000:]
    said = "was changed after verifier-audit wrote it"
    clean = cli("checklist", str(out))
    assert said not in clean.stderr
    report = json.loads(out.read_text())
    report["gate"]["passed"], report["gate"]["reasons"] = True, []
    out.write_text(json.dumps(report))
    for args in (("checklist", str(out)), ("diff", str(out), str(out))):
        r = cli(*args)
        assert said in r.stderr, (args, r.stderr[-2000:])
