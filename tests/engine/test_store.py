"""The results file: streamed, resumable after a cut, refuses to mix audits."""

import pytest

from verifier_audit.engine.store import ResultsStore, results_key_path
from verifier_audit.errors import InputError
from verifier_audit.models import Verdict


def v(i):
    return Verdict(verifier="f", candidate_id=f"c{i}", status="ok", score=float(i % 2))


def test_resume_keeps_whole_lines_and_drops_a_cut_one(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultsStore(path, {"seed": 1}, resume=False)
    for i in range(5):
        store.append(v(i))
    store.close()
    with path.open("a") as fh:
        fh.write('{"verifier": "f", "candidate_id": "c5", "sta')  # kill -9 mid-write
    again = ResultsStore(path, {"seed": 1}, resume=True)
    assert sorted(cid for _, cid in again.done) == ["c0", "c1", "c2", "c3", "c4"]
    again.append(v(5))
    again.close()
    third = ResultsStore(path, {"seed": 1}, resume=True)
    assert len(third.done) == 6
    third.close()


def test_resume_with_other_settings_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    ResultsStore(path, {"seed": 1, "suite": "math"}, resume=False).close()
    with pytest.raises(InputError, match="settings that differ: seed"):
        ResultsStore(path, {"seed": 2, "suite": "math"}, resume=True)


def test_without_resume_starts_over(tmp_path):
    path = tmp_path / "r.jsonl"
    s = ResultsStore(path, {"seed": 1}, resume=False)
    s.append(v(1))
    s.close()
    assert ResultsStore(path, {"seed": 1}, resume=False).done == {}


def test_foreign_file_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(InputError, match="not a verifier-audit results file"):
        ResultsStore(path, {}, resume=True)


# --- integrity (issue 13): the results file is evidence something untrusted may rewrite.


def _written(path, n=4, known=None):
    store = ResultsStore(path, {"seed": 1}, resume=False, known=known)
    for i in range(n):
        store.append(v(i))
    store.close()


def test_an_edited_line_is_rejected_on_resume_and_its_call_redone(tmp_path):
    path = tmp_path / "r.jsonl"
    _written(path)
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"score": 1.0', '"score": 0.0')  # c1: a FAIL turned into a PASS
    path.write_text("\n".join(lines) + "\n")
    again = ResultsStore(path, {"seed": 1}, resume=True)
    assert sorted(cid for _, cid in again.done) == ["c0", "c2", "c3"]
    assert again.rejected == {"bad_mac": 1}
    assert "failed their signature" in again.warnings[0]
    again.close()


def test_lines_appended_by_anyone_else_are_rejected(tmp_path):
    path = tmp_path / "r.jsonl"
    _written(path, n=2)
    forged = Verdict(verifier="f", candidate_id="c9", status="ok", score=1.0).model_dump_json()
    with path.open("a") as fh:  # a daemon the verifier left behind, after the audit
        fh.write(forged + "\n")
        fh.write(forged[:-1] + ', "mac": "' + "0" * 64 + '"}\n')
    again = ResultsStore(path, {"seed": 1}, resume=True)
    assert sorted(cid for _, cid in again.done) == ["c0", "c1"]
    assert again.rejected == {"damaged": 1, "bad_mac": 1}
    again.close()


def test_without_its_key_no_line_is_trusted(tmp_path):
    path = tmp_path / "r.jsonl"
    _written(path)
    results_key_path(path).unlink()
    again = ResultsStore(path, {"seed": 1}, resume=True)
    assert again.done == {} and again.rejected == {"bad_mac": 4}
    again.close()


def test_unknown_ids_are_rejected_and_a_later_line_of_a_call_stands(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultsStore(path, {"seed": 1}, resume=False)
    for i in (0, 1, 7):
        store.append(v(i))
    store.append(v(1).model_copy(update={"score": 0.25}))  # scored again after a poisoning
    store.close()
    known = {("f", f"c{i}") for i in range(4)}
    again = ResultsStore(path, {"seed": 1}, resume=True, known=known)
    assert sorted(cid for _, cid in again.done) == ["c0", "c1"]
    assert again.done[("f", "c1")].score == 0.25
    assert again.rejected == {"unknown": 1}
    again.close()


def test_a_second_writer_is_refused_and_the_first_file_is_intact(tmp_path):
    path = tmp_path / "r.jsonl"
    first = ResultsStore(path, {"seed": 1}, resume=False)
    first.append(v(0))
    with pytest.raises(InputError, match="another audit is writing"):
        ResultsStore(path, {"seed": 1}, resume=False)
    first.append(v(1))
    first.close()
    again = ResultsStore(path, {"seed": 1}, resume=True)
    assert sorted(cid for _, cid in again.done) == ["c0", "c1"] and not again.rejected
    again.close()


def test_editing_the_verifier_refuses_the_resume(tmp_path):
    from verifier_audit.engine.audit import AuditOptions, Prepared, run_settings
    from verifier_audit.loading import resolve

    src = tmp_path / "grader.py"
    src.write_text("def grade(completion, reference):\n    return completion == reference\n")
    prepared = Prepared("s", "h", "math", [], [], [])
    before = run_settings(prepared, [resolve(f"{src}:grade")], AuditOptions())
    path = tmp_path / "r.jsonl"
    ResultsStore(path, before, resume=False).close()
    src.write_text("def grade(completion, reference):\n    return True\n")
    after = run_settings(prepared, [resolve(f"{src}:grade")], AuditOptions())
    with pytest.raises(InputError, match="verifier_sources"):
        ResultsStore(path, after, resume=True)
