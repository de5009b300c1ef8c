"""The small Python projects ``make_repo_suite.py`` injects bugs into: each a package of
two modules (and an ``__init__.py`` that re-exports them), visible tests under ``tests/``
and hidden tests (``tests/test_hidden_<module>.py``) that the oracle adds before its run.
Written for this suite; every clean project passes all its tests (the script checks)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Project:
    name: str  # also the package's name
    modules: dict[str, str]  # module name (no .py) -> source
    tests: dict[str, str]  # visible test file name -> source
    hidden: dict[str, str]  # module name -> hidden test source (tests/test_hidden_<module>.py)
    shifted: bool = False  # absent from train and heldout


def _init(doc: str, imports: str) -> str:
    return f'"""{doc}"""\n\n{imports}\n'


DATEPARSE = Project(
    "dateparse",
    {
        "calendar": '''\
"""Calendar arithmetic on (year, month, day) triples."""

DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap(year):
    """Gregorian leap years: every fourth year, except centuries not divisible by 400."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month < 1 or month > 12:
        raise ValueError(f"month out of range: {month}")
    if month == 2 and is_leap(year):
        return 29
    return DAYS[month - 1]


def day_of_year(year, month, day):
    total = day
    for m in range(1, month):
        total += days_in_month(year, m)
    return total


def add_days(date, count):
    year, month, day = date
    day += count
    while day > days_in_month(year, month):
        day -= days_in_month(year, month)
        month += 1
        if month > 12:
            month = 1
            year += 1
    return (year, month, day)
''',
        "parse": '''\
"""Parse ISO-like dates and times."""

from .calendar import days_in_month


def parse_date(text):
    """``YYYY-MM-DD`` -> (year, month, day); ValueError for anything else."""
    parts = text.strip().split("-")
    if len(parts) != 3:
        raise ValueError(f"not a date: {text!r}")
    year, month, day = (int(p) for p in parts)
    if day < 1 or day > days_in_month(year, month):
        raise ValueError(f"day out of range: {text!r}")
    return (year, month, day)


def parse_time(text):
    """``HH:MM`` or ``HH:MM:SS`` -> seconds since midnight."""
    parts = [int(p) for p in text.strip().split(":")]
    if len(parts) == 2:
        parts.append(0)
    if len(parts) != 3:
        raise ValueError(f"not a time: {text!r}")
    hours, minutes, secs = parts
    if not (0 <= hours < 24 and 0 <= minutes < 60 and 0 <= secs < 60):
        raise ValueError(f"time out of range: {text!r}")
    return hours * 3600 + minutes * 60 + secs


def format_date(date):
    year, month, day = date
    return f"{year:04d}-{month:02d}-{day:02d}"
