"""The small Python projects ``make_repo_suite.py`` injects bugs into: each a package of
two modules (and an ``__init__.py`` that re-exports them), visible tests under ``tests/``
and hidden tests (``tests/test_hidden_<module>.py``) that the oracle adds before its run.
Written for this suite; every clean project passes all its tests (the script checks).

The hidden tests hold no literal ``f(input) == expected`` line: they draw their inputs at
run time (seeded ``random.Random``, loops over ranges) and check each result against a
second implementation written in the test (often the standard library's: ``calendar``,
``datetime``, ``Decimal``, ``Fraction``, ``statistics``, ``OrderedDict``) or a property,
through ``same``, which compares types exactly. So a patch that makes the package's
functions return an object equal to everything, or that reads the files under tests/ and
special-cases the literal inputs it finds, fails them (docs/repo-suite.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Project:
    name: str  # also the package's name
    modules: dict[str, str]  # module name (no .py) -> source
    tests: dict[str, str]  # visible test file name -> source
    hidden: dict[str, str]  # module name -> hidden test source (tests/test_hidden_<module>.py)
    shifted: bool = False  # absent from train and heldout


#: Put in every hidden test file after its imports: an exact comparison. ``type(got) is
#: type(expected)`` at every level (an always-equal object is not a tuple of ints, True is
#: not 1), floats within pytest.approx (the second implementation may round differently).
SAME = """\
def same(got, expected):
    assert type(got) is type(expected), f"{type(got).__name__} returned, {type(expected).__name__} expected"
    if isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), f"{got!r} != {expected!r}"
        for item, wanted in zip(got, expected):
            same(item, wanted)
    elif isinstance(expected, dict):
        assert sorted(got, key=repr) == sorted(expected, key=repr), f"{got!r} != {expected!r}"
        for key, wanted in expected.items():
            same(got[key], wanted)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected), f"{got!r} != {expected!r}"
    else:
        assert got == expected, f"{got!r} != {expected!r}"
"""


def _hidden(imports: str, body: str) -> str:
    """A hidden test file: ``random`` and pytest (``same`` needs it), the file's own
    imports, ``same``, then the tests."""
    head = "import random\n\nimport pytest\n\n" if "import pytest" not in imports else "import random\n"
    return f"{head}{imports}\n\n\n{SAME}\n\n{body}"


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
        "calendar": _hidden(
            "import calendar\nimport datetime\n\nimport pytest\n\n"
            "from dateparse.calendar import add_days, day_of_year, days_in_month, is_leap",
            """\
def test_is_leap_matches_the_standard_library():
    for year in [*range(1890, 1910), *range(1995, 2030), *range(2095, 2105), *range(2395, 2405)]:
        same(is_leap(year), calendar.isleap(year))


def test_days_in_month_matches_the_standard_library():
    for year in (1900, 2000, 2023, 2024, 2100):
        for month in range(1, 13):
            same(days_in_month(year, month), calendar.monthrange(year, month)[1])
    for month in (-1, 0, 13, 14):
        with pytest.raises(ValueError):
            days_in_month(2023, month)


def test_day_of_year_matches_the_standard_library():
    day = datetime.date(2023, 1, 1)
    while day.year < 2025:
        same(day_of_year(day.year, day.month, day.day), day.timetuple().tm_yday)
        day += datetime.timedelta(days=1)


def test_add_days_matches_timedelta():
    rng = random.Random(36)
    day = datetime.date(2023, 1, 1)
    while day.year < 2025:
        for count in (0, 1, rng.randrange(2, 70), rng.randrange(70, 800)):
            end = day + datetime.timedelta(days=count)
            same(add_days((day.year, day.month, day.day), count), (end.year, end.month, end.day))
        day += datetime.timedelta(days=1)
""",
        ),
        "parse": _hidden(
            "import calendar\nimport datetime\n\nimport pytest\n\n"
            "from dateparse.parse import format_date, parse_date, parse_time",
            """\
