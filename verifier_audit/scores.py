"""What training reads from a verifier's return value: one function, ``read_score``,
through which every call style converts what it got into a score.

A verifier returns a bool, a number (a numpy scalar, a torch 0-d tensor) or verl's
``{"score": ...}``; the trainer then sums it, compares it with ``>=``, writes it with
``json.dumps`` or hands it to ``torch.tensor``. All of those read the number an object
*stores*; only ``float(x)`` asks the object itself (its ``__float__``). So the audit
reads the stored value too, and a score whose own conversions say something else is
reported (``score_disguised``, a security finding that fails the gate): a float subclass
whose ``__float__`` is sound while the value it holds pays the hole passed the gate when
the audit read ``float(x)`` (issue 30, item 6).

Nothing here imports the rest of the package but ``report.text`` (the wording of its
errors; numpy and torch are imported only when a score is one of theirs): the frameworks and ``loading`` both convert through it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .report.text import article

_NOT_FINITE = "returned {!r}; a score is a finite number"


class ScoreError(TypeError):
    """A verifier's return value that is no score (a str, None, a list): an error verdict
    whose message says what it returned and what to return instead."""


class ScoreOutOfRange(ScoreError):
    """A score that is not a finite number (NaN, an infinity): an error verdict, counted
    with the out-of-range scores of the report (``Report.out_of_range``), which knows it by
    this class's name (``OUT_OF_RANGE``). ``value``: the number (TRL's combined reward
    skips a NaN, as its ``nansum`` does)."""

    def __init__(self, value: float):
        super().__init__(_NOT_FINITE.format(value))
        self.value = value


#: the error kind (the exception's name, as reports count errors) of a non-finite score
OUT_OF_RANGE = ScoreOutOfRange.__name__
#: the security finding of a score whose own conversion says another number than it holds
DISGUISED = "score_disguised"


@dataclass(frozen=True)
class Score:
    """A score as training reads it, and what reading it found.

    ``value`` is the number a trainer uses: for a subclass of float or int, the value the
    object stores -- what ``sum``, ``>=``, ``json.dumps``, ``torch.tensor`` and a C
    extension read -- never what its own ``__float__``, ``__int__`` or ``__index__``
    answer, which only ``float(x)`` and friends call. A verifier can return a float
    subclass whose ``__float__`` gives the sound verdict while the stored value pays the
    hole; read with ``float(x)`` it passed the gate while training paid the hole (issue 30,
    item 6). ``disguises`` says, for each conversion that disagrees with the stored value,
    what it claimed: each is a ``score_disguised`` security finding, which fails the gate.

    Plain data only (a float and strings), so it crosses the sandbox and the worker's pipe
    as it is (engine/verifier_job.py): the object itself never leaves the worker."""

    value: float
    disguises: tuple[str, ...] = ()


# Types read by the method of their library (its C code): numpy scalars and one-element
# arrays, torch tensors. A subclass is read by the first of its bases that the library's C
# code defines, and its own float() compared with that.
_LIBRARIES = ("numpy", "torch")


def _shown(value: Any, width: int = 40) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        text = object.__repr__(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _claim(convert: Callable[[Any], Any], value: Any) -> Any:
    """What the object's own conversion answers (its exception's name when it raises)."""
    try:
        return convert(value)
    except Exception as exc:  # noqa: BLE001 - the verifier's code: any answer is evidence
        return f"<{type(exc).__name__}>"


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not by C code


def _library_base(cls: type) -> type | None:
    """The first class of ``cls``'s MRO that numpy's or torch's C code defines (numpy.float32
    for a subclass of it, torch's TensorBase for torch.Tensor); None for other types. Only a
    C type counts: a class statement can give itself any ``__module__``."""
    for base in cls.__mro__:
        if (
            str(getattr(base, "__module__", "")).partition(".")[0] in _LIBRARIES
            and not base.__flags__ & _HEAPTYPE
            and hasattr(base, "item")
        ):
            return base
    return None


def _library_item(base: type, value: Any) -> Any:
    """``base.item(value)``: the library's own reading of the stored number, a Python bool,
    int or float. For a torch subclass, its ``__torch_function__`` is switched off, so the
    subclass cannot answer for the tensor."""
    if base.__module__.partition(".")[0] == "torch":
        import torch

        off = getattr(torch._C, "DisableTorchFunctionSubclass", None)
        if off is not None:
            with off():
                return base.item(value)
    return base.item(value)


def _stored(value: Any) -> tuple[float, list[tuple[str, Any, Any]]]:
    """(the stored value as a float, [(conversion, what it claimed, what it should have)]
    for the object's own conversions, which training does not use). Raises ScoreError for
    what is no number."""
    cls = type(value)
    # By type(), never isinstance(): an object's __class__ can claim to be a float.
    if cls is bool:
        return (1.0 if value else 0.0), []
    if issubclass(cls, float):  # float subclasses too (numpy.float64 is one)
        stored = float.__float__(value)
        return stored, ([] if cls is float else [("float()", _claim(float, value), stored)])
    if issubclass(cls, int):
        stored_int = int.__int__(value)
        try:
            stored = float(stored_int)
        except OverflowError:
            raise ScoreError(
                f"returned an int too large for a float ({_shown(stored_int)}); return a number in [0, 1]"
            ) from None
        if cls is int:
            return stored, []
        return stored, [
            ("float()", _claim(float, value), stored),
            ("int()", _claim(int, value), stored_int),
            ("__index__", _claim(lambda v: v.__index__(), value), stored_int),
        ]
    base = _library_base(cls)
    if base is not None:
        try:
            item = _library_item(base, value)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise ScoreError(
                f"returned {cls.__name__} {_shown(value)} ({type(exc).__name__}: {exc}); return one number"
            ) from None
        if type(item) not in (bool, int, float):
            raise ScoreError(
                f"returned {cls.__name__} {_shown(value)} holding {article(type(item).__name__)}; return a real number"
            )
        stored, _ = _stored(item)
        return stored, ([] if cls is base else [("float()", _claim(float, value), stored)])
    try:  # another number type (Decimal, Fraction): its own conversion is its only value
        return float(value), []
    except (TypeError, ValueError, OverflowError):
        raise ScoreError(f"returned {cls.__name__} {_shown(value)}; return a bool or a number") from None


def _same(claim: Any, expected: Any) -> bool:
    """Whether a conversion gave exactly the stored value (of its exact type: a float for
    float(), an int for int() and __index__; NaN equal to NaN)."""
    if type(claim) is not type(expected):
        return False
    return claim == expected or (isinstance(claim, float) and math.isnan(claim) and math.isnan(expected))


def read_score(value: Any) -> Score:
    """The score training reads from what a verifier returned (see ``Score``): a bool, a
    number, or verl's ``{"score": ...}``. Everything else is a ``ScoreError`` that says what
    it was -- a str (``"1.0"``) above all: a trainer that sums or compares it fails or, worse,
    reads it as text, so it is refused in every call style, never converted. A score that is
    not a finite number is a ``ScoreOutOfRange``; a finite one outside [0, 1] is returned as
    it is, and counted by the report. Every call style converts through this one function
    (the framework styles that combine several scores included)."""
    if type(value) is Score:  # a call style's combined score; its number is read again all the same
        inner = read_score(value.value)
        return Score(inner.value, tuple(value.disguises) + inner.disguises)
    if issubclass(type(value), dict) and "score" in value:
        value = value["score"]
    if value is None:
        raise ScoreError("returned None, not a score; return a number")
    if issubclass(type(value), (str, bytes)):
        raise ScoreError(f"returned {article(type(value).__name__)} ({_shown(value)}); return a number")
    stored, claims = _stored(value)
    if not math.isfinite(stored):
        raise ScoreOutOfRange(stored)
    disguises = tuple(
        f"{type(value).__name__}: {how} gives {_shown(claim)}, but the value it holds -- what sum, "
        f">=, json.dumps and trainers read -- is {stored!r}"
        for how, claim, expected in claims
        if not _same(claim, expected)
    )
    return Score(stored, disguises)


def non_finite(value: float) -> str | None:
    """The error message of a non-finite score (NaN, an infinity), else None: what the
    parent checks again of every score a worker sends (engine/audit.py)."""
    return None if math.isfinite(value) else f"{OUT_OF_RANGE}: {_NOT_FINITE.format(value)}"


def to_score(value: Any) -> float:
    """``read_score``'s number: bool, number, or verl's {'score': ...} -> float; anything
    else is the verifier's error (a ScoreError, a TypeError)."""
    return read_score(value).value
