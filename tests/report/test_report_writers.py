"""The report formats are declared once (``report/writers.py``): every registered writer
renders a real report into something its own reader parses; ``run --report-dir`` writes
exactly the registry's files, as ``run`` itself renders them; ``score`` and the pytest
plugin take the same formats and write them the same way."""

from __future__ import annotations

import json
import shutil
import tempfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit.cli import build_parser, main
from verifier_audit.models import Report
from verifier_audit.report.diff import load_reports
from verifier_audit.report.writers import WRITERS, Addenda, report_dir_help, writer
from verifier_audit.samples.records import Manifest, Sample, manifest_line

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
WEAK = "verifier_audit.domains.math.verifiers:last_number"
EXAMPLE = ROOT / "examples" / "verifier-repo"
SIGNATURES = ".verifier-audit-keys"  # audit_files' keys beside signed outputs: not a report file


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name != SIGNATURES}


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    """A real audit's reports, every format, through ``run --report-dir``."""
    out = tmp_path_factory.mktemp("writers")
    code = main(
        [
            "run",
            "--verifier",
            WEAK,
            "--limit",
            "3",
            "--no-progress",
            "--no-config",
            "--workers",
            "2",
            "--probe-sample",
            "0",
            "-q",
            "--results",
            str(out / "results.jsonl"),
            "--report-dir",
            str(out / "reports"),
        ]
    )
    assert code in (0, 1)
    return out / "reports"


@pytest.fixture(scope="module")
def report(report_dir) -> Report:
    return Report.model_validate_json((report_dir / "report.json").read_text(encoding="utf-8"))


def test_the_formats_are_declared_once_with_their_flag_and_file():
    assert list(WRITERS) == ["json", "markdown", "junit", "html", "sarif"]
    assert {w.flag for w in WRITERS.values()} == {"--json", "--markdown", "--junit", "--html", "--sarif"}
    assert sorted(w.file_name for w in WRITERS.values()) == sorted(
        ["report.json", "report.md", "junit.xml", "report.html", "report.sarif"]
    )
    assert report_dir_help() == "write the report in every format here (report.json, .md, .html, .sarif, junit.xml)"


def test_a_format_declared_twice_is_an_error():
    with pytest.raises(ValueError, match="'json' is declared twice"):
        writer("json", "other.json", "again")(lambda reports, addenda: "")
    assert WRITERS["json"].file_name == "report.json"


def test_run_report_dir_writes_exactly_the_registry_files(report_dir):
    assert _files(report_dir) == {w.file_name for w in WRITERS.values()}


def _parses_as_html(text: str) -> bool:
    tags = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)

    Tags().feed(text)
    return "html" in tags and "table" in tags