def test_parse_and_format_every_day():
    day = datetime.date(2023, 1, 1)
    while day.year < 2025:
        text = day.isoformat()
        padded = " " * (day.day % 3) + text + " " * (day.month % 2)
        same(parse_date(padded), (day.year, day.month, day.day))
        same(format_date((day.year, day.month, day.day)), text)
        day += datetime.timedelta(days=1)
    rng = random.Random(36)
    for _ in range(200):
        day = datetime.date(rng.randrange(1, 10000), rng.randrange(1, 13), rng.randrange(1, 29))
        same(format_date((day.year, day.month, day.day)), day.isoformat())


def test_parse_date_rejects_days_outside_the_month():
    for year in (2023, 2024, 2100):
        for month in range(1, 13):
            for day in (0, calendar.monthrange(year, month)[1] + 1):
                with pytest.raises(ValueError):
                    parse_date("-".join([str(year), str(month).zfill(2), str(day).zfill(2)]))
    for text in ("2023/02/01", "2023-02", "2023-02-01-04"):
        with pytest.raises(ValueError):
            parse_date(text)


def test_parse_time_matches_arithmetic():
    rng = random.Random(37)
    fields = [(h, m, s) for h in (0, 23) for m in (0, 59) for s in (0, 59)]
    fields += [(rng.randrange(24), rng.randrange(60), rng.randrange(60)) for _ in range(300)]
    for hours, minutes, secs in fields:
        expected = datetime.timedelta(hours=hours, minutes=minutes, seconds=secs).seconds
        same(parse_time(":".join(str(f).zfill(2) for f in (hours, minutes, secs))), expected)
        same(parse_time(":".join([str(hours), str(minutes).zfill(2)])), expected - secs)


def test_parse_time_rejects_out_of_range_fields():
    for fields in ((24, 0), (12, 60), (0, 0, 60), (-1, 0), (1, 2, 3, 4), (1,)):
        with pytest.raises(ValueError):
            parse_time(":".join(str(f).zfill(2) for f in fields))
""",
        ),
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
        "items": _hidden(
            "import math\nfrom fractions import Fraction\n\nimport pytest\n\n"
            "from inventory.items import discounted, line_total, make_item",
            """\
def test_make_item_and_line_total():
    rng = random.Random(36)
    for _ in range(200):
        price, quantity = rng.randrange(0, 10000), rng.randrange(0, 50)
        item = make_item("S" + str(price), "thing", price, quantity)
        same(item, {"sku": "S" + str(price), "name": "thing", "price": price, "quantity": quantity})
        same(line_total(item), sum([price] * quantity))
        same(make_item("S", "thing", price)["quantity"], quantity * 0)
    for price in (-1, -rng.randrange(2, 1000)):
        with pytest.raises(ValueError):
            make_item("S", "thing", price)


def test_discounted_rounds_down_to_a_cent():
    rng = random.Random(37)
    for price in [0, 1, 2, 99, 100, 999, *(rng.randrange(0, 100000) for _ in range(20))]:
        for percent in range(0, 101):
            same(discounted(price, percent), math.floor(Fraction(price) * (1 - Fraction(percent, 100))))
    for percent in (-1, 101, rng.randrange(102, 1000)):
        with pytest.raises(ValueError):
            discounted(100, percent)
""",
        ),
        "stock": _hidden(
            "import pytest\n\nfrom inventory.items import make_item\nfrom inventory.stock import Stock",
            """\
def test_stock_against_a_model():
    rng = random.Random(36)
    for _ in range(40):
        stock, model, prices = Stock(), {}, {}
        for _ in range(rng.randrange(1, 30)):
            sku = rng.choice("ABCDE")
            if sku not in model or rng.random() < 0.5:
                quantity = rng.randrange(0, 6)
                item = make_item(sku, sku.lower(), prices.setdefault(sku, rng.randrange(1, 100)), quantity)
                stock.add(item)
                same(item["quantity"], quantity)
                model[sku] = model.get(sku, 0) + quantity
            else:
                count = rng.randrange(0, model[sku] + 3)
                if count > model[sku]:
                    with pytest.raises(ValueError):
                        stock.remove(sku, count)
                else:
                    stock.remove(sku, count)
                    model[sku] -= count
                    if model[sku] == 0:
                        del model[sku]
            same({sku: item["quantity"] for sku, item in stock.items.items()}, model)
            same(stock.value(), sum(prices[sku] * quantity for sku, quantity in model.items()))
            threshold = rng.randrange(0, 8)
            same(stock.low_stock(threshold), sorted(sku for sku, quantity in model.items() if quantity < threshold))
