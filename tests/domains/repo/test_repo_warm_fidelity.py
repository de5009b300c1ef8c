"""A forked run from the warm zygote (configured plugin manager, fixture scans and test modules
done once: ``sandbox/pytest_warm.py``) against ``python -m pytest`` in a fresh interpreter on
the same repository: the same outcome for every test, the same exit status, the same summary
(warnings counted). The repositories lean on what the early steps touch: the built-in plugins'
fixtures, an ini that blocks a plugin, the assertion-pass hook (which needs the run's own
rewrite), a rewrite that warns, assertion messages, a test that runs pytest itself."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from verifier_audit.domains.repo.run import run_pytest
from verifier_audit.domains.repo.verifiers import junit_cases, junit_key

FLAGS = ["--tb=short", "-q"]

BUILTIN_FIXTURES = {
    "conftest.py": (
        "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _ns(doctest_namespace):\n"
        "    doctest_namespace['k'] = 1\n\n\n@pytest.fixture(params=[1, 2])\ndef n(request):\n"
        "    return request.param\n"
    ),
    "tests/test_fixtures.py": (
        "import logging\nimport warnings\n\n\n"
        "def test_tmp_path(tmp_path):\n    (tmp_path / 'a').write_text('x')\n    assert (tmp_path / 'a').read_text() == 'x'\n\n\n"
        "def test_tmpdir(tmpdir):\n    assert tmpdir.check(dir=1)\n\n\n"
        "def test_capsys(capsys):\n    print('hi')\n    assert capsys.readouterr().out == 'hi\\n'\n\n\n"
        "def test_monkeypatch(monkeypatch):\n    monkeypatch.setenv('VA_X', '1')\n    import os\n    assert os.environ['VA_X'] == '1'\n\n\n"
        "def test_caplog(caplog):\n    logging.getLogger('t').warning('w')\n    assert 'w' in caplog.text\n\n\n"
        "def test_recwarn(recwarn):\n    warnings.warn('r', UserWarning)\n    assert len(recwarn) == 1\n\n\n"
        "def test_param(n):\n    assert n in (1, 2)\n\n\n"
        "def test_fails():\n    assert [1, 2] == [1, 3]\n\n\n"
        "def test_message():\n    try:\n        assert 3 == 4\n    except AssertionError as exc:\n"
        "        assert 'assert 3 == 4' in str(exc)  # only a rewritten assert says so\n"
    ),
}

BLOCKED_PLUGIN = {
    "pytest.ini": "[pytest]\naddopts = -p no:legacypath\n",
    "tests/test_blocked.py": "def test_tmpdir(tmpdir):\n    assert tmpdir\n\n\ndef test_plain():\n    assert True\n",
}

PASS_HOOK = {
    "pytest.ini": "[pytest]\nenable_assertion_pass_hook = true\n",
    "conftest.py": "SEEN = []\n\n\ndef pytest_assertion_pass(item, lineno, orig, expl):\n    SEEN.append(orig)\n",
    "tests/test_hook.py": (
        "import conftest\n\n\ndef test_first():\n    assert 1 + 1 == 2\n\n\n"
        "def test_second():\n    assert conftest.SEEN == ['1 + 1 == 2']\n"
    ),
}

REWRITE_WARNS = {
    "tests/test_tuple.py": "def test_tuple():\n    assert (1 == 2, 'never false')\n",
}

NESTED_RUN = {
    "inner/test_inner.py": "def test_inner():\n    assert True\n",
    "tests/test_outer.py": (
        "import pytest\n\n\ndef test_runs_pytest():\n"
        "    assert pytest.main(['-q', '-p', 'no:cacheprovider', 'inner/test_inner.py']) == 0\n"
    ),
}

REPOS = {
    "builtin_fixtures": BUILTIN_FIXTURES,
    "blocked_plugin": BLOCKED_PLUGIN,
    "pass_hook": PASS_HOOK,
    "rewrite_warns": REWRITE_WARNS,
    "nested_run": NESTED_RUN,
}


def fresh_interpreter(files: dict[str, str], tmp_path: pathlib.Path) -> tuple[int, dict, str]:
    repo, report = tmp_path / "repo", tmp_path / "report.xml"
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *FLAGS, f"--junitxml={report}"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, junit_cases(report.read_text(encoding="utf-8")), done.stdout


def summary(log: str) -> str:
    """pytest's last line without its clock: ``2 failed, 9 passed, 1 warning``."""
    lines = [line for line in log.strip().splitlines() if line.strip()]
    return re.sub(r" in [0-9.]+s.*$", "", lines[-1].strip("= ")) if lines else ""


@pytest.mark.parametrize("name", sorted(REPOS))
def test_a_warm_run_is_the_run_of_a_fresh_interpreter(name, tmp_path):
    files = REPOS[name]
    code, cases, log = fresh_interpreter(files, tmp_path)
    tests = [path for path in files if path.startswith("tests/")]
    for _ in range(2):  # the second run finds the test modules compiled by the first
        run = run_pytest(files, FLAGS, trusted=tuple(tests))
        assert run.exit_status == code, (run.log, log)
        assert summary(run.log) == summary(log)
        ours = {junit_key(node): outcome == "passed" for node, outcome in run.outcomes.items()}
        assert ours == cases


WARM_STEPS = (
    "import sys\n\n\ndef test_the_zygote_is_warm():\n"
    "    warm = next(m for n, m in list(sys.modules.items()) if n.endswith('sandbox.pytest_warm'))\n"
    "    assert warm.ready() == {'config': True, 'fixture_scan': True, 'rewrite': True}\n"
    "    assert len(warm._compiled) == 1  # this file's, compiled in the zygote\n"
)


def test_the_early_steps_are_on_in_the_zygote():
    """With this pytest every early step is taken (a pytest that moves an internal turns
    one off and this fails: the runs are then as slow as before, still right)."""
    run = run_pytest({"tests/test_warm.py": WARM_STEPS}, ["-q"], trusted=("tests/test_warm.py",))
    assert run.outcomes == {"tests/test_warm.py::test_the_zygote_is_warm": "passed"}, run.log