''',
    },
    {
        "test_calendar.py": """\
from dateparse.calendar import add_days, day_of_year, days_in_month, is_leap


def test_leap_years():
    assert is_leap(2024) and is_leap(2000)


def test_not_leap_years():
    assert not is_leap(1900) and not is_leap(2023)


def test_days_in_february():
    assert days_in_month(2024, 2) == 29
    assert days_in_month(2023, 2) == 28


def test_days_in_december():
    assert days_in_month(2023, 12) == 31


def test_day_of_year():
    assert day_of_year(2023, 3, 1) == 60


def test_add_days_across_year():
    assert add_days((2023, 12, 30), 3) == (2024, 1, 2)
""",
        "test_parse.py": """\
import pytest

from dateparse.parse import format_date, parse_date, parse_time


def test_parse_date():
    assert parse_date("2023-07-14") == (2023, 7, 14)


def test_parse_date_rejects_day_31_in_april():
    with pytest.raises(ValueError):
        parse_date("2023-04-31")


def test_parse_time_minutes():
    assert parse_time("01:30") == 5400


def test_parse_time_seconds():
    assert parse_time("00:00:59") == 59


def test_parse_time_rejects_hour_24():
    with pytest.raises(ValueError):
        parse_time("24:00")


def test_format_date():
    assert format_date((987, 1, 2)) == "0987-01-02"
""",
    },
    {
        "calendar": """\
import pytest

from dateparse.calendar import add_days, day_of_year, days_in_month, is_leap


def test_leap_2400_and_2100():
    assert is_leap(2400) and not is_leap(2100) and not is_leap(2019)


def test_days_in_month_bounds():
    with pytest.raises(ValueError):
        days_in_month(2023, 13)
    assert days_in_month(2023, 1) == 31


def test_day_of_year_leap():
    assert day_of_year(2024, 12, 31) == 366
    assert day_of_year(2023, 1, 5) == 5


def test_add_days_february():
    assert add_days((2024, 2, 28), 1) == (2024, 2, 29)
    assert add_days((2023, 2, 28), 1) == (2023, 3, 1)
    assert add_days((2023, 1, 1), 0) == (2023, 1, 1)
""",
        "parse": """\
import pytest

from dateparse.parse import format_date, parse_date, parse_time


def test_parse_date_leap_day():
    assert parse_date(" 2024-02-29 ") == (2024, 2, 29)
    with pytest.raises(ValueError):
        parse_date("2023-02-29")
    with pytest.raises(ValueError):
        parse_date("2023-02-00")


def test_parse_date_shape():
    with pytest.raises(ValueError):
        parse_date("2023/02/01")


def test_parse_time_edges():
    assert parse_time("23:59:59") == 86399
    with pytest.raises(ValueError):
        parse_time("12:60")
    with pytest.raises(ValueError):
        parse_time("1:2:3:4")


def test_format_date_round_trip():
    assert format_date(parse_date("2001-10-09")) == "2001-10-09"
""",
    },
)

INVENTORY = Project(
    "inventory",
    {
        "items": '''\
"""Items and their prices, in cents."""


def make_item(sku, name, price, quantity=0):
    if price < 0:
        raise ValueError(f"negative price for {sku}")
    return {"sku": sku, "name": name, "price": price, "quantity": quantity}


def line_total(item):
    return item["price"] * item["quantity"]


def discounted(price, percent):
    """The price after ``percent`` off, rounded down to a cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"discount out of range: {percent}")
    return price * (100 - percent) // 100
''',
        "stock": '''\
"""A stock of items keyed by SKU."""

from .items import line_total


class Stock:
    def __init__(self):
        self.items = {}

    def add(self, item):
        if item["sku"] in self.items:
            self.items[item["sku"]]["quantity"] += item["quantity"]
        else:
            self.items[item["sku"]] = dict(item)

    def remove(self, sku, count):
        item = self.items[sku]
        if count > item["quantity"]:
            raise ValueError(f"only {item['quantity']} of {sku} in stock")
        item["quantity"] -= count
        if item["quantity"] == 0:
            del self.items[sku]

    def value(self):
        return sum(line_total(item) for item in self.items.values())

    def low_stock(self, threshold):
        """SKUs with fewer than ``threshold`` units, sorted."""
        return sorted(sku for sku, item in self.items.items() if item["quantity"] < threshold)
''',
    },
    {
        "test_items.py": """\
import pytest

from inventory.items import discounted, line_total, make_item


def test_make_item():
    assert make_item("A1", "bolt", 25, 4)["quantity"] == 4


def test_make_item_rejects_negative_price():
    with pytest.raises(ValueError):
        make_item("A1", "bolt", -1)


def test_line_total():
    assert line_total(make_item("A1", "bolt", 25, 4)) == 100


def test_discounted():
    assert discounted(999, 10) == 899


def test_discount_out_of_range():
    with pytest.raises(ValueError):
        discounted(100, 120)
""",
        "test_stock.py": """\
import pytest

from inventory.items import make_item
from inventory.stock import Stock


def _stock():
    stock = Stock()
    stock.add(make_item("A1", "bolt", 25, 4))
    stock.add(make_item("B2", "nut", 10, 10))
    return stock


def test_add_merges_quantities():
    stock = _stock()
    stock.add(make_item("A1", "bolt", 25, 2))
    assert stock.items["A1"]["quantity"] == 6


def test_remove():
    stock = _stock()
    stock.remove("B2", 3)
    assert stock.items["B2"]["quantity"] == 7


def test_remove_too_many():
    with pytest.raises(ValueError):
        _stock().remove("A1", 5)


def test_value():
    assert _stock().value() == 200