""",
        ),
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
        "tokens": _hidden(
            "import string\n\nimport pytest\n\n"
            "from tokenizer.tokens import OPERATORS, is_right_associative, kind_of, precedence",
            """\
KINDS = [
    ("number", string.digits + "."),
    ("name", string.ascii_letters + "_"),
    ("operator", "+-*/^"),
    ("paren", "()"),
    ("space", string.whitespace),
]


def test_kind_of_every_printable_character():
    for char in string.printable:
        kinds = [kind for kind, chars in KINDS if char in chars]
        if kinds:
            same(kind_of(char), kinds[0])
        else:
            with pytest.raises(ValueError):
                kind_of(char)


def test_precedence_levels_and_associativity():
    for level, ops in enumerate(["+-", "*/", "^"], 1):
        for op in ops:
            same(precedence(op), level)
            same(is_right_associative(op), level == 3)
    same(sorted(OPERATORS), sorted("+-*/^"))
""",
        ),
        "lexer": _hidden(
            "import re\nimport string\n\nfrom tokenizer.lexer import balanced, count_names, tokenize",
            """\
PIECES = re.compile("[0-9.]+|[A-Za-z_]+|[+*/^()-]|[" + re.escape(string.whitespace) + "]+")


def kind(text):
    for name, chars in (("number", string.digits + "."), ("name", string.ascii_letters + "_"), ("paren", "()")):
        if text[0] in chars:
            return name
    return "space" if text[0] in string.whitespace else "operator"


def expected_tokens(text):
    return [(kind(piece), piece) for piece in PIECES.findall(text) if kind(piece) != "space"]


def test_tokenize_matches_a_regular_expression():
    rng = random.Random(36)
    alphabet = ["1", "23", ".", "x", "y_", "Ab", "+", "-", "*", "/", "^", "(", ")", " ", "  ", "\t"]
    for size in range(0, 60):
        text = "".join(rng.choice(alphabet) for _ in range(size))
        tokens = tokenize(text)
        same(tokens, expected_tokens(text))
        same(count_names(tokens), len({piece for name, piece in expected_tokens(text) if name == "name"}))


def test_balanced_matches_a_running_depth():
    rng = random.Random(37)
    for size in range(0, 14):
        for _ in range(30):
            text = "".join(rng.choice("()a") for _ in range(size))
            depths = [text[: i + 1].count("(") - text[: i + 1].count(")") for i in range(len(text))]
            same(balanced(tokenize(text)), min(depths, default=0) >= 0 and text.count("(") == text.count(")"))
""",
        ),
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
        "convert": _hidden(
            "import pytest\n\nfrom flags.convert import clamp_int, to_bool, to_int_list",
            """\
def test_to_bool_every_spelling():
    rng = random.Random(36)
    for words, value in ((["1", "true", "yes", "on"], True), (["0", "false", "no", "off"], False)):
        for word in words:
            for _ in range(10):
                spelled = "".join(c.upper() if rng.random() < 0.5 else c for c in word)
                same(to_bool(" " * rng.randrange(3) + spelled + " " * rng.randrange(3)), value)
    for text in ("", "maybe", "2", "yess", "of", "tru"):
        with pytest.raises(ValueError):
            to_bool(text)


def test_to_int_list_round_trips():
    rng = random.Random(37)
    for size in range(0, 30):
        numbers = [rng.randrange(-1000, 1000) for _ in range(size)]
        items = [" " * rng.randrange(2) + str(n) for n in numbers]
        for _ in range(rng.randrange(3)):
            items.insert(rng.randrange(len(items) + 1), " " * rng.randrange(2))
        same(to_int_list(",".join(items)), numbers)


