"""Strings like the visible ones: same characters and lengths, sentences over the words
already seen, and mutations that keep a string's punctuation skeleton ("1/5", "03-11-2000")
while words and numbers are swapped."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from .helper import (
    DEFAULT_ALPHABET,
    DEFAULT_MAX_STR,
    EXAMPLE_MAX_LEN,
    EXAMPLE_MAX_STR,
    _pick,
)


def _char_class(c: str) -> str:
    if c in string.digits:
        return "d"
    if c.isupper():
        return "u"
    if c.islower():
        return "l"
    if c.isspace():
        return "s"
    return "p" + c  # punctuation is structure ("1/5", "03-11-2000"): kept as it is


def _runs(s: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for c in s:
        cls = _char_class(c)
        if out and out[-1][0] == cls and not cls.startswith("p"):
            out[-1] = (cls, out[-1][1] + c)
        else:
            out.append((cls, c))
    return out


def _like_text(pool: list):
    chars = "".join(sorted({c for s in pool for c in s})) or DEFAULT_ALPHABET
    sizes = [len(s) for s in pool]
    lo = min(min(sizes), EXAMPLE_MAX_STR) if sizes else 0
    hi = max(lo, min(max(sizes) + 2, EXAMPLE_MAX_STR)) if sizes else DEFAULT_MAX_STR
    random_text = st.text(alphabet=st.sampled_from(chars), min_size=lo, max_size=hi)
    # Many string parameters are sentences over a closed vocabulary ("three one five",
    # "o o| .|"): new sentences from the words already seen respect it.
    words = list(dict.fromkeys(w for s in pool for w in s.split()))
    counts = [len(s.split()) for s in pool]
    fresh = random_text
    if words and max(counts) > 1:
        sentences = st.lists(
            st.sampled_from(words),
            min_size=min(counts),
            max_size=max(min(counts), min(max(counts) + 1, EXAMPLE_MAX_LEN)),
        ).map(" ".join)
        fresh = _pick([sentences, random_text])
    vocab: dict[str, list[str]] = {}
    for s in pool:
        for cls, run in _runs(s):
            if not cls.startswith("p") and run not in vocab.setdefault(cls, []):
                vocab[cls].append(run)
    class_chars = {cls: "".join(sorted(set("".join(runs)))) for cls, runs in vocab.items()}
    seen_runs = {cls: st.sampled_from(runs) for cls, runs in vocab.items()}

    def run_like(cls: str, run: str, invent: bool) -> st.SearchStrategy:
        if cls.startswith("p"):
            return st.just(run)
        if not invent:
            return st.one_of(st.just(run), seen_runs[cls])
        new = st.text(alphabet=st.sampled_from(class_chars[cls]), min_size=1, max_size=len(run) + 2)
        return st.one_of(st.just(run), seen_runs[cls], new)

    def mutate(s: str) -> st.SearchStrategy:
        runs = _runs(s)
        if not runs:
            return random_text
        # swap runs (words, numbers, spaces) for runs seen elsewhere; a third of the time
        # also invent new ones of the same class
        seen = st.tuples(*[run_like(cls, run, False) for cls, run in runs]).map("".join)
        invented = st.tuples(*[run_like(cls, run, True) for cls, run in runs]).map("".join)
        return _pick([seen, seen, invented])

    return fresh, mutate
