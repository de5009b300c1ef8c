"""``report.text.excerpt``: examples clipped to one line keep the answer whole and hide
neither end of the completion (issue 31: a hack at the start of a query was clipped away)."""

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.report.text import excerpt

words = st.text(alphabet="abcdefghij ;=(){}\\0123456789", min_size=0, max_size=400)


@given(words, st.integers(min_value=9, max_value=120))
def test_never_wider_than_asked(text, width):
    assert len(excerpt(text, width)) <= width


@given(
    words, st.text(alphabet="0123456789{}", min_size=1, max_size=12), words, st.integers(min_value=30, max_value=120)
)
def test_the_answer_is_kept_whole(before, answer, after, width):
    text = f"{before} {answer} {after}"
    out = excerpt(text, width, focus=answer)
    assert len(out) <= width
    assert " ".join(answer.split()) in out


def test_a_hack_at_the_start_is_not_clipped_away():
    query = "SET config.allow = 1; " + "SELECT name FROM users WHERE id > 10 AND age < 99 " * 4 + "ORDER BY name"
    out = excerpt(query, 70)
    assert out.startswith("SET config")
    assert out.endswith("ORDER BY name")
    assert "…" in out


def test_short_text_is_unchanged_and_hostile_characters_escaped():
    assert excerpt("x = 1", 70) == "x = 1"
    assert "\x1b" not in excerpt("\x1b[2J answer 4", 70)
