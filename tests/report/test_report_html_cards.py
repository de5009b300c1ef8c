"""The HTML and Markdown reports lead with the verdict (issue 31, item 6): the HTML opens on
one card per verifier (verdict, debt, the three worst holes with an example, security),
says each gate reason once, puts false acceptance before false rejection, stays short and
never scrolls sideways at 1280 pixels, and breaks a long path at its slashes, as a real
headless Chromium lays it out; the Markdown keeps the answer in every example and a count
in every header.

The browser tests read two real audits through the CLI: the default math audit (the demo
of the reference verifiers, no gate) and one verifier of ours, at a deep path, whose gate
fails. The page forbids scripts (its Content-Security-Policy), so the layout is measured on
a copy with that meta tag removed and a small script added that writes the measurements
into the title, which ``--dump-dom`` then carries out.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import dump_dom, needs_browser
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.models import CategoryResult, Example, GateResult, Interval, Report, SecurityFinding
from verifier_audit.report.exploitability import worst_holes
from verifier_audit.report.html import to_html
from verifier_audit.report.markdown import to_markdown
from verifier_audit.report.text import printable

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = (1280, 900)
# The default math audit's page is 2,956 px tall at 1280 px, at --limit 3 as at 5 (the cards,
# then one collapsed line per section); before issue 31 it was 35,566 px at --limit 3 and
# 36,538 px at --limit 5 (every chart and every example open, the gate's reasons twice).
MAX_DEMO_HEIGHT = 5000
LINE = 20  # px: a header that takes more than three lines of this is wrapping letter by letter

VERIFIER = '''
import re


def compute_score(completion, reference):
    """The last number of the completion equals the reference: a weak verifier."""
    numbers = re.findall(r"-?\\d+(?:\\.\\d+)?", completion)
    return 1.0 if numbers and numbers[-1] == reference.strip() else 0.0
'''


def _run(out: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VERIFIER_AUDIT_CACHE": str(out.parent / "va-cache")}
    return subprocess.run(
        [sys.executable, "-m", "verifier_audit", "run", "--limit", "3", "--no-progress", *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def audits(tmp_path_factory):
    """{name: (html, markdown, reports)} of the demo and of a failing gated verifier."""
    out = tmp_path_factory.mktemp("cards")
    deep = out / "team-reward-models" / "verifiers" / "math_reward_functions_for_grpo_training"
    deep.mkdir(parents=True)
    (deep / "compute_score_with_last_number_extraction.py").write_text(VERIFIER)
    spec = f"{deep}/compute_score_with_last_number_extraction.py:compute_score"
    runs = {"demo": ((), 0), "gated": (("--verifier", spec), 1)}
    pages = {}
    for name, (extra, code) in runs.items():
        files = [out / f"{name}.{ext}" for ext in ("html", "md", "json")]
        r = _run(out, *extra, "--html", str(files[0]), "--markdown", str(files[1]), "--json", str(files[2]))
        assert r.returncode == code, r.stderr[-3000:]
        data = json.loads(files[2].read_text())
        reports = [Report.model_validate(x) for x in data.get("reports", [data])]
        pages[name] = (files[0], files[1].read_text(), reports)
    return pages


MEASURE = """<script>addEventListener('load', function () {
  var d = document.documentElement, paths = PATHS, tall = {};
  document.querySelectorAll('body *').forEach(function (e) {
    var t = e.textContent.trim();
    if (paths.indexOf(t) >= 0) tall[t] = Math.max(tall[t] || 0, e.getBoundingClientRect().height);
  });
  document.title = JSON.stringify({width: d.scrollWidth, height: d.scrollHeight, view: innerWidth, paths: tall});
});</script>"""


def measure(page: Path, paths: list[str]) -> dict:
    """The page laid out at 1280 px: its scroll width and height, and the height of the
    tallest element whose whole text is each of ``paths``."""
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text(encoding="utf-8"))
    copy = page.with_name(page.stem + ".measured.html")
    copy.write_text(text.replace("</body>", MEASURE.replace("PATHS", json.dumps(paths)) + "</body>"), encoding="utf-8")
    dom = dump_dom(copy, size=VIEWPORT)
    title = re.search(r"<title>(.*?)</title>", dom, re.DOTALL)
    assert title, dom[:2000]
    return json.loads(html.unescape(title.group(1)))


class Outline(HTMLParser):
    """The page in document order: the cards (verifier, verdict, text, holes), every
    element's data-category, the <details> summaries and the text of every <li>."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.cards: list[dict] = []
        self.order: list[tuple[str, str]] = []  # ("card-end", "") | ("category", name) | ("summary", text)
        self.items: list[str] = []
        self.text: list[str] = []
        self._stack: list[str] = []
        self._card_depth: int | None = None
        self._capture: str | None = None
        self._buf = ""
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag not in ("wbr", "br", "meta", "rect", "path", "line"):
            self._stack.append(tag)
        if "va-card" in classes:
            self.cards.append(
                {
                    "verifier": a.get("data-verifier"),
                    "verdict": a.get("data-verdict"),
                    "text": "",
                    "holes": [],
                    "excerpts": [],
                }
            )
            self._card_depth = len(self._stack)
        if "data-category" in a:
            self.order.append(("category", a["data-category"]))
            if self._card_depth and "va-hole" in classes:
                self.cards[-1]["holes"].append(a["data-category"])
        if tag in ("summary", "li") or (tag == "pre" and self._card_depth):
            self._capture, self._buf = tag, ""

    def handle_endtag(self, tag):
        if self._capture == tag:
            if tag == "summary":
                self.order.append(("summary", " ".join(self._buf.split())))
            elif tag == "li":
                self.items.append(self._buf)
            else:
                self.cards[-1]["excerpts"].append(self._buf.removeprefix("\n"))
            self._capture = None
        if self._stack and self._stack[-1] == tag:
            self._stack.pop()
            if self._card_depth is not None and len(self._stack) < self._card_depth:
                self._card_depth = None
                self.order.append(("card-end", ""))

    def handle_data(self, data):
        self.text.append(data)
        if self._capture:
            self._buf += data
        if self._card_depth:
            self.cards[-1]["text"] += data


