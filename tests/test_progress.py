import io
import sys

from verifier_audit.engine.progress import Progress


def test_progress_draws_only_when_enabled(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress("auditing x", 10, enabled=True)
    for _ in range(10):
        bar.advance()
    bar.close()
    assert "10/10" in err.getvalue() and err.getvalue().endswith("\n")
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    bar = Progress("auditing x", 10)  # stderr is not a terminal here: no bar
    bar.advance(10)
    bar.close()
    assert quiet.getvalue() == ""
