"""Values per column type: a gold's constant converted to the column's type, or a random
one (narrow draws for the tie-heavy shapes)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from random import Random
from typing import Any

from ..schema import Column

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?")
_WORDS = ["a", "b", "A", "x y", "", "Zed", "alpha", "beta", "a%b", "O'Neil", " lead", "ß"]
_EPOCH = dt.date(2019, 1, 1)


def base_kind(type_name: str) -> str:
    t = type_name.upper()
    if t.startswith("DECIMAL") or t.startswith("NUMERIC"):
        return "decimal"
    if t in (
        "INTEGER",
        "INT",
        "BIGINT",
        "SMALLINT",
        "TINYINT",
        "HUGEINT",
        "UINTEGER",
        "UBIGINT",
        "USMALLINT",
        "UTINYINT",
        "INT4",
        "INT8",
        "INT2",
        "LONG",
    ):
        return "int"
    if t in ("DOUBLE", "FLOAT", "REAL", "FLOAT8", "FLOAT4"):
        return "float"
    if t.startswith("VARCHAR") or t in ("TEXT", "STRING", "CHAR", "BPCHAR") or t.startswith("CHAR"):
        return "str"
    if t == "DATE":
        return "date"
    if t.startswith("TIMESTAMP") or t == "DATETIME":
        return "timestamp"
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    return "other"


def _decimal_scale(type_name: str) -> tuple[int, int]:
    m = re.search(r"\((\d+)\s*,\s*(\d+)\)", type_name)
    return (int(m.group(1)), int(m.group(2))) if m else (18, 3)


def convert(value: Any, column: Column, rng: Random) -> Any | None:
    """``value`` as a value of the column's type, or None when it does not fit."""
    kind = base_kind(column.type)
    try:
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != int(value):
                return None
            return int(value) if abs(value) < 2**31 else None
        if kind == "float":
            return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        if kind == "decimal":
            if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
                return None
            precision, scale = _decimal_scale(column.type)
            d = Decimal(str(value)).quantize(Decimal(1).scaleb(-scale))
            return d if abs(d) < Decimal(10) ** (precision - scale) else None
        if kind == "str":
            return value if isinstance(value, str) else None
        if kind == "date":
            if isinstance(value, dt.datetime):
                return value.date()
            if isinstance(value, dt.date):
                return value
            if isinstance(value, int) and 1900 <= value <= 2100:  # EXTRACT(YEAR ...) = 2023
                return dt.date(value, 1, 1) + dt.timedelta(days=rng.randint(0, 364))
            if isinstance(value, str) and _TIMESTAMP.match(value):
                return dt.date.fromisoformat(value[:10])
            return None
        if kind == "timestamp":
            if isinstance(value, dt.datetime):
                return value
            if isinstance(value, dt.date):
                return dt.datetime.combine(value, dt.time(rng.choice([0, 0, 9, 23]), rng.choice([0, 30])))
            if isinstance(value, int) and 1900 <= value <= 2100:
                return dt.datetime(value, 1, 1) + dt.timedelta(hours=rng.randint(0, 364 * 24))
            if isinstance(value, str) and _TIMESTAMP.match(value):
                return dt.datetime.fromisoformat(value.replace("T", " ")[:19])
            return None
        if kind == "bool":
            return value if isinstance(value, bool) else None
    except (ValueError, InvalidOperation, OverflowError):
        return None
    return value


def random_value(column: Column, rng: Random, narrow: bool) -> Any | None:
    kind = base_kind(column.type)
    if kind == "int":
        return rng.choice([0, 1, 2, 3]) if narrow else rng.choice([rng.randint(-2, 20), rng.randint(0, 5), 100])
    if kind == "float":
        return rng.choice([0.0, 0.5, 2.5]) if narrow else rng.choice([round(rng.uniform(0, 100), 2), 1.0, 0.1, -3.5])
    if kind == "decimal":
        _, scale = _decimal_scale(column.type)
        cents = rng.choice([0, 50, 999, 1999]) if narrow else rng.randint(0, 50000)
        return (Decimal(cents) / 100).quantize(Decimal(1).scaleb(-scale))
    if kind == "str":
        return rng.choice(_WORDS[:3]) if narrow else rng.choice(_WORDS) + rng.choice(["", "", str(rng.randint(0, 9))])
    if kind == "date":
        return _EPOCH + dt.timedelta(days=rng.choice([0, 31, 365]) if narrow else rng.randint(0, 6 * 365))
    if kind == "timestamp":
        return dt.datetime(2019, 1, 1) + dt.timedelta(minutes=rng.randint(0, 6 * 365 * 24 * 60))
    if kind == "bool":
        return rng.random() < 0.5
    return None
