"""The toy domain's reference verifiers, weakest first, each a native ``(completion, task)``
function, as JSON-extraction rewards are written:

* ``substring``: the reference's compact JSON appears somewhere in the completion (with
  its whitespace removed) -- pays a completion that states the object and then another;
* ``exact_string``: the completion, stripped, is the reference's text -- rejects every
  other layout, key order or fence;
* ``loads_equal``: ``json.loads`` of the completion equals the reference's under Python's
  ``==`` -- pays ``true`` for ``1`` and a key given twice whose last value is right;
* ``strong``: the oracle's reading. The only one fit to pay.
"""

from __future__ import annotations

import json

from verifier_audit.models import Task

from .oracle import label_completion


def _compact(text: str) -> str:
    return "".join(text.split())


def substring(completion: str, task: Task) -> bool:
    want = _compact(json.dumps(json.loads(task.reference), separators=(",", ":")))
    return want in _compact(completion)


def exact_string(completion: str, task: Task) -> bool:
    return completion.strip() == task.reference.strip()


def loads_equal(completion: str, task: Task) -> bool:
    try:
        return json.loads(completion) == json.loads(task.reference)
    except ValueError:
        return False


def strong(completion: str, task: Task) -> bool:
    return label_completion(completion, task).label == "correct"
