"""``--format swebench`` (issue 36): SWE-bench instance files read against local checkouts
under ``--repo-dir`` (verifier_audit/domains/repo/loaders.py). The checkout is written here:
the tiny stats task's repository before its failing tests were added, the test_patch adding
them, the gold patch fixing the package -- the shape of a published instance."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from repo_support import FILES, tiny_task

from verifier_audit.cli.app import build_parser
from verifier_audit.cli.options import given_options
from verifier_audit.domains.repo.loaders import allowed_paths, is_test_path, swebench_suite
from verifier_audit.domains.repo.patches import make_patch
from verifier_audit.domains.suite_files import SuiteFile
from verifier_audit.errors import InputError
from verifier_audit.plan import suite_choice

NEW_TESTS = ("test_median_even", "test_clamp_high")
BASE = "0123456789abcdef0123456789abcdef01234567"


def _base_tests() -> str:
    """tests/test_core.py at the base commit: without the two tests the test_patch adds."""
    text = FILES["tests/test_core.py"]
    for name in NEW_TESTS:
        start = text.index(f"def {name}")
        end = text.index("\n\n\n", start) + 3 if "\n\n\n" in text[start:] else len(text)
        text = text[:start] + text[end:]
    return text


def _checkout(root: Path) -> dict[str, str]:
    files = dict(FILES, **{"tests/test_core.py": _base_tests()})
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "stats" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (root / "stats" / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    return files


def _instance(**over) -> dict:
    task = tiny_task()
    base = dict(FILES, **{"tests/test_core.py": _base_tests()})
    row = {
        "repo": "acme/stats",
        "instance_id": "acme__stats-1",
        "base_commit": BASE,
        "problem_statement": task.prompt,
        "patch": task.reference,
        "test_patch": make_patch(base, FILES),
        # as the published datasets ship them: JSON-encoded strings
        "FAIL_TO_PASS": json.dumps(task.metadata["fail_to_pass"]),
        "PASS_TO_PASS": json.dumps(task.metadata["pass_to_pass"]),
        "version": "1.0",
    }
    row.update(over)
    return row


def _load(tmp_path: Path, rows: list[dict], *, jsonl: bool = False, repo_dir: Path | None | str = "default"):
    path = tmp_path / ("instances.jsonl" if jsonl else "instances.json")
    text = "".join(json.dumps(r) + "\n" for r in rows) if jsonl else json.dumps(rows, indent=2)
    path.write_text(text, encoding="utf-8")
    folder = tmp_path / "checkouts" if repo_dir == "default" else repo_dir
    return swebench_suite(
        SuiteFile(path, [], None, None, lambda: tmp_path / "cache", repo_dir=None if folder is None else str(folder))
    )


@pytest.fixture
def checkouts(tmp_path: Path) -> Path:
    _checkout(tmp_path / "checkouts" / "acme__stats")
    return tmp_path / "checkouts"


@pytest.mark.parametrize("jsonl", [False, True], ids=["json-list", "jsonl"])
def test_an_instance_becomes_a_repo_task_with_the_test_patch_applied(tmp_path, checkouts, jsonl):
    (task,) = _load(tmp_path, [_instance()], jsonl=jsonl)
    tiny = tiny_task()
    assert task.id == "acme__stats-1" and task.domain == "repo" and task.reference == tiny.reference
    # the visible tests are the test_patch's; binaries, non-UTF-8 files and .git left out
    assert task.metadata["files"] == FILES
    assert task.metadata["fail_to_pass"] == tiny.metadata["fail_to_pass"]
    assert task.metadata["pass_to_pass"] == tiny.metadata["pass_to_pass"]
    assert task.metadata["hidden_tests"] == {}
    assert task.metadata["allowed_paths"] == ["stats/*"]
    assert task.metadata["base_commit"] == BASE and task.metadata["project"] == "acme/stats"


def test_a_checkout_named_by_the_instance_id_is_found_first(tmp_path, checkouts):
    _checkout(checkouts / "acme__stats-1")
    (checkouts / "acme__stats-1" / "stats" / "extra.py").write_text("X = 1\n")
    (task,) = _load(tmp_path, [_instance(FAIL_TO_PASS=["tests/test_core.py::test_median_even"])])
    assert "stats/extra.py" in task.metadata["files"]
    assert task.metadata["fail_to_pass"] == ["tests/test_core.py::test_median_even"]  # a plain list reads too


def test_a_missing_checkout_names_the_file_line_instance_and_the_clone(tmp_path, checkouts):
    rows = [_instance(), _instance(instance_id="acme__other-2", repo="acme/other")]
    with pytest.raises(InputError) as err:
        _load(tmp_path, rows, jsonl=True)
    message = str(err.value)
    assert "instances.jsonl:2:" in message and "acme__other-2" in message
    assert "git clone https://github.com/acme/other" in message and BASE in message


def test_a_json_lists_errors_name_the_line_where_the_instance_starts(tmp_path, checkouts):
    with pytest.raises(InputError, match=r"instances\.json:\d+: instance acme__stats-1: field 'FAIL_TO_PASS'"):
        _load(tmp_path, [_instance(FAIL_TO_PASS="not json")])
    with pytest.raises(InputError) as err:
        _load(tmp_path, [_instance(), _instance(instance_id="x-2", patch="")])
    line = (tmp_path / "instances.json").read_text().splitlines().index("  {", 2) + 1
    assert f"instances.json:{line}: instance x-2: field 'patch' must be non-empty text" in str(err.value)


def test_a_checkout_at_another_commit_is_named_with_the_base_commit(tmp_path, checkouts):
    (checkouts / "acme__stats" / "stats" / "core.py").write_text("def mean(values):\n    return 0\n")
    with pytest.raises(InputError, match=rf"its patch does not apply .* is the checkout at base_commit {BASE}\?"):
        _load(tmp_path, [_instance()])


def test_without_repo_dir_the_error_says_how_to_give_it(tmp_path, checkouts):
    with pytest.raises(InputError, match="--repo-dir DIR"):
        _load(tmp_path, [_instance()], repo_dir=None)
    with pytest.raises(InputError, match="no such folder"):
        _load(tmp_path, [_instance()], repo_dir=tmp_path / "nowhere")


def test_the_repo_dir_flag_and_key_reach_the_suite_choice(tmp_path):
    """Declared once (settings.py): the flag, and the config key relative to the config."""
    choice = suite_choice(given_options(build_parser().parse_args(["run", "--repo-dir", "checkouts"])), None)
    assert choice.repo_dir == "checkouts" and choice.reading()["repo_dir"] == str(Path("checkouts").resolve())


@hypothesis_settings(max_examples=40)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["pkg", "src", "tests", "docs", "pkg/tests", "pkg/sub"]),
            st.sampled_from(["a.py", "b_test.py", "test_c.py", "conftest.py", "d.txt"]),
        ),
        min_size=1,
        max_size=5,
        unique=True,
    ),
    st.sampled_from(["conftest.py", "setup.cfg", "test_top.py"]),
)
def test_allowed_paths_cover_the_golds_package_and_never_its_tests(paths, root_file):
    changed = [f"{folder}/{name}" for folder, name in paths] + [root_file]
    gold = make_patch({}, {path: "x = 1\n" for path in changed})
    allowed = allowed_paths(gold)
    for path in changed:
        matched = any(fnmatch.fnmatchcase(path, glob) for glob in allowed)
        if not is_test_path(path) and not path.startswith("tests/"):
            assert matched, (path, allowed)
    assert not any(glob.startswith("tests") or glob in ("conftest.py", "test_top.py") for glob in allowed)