@needs_browser
def test_the_default_math_audit_is_short_and_never_scrolls_sideways(audits):
    page, _, reports = audits["demo"]
    m = measure(page, [r.verifier for r in reports])
    assert m["view"] == VIEWPORT[0]
    assert m["width"] <= VIEWPORT[0], m  # no horizontal scroll bar
    assert m["height"] <= MAX_DEMO_HEIGHT, m


@needs_browser
def test_a_long_path_wraps_at_its_slashes_not_letter_by_letter(audits):
    page, _, reports = audits["gated"]
    path = reports[0].verifier
    assert len(path) > 120 and path.count("/") > 5
    m = measure(page, [path])
    assert m["width"] <= VIEWPORT[0], m
    # Every element that shows the path whole is at most three lines tall (at 1280 px it
    # needs one or two); in a squeezed table cell it took 14.
    assert 0 < m["paths"][path] <= 3 * LINE + 4, m


def test_each_card_shows_its_verdict(audits):
    demo, gated = Outline(audits["demo"][0].read_text()), Outline(audits["gated"][0].read_text())
    assert [c["verifier"] for c in demo.cards] == [r.verifier for r in audits["demo"][2]]
    assert len(demo.cards) == 4
    for card in demo.cards:
        assert card["verdict"] == "no-gate" and "no gate: the demo" in card["text"] and "--verifier" in card["text"]
    (card,) = gated.cards
    assert card["verdict"] == "failed" and "gate failed" in card["text"]
    for c in demo.cards + gated.cards:
        assert "coverage debt" in c["text"] and "Security" in c["text"]


def test_cards_lead_with_the_three_worst_holes_each_with_its_example(audits):
    for name in ("demo", "gated"):
        outline, reports = Outline(audits[name][0].read_text()), audits[name][2]
        for card, report in zip(outline.cards, reports, strict=True):
            worst = worst_holes(report)[:3]
            assert card["holes"] == [c.name for c in worst]
            assert len(card["excerpts"]) == sum(1 for c in worst if c.examples)
            for shown, c in zip(card["excerpts"], [c for c in worst if c.examples]):
                ex = c.examples[0]
                kept = ex.answer or " ".join(printable(ex.text).split())[-12:]  # no answer: the end is kept
                assert len(shown) <= 140 and kept in shown, (shown, kept)
    assert Outline(audits["gated"][0].read_text()).cards[0]["holes"]  # the weak verifier has holes to show


def test_each_gate_reason_is_said_once(audits):
    page, _, (report,) = audits["gated"]
    outline = Outline(page.read_text())
    assert len(report.gate.reasons) > 5
    text = "\n".join(outline.text)
    for reason in report.gate.reasons:
        assert outline.items.count(reason) == 1, reason
        assert text.count(reason) == 1, reason


