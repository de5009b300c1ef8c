"""reasoning-gym: its procedural datasets as a suite, its own scorers as a verifier.

* ``load_tasks(name, size=, seed=)`` -- the items of ``reasoning_gym.create_dataset(name,
  size=size, seed=seed)`` as math tasks (``--suite reasoning-gym:NAME``). Only the datasets
  in ``SUPPORTED`` are offered: those whose answers the math oracle labels (a number, a
  fraction), checked by generating their items; the others (grids, move lists, words,
  puzzles) exist in reasoning-gym but have no oracle here. Each task's metadata says how to
  rebuild its entry: ``create_dataset(dataset, size=size, seed=seed)[index]``.
* ``make_caller(None, spec)`` -- the ``reasoning-gym`` style (``--verifier reasoning-gym``):
  a completion is scored as reasoning-gym scores it in training, its answer taken from the
  last ``<answer>...</answer>`` (``reasoning_gym.utils.extract_answer``) and handed to the
  dataset's own ``score_answer(answer, entry)``. The scores are partial credit in [0, 1]
  (a substring of the gold pays ``len(gold) / len(answer)``, a close count pays up to
  0.64, a well-formed wrong answer 0.01 in some datasets), compared with the audit's
  threshold like any other score.

reasoning-gym is an optional extra: it is imported only when a suite or the style is used.
"""

from __future__ import annotations

import inspect
import json
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Task

EXTRA = "pip install 'verifier-audit[reasoning-gym]'"
DEFAULT_SIZE = 50
MAX_SIZE = 100_000
SOURCE = "reasoning-gym"

#: dataset -> the form of its answers. Each one was checked by generating items: the math
#: oracle parses every answer and judges it equal to itself, and the near-miss generators
#: write wrong answers for (almost) every task (tests/frameworks/test_reasoning_gym.py checks both).
#: Left out on purpose: datasets whose task fixes the answer's *form* as well as its value
#: (fraction_simplification and dice ask for the reduced fraction, prime_factorization for
#: the factors, power_function and polynomial_equations for a rounding): the oracle judges
#: values, so its labels there would not be the task's.
SUPPORTED: dict[str, str] = {
    "basic_arithmetic": "an integer (the value of a +, -, *, / expression)",
    "chain_sum": "an integer (a chain of + and -)",
    "decimal_chain_sum": "an exact decimal (a chain of + and - on decimals), e.g. -2.2017",
    "products": "an integer (a product), up to ten digits or more",
    "gcd": "a positive integer (greatest common divisor)",
    "lcm": "a positive integer (least common multiple)",
    "simple_equations": "an integer (the solution of a linear equation in one variable)",
    "leg_counting": "a non-negative integer (legs counted)",
    "gsm_symbolic": "an integer (a GSM8K-style word problem)",
    "number_sequence": "an integer (the next term of a sequence); often 0, which has no near-misses",
    "count_primes": "a non-negative integer (primes in a range)",
    "count_bits": "a non-negative integer (1 bits of a number)",
    "coin_flip": "a probability as a decimal or 1, e.g. 0.3125",
    "rectangle_count": "a small non-negative integer (rectangles in ASCII art)",
    "number_format": "a decimal (the largest or smallest of numbers written in several styles)",
}


def import_reasoning_gym():
    """The ``reasoning_gym`` module, or an InputError that says what to install."""
    try:
        import reasoning_gym
    except ImportError as exc:
        raise InputError(f"reasoning-gym cannot be imported ({exc}); install it with: {EXTRA}") from None
    return reasoning_gym


def _unsupported(name: str) -> InputError:
    import difflib

    known = ", ".join(SUPPORTED)
    try:
        from reasoning_gym.factory import DATASETS as theirs
    except Exception:  # noqa: BLE001 - not installed, or another layout: say only what we support
        theirs = {}
    if name in theirs:
        what = (
            f"reasoning-gym dataset {name!r} is not one the math oracle can label (its answers are not "
            "values the oracle judges, or the task fixes their form)"
        )
    else:
        close = difflib.get_close_matches(name, list(SUPPORTED), n=1)
        what = f"{name!r} is not a supported reasoning-gym dataset" + (
            f" (did you mean {close[0]!r}?)" if close else ""
        )
    return InputError(
        f"{what}; supported: {known}. reasoning-gym has other datasets (grids, puzzles, words, "
        "move lists), but they are not labelled by the math oracle"
    )


