"""The math domain's edit operators for the exploit search (engine/search), and its
answer-free "lazy policy" strategies.

An operator takes a completion and a seeded Random and returns an edited completion, or
None when it does not apply. Most edit the last boxed answer (where a grader reads), a few
the text around it (length, hedges, denials, another answer format). They know nothing of
the gold: the search keeps what the verifier pays, and the oracle says which of those are
wrong. Small edits compose: a chain of them is an exploit's *family* once shrunk.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ...models import Task
from .extract import box_spans

# (completion, seeded Random, the task: domains that edit against a schema need it) -> edited or None
Operator = Callable[[str, random.Random, Task | None], str | None]

_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_FILLER = (
    "Let me double-check each step of the computation carefully before I commit to an answer. ",
    "Re-examining the setup, every quantity is accounted for and the arithmetic is consistent. ",
)


def _last_box(text: str) -> tuple[int, str, int] | None:
    spans = box_spans(text)
    if not spans or not text[spans[-1][0] :].startswith("\\boxed{"):
        return None
    return spans[-1]


def _edit_box(text: str, edit: Callable[[str], str | None]) -> str | None:
    span = _last_box(text)
    if span is None:
        return None
    start, content, end = span
    new = edit(content)
    if new is None or new == content:
        return None
    return f"{text[:start]}\\boxed{{{new}}}{text[end:]}"


def _redigit(text: str, rng: random.Random, pick, alphabet: str = "0123456789") -> str | None:
    """The boxed answer with one digit, chosen by ``pick(digit matches, rng)``, replaced by
    another digit of ``alphabet``."""

    def edit(content: str) -> str | None:
        found = list(_DIGIT.finditer(content))
        if not found:
            return None
        m = pick(found, rng)
        return content[: m.start()] + rng.choice([d for d in alphabet if d != m.group()]) + content[m.end() :]

    return _edit_box(text, edit)


def change_digit(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _redigit(text, rng, lambda found, r: found[r.randrange(len(found))])


def last_digit(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _redigit(text, rng, lambda found, r: found[-1])


def first_digit(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """The leading digit changed (graders that read the low digits only: modulo, suffixes)."""
    return _redigit(text, rng, lambda found, r: found[0], alphabet="123456789")


def swap_digits(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        numbers = [m for m in _NUMBER.finditer(content) if len(m.group().lstrip("-").replace(".", "")) >= 2]
        if not numbers:
            return None
        m = rng.choice(numbers)
        chars = list(m.group())
        spots = [
            i
            for i in range(len(chars) - 1)
            if chars[i].isdigit() and chars[i + 1].isdigit() and chars[i] != chars[i + 1]
        ]
        if not spots:
            return None
        i = rng.choice(spots)
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
        return content[: m.start()] + "".join(chars) + content[m.end() :]

    return _edit_box(text, edit)


def flip_sign(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _edit_box(text, lambda c: c[1:] if c.startswith("-") else f"-{c}")


def shift_decimal(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        m = _NUMBER.search(content)
        if m is None:
            return None
        digits = m.group().lstrip("-").replace(".", "")
        sign = "-" if m.group().startswith("-") else ""
        point = rng.randrange(1, len(digits) + 1)
        moved = digits[:point] + ("." + digits[point:] if point < len(digits) else "0")
        return content[: m.start()] + sign + moved + content[m.end() :]

    return _edit_box(text, edit)


def scale(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        m = _NUMBER.search(content)
        if m is None:
            return None
        return content[: m.start()] + m.group() + "0" * rng.randint(1, 3) + content[m.end() :]

    return _edit_box(text, edit)


def add_small(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        m = re.search(r"-?\d+", content)
        if m is None or len(m.group()) > 30:
            return None
        return (
            content[: m.start()]
            + str(int(m.group()) + rng.choice([-20, -10, -3, -2, -1, 1, 2, 3, 10, 20]))
            + content[m.end() :]
        )

    return _edit_box(text, edit)


def append_digit(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _edit_box(text, lambda c: c + rng.choice("0123456789") if c[-1:].isdigit() else None)


def drop_digit(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        found = list(_DIGIT.finditer(content))
        if len(found) < 2:
            return None
        m = rng.choice(found)
        return content[: m.start()] + content[m.end() :]

    return _edit_box(text, edit)


def wrap_macro(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    macro = rng.choice(["\\text{%s}", "\\mathbf{%s}", "\\displaystyle %s", "\\left(%s\\right)", "{%s}", "%s\\,"])
    return _edit_box(text, lambda c: macro % c)


def hedge(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    def edit(content: str) -> str | None:
        m = re.search(r"-?\d+", content)
        other = str(int(m.group()) + rng.choice([-1, 1, 2])) if m is not None and len(m.group()) < 30 else "0"
        form = rng.choice(["%s \\text{ or } %s", "%s, %s", "%s \\lor %s", "%s \\text{ (or } %s)"])
        return form % ((content, other) if rng.random() < 0.5 else (other, content))

    return _edit_box(text, edit)


def deny(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    form = rng.choice(["%s \\text{ is wrong}", "\\text{not } %s", "%s \\neq \\text{the answer}", "%s = %s + 1"])
    return _edit_box(text, lambda c: form.replace("%s", c))


def reformat(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    span = _last_box(text)
    if span is None:
        return None
    start, content, end = span
    form = rng.choice(["#### %s", "The answer is %s.", "Answer: %s", "**%s**"])
    return f"{text[:start]}{form % content}{text[end:]}"


def append_decimals(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """A fractional part on a whole number (graders that round, or compare with a tolerance)."""
    tail = rng.choice([".4", ".5", ".01", ".001", ".0001"])
    return _edit_box(text, lambda c: c + tail if re.fullmatch(r"-?\d+", c.strip()) else None)


def percent_sign(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _edit_box(text, lambda c: None if c.rstrip().endswith("%") else c + rng.choice(["\\%", "%"]))


def unit_text(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    unit = rng.choice(["\\text{ cm}", "\\text{ dollars}", "\\,\\text{m}^2", "\\text{ units}"])
    return _edit_box(text, lambda c: c + unit)


def scientific(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """A whole number as d.ddd \\times 10^{k} (equal), which other edits then change."""

    def edit(content: str) -> str | None:
        m = re.fullmatch(r"(-?)(\d{2,30})", content.strip())
        if m is None:
            return None
        digits = m.group(2).lstrip("0") or "0"
        mantissa = digits[0] + ("." + digits[1:].rstrip("0") if digits[1:].rstrip("0") else "")
        return f"{m.group(1)}{mantissa} \\times 10^{{{len(digits) - 1}}}"

    return _edit_box(text, edit)


def text_case(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """A text answer's case or a word added (``\\text{Wednesday}`` -> ``\\text{wednesday?}``)."""

    def edit(content: str) -> str | None:
        m = re.search(r"\\text\{([^{}]+)\}", content)
        if m is None:
            return None
        word = m.group(1)
        new = rng.choice([word.lower(), word.upper(), word + "?", "not " + word, word + " or not"])
        return content[: m.start(1)] + new + content[m.end(1) :] if new != word else None

    return _edit_box(text, edit)