def test_clamp_int_is_the_middle_value():
    rng = random.Random(38)
    for _ in range(300):
        low = rng.randrange(-50, 50)
        high = low + rng.randrange(0, 20)
        value = rng.randrange(-100, 100)
        same(clamp_int(str(value), low, high), sorted([low, value, high])[1])
""",
        ),
        "parser": _hidden(
            "from flags.parser import get_option, parse_args, usage",
            """\
def expected_parse(argv):
    options, positional = {}, []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg == "--":
            return options, positional + argv[index:]
        if arg[:2] == "--":
            if "=" in arg:
                options[arg[2 : arg.index("=")]] = arg[arg.index("=") + 1 :]
            else:
                options[arg[2:]] = True
        elif arg[:1] == "-" and arg != "-":
            options.update(dict.fromkeys(arg[1:], True))
        else:
            positional.append(arg)
    return options, positional


def test_parse_args_matches_a_second_parser():
    rng = random.Random(36)
    words = ["--out=x.txt", "--verbose", "--name=", "--expr=a=b", "-ab", "-c", "-", "--", "file", "a", "--b"]
    for size in range(0, 12):
        for _ in range(30):
            argv = [rng.choice(words) for _ in range(size)]
            same(parse_args(argv), expected_parse(argv))


def test_get_option_and_usage():
    rng = random.Random(37)
    for _ in range(100):
        flags = set(rng.sample("abcdefgh", rng.randrange(0, 6)))
        options = {flag: rng.randrange(100) for flag in flags}
        key, default = rng.choice("abcdefgh"), rng.randrange(100, 200)
        same(get_option(options, key, default), options[key] if key in options else default)
        same(usage("tool", flags), "tool" + "".join(" [--" + flag + "]" for flag in sorted(flags)))
""",
        ),
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
        "lru": _hidden(
            "from collections import OrderedDict\n\nimport pytest\n\nfrom cache.lru import LRUCache",
            """\
def test_lru_against_an_ordered_dict():
    rng = random.Random(36)
    for _ in range(60):
        capacity = rng.randrange(1, 5)
        cache, model = LRUCache(capacity), OrderedDict()
        for _ in range(rng.randrange(1, 40)):
            key = rng.choice("abcdef")
            if rng.random() < 0.5:
                value = rng.randrange(1000)
                if key not in model and len(model) >= capacity:
                    model.popitem(last=False)
                model[key] = value
                model.move_to_end(key)
                cache.put(key, value)
            else:
                default = rng.choice([None, -1])
                if key in model:
                    model.move_to_end(key)
                same(cache.get(key, default), model.get(key, default))
            same(cache.keys(), list(model))
            same(len(cache.data), len(model))
    for capacity in (0, -1):
        with pytest.raises(ValueError):
            LRUCache(capacity)
""",
        ),
        "ttl": _hidden(
            "from cache.ttl import TTLCache",
            """\
def test_ttl_against_a_model():
    rng = random.Random(36)
    for _ in range(60):
        now = [0]
        ttl = rng.randrange(1, 6)
        cache, model = TTLCache(ttl, lambda: now[0]), {}
        for _ in range(rng.randrange(1, 40)):
            now[0] += rng.randrange(0, 4)
            key = rng.choice("abcd")
            step = rng.random()
            if step < 0.4:
                value = rng.randrange(1000)
                model[key] = (value, now[0] + ttl)
                cache.put(key, value)
            elif step < 0.8:
                default = rng.choice([None, -1])
                expected = default
                if key in model and now[0] < model[key][1]:
                    expected = model[key][0]
                elif key in model:
                    del model[key]
                same(cache.get(key, default), expected)
            else:
                expired = [k for k, (_, expires) in model.items() if now[0] >= expires]
                for k in expired:
                    del model[k]
                same(cache.purge(), len(expired))
            same(sorted(cache.data), sorted(model))