def load_tasks(name: str, *, size: int = DEFAULT_SIZE, seed: int = 0) -> list[Task]:
    """The items of a supported reasoning-gym dataset as math tasks, ``rg-NAME-i``.

    Every fifth task (index 4, 9, ...) is in the ``heldout`` split, the rest in ``train``.
    """
    if name not in SUPPORTED:
        raise _unsupported(name)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
        raise InputError(f"reasoning-gym:{name}: size must be an integer from 1 to {MAX_SIZE}, got {size!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"reasoning-gym:{name}: seed must be an integer, got {seed!r}")
    dataset = _dataset(name, size, seed)
    tasks = []
    for i in range(size):
        entry = dataset[i]
        tasks.append(
            Task(
                id=f"rg-{name}-{i}",
                domain="math",
                prompt=str(entry["question"]),
                reference=_reference(entry["answer"]),
                split="heldout" if i % 5 == 4 else "train",
                metadata={
                    "source": SOURCE,
                    "dataset": name,
                    "seed": seed,
                    "size": size,
                    "index": i,
                    "entry_metadata": json_safe(entry.get("metadata") or {}),
                },
            )
        )
    return tasks


def version() -> str:
    """The installed reasoning-gym's version (part of a suite's content hash: its scorers
    and generators change between versions)."""
    rg = import_reasoning_gym()
    found = getattr(rg, "__version__", None)
    if found is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        try:
            found = dist_version("reasoning-gym")
        except PackageNotFoundError:
            found = "unknown"
    return str(found)


def source_path(name: str, size: int = DEFAULT_SIZE, seed: int = 0) -> Path:
    """The file of the reasoning-gym class that generates the dataset (a suite's ``path``:
    the tasks come from no file of the user's)."""
    dataset = _dataset(name, size, seed)
    try:
        found = inspect.getsourcefile(type(dataset))
    except TypeError:
        found = None
    return Path(found) if found else Path(import_reasoning_gym().__file__).parent


def _reference(answer: Any) -> str:
    """The gold in the math domain's syntax: the supported datasets' answers already are
    (``-4``, ``0.3125``, ``569204296.88``), so it is only made a string."""
    return answer if isinstance(answer, str) else str(answer)


def json_safe(value: Any, _depth: int = 0) -> Any:
    """``value`` as JSON can hold it: tuples and sets become lists, unknown objects their
    ``str``, non-finite floats strings, keys strings."""
    if _depth > 50:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, _depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [json_safe(v, _depth + 1) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        try:
            return json_safe(item(), _depth + 1)
        except (TypeError, ValueError):
            pass
    return str(value)


# --------------------------------------------------------------------------- the verifier

_DATASETS: dict[tuple[str, int, int], Any] = {}
_LOCK = threading.Lock()


def _dataset(name: str, size: int, seed: int):
    """``create_dataset(name, size=size, seed=seed)``, built once per process."""
    key = (name, size, seed)
    with _LOCK:
        if key not in _DATASETS:
            rg = import_reasoning_gym()
            try:
                _DATASETS[key] = rg.create_dataset(name, size=size, seed=seed)
            except Exception as exc:  # noqa: BLE001 - their registry's errors vary by version
                raise InputError(
                    f"reasoning-gym cannot create dataset {name!r} (size {size}, seed {seed}): "
                    f"{type(exc).__name__}: {exc}"
                ) from None
        return _DATASETS[key]


def entry_for(task: Task) -> tuple[Any, dict]:
    """The reasoning-gym dataset and entry a task was generated from (its metadata says
    which); an error naming the task when it is not from reasoning-gym or does not match."""
    meta = task.metadata or {}
    if meta.get("source") != SOURCE:
        raise ValueError(
            f"task {task.id!r} is not from reasoning-gym (metadata.source is "
            f"{meta.get('source')!r}): the reasoning-gym verifier scores only the tasks of "
            "--suite reasoning-gym:NAME"
        )
    try:
        name, size, seed, index = str(meta["dataset"]), int(meta["size"]), int(meta["seed"]), int(meta["index"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(
            f"task {task.id!r}: reasoning-gym metadata needs dataset, size, seed and index ({exc})"
        ) from None
    if not 0 <= index < size:
        raise ValueError(f"task {task.id!r}: index {index} is outside the dataset's size {size}")
    dataset = _dataset(name, size, seed)
    entry = dataset[index]
    if str(entry["question"]) != task.prompt:
        raise ValueError(
            f"task {task.id!r}: reasoning-gym rebuilt a different question for {name}[{index}] "
            f"(seed {seed}): the suite was made with another reasoning-gym version"
        )
    return dataset, entry


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], Any]:
    """``call(text, task)`` -> the dataset's ``score_answer`` of the completion's last
    ``<answer>`` tag (None when it has none: the scorer decides, usually 0.0). ``target``
    is None: the style names no Python object, the task says which dataset scores it."""
    try:
        from reasoning_gym.utils import extract_answer
    except ImportError as exc:
        from ._registry import missing_extra

        raise missing_extra("reasoning-gym", "reasoning-gym", exc) from None

    def call(text: str, task: Task) -> Any:
        dataset, entry = entry_for(task)
        answer = extract_answer(text) if isinstance(text, str) else None
        return dataset.score_answer(answer, entry)

    return call


# --------------------------------------------------------------------- the suite scheme
# Registered in _registry.SUITE_SCHEMES: --suite reasoning-gym:basic_arithmetic?size=50&seed=0
PREFIX = "reasoning-gym:"


def parse_suite_spec(spec: str) -> tuple[str, int, int]:
    """``reasoning-gym:NAME[?size=N&seed=S]`` -> (NAME, size, seed); size 50, seed 0 by default."""
    from urllib.parse import parse_qsl

    name, _, query = spec[len(PREFIX) :].partition("?")
    name = name.strip()
    if not name:
        raise InputError(f"suite {spec!r}: name a reasoning-gym dataset, e.g. --suite {PREFIX}basic_arithmetic")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True) if query else []
    except ValueError:
        raise InputError(f"suite {spec!r}: expected {PREFIX}NAME?size=N&seed=S after the '?'") from None
    values = {"size": DEFAULT_SIZE, "seed": 0}
    for key, value in pairs:
        if key not in values:
            raise InputError(
                f"suite {spec!r}: unknown setting {key!r}; a reasoning-gym suite takes size and seed "
                f"({PREFIX}NAME?size=N&seed=S)"
            )
        try:
            values[key] = int(value)
        except ValueError:
            raise InputError(f"suite {spec!r}: {key}={value!r} is not an integer") from None
    if values["size"] < 1:
        raise InputError(f"suite {spec!r}: size={values['size']}: must be at least 1")
    return name, values["size"], values["seed"]


def load_suite(spec: str, *, fields: list[str] | None = None, fmt: str | None = "jsonl", domain: str | None = None):
    """A reasoning-gym dataset generated as a suite. Its content hash is of the generated
    tasks, so caches follow what reasoning-gym produced."""
    import hashlib

    from ..domains.base import Suite

    if fields:
        raise InputError(f"suite {spec!r}: --field maps the columns of a file; a reasoning-gym suite has none")
    if fmt not in (None, "jsonl"):
        raise InputError(f"suite {spec!r}: --format {fmt} reads files; leave it out for a reasoning-gym suite")
    if domain not in (None, "math"):
        raise InputError(f"suite {spec!r}: reasoning-gym tasks are in the math domain, not {domain!r}")
    name, size, seed = parse_suite_spec(spec)
    tasks = load_tasks(name, size=size, seed=seed)
    digest = hashlib.sha256(f"reasoning-gym {version()}\n".encode())
    for task in tasks:
        digest.update(json.dumps(task.model_dump(mode="json"), sort_keys=True, ensure_ascii=True).encode() + b"\n")
    shown = f"{PREFIX}{name}" + ("" if (size, seed) == (DEFAULT_SIZE, 0) else f"?size={size}&seed={seed}")
    return Suite(name=shown, path=source_path(name, size, seed), tasks=tasks, content_hash=digest.hexdigest()[:16])
