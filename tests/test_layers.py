"""The engine, the report builders and the front ends above them import one way (imports
inside functions count too): the engine hands back verdicts and never imports the report
builders, the suite reader or a front end; the report builders import no front end;
neither imports the root package (which imports the API, which imports everything); and
no circle runs through any of them."""

from __future__ import annotations

from test_front_end_imports import _circles, _imports, _modules

ENGINE = "verifier_audit.engine"
# metrics.py is not checked here: the engine's format probe and search read its
# ``accepted`` and ``_clip`` (no circle: metrics imports only the models).
REPORT = ("verifier_audit.report",)
FRONT_ENDS = ("verifier_audit.cli", "verifier_audit.plan", "verifier_audit.api", "verifier_audit.pytest_plugin",
              "verifier_audit.strategies")
CHECKED = (ENGINE, *REPORT, *FRONT_ENDS)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _in(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in ((prefixes,) if isinstance(prefixes, str) else prefixes))


def _edges(graph, source, target) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in graph.items() if _in(a, source) for b in targets if _in(b, target))


def test_the_engine_imports_no_report_builder_suite_reader_or_front_end():
    graph = _graph()
    assert _edges(graph, ENGINE, (*REPORT, *FRONT_ENDS, "verifier_audit.suites")) == []


def test_the_report_builders_import_no_front_end():
    assert _edges(_graph(), REPORT, FRONT_ENDS) == []


def test_neither_imports_the_root_package():
    graph = _graph()
    assert sorted(a for a, targets in graph.items() if _in(a, (ENGINE, *REPORT)) and "verifier_audit" in targets) == []


def test_no_circle_through_the_engine_the_report_or_the_front_ends():
    ours = [c for c in _circles(_graph()) if any(_in(m, CHECKED) or m == "verifier_audit" for m in c)]
    assert ours == []