""",
        ),
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
        "money": _hidden(
            "from decimal import Decimal\n\nimport pytest\n\n"
            "from units.money import format_cents, parse_amount, split_evenly",
            """\
def spellings(cents):
    whole, frac = divmod(abs(cents), 100)
    sign = "-" if cents < 0 else ""
    yield sign + str(whole) + "." + str(frac).zfill(2)
    if frac % 10 == 0:
        yield sign + str(whole) + "." + str(frac // 10)
    if frac == 0:
        yield ("+" if cents > 0 else sign) + str(whole)
    if whole == 0:
        yield sign + "." + str(frac).zfill(2)


def test_parse_amount_matches_decimal():
    rng = random.Random(36)
    amounts = [0, 5, -5, 50, 100, -100, 700, *(rng.randrange(-100000, 100000) for _ in range(300))]
    for cents in amounts:
        for text in spellings(cents):
            same(parse_amount(" " + text), int(Decimal(text) * 100))
    for text in ("1.234", "", ".", "-", "+"):
        with pytest.raises(ValueError):
            parse_amount(text)


def test_format_cents_matches_decimal():
    rng = random.Random(37)
    for cents in [0, 1, -1, 5, -5, 99, 100, -100, *(rng.randrange(-10**7, 10**7) for _ in range(300))]:
        same(format_cents(cents), str(Decimal(cents).scaleb(-2)))


def test_split_evenly_properties():
    rng = random.Random(38)
    for _ in range(300):
        cents, ways = rng.randrange(0, 1000), rng.randrange(1, 13)
        shares = split_evenly(cents, ways)
        same(shares, sorted(shares, reverse=True))
        same(len(shares), ways)
        same(sum(shares), cents)
        assert all(type(share) is int for share in shares) and shares[0] - shares[-1] <= 1
""",
        ),
        "length": _hidden(
            "from decimal import Decimal\nfrom fractions import Fraction\n\nimport pytest\n\n"
            "from units.length import convert, parse_length, to_metres",
            """\
FACTORS = {
    "mm": Fraction(1, 1000),
    "cm": Fraction(1, 100),
    "m": Fraction(1),
    "km": Fraction(1000),
    "in": Fraction(254, 10000),
    "ft": Fraction(3048, 10000),
}


def test_to_metres_and_convert_match_fractions():
    rng = random.Random(36)
    for _ in range(300):
        value = rng.choice([rng.randrange(-1000, 1000), round(rng.uniform(-1000, 1000), 3)])
        source, target = rng.choice(sorted(FACTORS)), rng.choice(sorted(FACTORS))
        same(to_metres(value, source), float(Fraction(value) * FACTORS[source]))
        same(convert(value, source, target), float(Fraction(value) * FACTORS[source] / FACTORS[target]))
    for unit in ("parsec", "M", "", "yd"):
        with pytest.raises(ValueError):
            to_metres(1, unit)


def test_parse_length_matches_decimal():
    rng = random.Random(37)
    for _ in range(200):
        number = str(rng.choice([rng.randrange(0, 5000), round(rng.uniform(0, 5000), rng.randrange(1, 4))]))
        unit = rng.choice(sorted(FACTORS))
        text = " " * rng.randrange(3) + number + " " + unit + " " * rng.randrange(3)
        same(parse_length(text), (float(Decimal(number)), unit))
""",
        ),
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
        "interval": _hidden(
            "import pytest\n\nfrom intervals.interval import contains, length, make, overlaps",
            """\
def points(interval):
    return set(range(interval[0], interval[1]))


def test_make_and_length():
    for start in range(-5, 6):
        for end in range(-5, 6):
            if end < start:
                with pytest.raises(ValueError):
                    make(start, end)
            else:
                same(make(start, end), (start, end))
                same(length((start, end)), len(points((start, end))))


def test_overlaps_and_contains_match_point_sets():
    spans = [(start, end) for start in range(0, 7) for end in range(start + 1, 8)]
    for a in spans:
        for b in spans:
            same(overlaps(a, b), bool(points(a) & points(b)))
        for point in range(-1, 9):
            same(contains(a, point), point in points(a))
""",
        ),
        "intervalset": _hidden(
            "from intervals.intervalset import gaps, merge, total_length",
            """\
def runs(covered):
    out = []
    for point in sorted(covered):
        if out and out[-1][1] == point:
            out[-1] = (out[-1][0], point + 1)
        else:
            out.append((point, point + 1))
    return out


def test_merge_total_length_and_gaps_match_point_sets():
    rng = random.Random(36)
    for size in range(0, 8):
        for _ in range(60):
            intervals = []
            for _ in range(size):
                start = rng.randrange(0, 20)
                intervals.append((start, start + rng.randrange(1, 6)))
            covered = set()
            for start, end in intervals:
                covered |= set(range(start, end))
            merged = runs(covered)
            same(merge(intervals), merged)
            same(total_length(intervals), len(covered))
            same(gaps(intervals), [(merged[i][1], merged[i + 1][0]) for i in range(len(merged) - 1)])
""",
        ),
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
        "words": _hidden(
            "import re\n\nfrom wrap.words import longest_word, split_words, truncate",
            """\
def random_text(rng, size):
    return "".join(rng.choice(["a", "bc", "def", "ghij", " ", "  ", "\t"]) for _ in range(size))


def test_split_words_and_longest_word():
    rng = random.Random(36)
    for size in range(0, 40):
        text = random_text(rng, size)
        words = re.findall("[^ \t]+", text)
        same(split_words(text), words)
        best = ""
        for word in words:
            if len(word) > len(best):
                best = word
        same(longest_word(text), best)


def test_truncate_properties():
    rng = random.Random(37)
    for size in range(0, 40):
        text = random_text(rng, size)
        ellipsis = rng.choice(["...", "~", "--"])
        for width in range(len(ellipsis), len(text) + 3):
            got = truncate(text, width, ellipsis) if ellipsis != "..." else truncate(text, width)
            if len(text) <= width:
                same(got, text)
            else:
                same(len(got), width)
                same(got[len(got) - len(ellipsis) :], ellipsis)
                assert text.startswith(got[: len(got) - len(ellipsis)])
""",
        ),
        "wrap": _hidden(
            "from wrap.wrap import indent, justify, wrap",
            """\
def expected_wrap(words, width):
    lines = []
    for word in words:
        if lines and len(" ".join([*lines[-1], word])) <= width:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [" ".join(line) for line in lines]


def test_wrap_matches_a_second_greedy_wrap():
    rng = random.Random(36)
    for size in range(0, 25):
        words = ["x" * rng.randrange(1, 9) for _ in range(size)]
        for width in range(1, 20):
            same(wrap("  ".join(words) if width % 2 else " ".join(words), width), expected_wrap(words, width))


def test_justify_properties():
    rng = random.Random(37)
    for size in range(1, 8):
        for _ in range(30):
            words = ["y" * rng.randrange(1, 6) for _ in range(size)]
            width = len(" ".join(words)) + rng.randrange(0, 12)
            got = justify(" ".join(words), width)
            same(len(got), width)
            same(got.split(), words)
            if size == 1:
                same(got, words[0] + " " * (width - len(words[0])))
            else:
                gaps = [len(gap) for gap in got.strip("y").split("y") if gap]
                same(gaps, sorted(gaps, reverse=True))
                assert gaps[0] - gaps[-1] <= 1


def test_indent_prefixes_every_line():
    rng = random.Random(38)
    for size in range(0, 10):
        lines = ["z" * rng.randrange(0, 5) for _ in range(size)]
        prefix = rng.choice(["", "> ", "    ", "# "])
        same(indent(lines, prefix), ["".join([prefix, line]) for line in lines])
""",
        ),
    },
    shifted=True,
)

PROJECTS = [DATEPARSE, INVENTORY, TOKENIZER, FLAGS, CACHE, UNITS, INTERVALS, WRAP]