def test_false_acceptance_comes_before_false_rejection_after_the_cards(audits):
    for name in ("demo", "gated"):
        page, _, reports = audits[name]
        labels = {c.name: c.label for r in reports for c in r.categories}
        order = Outline(page.read_text()).order
        after = order[max(i for i, (kind, _) in enumerate(order) if kind == "card-end") + 1 :]
        first = next(value for kind, value in after if kind == "category")
        assert labels[first] == "incorrect", first
        summaries = [value for kind, value in after if kind == "summary"]
        assert summaries[0].startswith("False acceptance") and summaries[1].startswith("False rejection")
        if len(reports) == 1:  # every category of a failure comes before any equivalent one
            seen = [labels[value] for kind, value in after if kind == "category"]
            assert "correct" in seen and "incorrect" not in seen[seen.index("correct") :], name


def test_markdown_has_a_count_in_every_header(audits):
    for name in ("demo", "gated"):
        md = audits[name][1]
        headers = [line for line in md.splitlines() if line.startswith("#")]
        assert headers and all(re.search(r"\(\d", h) for h in headers), headers


def test_security_findings_are_counted_on_the_card_and_listed_once():
    findings = [
        SecurityFinding(
            kind="executes_model_output" if i % 3 else "network",
            candidate_id=f"c{i}",
            task_id="t",
            detail=f"canary fired in call {i}",
        )
        for i in range(7)
    ]
    out = to_html([_report("x", "", findings=findings)])
    (card,) = Outline(out).cards
    assert "Security findings (7: executes_model_output 4, network 3)" in card["text"]
    assert "and 4 more" in card["text"]
    for f in findings:  # each finding once on the page: the card's three, the rest collapsed
        assert out.count(f.detail) == 1


# --- the answer is kept in every example, wherever it sits ---------------------------------

FILLER = "Let us reason about the quantities step by step and check every intermediate value. " * 4


def _report(text: str, answer: str, findings: list | None = None) -> Report:
    ex = Example(candidate_id="c1", task_id="t1", text=text, reference="2107", answer=answer, score=1.0)
    cat = CategoryResult(
        name="math.near_miss.times_ten",
        origin="near_miss",
        severity="high",
        label="incorrect",
        n=4,
        accepted=4,
        rate=1.0,
        ci=Interval(low=0.4, high=1.0),
        examples=[ex],
    )
    return Report(
        tool_version="0.1.0",
        verifier="v.py:f",
        style="pair",
        suite="math",
        seed=0,
        threshold=0.5,
        n_candidates=4,
        coverage_debt=0.75,
        coverage_debt_ci=Interval(low=0.5, high=1.0),
        false_acceptance_rate=1.0,
        false_acceptance_ci=Interval(low=0.4, high=1.0),
        false_rejection_rate=0.0,
        false_rejection_ci=Interval(low=0.0, high=0.6),
        error_rate=0.0,
        errors=0,
        categories=[cat],
        security_findings=findings or [],
        gate=GateResult(passed=False, reasons=["category math.near_miss.times_ten: false acceptance 1.00"]),
        settings={"max_category": 0.5, "max_false_rejection": 0.1},
    )


@pytest.mark.parametrize(
    "text",
    [
        "\\boxed{21070} is what I get first. " + FILLER,  # the answer at the start
        FILLER + "So the final answer is \\boxed{21070}.",  # at the end
        FILLER + "I claim \\boxed{21070} here, then " + FILLER,  # in the middle
    ],
)
def test_markdown_and_card_keep_the_answer_wherever_it_sits(text):
    md = to_markdown([_report(text, "21070")])
    row = next(line for line in md.splitlines() if line.startswith("| `math.near_miss.times_ten`"))
    assert "21070" in row and "…" in row  # clipped, but around the answer
    (card,) = Outline(to_html([_report(text, "21070")])).cards
    assert "21070" in card["excerpts"][0] and "…" in card["excerpts"][0]


ANSWER = st.text(alphabet="0123456789abcxyz{}\\$.-", min_size=1, max_size=30)
WORDS = st.lists(
    st.sampled_from(
        [
            "therefore",
            "the answer",
            "is",
            "x",
            "so",
            "17",
            "we",
            "simplify",
            "$",
            "\n",
            "\\boxed{3}",
            "substituting back",
        ]
    ),
    max_size=60,
).map(" ".join)


@given(WORDS, ANSWER, WORDS)
def test_markdown_keeps_any_answer_anywhere(before, answer, after):
    md = to_markdown([_report(f"{before} {answer} {after}", answer)])
    row = next(line for line in md.splitlines() if line.startswith("| `math.near_miss.times_ten`"))
    assert answer in row
