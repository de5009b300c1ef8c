"""Reference math verifiers, weakest first, in the `pair` style ``fn(completion, reference)``.

They are demos of how graders go wrong and what a strong one looks like; the audit runs
them side by side. Only ``strong`` is fit to pay a reward.
"""

from __future__ import annotations

import math
import re

from .extract import _boxes
from .oracle import label_completion

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def substring(completion: str, reference: str) -> bool:
    """Accept when the reference text appears anywhere (pays for '2, 3, 5, ... 1000')."""
    ref = reference.strip()
    return bool(ref) and ref in completion


def _last_number(text: str):
    found = _NUMBER.findall(text.replace(",", ""))
    return float(found[-1]) if found else None


def last_number(completion: str, reference: str) -> bool:
    """The last number in the completion against the reference's number, as floats
    (pays for '\\boxed{13}, not 12' when the gold is 12; no idea of fractions)."""
    want = _last_number(reference)
    got = _last_number(completion)
    if want is None or got is None:
        return False
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def last_box_exact(completion: str, reference: str) -> bool:
    """Exact text of the last \\boxed{} (pays for shotguns, rejects 0.5 for 1/2)."""
    boxes = _boxes(completion)
    if not boxes:
        return False
    return "".join(boxes[-1][0].split()) == "".join(reference.split())


def strong(completion: str, reference: str) -> bool:
    """Our extraction and oracle: exact math equivalence, hedges and conflicts rejected,
    nothing executed, an unparseable gold never pays."""
    return label_completion(completion, reference).label == "correct"
