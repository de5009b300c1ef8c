"""The package is layered one way: every module of ``verifier_audit`` has a layer (the
table below, by dotted prefix), no import goes from a lower layer to a higher one, and no
modules import each other in a circle. Imports inside functions count: a lazy import is
still a dependency, only a later one. Read with ``ast``, nothing is imported."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "verifier_audit"

# Dotted prefix (after ``verifier_audit.``) -> layer; the longest prefix wins. A module no
# prefix covers fails the test: a new top-level module must be placed here.
LAYERS = {
    # 0: the bottom, importing nothing above it.
    "models": 0,
    "_version": 0,  # __version__, importing nothing
    "errors": 0,
    "resources": 0,
    "environment": 0,  # the workers' allow-listed environment and the secrets' mask: loading and engine use it
    "cache_dir": 0,  # where caches live (an environment variable): the suite reader and the engine ask it
    "audit_files": 0,  # keys, signed caches, atomic outputs: the engine's files and the front ends' reports
    "argtypes": 0,
    "settings": 0,  # AuditSettings, one row per option: config, plan, cli and the API derive from it
    "canary": 0,  # the canary strings the catalogs plant: no imports of ours
    "metrics": 0,  # rates and intervals over the models: the engine's probes and search use them
    "report.text": 0,  # printable / one_line: plain string helpers for every text output
    "report._html": 0,  # esc, page_head, table: the one escaping path of the three HTML pages (stdlib only)
    "report.chart": 0,  # the chart descriptions the SVG and the PNG back ends both draw (stdlib; numpy lazily)
    "scores": 0,  # read_score: what training reads from a verifier's return value; loading and frameworks use it
    "isolation": 0,  # the walls (levels, lockdown, limits, seccomp, memory, socket covers, tripwires, witness):
    # standard library and the bottom's canary / cache_dir / environment only (tests/security/
    # test_isolation_package.py), so the code sandbox's zygote loads it alone; the engine (its workers) and the
    # code domain (its sandbox) take the walls from here
    # 1: domains, and what their generators share.
    "domains": 1,
    "domains.kit": 1,  # the generator kit every domain's generators share: seeding, candidates, sampling, catalogs
    # 2: reading what is audited: verifier specs and framework adapters, suites.
    "loading": 2,  # verifier specs -> callables, through frameworks._registry
    "frameworks": 2,  # adapters (verifiers, TRL, verl, Inspect, HTTP): loading, suites, models
    "suites": 2,  # suite files and named suites; asks the domain registry for formats
    # 3: the engine: pool, store, probes, audit returning verdicts.
    "engine": 3,
    # 4: report building, and the static scan whose findings the report carries.
    "report": 4,  # build, tally, diff, source (report.source runs the scan)
    "scan": 4,  # verifier source scan: models, errors, report.text
    # 5: renderers of a built report.
    "report.terminal": 5,
    "report.exploitability": 5,
    "report.failure": 5,
    "report.markdown": 5,
    "report.html": 5,
    "report.png": 5,
    "report.sarif": 5,
    "report.junit": 5,
    # 6: pipelines over the engine and the renderers: scoring and comparing samples,
    # watching training logs, the security checklist (reads the samples' authority evidence).
    "samples": 6,
    "monitor": 6,  # training-log monitor: its plots and png reuse report._html / report.png
    "report.checklist": 6,  # imports samples.authority
    "report.writers": 6,  # the report formats, declared once: its HTML writer shows report.checklist
    # 7: front ends. The package root is the public face (``verifier_audit.audit`` is the
    # API's, imported when called): nothing of ours imports it (``_version`` holds the version).
    "": 7,
    "cli": 7,
    "__main__": 7,
    "api": 7,
    "plan": 7,
    "pytest_plugin": 7,
    "strategies": 7,
    "config": 7,  # settings of the front ends (argparse defaults, monitor alarm thresholds)
    "watch": 7,  # the live watch inside a trainer: wraps a reward (frameworks' styles), labels with the
    # oracle in the engine's pool (samples.labels), the monitor's alarms and report online
}

# Upward edges the layering allows, each with its reason. Nothing else may be listed, and
# an entry no longer in the code fails the test too.
ALLOWED_UPWARD = {
    # the sql domain builds its fixture databases in parallel through the engine's process
    # pool (per-build timeout, a crash is an error). Not a circle: the pool imports no
    # domain. Cutting it means the engine hands a parallel map to Domain.prepare_tasks, a
    # change of the domain protocol that third-party domains implement.
    ("domains.sql.fuzz.workers", "engine.pool"),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The modules of ours an import statement loads: ``from pkg import submodule`` is the
    submodule, ``from pkg import name`` the package, ``import a.b.c`` the module a.b.c."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        out = []
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            out.append(name)
        return [n for n in out if n]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    out = []
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            out.append(f"{base}.{alias.name}")
        elif base in modules:
            out.append(base)
    return out


@lru_cache(maxsize=1)
def _graph() -> dict[str, dict[str, str]]:
    """module -> {imported module: "file:line" of the first import of it}."""
    modules = _modules()
    graph: dict[str, dict[str, str]] = {}
    for module, path in modules.items():
        edges: dict[str, str] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, module, path.name == "__init__.py", modules):
                    if target != module:
                        edges.setdefault(target, f"{path.relative_to(ROOT)}:{node.lineno}")
        graph[module] = edges
    return graph


def _short(module: str) -> str:
    return module[len("verifier_audit.") :] if module.startswith("verifier_audit.") else ""


def _layer(module: str) -> int | None:
    short = _short(module)
    best = None
    for prefix, layer in LAYERS.items():
        if prefix == "" and short != "":
            continue
        if short == prefix or (prefix and short.startswith(prefix + ".")):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return best[1] if best else None


def _allowed(graph) -> set[tuple[str, str]]:
    return {(a, b) for a in graph for b in graph[a] if (_short(a), _short(b)) in ALLOWED_UPWARD}


def _circles(graph: dict[str, dict[str, str]], skip: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if (node, child) in skip:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_has_a_layer():
    unplaced = sorted(m for m in _graph() if _layer(m) is None)
    assert not unplaced, f"modules with no layer (add their prefix to LAYERS): {unplaced}"


def test_no_import_goes_up_a_layer():
    graph = _graph()
    allowed = _allowed(graph)
    upward = [
        f"{where}: {a} (layer {_layer(a)}) imports {b} (layer {_layer(b)})"
        for a in sorted(graph)
        for b, where in sorted(graph[a].items())
        if (a, b) not in allowed and (_layer(a) or 0) < (_layer(b) or 0)
    ]
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_no_import_circle():
    graph = _graph()
    circles = _circles(graph, _allowed(graph))
    lines = []
    for component in circles:
        members = set(component)
        lines.append(f"circle of {len(component)}: " + ", ".join(component))
        lines += [f"  {where}: {a} -> {b}" for a in component for b, where in sorted(graph[a].items()) if b in members]
    assert not circles, "\n".join(lines)


def test_known_elsewhere_lists_only_edges_still_there():
    graph = _graph()
    present = {(_short(a), _short(b)) for a in graph for b in graph[a]}
    stale = sorted(ALLOWED_UPWARD - present)
    assert not stale, f"ALLOWED_UPWARD edges no longer in the code (remove them): {stale}"


SHARED_PACKAGES = {"kit"}  # under domains/, but what every domain shares (the generator kit), not a domain


def _domain_names() -> set[str]:
    """The built-in domains: the packages under ``domains/`` (``domains.base``, ``formats``,
    ``suite_files`` and ``input_limits`` are the contract and what every domain shares, as
    the generator kit ``domains/kit`` is)."""
    return {
        path.name
        for path in (PACKAGE / "domains").iterdir()
        if (path / "__init__.py").is_file() and path.name not in SHARED_PACKAGES
    }


def _domain_named(module: str, domains: set[str]) -> str | None:
    """The domain a module of ours belongs to (``verifier_audit.domains.code.sandbox.pool``:
    code), or None."""
    parts = _short(module).split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "domains" and parts[1] in domains else None


def _part_naming_a_domain(graph: dict[str, dict[str, str]], domains: set[str], part: str) -> list[str]:
    """The imports of a named domain by a module of ``part`` (``engine``, ``samples``)."""
    return [
        f"{where}: {a} imports {b} (the {_domain_named(b, domains)} domain)"
        for a in sorted(graph)
        if _short(a) == part or _short(a).startswith(f"{part}.")
        for b, where in sorted(graph[a].items())
        if _domain_named(b, domains)
    ]


def _engine_naming_a_domain(graph: dict[str, dict[str, str]], domains: set[str]) -> list[str]:
    return _part_naming_a_domain(graph, domains, "engine")


def test_the_engine_names_no_domain():
    """The engine reaches a domain only through the registry and the contract
    (``domains``, ``domains.base``): a module under ``engine/`` that imports
    ``verifier_audit.domains.<name>`` would make that domain part of every audit, and a
    plugin domain a second-class one. The walls both need live in ``isolation/``."""
    found = _engine_naming_a_domain(_graph(), _domain_names())
    assert not found, "the engine imports a specific domain:\n" + "\n".join(found)


def test_the_samples_layer_names_no_domain():
    """``score`` and ``compare`` read a domain's samples through the contract (the
    authority of tool calls: ``Domain.call_authority``; canonical answers:
    ``Domain.canonical_answer``), so a plugin domain's samples are read as a built-in's.
    Neither an import of ``verifier_audit.domains.<name>`` nor a test of a task's domain
    against a built-in domain's name (``task.domain == "tool"``) is in ``samples/``."""
    found = _part_naming_a_domain(_graph(), _domain_names(), "samples")
    assert not found, "the samples layer imports a specific domain:\n" + "\n".join(found)
    named = _domain_name_compared(PACKAGE / "samples", _domain_names())
    assert not named, "the samples layer compares with a domain's name:\n" + "\n".join(named)