def test_low_stock():
    assert _stock().low_stock(5) == ["A1"]
""",
    },
    {
        "items": """\
from inventory.items import discounted, line_total, make_item


def test_discount_edges():
    assert discounted(999, 0) == 999
    assert discounted(999, 100) == 0
    assert discounted(1, 50) == 0


def test_line_total_zero_quantity():
    assert line_total(make_item("Z", "zip", 500)) == 0
    assert make_item("Z", "zip", 0)["price"] == 0
""",
        "stock": """\
from inventory.items import make_item
from inventory.stock import Stock


def test_remove_all_deletes_the_sku():
    stock = Stock()
    stock.add(make_item("A1", "bolt", 25, 4))
    stock.remove("A1", 4)
    assert stock.items == {} and stock.value() == 0


def test_add_copies_the_item():
    item = make_item("A1", "bolt", 25, 4)
    stock = Stock()
    stock.add(item)
    stock.add(make_item("A1", "bolt", 25, 1))
    assert item["quantity"] == 4 and stock.items["A1"]["quantity"] == 5


def test_low_stock_threshold_is_strict_and_sorted():
    stock = Stock()
    for sku, qty in (("C", 1), ("A", 5), ("B", 2)):
        stock.add(make_item(sku, sku, 1, qty))
    assert stock.low_stock(5) == ["B", "C"]
    assert stock.value() == 8
""",
    },
)

TOKENIZER = Project(
    "tokenizer",
    {
        "tokens": '''\
"""Token kinds of a small arithmetic language."""

OPERATORS = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


def kind_of(char):
    if char.isdigit() or char == ".":
        return "number"
    if char.isalpha() or char == "_":
        return "name"
    if char in OPERATORS:
        return "operator"
    if char in "()":
        return "paren"
    if char.isspace():
        return "space"
    raise ValueError(f"unexpected character {char!r}")


def precedence(op):
    return OPERATORS[op]


def is_right_associative(op):
    return op == "^"
''',
        "lexer": '''\
"""Split an expression into (kind, text) tokens."""

from .tokens import kind_of


def tokenize(text):
    tokens = []
    i = 0
    while i < len(text):
        kind = kind_of(text[i])
        if kind == "space":
            i += 1
            continue
        j = i + 1
        if kind in ("number", "name"):
            while j < len(text) and kind_of(text[j]) == kind:
                j += 1
        tokens.append((kind, text[i:j]))
        i = j
    return tokens


def count_names(tokens):
    return len({text for kind, text in tokens if kind == "name"})


def balanced(tokens):
    depth = 0
    for kind, text in tokens:
        if kind != "paren":
            continue
        depth += 1 if text == "(" else -1
        if depth < 0:
            return False
    return depth == 0
''',
    },
    {
        "test_tokens.py": """\
import pytest

from tokenizer.tokens import is_right_associative, kind_of, precedence


def test_kinds():
    assert [kind_of(c) for c in "1a+( "] == ["number", "name", "operator", "paren", "space"]


def test_unknown_character():
    with pytest.raises(ValueError):
        kind_of("$")


def test_precedence():
    assert precedence("*") > precedence("+")


def test_right_associative():
    assert is_right_associative("^") and not is_right_associative("-")
""",
        "test_lexer.py": """\
from tokenizer.lexer import balanced, count_names, tokenize


def test_tokenize_numbers():
    assert tokenize("12+3") == [("number", "12"), ("operator", "+"), ("number", "3")]


def test_tokenize_names_and_spaces():
    assert tokenize(" x_y * z ") == [("name", "x_y"), ("operator", "*"), ("name", "z")]


def test_tokenize_parens():
    assert [text for _, text in tokenize("(a)")] == ["(", "a", ")"]


def test_count_names():
    assert count_names(tokenize("a + b * a")) == 2


def test_balanced():
    assert balanced(tokenize("(a+(b))"))


def test_unbalanced():
    assert not balanced(tokenize(")a("))
""",
    },
    {
        "tokens": """\
from tokenizer.tokens import kind_of, precedence


def test_decimal_point_and_underscore():
    assert kind_of(".") == "number" and kind_of("_") == "name" and kind_of("\\t") == "space"


def test_precedence_levels():
    assert precedence("^") == 3 and precedence("/") == 2 and precedence("-") == 1
