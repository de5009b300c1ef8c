"""The pytest plugin (registered through the ``pytest11`` entry point: installing the
package is enough).

    def test_reward_is_sound(verifier_audit):
        verifier_audit.assert_coverage("rewards.py:accuracy_reward", suite="math", max_debt=0.05)

    @pytest.mark.verifier_audit("rewards.py:accuracy_reward", suite="math")
    def test_reward_passes_its_gate():
        pass

Defaults come from ``[tool.verifier_audit]`` in the project's pyproject.toml (waivers
included), as for ``verifier-audit run``. Audits are cached for the session, so several
tests on one verifier cost one audit. Under pytest-xdist every worker audits what its
tests ask for and sends its summary rows to the controller, which prints them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SUMMARY_KEY = "verifier_audit_summary"
REPORT_FORMATS = ("json", "markdown")  # what --verifier-audit-report writes unless told
_STASH = pytest.StashKey["_AuditSession"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("verifier-audit")
    from .report.writers import WRITERS

    group.addoption(
        "--verifier-audit-report",
        metavar="DIR",
        default=None,
        help="write each audit's report into DIR, as <verifier>-<suite>.json and .md (or the formats "
        "of --verifier-audit-format)",
    )
    group.addoption(
        "--verifier-audit-format",
        action="append",
        default=None,
        choices=list(WRITERS),
        metavar="FORMAT",
        help=f"a format --verifier-audit-report writes (repeatable; {', '.join(WRITERS)}: those of "
        f"verifier-audit run; default: {' and '.join(REPORT_FORMATS)})",
    )
    group.addoption(
        "--verifier-audit-limit",
        metavar="N",
        type=int,
        default=None,
        help="audit at most the first N tasks of each suite: a quick local run",
    )
    group.addoption(
        "--verifier-audit-workers",
        metavar="N",
        type=int,
        default=None,
        help="worker processes per audit (default: the config's, else the cores)",
    )
    group.addoption(
        "--verifier-audit-no-config", action="store_true", help="ignore [tool.verifier_audit] in pyproject.toml"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "verifier_audit(verifier, suite=None, **options): audit this verifier before the test body; "
        "the test fails when the verifier does not pass its gate",
    )
    config.stash[_STASH] = _AuditSession(config)


class _AuditSession:
    """What one pytest session audited: the cache and the summary rows."""

    def __init__(self, config: pytest.Config):
        self.pytest_config = config
        self.reports: dict[str, Any] = {}  # cache key -> Report
        self.rows: list[dict] = []  # terminal summary, in audit order
        self.flags: dict[int, list[str]] = {}  # id(Report) -> what its reproduce: line adds to the report's own
        self._project: Any = False  # not read yet
        self._tmpdir: tempfile.TemporaryDirectory | None = None

    def _tmp(self) -> tempfile.TemporaryDirectory:
        if self._tmpdir is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="verifier-audit-pytest-")
        return self._tmpdir

    def close(self) -> None:
        if self._tmpdir is not None:
            self._tmpdir.cleanup()

    @property
    def project(self):
        if self._project is False:
            from .config import find_config, load_config
            from .errors import InputError

            self._project = None
            if not self.pytest_config.getoption("verifier_audit_no_config"):
                path = find_config(Path(self.pytest_config.rootpath))
                if path is not None:
                    try:
                        self._project = load_config(path)
                    except InputError as exc:  # every test that audits fails with it, not only the first
                        self._project = exc
        if isinstance(self._project, Exception):
            raise self._project
        return self._project

    def _spec(self, verifier: str | Callable, style: str | None, confine: dict):
        """``confine``: how a spec string's signature is read (``plan.inspection``)."""
        from .engine.inspection import resolve
        from .loading import from_callable

        if callable(verifier):
            return from_callable(verifier, style)
        target, sep, attr = verifier.rpartition(":")
        root = Path(self.pytest_config.rootpath)
        # A file path is found from the current directory first, then from the rootdir.
        if target.endswith(".py") and not Path(target).exists() and (root / target).exists():
            verifier = f"{root / target}{sep}{attr}"
        return resolve(verifier, style, **confine)

    def audit(self, verifier: str | Callable, suite: str | None = None, **options) -> Any:
        from .config import check_option_names
        from .plan import Group, audit_group, audit_options, inspection, pass_env, suite_choice, waiver_sources

        style = options.pop("style", None)
        check_option_names(options, "verifier_audit")
        quick = self.pytest_config.getoption("verifier_audit_limit")
        workers = self.pytest_config.getoption("verifier_audit_workers")
        given = {"suite": suite, "progress": False, **options}
        if quick is not None:
            given["limit"] = min(quick, given.get("limit") or quick)
        if workers is not None and given.get("workers") is None:
            given["workers"] = workers
        project = self.project
        spec = self._spec(verifier, style, {**inspection(given, project), "pass_env": pass_env(given, project)})
        entry = project.entry_for(spec.spec) if project is not None else None
        choice = suite_choice(given, project, entry)
        audit_opts, timeout = audit_options(given, project, spec.spec, entry)
        key = json.dumps(
            [
                spec.spec,
                id(spec.function) if spec.function else None,
                spec.style,
                choice.key(),
                audit_opts.seed,
                audit_opts.threshold,
                audit_opts.gate.model_dump(),
                timeout,
                audit_opts.origins,
            ],
            default=str,
        )
        if key not in self.reports:
            # Results go to a private file: xdist workers may audit the same verifier at once.
            results = Path(self._tmp().name) / f"results-{len(self.reports)}.jsonl"
            group = Group(choice, audit_opts, [spec], timeout, waiver_sources(given, project, "waive="))
            report = audit_group(group, results)[1][0]
            self.reports[key] = report
            self.flags[id(report)] = self._reproduce_flags(given, project)
            self._record(report)
        return self.reports[key]

    # What the report's settings already say (reproduce_command writes them), or changes no verdict.
    _IN_REPORT = ("suite", "split", "limit", "seed", "origins", "workers")

    def _reproduce_flags(self, given: dict, project) -> list[str]:
        """The flags that make ``verifier-audit run``, started from the current directory,
        audit what this test audited: the options given in code (a field mapping, a gate)
        and the same configuration (the command finds its pyproject.toml from the current
        directory, the plugin from pytest's rootdir)."""
        from .config import find_config, option_flags

        flags = option_flags(given, skip=self._IN_REPORT)
        here = find_config()
        if project is None:
            flags += ["--no-config"] if here is not None else []
        elif project.path is not None and here != project.path:
            flags += ["--config", os.path.relpath(project.path)]
        return flags

    def _record(self, report) -> None:
        self.rows.append(
            {
                "verifier": report.verifier,
                "suite": report.suite,
                "n": report.n_candidates,
                "debt": report.coverage_debt,
                "debt_low": report.coverage_debt_ci.low,
                "debt_high": report.coverage_debt_ci.high,
                "fa": report.false_acceptance_rate,
                "fr": report.false_rejection_rate,
                "passed": report.gate.passed,
            }
        )
        out = self.pytest_config.getoption("verifier_audit_report")
        if out:
            from .report.writers import WRITERS, write_reports

            folder = Path(out)
            folder.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{report.verifier}-{report.suite}").strip("_")[-120:]
            formats = self.pytest_config.getoption("verifier_audit_format") or REPORT_FORMATS
            write_reports(
                {name: ("--verifier-audit-report", folder / f"{stem}{WRITERS[name].suffix}") for name in formats},
                [report],
            )