def _domain_name_compared(folder: Path, domains: set[str]) -> list[str]:
    """Comparisons (``==``, ``!=``, ``in``) with a string that is a built-in domain's name."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                strings = [
                    n.value
                    for n in ast.walk(node)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in domains
                ]
                found += [f"{path.relative_to(folder.parent)}:{node.lineno}: {s!r}" for s in strings]
    return found


def test_the_samples_check_sees_a_domain_named(tmp_path):
    """The two checks above fail on what samples/ did before the contract's
    ``call_authority`` (samples/authority.py, score/label.py, compare/pipeline.py)."""
    graph = {"verifier_audit.samples.score.label": {"verifier_audit.domains.tool.policy": "samples/score/label.py:85"}}
    assert _part_naming_a_domain(graph, _domain_names(), "samples") == [
        "samples/score/label.py:85: verifier_audit.samples.score.label imports verifier_audit.domains.tool.policy (the tool domain)"
    ]
    (tmp_path / "authority.py").write_text('def is_tool_task(task):\n    return task.domain == "tool"\n')
    assert [f.split(": ")[1] for f in _domain_name_compared(tmp_path, _domain_names())] == ["'tool'"]


def test_the_domain_check_sees_a_domain_import():
    """The check above fails on the import it is for (the engine taking the code sandbox's
    walls, as it did before isolation/), and passes the registry and the contract."""
    domains = _domain_names()
    assert {"math", "sql", "code", "tool"} <= domains and "base" not in domains
    graph = {
        "verifier_audit.engine.lockdown": {"verifier_audit.domains.code.sandbox": "engine/lockdown.py:58"},
        "verifier_audit.engine.audit": {
            "verifier_audit.domains": "engine/audit.py:22",
            "verifier_audit.domains.base": "engine/audit.py:23",
        },
        "verifier_audit.domains.code.cases": {"verifier_audit.domains.code.sandbox": "domains/code/cases.py:29"},
    }
    assert _engine_naming_a_domain(graph, domains) == [
        "engine/lockdown.py:58: verifier_audit.engine.lockdown imports verifier_audit.domains.code.sandbox (the code domain)"
    ]


def test_the_graph_sees_lazy_relative_and_submodule_imports():
    graph = _graph()
    # a lazy import inside a function, relative two levels up, naming a submodule
    assert "verifier_audit.cache_dir" in graph["verifier_audit.suites"]
    # ``from .. import fixtures`` (a submodule, not the package) inside a function
    assert "verifier_audit.domains.sql.fixtures" in graph["verifier_audit.domains.sql.fuzz.suite"]
    # ``from ..domains import get_domain`` (a name, not a submodule) is the package itself
    assert "verifier_audit.domains" in graph["verifier_audit.engine.audit"]