""",
        "lexer": """\
from tokenizer.lexer import balanced, count_names, tokenize


def test_tokenize_decimal():
    assert tokenize("3.25/x") == [("number", "3.25"), ("operator", "/"), ("name", "x")]


def test_tokenize_empty_and_blank():
    assert tokenize("") == [] and tokenize("   ") == []


def test_adjacent_operators():
    assert tokenize("a--b") == [("name", "a"), ("operator", "-"), ("operator", "-"), ("name", "b")]


def test_balanced_edges():
    assert balanced([]) and not balanced(tokenize("((a)")) and count_names([]) == 0
""",
    },
)

FLAGS = Project(
    "flags",
    {
        "convert": '''\
"""Turn option strings into values."""

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def to_bool(text):
    lowered = text.strip().lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    raise ValueError(f"not a boolean: {text!r}")


def to_int_list(text):
    """``"1,2, 3"`` -> [1, 2, 3]; empty items are skipped."""
    return [int(part) for part in text.split(",") if part.strip()]


def clamp_int(text, low, high):
    value = int(text)
    return max(low, min(value, high))
''',
        "parser": '''\
"""A small command-line parser: ``--key=value``, ``--flag``, ``-abc`` and positionals."""


def parse_args(argv):
    options, positional = {}, []
    rest = False
    for arg in argv:
        if rest:
            positional.append(arg)
        elif arg == "--":
            rest = True
        elif arg.startswith("--"):
            key, sep, value = arg[2:].partition("=")
            options[key] = value if sep else True
        elif arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                options[letter] = True
        else:
            positional.append(arg)
    return options, positional


def get_option(options, key, default=None):
    return options.get(key, default)


def usage(name, flags):
    parts = [name] + [f"[--{flag}]" for flag in sorted(flags)]
    return " ".join(parts)
''',
    },
    {
        "test_convert.py": """\
import pytest

from flags.convert import clamp_int, to_bool, to_int_list


def test_to_bool_true():
    assert to_bool("Yes") is True


def test_to_bool_false():
    assert to_bool(" off ") is False


def test_to_bool_rejects():
    with pytest.raises(ValueError):
        to_bool("maybe")


def test_to_int_list():
    assert to_int_list("1,2, 3") == [1, 2, 3]


def test_clamp_int():
    assert clamp_int("50", 0, 10) == 10
""",
        "test_parser.py": """\
from flags.parser import get_option, parse_args, usage


def test_long_option_with_value():
    assert parse_args(["--out=x.txt"]) == ({"out": "x.txt"}, [])


def test_long_flag():
    assert parse_args(["--verbose", "file"]) == ({"verbose": True}, ["file"])


def test_short_flags():
    assert parse_args(["-ab"])[0] == {"a": True, "b": True}


def test_double_dash_ends_options():
    assert parse_args(["--", "-x"]) == ({}, ["-x"])


def test_get_option_default():
    assert get_option({}, "n", 3) == 3


def test_usage():
    assert usage("tool", {"b", "a"}) == "tool [--a] [--b]"
""",
    },
    {
        "convert": """\
from flags.convert import clamp_int, to_bool, to_int_list


def test_to_bool_all_spellings():
    assert all(to_bool(t) for t in ("1", "TRUE", "on"))
    assert not any(to_bool(t) for t in ("0", "False", "no"))


def test_to_int_list_skips_empty_items():
    assert to_int_list("4,,5,") == [4, 5] and to_int_list("") == []


def test_clamp_int_low_and_inside():
    assert clamp_int("-3", 0, 10) == 0 and clamp_int("7", 0, 10) == 7
""",
        "parser": """\
from flags.parser import parse_args


def test_empty_value_and_lone_dash():
    assert parse_args(["--name=", "-"]) == ({"name": ""}, ["-"])


def test_value_with_equals_sign():
    assert parse_args(["--expr=a=b"])[0] == {"expr": "a=b"}


def test_positionals_keep_order_after_double_dash():
    assert parse_args(["a", "--", "--b", "c"]) == ({}, ["a", "--b", "c"])
