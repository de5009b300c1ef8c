"""The results file: streamed, resumable after a cut, refuses to mix audits."""

import pytest

from verifier_audit.engine.store import ResultsStore
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
