"""The toy domain's suite scheme ``toy_json:N``: N small extraction tasks, made here (no
file), the same for the same N."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from verifier_audit.domains.base import Suite
from verifier_audit.errors import InputError
from verifier_audit.models import Task

MAX_TASKS = 200
_NAMES = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken")
_CITIES = ("Paris", "Oslo", "Lima", "Kyoto", "Quito")


def record(i: int) -> dict:
    """The i-th record: four shapes in turn (flat, a list, floats, nested)."""
    name = _NAMES[i % len(_NAMES)]
    shape = i % 4
    if shape == 0:
        return {"name": name, "age": 20 + i, "active": i % 2 == 0, "visits": i % 2}
    if shape == 1:
        return {"title": f"Notes {i}", "year": 1950 + i, "tags": ["draft", _CITIES[i % len(_CITIES)].lower()]}
    if shape == 2:
        return {"city": _CITIES[i % len(_CITIES)], "lat": round(10.5 + i / 4, 2), "lon": round(-3.25 - i, 2)}
    return {"user": {"id": 100 + i, "name": name}, "roles": ["reader"], "note": None}


def toy_suite(spec: str, *, fields=None, fmt: str = "jsonl", domain: str | None = None) -> Suite:
    count = spec.partition(":")[2] or "4"
    if not count.isdigit() or not 1 <= int(count) <= MAX_TASKS:
        raise InputError(f"--suite {spec}: expected toy_json:N with N from 1 to {MAX_TASKS}, e.g. toy_json:4")
    tasks = []
    for i in range(int(count)):
        obj = record(i)
        prose = "; ".join(f"{k} is {json.dumps(v)}" for k, v in obj.items())
        tasks.append(
            Task(
                id=f"toy-json-{i:03d}",
                domain="toy_json",
                prompt=f"Extract the record as one JSON object: {prose}.",
                reference=json.dumps(obj),
            )
        )
    digest = hashlib.sha256(spec.encode()).hexdigest()[:16]
    return Suite(name=spec, path=Path(spec), tasks=tasks, content_hash=digest)