""",
    },
)

CACHE = Project(
    "cache",
    {
        "lru": '''\
"""A least-recently-used cache."""


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.order = []
        self.data = {}

    def get(self, key, default=None):
        if key not in self.data:
            return default
        self.order.remove(key)
        self.order.append(key)
        return self.data[key]

    def put(self, key, value):
        if key in self.data:
            self.order.remove(key)
        elif len(self.data) >= self.capacity:
            oldest = self.order.pop(0)
            del self.data[oldest]
        self.data[key] = value
        self.order.append(key)

    def keys(self):
        """Keys from least to most recently used."""
        return list(self.order)
''',
        "ttl": '''\
"""A cache whose entries expire; time comes from a clock the caller gives."""


class TTLCache:
    def __init__(self, ttl, clock):
        self.ttl = ttl
        self.clock = clock
        self.data = {}

    def put(self, key, value):
        self.data[key] = (value, self.clock() + self.ttl)

    def get(self, key, default=None):
        entry = self.data.get(key)
        if entry is None:
            return default
        value, expires = entry
        if self.clock() >= expires:
            del self.data[key]
            return default
        return value

    def purge(self):
        now = self.clock()
        expired = [key for key, (_, expires) in self.data.items() if now >= expires]
        for key in expired:
            del self.data[key]
        return len(expired)
''',
    },
    {
        "test_lru.py": """\
import pytest

from cache.lru import LRUCache


def test_get_missing():
    assert LRUCache(2).get("x", 0) == 0


def test_put_get():
    cache = LRUCache(2)
    cache.put("a", 1)
    assert cache.get("a") == 1


def test_evicts_least_recent():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]


def test_capacity_checked():
    with pytest.raises(ValueError):
        LRUCache(0)
""",
        "test_ttl.py": """\
from cache.ttl import TTLCache


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def test_fresh_entry():
    clock = Clock()
    cache = TTLCache(10, clock)
    cache.put("k", "v")
    assert cache.get("k") == "v"


def test_expired_entry():
    clock = Clock()
    cache = TTLCache(10, clock)
    cache.put("k", "v")
    clock.now = 11
    assert cache.get("k") is None


def test_missing_default():
    assert TTLCache(1, Clock()).get("nope", 5) == 5


def test_purge():
    clock = Clock()
    cache = TTLCache(5, clock)
    cache.put("a", 1)
    clock.now = 3
    cache.put("b", 2)
    clock.now = 6
    assert cache.purge() == 1 and list(cache.data) == ["b"]
""",
    },
    {
        "lru": """\
from cache.lru import LRUCache


def test_update_refreshes_without_evicting():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 3)
    cache.put("c", 4)
    assert cache.keys() == ["a", "c"] and cache.get("a") == 3 and cache.get("b") is None


def test_capacity_one():
    cache = LRUCache(1)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.keys() == ["b"] and len(cache.data) == 1
""",
        "ttl": """\
from cache.ttl import TTLCache


def test_expires_exactly_at_ttl():
    now = [0]
    cache = TTLCache(10, lambda: now[0])
    cache.put("k", "v")
    now[0] = 9
    assert cache.get("k") == "v"
    now[0] = 10
    assert cache.get("k") is None and "k" not in cache.data


def test_put_renews():
    now = [0]
    cache = TTLCache(4, lambda: now[0])
    cache.put("k", 1)
    now[0] = 3
    cache.put("k", 2)
    now[0] = 6
    assert cache.get("k") == 2 and cache.purge() == 0
""",
    },
)

UNITS = Project(
    "units",
    {
        "money": '''\
"""Amounts of money held as integer cents."""


def parse_amount(text):
    """``"12.34"`` / ``"-0.5"`` / ``"7"`` -> cents."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("+-").partition(".")
    if len(frac) > 2 or not (whole or frac):
        raise ValueError(f"not an amount: {text!r}")
    frac = (frac + "00")[:2]
    return sign * (int(whole or "0") * 100 + int(frac))


def format_cents(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def split_evenly(cents, ways):
    """Shares that differ by at most one cent and add up to ``cents``; larger first."""
    base, extra = divmod(cents, ways)
    return [base + 1 if i < extra else base for i in range(ways)]
''',
        "length": '''\
"""Length conversions through metres."""

METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048}


