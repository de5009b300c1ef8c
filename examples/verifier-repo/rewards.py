"""Two reward functions for integer-answer math problems (GSM8K style), as an RLVR repository
keeps them. ``accuracy_reward`` reads exactly one final answer; ``last_number_reward`` is the
common shortcut that takes the last number in the completion, and has a hole."""

import re

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_BOXED = "\\boxed{"


def _boxed_contents(text: str) -> list[str]:
    """The contents of every \\boxed{...}, braces balanced; nested boxes count once."""
    found, start = [], 0
    while (i := text.find(_BOXED, start)) != -1:
        depth, j = 1, i + len(_BOXED)
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth:  # unbalanced: no answer
            return []
        found.append(text[i + len(_BOXED) : j - 1])
        start = j
    return found


def _unwrap(answer: str) -> str:
    answer = answer.replace("\u2212", "-")  # a Unicode minus sign
    answer = re.sub(r"\\(?:text|textbf|mathrm|mathbf)\{([^{}]*)\}", r"\1", answer)
    answer = re.sub(r"\\boxed\{(.*)\}", r"\1", answer)
    answer = answer.replace("{,}", ",").replace("\\,", "").replace("\\!", "").replace("$", "")
    answer = re.sub(r"^\s*[a-zA-Z]\s*=\s*", "", answer)  # "x = 5"
    return answer.strip()


def _integer(answer: str):
    """The integer an answer states, or None: one number, units or a trailing period allowed."""
    answer = _unwrap(answer)
    numbers = _NUMBER.findall(answer)
    if len(numbers) != 1:
        return None  # no number, or a hedge such as "12 or 13"
    rest = answer.replace(numbers[0], "", 1)
    if re.search(r"\d|\\pm|\bor\b|,\s*-?\d", rest):
        return None
    # Units may follow the number ("42 dollars"); a denial or an equation may not
    # ("42 is wrong", "not 42", "43 = 42"): the answer must state the number, not refute it.
    if re.search(r"\b(?:not|no|wrong|incorrect|false|never)\b|n't\b|=|\\neq|\\ne\b|\u2260", rest, re.IGNORECASE):
        return None
    digits = numbers[0].replace(",", "")
    if numbers[0].count(",") and not re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", numbers[0]):
        return None  # "1,2" is not a thousands separator
    try:
        value = float(digits)
    except ValueError:
        return None
    return int(value) if value.is_integer() and abs(value) < 1e15 else None


def _final_answer(completion: str):
    boxes = _boxed_contents(completion)
    if boxes:
        values = {_integer(b) for b in boxes}
        return values.pop() if len(values) == 1 else None  # different boxed answers: a hedge
    tail = completion.strip().splitlines()[-1] if completion.strip() else ""
    bold = re.findall(r"\*\*([^*]+)\*\*", tail)
    if len(bold) == 1:
        return _integer(bold[0])
    stated = re.search(r"(?:final answer|the answer) is:?\s*(.+?)\.?\s*$", tail, re.IGNORECASE)
    return _integer(stated.group(1)) if stated else None


def accuracy_reward(completion: str, reference: str) -> float:
    """1.0 when the completion's one final answer equals the reference, else 0.0."""
    if len(completion) > 200_000 or "\x00" in completion:
        return 0.0
    try:
        given = _final_answer(completion)
    except RecursionError:
        return 0.0
    return 1.0 if given is not None and given == int(reference) else 0.0


def last_number_reward(completion: str, reference: str) -> float:
    """The shortcut: the last number anywhere in the completion. It pays for a wrong boxed
    answer followed by the right number ("\\boxed{13}, not 12")."""
    numbers = _NUMBER.findall(completion.replace(",", ""))
    if not numbers:
        return 0.0
    try:
        return 1.0 if float(numbers[-1]) == float(reference) else 0.0
    except ValueError:
        return 0.0