class VerifierAudit:
    """The ``verifier_audit`` fixture."""

    def __init__(self, session: _AuditSession, item: pytest.Item | None = None):
        self._session = session
        self._item = item

    @property
    def report(self):
        """The report of the verifier named by this test's ``verifier_audit`` marker."""
        report = getattr(self._item, "_verifier_audit_report", None)
        if report is None:
            raise RuntimeError("no verifier_audit marker on this test: call verifier_audit.audit(...) instead")
        return report

    def audit(self, verifier: str | Callable, suite: str | None = None, **options) -> Any:
        """Audit ``verifier`` (a ``path.py:function`` / ``module:function`` spec, or a callable)
        on ``suite`` and return its Report. Options are those of ``verifier_audit.audit``."""
        from .errors import InputError

        try:
            return self._session.audit(verifier, suite, **options)
        except InputError as exc:  # a bad spec, suite or config: the message is the whole story
            pytest.fail(f"verifier-audit: {exc}", pytrace=False)

    def assert_coverage(
        self,
        verifier: str | Callable,
        suite: str | None = None,
        *,
        max_debt: float | None = None,
        max_false_rejection: float | None = None,
        max_category: float | None = None,
        **options,
    ) -> Any:
        """Audit and fail the test, with the worst escapes and the command that reproduces
        it, when the verifier does not pass its gate. Returns the Report."""
        from .report.failure import explain_failure

        report = self.audit(
            verifier,
            suite,
            max_debt=max_debt,
            max_false_rejection=max_false_rejection,
            max_category=max_category,
            **options,
        )
        if not report.gate.passed:
            pytest.fail(explain_failure(report, flags=self._session.flags.get(id(report), [])), pytrace=False)
        return report


@pytest.fixture
def verifier_audit(request: pytest.FixtureRequest) -> VerifierAudit:
    """Audit verifiers from a test: ``verifier_audit.audit(...)`` returns a Report,
    ``verifier_audit.assert_coverage(...)`` fails the test when the gate fails."""
    return VerifierAudit(request.config.stash[_STASH], request.node)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    marker = item.get_closest_marker("verifier_audit")
    if marker is None:
        return
    kwargs = dict(marker.kwargs)
    verifier = marker.args[0] if marker.args else kwargs.pop("verifier", None)
    if verifier is None:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.verifier_audit needs the verifier, "
            "e.g. @pytest.mark.verifier_audit('rewards.py:accuracy_reward', suite='math')"
        )
    fixture = VerifierAudit(item.config.stash[_STASH], item)
    item._verifier_audit_report = fixture.assert_coverage(verifier, **kwargs)  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    # An xdist worker hands its rows to the controller (see pytest_testnodedown).
    state = session.config.stash[_STASH]
    state.close()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[SUMMARY_KEY] = json.dumps(state.rows)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    rows = json.loads(getattr(node, "workeroutput", {}).get(SUMMARY_KEY, "[]"))
    state = node.config.stash[_STASH]
    seen = {(r["verifier"], r["suite"], r["n"]) for r in state.rows}
    state.rows += [r for r in rows if (r["verifier"], r["suite"], r["n"]) not in seen]


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if getattr(config, "workeroutput", None) is not None:
        return
    rows = config.stash[_STASH].rows
    if not rows:
        return
    from .report.failure import display_spec

    terminalreporter.write_sep("=", "verifier-audit")
    for r in rows:
        terminalreporter.write_line(
            f"{display_spec(r['verifier'])} on {r['suite']} ({r['n']} candidates): coverage debt {r['debt']:.3f} "
            f"[{r['debt_low']:.3f}, {r['debt_high']:.3f}], FA {100 * r['fa']:.1f}%, FR {100 * r['fr']:.1f}% "
            f"— gate {'passed' if r['passed'] else 'FAILED'}"
        )