def to_metres(value, unit):
    if unit not in METRES:
        raise ValueError(f"unknown unit {unit!r}")
    return value * METRES[unit]


def convert(value, source, target):
    return to_metres(value, source) / METRES[target]


def parse_length(text):
    """``"12.5 cm"`` -> (12.5, "cm")."""
    number, _, unit = text.strip().partition(" ")
    return float(number), unit.strip()
''',
    },
    {
        "test_money.py": """\
import pytest

from units.money import format_cents, parse_amount, split_evenly


def test_parse_amount():
    assert parse_amount("12.34") == 1234


def test_parse_amount_one_decimal():
    assert parse_amount("0.5") == 50


def test_parse_amount_rejects_three_decimals():
    with pytest.raises(ValueError):
        parse_amount("1.234")


def test_format_cents():
    assert format_cents(1205) == "12.05"


def test_split_evenly():
    assert split_evenly(100, 3) == [34, 33, 33]
""",
        "test_length.py": """\
import pytest

from units.length import convert, parse_length, to_metres


def test_to_metres():
    assert to_metres(2, "km") == 2000.0


def test_unknown_unit():
    with pytest.raises(ValueError):
        to_metres(1, "parsec")


def test_convert_feet_to_inches():
    assert convert(1, "ft", "in") == pytest.approx(12.0)


def test_parse_length():
    assert parse_length("12.5 cm") == (12.5, "cm")
""",
    },
    {
        "money": """\
from units.money import format_cents, parse_amount, split_evenly


def test_negative_amounts():
    assert parse_amount("-0.05") == -5 and format_cents(-5) == "-0.05"


def test_whole_and_plus():
    assert parse_amount("+7") == 700 and parse_amount(".25") == 25 and format_cents(0) == "0.00"


def test_split_evenly_sums():
    for cents, ways in ((10, 4), (7, 7), (5, 2)):
        shares = split_evenly(cents, ways)
        assert sum(shares) == cents and max(shares) - min(shares) <= 1 and shares == sorted(shares, reverse=True)
""",
        "length": """\
import pytest

from units.length import convert, parse_length, to_metres


def test_convert_metric():
    assert convert(250, "cm", "m") == pytest.approx(2.5)
    assert convert(3, "mm", "mm") == pytest.approx(3)


def test_to_metres_inches():
    assert to_metres(100, "in") == pytest.approx(2.54)


def test_parse_length_extra_spaces():
    assert parse_length(" 3 km ") == (3.0, "km")
""",
    },
)

INTERVALS = Project(
    "intervals",
    {
        "interval": '''\
"""Half-open intervals [start, end) as pairs."""


def make(start, end):
    if end < start:
        raise ValueError(f"interval ends before it starts: {start}, {end}")
    return (start, end)


def length(interval):
    return interval[1] - interval[0]


def overlaps(a, b):
    return a[0] < b[1] and b[0] < a[1]


def contains(interval, point):
    return interval[0] <= point < interval[1]
''',
        "intervalset": '''\
"""A set of disjoint half-open intervals."""

from .interval import length


def merge(intervals):
    """Sorted, disjoint intervals covering the same points; touching ones are joined."""
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def total_length(intervals):
    return sum(length(i) for i in merge(intervals))


def gaps(intervals):
    merged = merge(intervals)
    return [(merged[i][1], merged[i + 1][0]) for i in range(len(merged) - 1)]