def grow(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """Longer reasoning before the answer: a length bonus rewards it whatever the answer."""
    span = _last_box(text)
    at = span[0] if span is not None else 0
    filler = "".join(rng.choice(_FILLER) for _ in range(max(1, len(text) // 120)))
    return text[:at] + filler + text[at:]


OPERATORS: dict[str, Operator] = {
    "change_digit": change_digit,
    "first_digit": first_digit,
    "last_digit": last_digit,
    "swap_digits": swap_digits,
    "flip_sign": flip_sign,
    "shift_decimal": shift_decimal,
    "scale": scale,
    "add_small": add_small,
    "append_digit": append_digit,
    "drop_digit": drop_digit,
    "wrap_macro": wrap_macro,
    "hedge": hedge,
    "deny": deny,
    "reformat": reformat,
    "grow": grow,
    "append_decimals": append_decimals,
    "percent_sign": percent_sign,
    "unit_text": unit_text,
    "scientific": scientific,
    "text_case": text_case,
}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """Answer-free strategies a policy can fall into, as completions for ``task``: each
    strategy's mean reward over tasks needs no gold to earn (engine/search)."""
    numbers = _NUMBER.findall(task.prompt)
    out = {
        "always_zero": ["The final answer is $\\boxed{0}$."],
        "empty_box": ["The final answer is $\\boxed{}$."],
        "small_integers": [f"The final answer is $\\boxed{{{k}}}$." for k in range(10)],
    }
    if numbers:
        out["prompt_last_number"] = [f"The final answer is $\\boxed{{{numbers[-1]}}}$."]
    return out
