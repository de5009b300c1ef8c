"""What the math domain's tests share: the built-in suite's tasks (the generators, the
catalog and the suite's own checks all read the same file; one module-scoped parse each)."""

import pytest

from verifier_audit.models import Task
from verifier_audit.resources import data_path


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    """The built-in math suite, as shipped (``suites/math/tasks.jsonl``)."""
    path = data_path("suites", "math", "tasks.jsonl")
    return [Task.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()]
