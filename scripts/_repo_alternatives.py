"""Another correct implementation of each of the 48 functions the "repo" suite's bugs are
injected into (``_repo_projects.py``), written for this suite. ``make_repo_suite.py`` uses
them to make each task's ``alternatives`` patch: an equivalent candidate
("another_implementation") that fixes the bug without restoring the clean text.

Keys are ``<path inside the project>:<function name>``; a method is written at
indentation 0, starting with ``def``, and re-indented to its class body by the script.
Each alternative keeps the clean function's name, signature, docstring, return types,
exceptions (with their messages) and side effects, and behaves exactly as the clean
function on every input the visible and hidden tests use; each is a different
implementation (control flow, algorithm or library calls), not a renaming. Only the
function is replaced, so an alternative uses the standard library through local imports
and otherwise only the names its module already defines or imports."""

from __future__ import annotations

ALTERNATIVES: dict[str, str] = {
    # dateparse/calendar.py
    "dateparse/calendar.py:is_leap": '''\
def is_leap(year):
    """Gregorian leap years: every fourth year, except centuries not divisible by 400."""
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0
''',
    "dateparse/calendar.py:days_in_month": """\
def days_in_month(year, month):
    if not 1 <= month <= 12:
        raise ValueError(f"month out of range: {month}")
    extra = 1 if month == 2 and is_leap(year) else 0
    return DAYS[month - 1] + extra
""",
    "dateparse/calendar.py:day_of_year": """\
def day_of_year(year, month, day):
    before = sum(DAYS[: month - 1])
    if month > 2 and is_leap(year):
        before += 1
    return before + day
""",
    "dateparse/calendar.py:add_days": """\
def add_days(date, count):
    year, month, day = date
    remaining = day + count
    while True:
        size = days_in_month(year, month)
        if remaining <= size:
            return (year, month, remaining)
        remaining -= size
        year, month_index = divmod(year * 12 + month, 12)
        month = month_index + 1
""",
    # dateparse/parse.py
    "dateparse/parse.py:parse_date": '''\
def parse_date(text):
    """``YYYY-MM-DD`` -> (year, month, day); ValueError for anything else."""
    fields = text.strip().split("-")
    if len(fields) == 3:
        year, month, day = [int(field) for field in fields]
        if 1 <= day <= days_in_month(year, month):
            return (year, month, day)
        raise ValueError(f"day out of range: {text!r}")
    raise ValueError(f"not a date: {text!r}")
''',
    "dateparse/parse.py:parse_time": '''\
def parse_time(text):
    """``HH:MM`` or ``HH:MM:SS`` -> seconds since midnight."""
    parts = [int(p) for p in text.strip().split(":")]
    if len(parts) not in (2, 3):
        raise ValueError(f"not a time: {text!r}")
    total = 0
    for value, limit in zip((parts + [0])[:3], (24, 60, 60)):
        if not 0 <= value < limit:
            raise ValueError(f"time out of range: {text!r}")
        total = total * 60 + value
    return total
''',
    # inventory/items.py
    "inventory/items.py:make_item": """\
def make_item(sku, name, price, quantity=0):
    if price >= 0:
        return dict(zip(("sku", "name", "price", "quantity"), (sku, name, price, quantity)))
    raise ValueError(f"negative price for {sku}")
""",
    "inventory/items.py:line_total": """\
def line_total(item):
    import math

    return math.prod((item["price"], item["quantity"]))
""",
    "inventory/items.py:discounted": '''\
def discounted(price, percent):
    """The price after ``percent`` off, rounded down to a cent."""
    if percent < 0 or percent > 100:
        raise ValueError(f"discount out of range: {percent}")
    kept, _rest = divmod(price * (100 - percent), 100)
    return kept
''',
    # inventory/stock.py (methods of Stock)
    "inventory/stock.py:add": """\
def add(self, item):
    sku = item["sku"]
    existing = self.items.get(sku)
    if existing is None:
        self.items[sku] = item.copy()
        return
    existing["quantity"] = existing["quantity"] + item["quantity"]
""",
    "inventory/stock.py:remove": """\
def remove(self, sku, count):
    item = self.items[sku]
    left = item["quantity"] - count
    if left < 0:
        raise ValueError(f"only {item['quantity']} of {sku} in stock")
    item["quantity"] = left
    if not left:
        self.items.pop(sku)
""",
    "inventory/stock.py:value": """\
def value(self):
    total = 0
    for sku in self.items:
        total += line_total(self.items[sku])
    return total
""",
    # tokenizer/lexer.py
    "tokenizer/lexer.py:tokenize": """\
def tokenize(text):
    from itertools import groupby

    tokens = []
    for kind, group in groupby(text, key=kind_of):
        run = "".join(group)
        if kind == "space":
            continue
        if kind in ("number", "name"):
            tokens.append((kind, run))
        else:
            tokens.extend((kind, char) for char in run)
    return tokens
""",
    "tokenizer/lexer.py:count_names": """\
def count_names(tokens):
    seen = set()
    for kind, text in tokens:
        if kind == "name":
            seen.add(text)
    return len(seen)
""",
    "tokenizer/lexer.py:balanced": """\
def balanced(tokens):
    from itertools import accumulate

    steps = [1 if text == "(" else -1 for kind, text in tokens if kind == "paren"]
    return all(depth >= 0 for depth in accumulate(steps)) and sum(steps) == 0
""",
    # tokenizer/tokens.py
    "tokenizer/tokens.py:kind_of": """\
def kind_of(char):
    checks = (
        ("number", lambda c: c.isdigit() or c == "."),
        ("name", lambda c: c.isalpha() or c == "_"),
        ("operator", lambda c: c in OPERATORS),
        ("paren", lambda c: c in "()"),
        ("space", lambda c: c.isspace()),
    )
    for kind, test in checks:
        if test(char):
            return kind
    raise ValueError(f"unexpected character {char!r}")
""",
    "tokenizer/tokens.py:precedence": """\
def precedence(op):
    for symbol, level in OPERATORS.items():
        if symbol == op:
            return level
    raise KeyError(op)
""",
    "tokenizer/tokens.py:is_right_associative": """\
def is_right_associative(op):
    return op in ("^",)
""",
    # flags/convert.py
    "flags/convert.py:to_bool": """\
def to_bool(text):
    lowered = text.strip().lower()
    for words, result in ((TRUE, True), (FALSE, False)):
        if lowered in words:
            return result
    raise ValueError(f"not a boolean: {text!r}")
""",
    "flags/convert.py:to_int_list": '''\
def to_int_list(text):
    """``"1,2, 3"`` -> [1, 2, 3]; empty items are skipped."""
    numbers = []
    for part in text.split(","):
        if part.strip():
            numbers.append(int(part))
    return numbers
''',
    "flags/convert.py:clamp_int": """\
def clamp_int(text, low, high):
    value = int(text)
    if value > high:
        value = high
    if value < low:
        value = low
    return value
""",
    # flags/parser.py
    "flags/parser.py:parse_args": """\
def parse_args(argv):
    options = {}
    positional = []
    pending = list(argv)
    while pending:
        arg = pending.pop(0)
        if arg == "--":
            positional.extend(pending)
            break
        if arg.startswith("--"):
            if "=" in arg:
                key, value = arg[2:].split("=", 1)
                options[key] = value
            else:
                options[arg[2:]] = True
        elif arg.startswith("-") and len(arg) > 1:
            options.update(dict.fromkeys(arg[1:], True))
        else:
            positional.append(arg)
    return options, positional
""",
    "flags/parser.py:get_option": """\
def get_option(options, key, default=None):
    if key in options:
        return options[key]
    return default
""",
    "flags/parser.py:usage": """\
def usage(name, flags):
    text = name
    for flag in sorted(flags):
        text = f"{text} [--{flag}]"
    return text
""",
    # cache/lru.py (methods of LRUCache)
    "cache/lru.py:__init__": """\
def __init__(self, capacity):
    if capacity >= 1:
        self.capacity = capacity
        self.order, self.data = [], {}
        return
    raise ValueError("capacity must be at least 1")
""",
    "cache/lru.py:get": """\
def get(self, key, default=None):
    try:
        value = self.data[key]
    except KeyError:
        return default
    self.order.append(self.order.pop(self.order.index(key)))
    return value
""",
    "cache/lru.py:put": """\
def put(self, key, value):
    fresh = key not in self.data
    if not fresh:
        del self.order[self.order.index(key)]
    elif len(self.data) >= self.capacity:
        evicted = self.order[0]
        del self.order[0]
        self.data.pop(evicted)
    self.order.append(key)
    self.data[key] = value
""",
    "cache/lru.py:keys": '''\
def keys(self):
    """Keys from least to most recently used."""
    return self.order.copy()
''',
    # cache/ttl.py (methods of TTLCache)
    "cache/ttl.py:__init__": """\
def __init__(self, ttl, clock):
    for attribute, value in (("ttl", ttl), ("clock", clock), ("data", {})):
        setattr(self, attribute, value)
""",
    "cache/ttl.py:put": """\
def put(self, key, value):
    expires = self.ttl + self.clock()
    self.data.update({key: (value, expires)})
""",
    # units/length.py
    "units/length.py:to_metres": """\
def to_metres(value, unit):
    factor = METRES.get(unit)
    if factor is None:
        raise ValueError(f"unknown unit {unit!r}")
    return value * factor
""",
    "units/length.py:convert": """\
def convert(value, source, target):
    import operator

    return operator.truediv(to_metres(value, source), METRES[target])
""",
    "units/length.py:parse_length": '''\
def parse_length(text):
    """``"12.5 cm"`` -> (12.5, "cm")."""
    pieces = text.strip().split(" ", 1)
    unit = pieces[1].strip() if len(pieces) > 1 else ""
    return (float(pieces[0]), unit)
''',
    # units/money.py
    "units/money.py:parse_amount": '''\
def parse_amount(text):
    """``"12.34"`` / ``"-0.5"`` / ``"7"`` -> cents."""
    text = text.strip()
    body = text.lstrip("+-")
    if "." in body:
        whole, frac = body.split(".", 1)
    else:
        whole, frac = body, ""
    if len(frac) > 2 or (whole == "" and frac == ""):
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole or "0") * 100 + int(frac.ljust(2, "0"))
    return -cents if text.startswith("-") else cents
''',
    "units/money.py:format_cents": """\
def format_cents(cents):
    whole, part = divmod(abs(cents), 100)
    text = f"{whole}.{part:02d}"
    return "-" + text if cents < 0 else text
""",
    "units/money.py:split_evenly": '''\
def split_evenly(cents, ways):
    """Shares that differ by at most one cent and add up to ``cents``; larger first."""
    return [(cents + ways - 1 - i) // ways for i in range(ways)]
''',
    # intervals/interval.py
    "intervals/interval.py:make": """\
def make(start, end):
    if start <= end:
        return (start, end)
    raise ValueError(f"interval ends before it starts: {start}, {end}")
""",
    "intervals/interval.py:length": """\
def length(interval):
    start, end = interval
    return end - start
""",
    "intervals/interval.py:overlaps": """\
def overlaps(a, b):
    if a[0] >= b[1]:
        return False
    return b[0] < a[1]
""",
    "intervals/interval.py:contains": """\
def contains(interval, point):
    start, end = interval
    if point < start:
        return False
    return point < end
""",
    # intervals/intervalset.py
    "intervals/intervalset.py:merge": '''\
def merge(intervals):
    """Sorted, disjoint intervals covering the same points; touching ones are joined."""
    ordered = sorted(intervals)
    if not ordered:
        return []
    out = []
    start, end = ordered[0]
    for next_start, next_end in ordered[1:]:
        if next_start > end:
            out.append((start, end))
            start, end = next_start, next_end
        else:
            end = max(end, next_end)
    out.append((start, end))
    return out
''',
    "intervals/intervalset.py:total_length": """\
def total_length(intervals):
    total = 0
    for start, end in merge(intervals):
        total += end - start
    return total
""",
    # wrap/words.py
    "wrap/words.py:split_words": """\
def split_words(text):
    words, current = [], []
    for char in text:
        if not char.isspace():
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words
""",
    "wrap/words.py:truncate": '''\
def truncate(text, width, ellipsis="..."):
    """``text`` cut to ``width`` characters, ending in ``ellipsis`` when cut."""
    if len(text) > width:
        cut = width - len(ellipsis)
        return "".join((text[:cut], ellipsis))
    return text
''',
    "wrap/words.py:longest_word": """\
def longest_word(text):
    best = ""
    for word in split_words(text):
        if len(word) > len(best):
            best = word
    return best
""",
    # wrap/wrap.py
    "wrap/wrap.py:wrap": """\
def wrap(text, width):
    lines = []
    for word in split_words(text):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] = lines[-1] + " " + word
        else:
            lines.append(word)
    return lines
""",
    "wrap/wrap.py:justify": '''\
def justify(line, width):
    """Spaces added between words, leftmost gaps first, to make ``line`` exactly ``width``."""
    words = line.split()
    if len(words) <= 1:
        return line.ljust(width)
    base, extra = divmod(width - sum(map(len, words)), len(words) - 1)
    fills = [" " * (base + 1)] * extra + [" " * base] * (len(words) - 1 - extra)
    pieces = [words[0]]
    for fill, word in zip(fills, words[1:]):
        pieces.append(fill + word)
    return "".join(pieces)
''',
    "wrap/wrap.py:indent": """\
def indent(lines, prefix):
    out = []
    for line in lines:
        out.append(f"{prefix}{line}")
    return out
""",
}
