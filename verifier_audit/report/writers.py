"""The report formats, each declared once (as pytest's hooks or Inspect AI's registries are):
its name (the flag is ``--<name>``), its file under ``--report-dir``, its help line, and the
function that renders it. ``run`` and ``score`` take their flags from here
(``cli/options.add_report_options``), the pytest plugin its ``--verifier-audit-format``
choices, and all three write through ``write_reports``: a new format is one ``@writer``
function here and a test, and every front end has it.

Here, in the pipelines' layer rather than beside the renderers, because the HTML writer shows
the security checklist (``report.checklist``, which reads the samples' authority evidence).
A renderer's own module (markdown, junit, html, sarif) stays a function of the reports; the
imports are inside the render functions, so that building ``--help`` loads none of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from .._version import __version__

if TYPE_CHECKING:  # the pytest plugin imports this table at start: it loads no pydantic
    from ..models import Report


@dataclass(frozen=True)
class Addenda:
    """What a pipeline adds to the reports in its files: ``score`` its samples sections.
    ``json``: keys beside ``reports`` (the file is then always a report set); ``markdown``:
    text after the summary. The other formats are of the reports alone."""

    json: Mapping[str, Any] = field(default_factory=dict)
    markdown: str = ""


NONE = Addenda()


@dataclass(frozen=True)
class Writer:
    """One report format."""

    name: str  # the flag is --<name>, the argparse dest <name>
    file_name: str  # under --report-dir
    help: str  # of its flag
    render: Callable[[Sequence[Report], Addenda], str]

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def suffix(self) -> str:
        """The file's extension, for a file named after its report (the plugin's)."""
        return PurePath(self.file_name).suffix


WRITERS: dict[str, Writer] = {}  # name -> Writer, in the order --help lists the flags


def writer(name: str, file_name: str, help: str) -> Callable:
    """Register the decorated ``render(reports, addenda) -> str`` as the format ``name``."""

    def register(render: Callable[[Sequence[Report], Addenda], str]) -> Callable:
        if name in WRITERS:
            raise ValueError(f"report format {name!r} is declared twice")
        WRITERS[name] = Writer(name, file_name, help, render)
        return render

    return register


@writer("json", "report.json", "write the report JSON here")
def _json(reports: Sequence[Report], addenda: Addenda) -> str:
    """One report as itself; several (or any with addenda) as a report set, which
    ``verifier-audit diff`` and ``checklist`` read."""
    from ..models import ReportSet, to_json

    if len(reports) == 1 and not addenda.json:
        return to_json(reports[0], indent=2) + "\n"
    payload = ReportSet(tool_version=__version__, reports=list(reports))
    if not addenda.json:
        return to_json(payload, indent=2) + "\n"
    return json.dumps({**payload.model_dump(mode="json"), **addenda.json}, ensure_ascii=True, indent=2) + "\n"


@writer("markdown", "report.md", "write a Markdown summary here (a PR comment)")
def _markdown(reports: Sequence[Report], addenda: Addenda) -> str:
    from .markdown import to_markdown

    return to_markdown(list(reports)) + addenda.markdown


@writer("junit", "junit.xml", "write JUnit XML here: one test case per category, failed over its allowance")
def _junit(reports: Sequence[Report], addenda: Addenda) -> str:
    from .junit import to_junit

    return to_junit(list(reports))


@writer("html", "report.html", "write a self-contained HTML report here")
def _html(reports: Sequence[Report], addenda: Addenda) -> str:
    from .checklist import evaluate
    from .html import to_html

    return to_html(list(reports), {r.verifier: evaluate(r) for r in reports})


@writer("sarif", "report.sarif", "write SARIF 2.1.0 here (code scanning)")
def _sarif(reports: Sequence[Report], addenda: Addenda) -> str:
    from .sarif import to_sarif

    return json.dumps(to_sarif(list(reports)), indent=2, ensure_ascii=True) + "\n"


def report_dir_help() -> str:
    """``--report-dir``'s help, naming the files it gets: report.json, .md, ... in full once."""
    names = [w.file_name for w in WRITERS.values()]
    shared = [n for n in names if n.startswith("report.")]
    listed = shared[:1] + [PurePath(n).suffix for n in shared[1:]] + [n for n in names if n not in shared]
    return f"write the report in every format here ({', '.join(listed)})"


def write_reports(outputs: Mapping[str, tuple[str, Path]], reports: Sequence[Report], addenda: Addenda = NONE) -> None:
    """Each file of ``outputs`` (format name -> (the flag that asked for it, path)) through
    ``audit_files.write_output``: whole or not at all, signed, the previous file intact on
    a full disk (an InputError naming the flag, exit 2)."""
    from ..audit_files import write_output

    for name, (flag, path) in outputs.items():
        write_output(flag, path, WRITERS[name].render(reports, addenda))