''',
    },
    {
        "test_interval.py": """\
import pytest

from intervals.interval import contains, length, make, overlaps


def test_make():
    assert make(1, 3) == (1, 3)


def test_make_rejects_reversed():
    with pytest.raises(ValueError):
        make(3, 1)


def test_length():
    assert length((2, 7)) == 5


def test_overlaps():
    assert overlaps((0, 5), (4, 9))


def test_disjoint():
    assert not overlaps((0, 2), (3, 4))


def test_contains():
    assert contains((0, 5), 0) and not contains((0, 5), 5)
""",
        "test_intervalset.py": """\
from intervals.intervalset import gaps, merge, total_length


def test_merge_overlapping():
    assert merge([(5, 8), (1, 3), (2, 4)]) == [(1, 4), (5, 8)]


def test_total_length():
    assert total_length([(0, 2), (1, 3)]) == 3


def test_gaps():
    assert gaps([(0, 1), (3, 4), (6, 9)]) == [(1, 3), (4, 6)]
""",
    },
    {
        "interval": """\
from intervals.interval import contains, make, overlaps


def test_touching_intervals_do_not_overlap():
    assert not overlaps((0, 2), (2, 4)) and not overlaps((2, 4), (0, 2))


def test_nested_overlap_and_empty():
    assert overlaps((0, 10), (3, 4)) and make(2, 2) == (2, 2) and not contains((2, 2), 2)
""",
        "intervalset": """\
from intervals.intervalset import gaps, merge, total_length


def test_touching_are_joined():
    assert merge([(0, 2), (2, 4)]) == [(0, 4)] and gaps([(0, 2), (2, 4)]) == []


def test_contained_interval():
    assert merge([(0, 10), (2, 3)]) == [(0, 10)] and total_length([(0, 10), (2, 3), (20, 21)]) == 11


def test_empty():
    assert merge([]) == [] and total_length([]) == 0 and gaps([]) == []
""",
    },
    shifted=True,
)

WRAP = Project(
    "wrap",
    {
        "words": '''\
"""Words of a text."""


def split_words(text):
    return text.split()


def truncate(text, width, ellipsis="..."):
    """``text`` cut to ``width`` characters, ending in ``ellipsis`` when cut."""
    if len(text) <= width:
        return text
    return text[: width - len(ellipsis)] + ellipsis


def longest_word(text):
    words = split_words(text)
    if not words:
        return ""
    return max(words, key=len)
''',
        "wrap": '''\
"""Wrap text to a width, greedily."""

from .words import split_words


def wrap(text, width):
    lines, current = [], ""
    for word in split_words(text):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def justify(line, width):
    """Spaces added between words, leftmost gaps first, to make ``line`` exactly ``width``."""
    words = line.split()
    if len(words) < 2:
        return line.ljust(width)
    gaps = len(words) - 1
    spaces = width - sum(len(w) for w in words)
    out = ""
    for i, word in enumerate(words[:-1]):
        out += word + " " * (spaces // gaps + (1 if i < spaces % gaps else 0))
    return out + words[-1]


def indent(lines, prefix):
    return [prefix + line for line in lines]
''',
    },
    {
        "test_words.py": """\
from wrap.words import longest_word, split_words, truncate


def test_split_words():
    assert split_words(" a  b\\tc ") == ["a", "b", "c"]


def test_truncate_short():
    assert truncate("hello", 10) == "hello"


def test_truncate_long():
    assert truncate("hello world", 8) == "hello..."


def test_longest_word():
    assert longest_word("a bb ccc dd") == "ccc"
""",
        "test_wrap.py": """\
from wrap.wrap import indent, justify, wrap


def test_wrap():
    assert wrap("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_wrap_long_word():
    assert wrap("a extraordinarily b", 5) == ["a", "extraordinarily", "b"]


def test_justify():
    assert justify("a b c", 7) == "a  b  c"


def test_justify_single_word():
    assert justify("word", 6) == "word  "


def test_indent():
    assert indent(["x", "y"], "> ") == ["> x", "> y"]
""",
    },
    {
        "words": """\
from wrap.words import longest_word, truncate


def test_truncate_exact_width_and_custom_ellipsis():
    assert truncate("abcdef", 6) == "abcdef" and truncate("abcdefg", 4, "~") == "abc~"


def test_longest_word_ties_and_empty():
    assert longest_word("ab cd e") == "ab" and longest_word("   ") == ""
""",
        "wrap": """\
from wrap.wrap import justify, wrap


def test_wrap_exact_fit_and_empty():
    assert wrap("ab cd", 5) == ["ab cd"] and wrap("", 4) == [] and wrap("ab cd", 4) == ["ab", "cd"]


def test_justify_uneven_gaps():
    assert justify("a b c d", 10) == "a  b  c  d"
    assert justify("ab c d", 9) == "ab   c  d"
""",
    },
    shifted=True,
)

PROJECTS = [DATEPARSE, INVENTORY, TOKENIZER, FLAGS, CACHE, UNITS, INTERVALS, WRAP]