READERS = {  # each format read back by its own reader
    "json": lambda text, r: Report.model_validate_json(text).verifier == r.verifier,
    "markdown": lambda text, r: r.verifier.rpartition(":")[2] in text and "|" in text,
    "junit": lambda text, r: ET.fromstring(text).find("testsuite") is not None,
    "html": lambda text, r: _parses_as_html(text),
    "sarif": lambda text, r: json.loads(text)["version"] == "2.1.0",
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_writer_renders_a_real_report_as_run_wrote_it(name, report, report_dir):
    w = WRITERS[name]
    text = w.render([report], Addenda())
    assert READERS[name](text, report)
    assert text == (report_dir / w.file_name).read_text(encoding="utf-8")


def test_every_format_has_a_reader_here():
    assert set(READERS) == set(WRITERS)


def test_addenda_make_a_report_set_with_the_sections_beside_the_reports(report, tmp_path):
    text = WRITERS["json"].render([report], Addenda(json={"samples": [{"samples": 3}]}, markdown="\n### more\n"))
    data = json.loads(text)
    assert list(data) == ["schema_version", "tool_version", "reports", "samples"]
    assert data["samples"] == [{"samples": 3}] and data["reports"][0]["verifier"] == report.verifier
    (tmp_path / "set.json").write_text(text)
    assert list(load_reports(tmp_path / "set.json")) == [report.verifier]  # diff and checklist read it
    md = WRITERS["markdown"].render([report], Addenda(markdown="\n### more\n"))
    assert md == WRITERS["markdown"].render([report], Addenda()) + "\n### more\n"


def _options(command: str) -> set[str]:
    sub = build_parser().commands.choices[command]
    return {o for a in sub._actions for o in a.option_strings}


def test_run_and_score_take_the_same_formats():
    flags = {w.flag for w in WRITERS.values()} | {"--report-dir"}
    assert flags <= _options("run") and flags <= _options("score")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(named=st.sets(st.sampled_from(list(WRITERS))), into_dir=st.booleans())
def test_the_files_asked_for_are_the_flags_then_the_dir_for_the_rest(named, into_dir):
    from verifier_audit.cli.options import report_paths

    folder = Path(tempfile.mkdtemp())
    try:
        argv = ["run"] + [a for n in sorted(named) for a in (WRITERS[n].flag, str(folder / f"own-{n}"))]
        argv += ["--report-dir", str(folder)] if into_dir else []
        paths = report_paths(build_parser().parse_args(argv))
        expect = {n: (WRITERS[n].flag, folder / f"own-{n}") for n in named}
        if into_dir:
            expect.update({n: ("--report-dir", folder / w.file_name) for n, w in WRITERS.items() if n not in named})
        assert paths == expect
    finally:
        shutil.rmtree(folder)


def _samples_file(path: Path, rows) -> Path:
    """A samples file (as ``verifier-audit import`` writes one) of math suite tasks."""
    manifest = Manifest(
        model=str(path), model_name="m", suite="math", task_count=len(rows), tool_version="test", source="import:jsonl"
    )
    lines = [manifest_line(manifest)] + [
        json.dumps(
            Sample(task_id=t, sample_index=0, split="train", model="m", prompt="p", text=text).model_dump(
                mode="json", exclude_none=True
            )
        )
        for t, text in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_score_writes_the_same_files_with_its_samples_sections(tmp_path):
    samples = _samples_file(tmp_path / "s.jsonl", [("math-0001", "\\boxed{1}"), ("math-0002", "\\boxed{2}")])
    code = main(
        [
            "score",
            str(samples),
            "--verifier",
            WEAK,
            "--no-config",
            "--no-progress",
            "-q",
            "--workers",
            "2",
            "--probe-sample",
            "0",
            "--results",
            str(tmp_path / "r.jsonl"),
            "--report-dir",
            str(tmp_path / "out"),
        ]
    )
    assert code in (0, 1)
    assert _files(tmp_path / "out") == {w.file_name for w in WRITERS.values()}
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert list(data) == ["schema_version", "tool_version", "reports", "samples"]
    assert "### Real samples" in (tmp_path / "out" / "report.md").read_text()
    ET.parse(tmp_path / "out" / "junit.xml")
    assert json.loads((tmp_path / "out" / "report.sarif").read_text())["version"] == "2.1.0"


@pytest.fixture
def repo(pytester):
    shutil.copy(EXAMPLE / "rewards.py", pytester.path / "rewards.py")
    lines = (EXAMPLE / "data" / "gsm_style.jsonl").read_text().splitlines()
    (pytester.path / "tasks.jsonl").write_text("\n".join(lines[:6]) + "\n")
    pytester.makepyprojecttoml('[tool.verifier_audit]\nsuite = "tasks.jsonl"\nworkers = 2\n')
    return pytester


def test_the_plugin_writes_the_formats_asked_for_by_the_registry_names(repo, tmp_path):
    repo.makepyfile(
        test_rewards="""
def test_audit(verifier_audit):
    verifier_audit.audit("rewards.py:accuracy_reward", probe_sample=0)
"""
    )
    out = tmp_path / "reports"
    result = repo.runpytest(
        "--verifier-audit-limit",
        "2",
        "--verifier-audit-report",
        str(out),
        *[a for name in ("json", "junit", "sarif") for a in ("--verifier-audit-format", name)],
    )
    result.assert_outcomes(passed=1)
    written = sorted(_files(out))
    assert [Path(n).suffix for n in written] == [".json", ".sarif", ".xml"]
    assert len({Path(n).stem for n in written}) == 1  # one stem: the verifier and the suite
    ET.parse(out / next(n for n in written if n.endswith(".xml")))


def test_the_plugin_refuses_a_format_the_registry_does_not_have(repo):
    result = repo.runpytest("--verifier-audit-format", "pdf")
    assert result.ret != 0
    assert all(name in result.stderr.str() for name in WRITERS)
