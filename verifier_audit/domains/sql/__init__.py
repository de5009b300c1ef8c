"""The SQL domain: text-to-SQL verifiers, judged by execution on DuckDB, or in SQLite on
SQLite files for a Spider / BIRD dataset (``--dialect``, ``dialects``).

Same shape as every domain: ``fixtures`` (schemas and their deterministic data),
``database`` (hardened execution), ``compare`` (result equality), ``fuzz`` (the test-suite
method: fuzzed databases, distilled per task), ``oracle``, ``generators``, ``verifiers``
(naive to strong), ``loaders`` (Spider/BIRD), and ``guard`` (what the verifier under audit
may touch, and the findings when it touches more).
"""

from __future__ import annotations

from pathlib import Path

from ...models import Task
from ..base import DomainPackage, FormatSign, suite_formats, verifier_specs


class SqlDomain(DomainPackage):
    name = "sql"
    package = __name__
    reference_verifiers = verifier_specs(__name__, "syntax_only", "exact_match", "single_db_set", "strong")
    # a JSON list, SQLite databases beside it (BIRD: dev.json, dev_databases/)
    suite_formats = suite_formats(__name__, spider="spider_suite", bird="bird_suite")
    suite_signs = {
        "spider": FormatSign(("db_id", "query", "question")),
        "bird": FormatSign(("db_id", "SQL", "question", "evidence")),
    }
    prepares_tasks = True  # fixtures and fuzzed databases
    private_view = True  # each worker's own copy of the fixture
    guards_fixtures = True  # after_call checks and restores it

    def prepare_tasks(self, tasks: list[Task], seed: int, cache_dir: Path) -> list[Task]:
        """Fixture files for every task (``database``) and its distilled fuzzed databases
        (``metadata['databases']``), both cached; for a task judged in SQLite, those as
        SQLite files too (``metadata['sqlite_databases']``). Distillation edits the gold's
        DuckDB form (``dialects.source_view``); the task keeps its own gold."""
        from .dialects import source_view
        from .fuzz import distil_all
        from .fuzz.sqlite_target import in_target_dialect

        distilled = distil_all([source_view(t) for t in tasks], seed, Path(cache_dir) / "sql")
        restored = [d.model_copy(update={"reference": t.reference}) for d, t in zip(distilled, tasks)]
        return in_target_dialect(restored)

    def check_task(self, task: Task) -> str | None:
        from .oracle import check_gold

        return check_gold(task)

    def canonical_answer(self, text: str, task: Task) -> str | None:
        """The extracted statements, whitespace collapsed."""
        from .extract import extract_sql

        stmts = extract_sql(text)
        return "; ".join(" ".join(s.split()) for s in stmts) if stmts else None

    def verifier_view(self, task: Task, workdir: str) -> Task:
        from .guard import private_view

        return private_view(task, workdir)

    def after_call(self, task: Task, view: Task) -> list[str]:
        from .guard import check_and_restore

        return check_and_restore(task, view)


DOMAIN = SqlDomain()
