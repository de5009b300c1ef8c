"""The HTML report: hostile text stays text, the page is deterministic and self-contained,
and a real headless Chromium renders the charts, the escaped candidates beside their
references and the settings (browser tests: see tests/browser.py)."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser

import pytest
from browser import decode_png, dump_dom, needs_browser, screenshot
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verifier_audit.models import (
    CategoryResult,
    Example,
    GateResult,
    Interval,
    MutantSurvival,
    Report,
    SecurityFinding,
    TaskSurvival,
    to_json,
)
from verifier_audit.report._html import BIDI, CSS
from verifier_audit.report.html import to_html

HOSTILE = "</script><script>alert(1)</script>\x00 <img src=x onerror=alert(2)> \ud800 \u202eevil \x1b[31m"


@dataclass
class Item:
    """Stands in for the checklist module's items (duck-typed on these four fields)."""

    key: str
    title: str
    status: str
    evidence: str


class Page(HTMLParser):
    """What a parser sees in the page: every element with its attributes (and the chart it
    sits in), and the two columns of every escaped-candidate example."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict, str | None]] = []
        self.examples: list[dict] = []
        self._svg: str | None = None
        self._capture: str | None = None
        self.feed(text)
        self.close()
        for ex in self.examples:  # HTML drops one newline right after <pre>
            for k in ("text", "reference"):
                ex[k] = ex[k].removeprefix("\n")

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "svg":
            self._svg = a.get("data-verifier")
        self.elements.append((tag, a, self._svg))
        if "va-example" in classes:
            self.examples.append({"category": a.get("data-category"), "text": "", "reference": ""})
        if tag == "pre" and self.examples and {"va-text", "va-ref"} & set(classes):
            self._capture = "text" if "va-text" in classes else "reference"

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg = None
        if tag == "pre":
            self._capture = None

    def handle_data(self, data):
        if self._capture:
            self.examples[-1][self._capture] += data

    def find(self, cls: str, tag: str | None = None) -> list[dict]:
        return [a for t, a, _ in self.elements if cls in a.get("class", "").split() and tag in (None, t)]


def _cat(name: str, label: str = "incorrect", n: int = 10, wrong: int = 0, examples: tuple = ()) -> CategoryResult:
    """``wrong`` misjudged out of ``n``: accepted when incorrect, rejected when correct."""
    rate = wrong / n if n else 0.0
    return CategoryResult(
        name=name,
        origin="near_miss" if label == "incorrect" else "equivalent",
        severity="high",
        label=label,
        n=n,
        accepted=wrong if label == "incorrect" else n - wrong,
        rate=rate,
        ci=Interval(low=max(0.0, rate - 0.2), high=min(1.0, rate + 0.2)),
        examples=list(examples),
    )


def _report(text: str = "The answer is \\boxed{21070}.", verifier: str = "examples/v.py:verify", **kw) -> Report:
    ex = Example(
        candidate_id="math-0001/times_ten/0",
        task_id="math-0001",
        text=text,
        reference="2107",
        note="times ten: 2107 -> 21070",
        score=1.0,
    )
    cats = [
        _cat("math.near_miss.times_ten", wrong=9, examples=(ex,)),
        _cat("math.hedge.or", wrong=6),
        _cat("math.near_miss.sign_flip", wrong=1),
        _cat("math.hostile.empty", n=0),
        _cat("math.equivalent.fraction", label="correct", wrong=3),
    ]
    fields = dict(  # noqa: C408 - reads like the Report it builds
        tool_version="0.1.0",
        verifier=verifier,
        style="pair",
        suite="math",
        seed=0,
        threshold=0.5,
        n_candidates=50,
        coverage_debt=0.2,
        coverage_debt_ci=Interval(low=0.1, high=0.3),
        false_acceptance_rate=0.4,
        false_acceptance_ci=Interval(low=0.3, high=0.5),
        false_rejection_rate=0.3,
        false_rejection_ci=Interval(low=0.1, high=0.6),
        error_rate=0.02,
        errors=1,
        error_kinds={"timeout": 1},
        categories=cats,
        security_findings=[
            SecurityFinding(
                kind="executes_model_output", candidate_id="c9", task_id="math-0002", detail="canary fired: " + HOSTILE
            )
        ],
        mutant_survival=MutantSurvival(
            generated=20,
            equivalent=2,
            judged=18,
            survived=9,
            rate_before_filtering=0.55,
            rate_after_filtering=0.5,
            tasks=[TaskSurvival(task_id="math-0001", equivalent=0, judged=9, survivors=["times_ten: 2107 -> 21070"])],
        ),
        gate=GateResult(passed=False, reasons=["category math.near_miss.times_ten: false acceptance 0.90 > 0.5"]),
        settings={
            "max_category": 0.5,
            "max_false_rejection": 0.1,
            "waived_categories": ["math.hedge.or"],
            "seed": 0,
            "suite": "math",
        },
    )
    fields.update(kw)
    return Report(**fields)


def test_hostile_text_stays_text():
    name = 'v.py:x" onmouseover="alert(3)'
    out = to_html([_report(HOSTILE, verifier=name)])
    assert "<script" not in out.lower() and "<img" not in out and 'onmouseover="' not in out
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "\x00" not in out and "\x1b" not in out and "\u202e" not in out
    out.encode("utf-8")  # a lone surrogate would raise here
    page = Page(out)
    assert page.examples[0]["text"].startswith("</script><script>alert(1)</script>\ufffd")
    assert {a["data-verifier"] for a in page.find("va-chart", "svg")} == {name}
    assert "default-src 'none'" in out  # nothing may load or run, even if escaping ever failed


def test_huge_text_is_clipped_keeping_head_and_tail():
    text = "start " + "x" * 2_000_000 + " \\boxed{21070}"
    out = to_html([_report(text)])
    assert len(out) < 100_000
    shown = Page(out).examples[0]["text"]
    assert shown.startswith("start ") and shown.endswith("\\boxed{21070}") and "characters clipped" in shown


def test_same_reports_give_the_same_bytes():
    r = _report(HOSTILE)
    again = Report.model_validate(json.loads(to_json(r)))  # a lone surrogate survives the trip
    items = {r.verifier: [Item("k", "t", "open", "e")]}
    assert (
        to_html([r, _report(verifier="b")], items).encode() == to_html([again, _report(verifier="b")], items).encode()
    )


def test_every_category_has_a_bar_with_its_interval_and_allowance():
    r = _report()
    page = Page(to_html([r]))
    bars = {a["data-category"]: a for a in page.find("va-bar", "rect")}
    assert set(bars) == {c.name for c in r.categories}
    for c in r.categories:
        assert float(bars[c.name]["data-rate"]) == pytest.approx(c.rate)
        assert (float(bars[c.name]["data-low"]), float(bars[c.name]["data-high"])) == pytest.approx(
            (c.ci.low, c.ci.high)
        )
    assert {a["data-category"] for a in page.find("va-ci")} == set(bars)
    charts = {a["data-kind"]: a for a in page.find("va-chart", "svg")}
    assert set(charts) == {"fa", "fr"}
    assert sorted(float(a["data-limit"]) for a in page.find("va-allowance")) == [0.1, 0.5]
    over = {n for n, a in bars.items() if "va-over" in a["class"].split()}
    assert over == {"math.near_miss.times_ten", "math.equivalent.fraction"}  # 0.3 FR > 0.1


def test_waived_category_is_marked_not_over():
    out = to_html([_report()])
    bar = next(a for a in Page(out).find("va-bar") if a["data-category"] == "math.hedge.or")
    assert bar["class"].split() == ["va-bar", "va-waived"]  # 0.6 > 0.5, but waived
    assert "math.hedge.or (waived)" in out


def test_a_waiver_with_a_rate_is_the_category_allowance():
    r = _report()
    r.settings["category_limits"] = {"math.near_miss.times_ten": 0.95, "math.near_miss.sign_flip": 0.05}
    page = Page(to_html([r]))
    over = {a["data-category"] for a in page.find("va-over", "rect")}
    assert over == {"math.near_miss.sign_flip", "math.equivalent.fraction"}  # 0.9 <= 0.95; 0.1 > 0.05
    ticks = {a["data-category"]: float(a["data-limit"]) for a in page.find("va-allowance-own")}
    assert ticks == {"math.near_miss.times_ten": 0.95, "math.near_miss.sign_flip": 0.05}


def test_sections_survival_findings_errors_settings():
    page = Page(to_html([_report()]))
    assert len(page.find("va-finding", "li")) == 1 and page.find("va-errors", "table")
    assert page.find("va-survival", "table") and page.find("va-survivors", "ul")
    assert page.find("va-settings", "table")
    assert page.examples[0]["reference"] == "2107"
    bare = Page(to_html([_report(mutant_survival=None, security_findings=[])]))
    assert not bare.find("va-survival") and not bare.find("va-finding")


def test_checklist_only_when_given():
    r = _report()
    assert not Page(to_html([r])).find("va-check")
    items = [
        Item("eval", "No eval of model output", "checked", "grep: no eval("),
        Item("net", "No network", "open", "<b>requests</b> imported"),
        Item("x", "?", "<i>bad", ""),
    ]
    out = to_html([r], {r.verifier: items, "other": []})
    badges = Page(out).find("va-check", "span")
    assert [b["class"] for b in badges] == [
        "va-check va-check-checked",
        "va-check va-check-open",
        "va-check va-check-unknown",
    ]
    assert "&lt;b&gt;requests&lt;/b&gt;" in out and "<i>" not in out


def test_no_reports_is_still_a_page():
    assert "No report." in to_html([])


PIECES = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(codec=None, categories=["Cs", "Cc", "Cf", "Zl", "Co"])),
    st.sampled_from(
        [
            "<script>",
            "</script>",
            "<SCRIPT",
            "</pre>",
            "</div>",
            "<!--",
            "-->",
            "]]>",
            "<svg onload=x>",
            "&lt;",
            "&",
            '"',
            "'",
            "<",
            ">",
            "\x00",
            "\ud800",
            "\udfff",
            "\r\n",
            "\u202e",
            "\ufeff",
        ]
    ),
)


@given(st.lists(PIECES, max_size=12).map("".join))
@example("\n")
@example("\n\nx")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_candidate_text_stays_inside_its_pre(text):
    out = to_html([_report(text)])
    assert "<script" not in out.lower()
    out.encode("utf-8")
    shown = Page(out).examples[0]["text"]
    expected = "".join(
        "\ufffd" if (unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n") or ch in BIDI else ch for ch in text
    )
    assert shown == expected


# --- in a real browser ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_reports():
    """Two real audits of the same small math sample: a verifier with many holes, and one
    with a single hole (it pays for ten times the answer), with a category waived."""
    from verifier_audit.api import audit

    common = {"suite": "math", "limit": 6, "workers": 1, "cache": False}
    weak = audit("verifier_audit.domains.math.verifiers:last_number", **common)
    one_hole = audit("examples/one_hole_verifier.py:times_ten_hole", waive=("math.hedge.or",), **common)
    return [weak, one_hole]


@pytest.fixture(scope="module")
def page_file(real_reports, tmp_path_factory):
    items = [
        Item("eval", "Model output is never evaluated", "checked", "no eval( in the module"),
        Item("net", "No network access", "unknown", ""),
    ]
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(to_html(real_reports, {real_reports[1].verifier: items}), encoding="utf-8")
    return path


@needs_browser
def test_browser_renders_charts_examples_and_settings(real_reports, page_file):
    dom = dump_dom(page_file)
    page = Page(dom)
    assert "<script" not in dom.lower()
    for r in real_reports:
        charts = [a for a in page.find("va-chart", "svg") if a["data-verifier"] == r.verifier]
        assert sorted(a["data-kind"] for a in charts) == ["fa", "fr"]
        bars = {
            a["data-category"]
            for t, a, svg in page.elements
            if svg == r.verifier and "va-bar" in a.get("class", "").split()
        }
        assert bars == {c.name for c in r.categories}
    # The one-hole verifier's escapes: each times-ten candidate beside its reference.
    hole = next(c for c in real_reports[1].categories if c.name == "math.near_miss.times_ten")
    assert hole.rate == 1.0 and hole.examples
    shown = [e for e in page.examples if e["category"] == hole.name]
    assert len(shown) >= len(hole.examples)
    for ex in hole.examples:
        assert any(e["text"] == ex.text and e["reference"] == ex.reference for e in shown)
        assert str(10 * int(ex.reference)) in ex.text
    assert "math.hedge.or" in {a["data-category"] for a in page.find("va-waived", "rect")}
    assert len(page.find("va-settings", "table")) == 2 and "max_category" in dom
    assert [a["class"] for a in page.find("va-check", "span")] == [
        "va-check va-check-checked",
        "va-check va-check-unknown",
    ]


@needs_browser
def test_browser_keeps_hostile_text_as_text(tmp_path):
    path = tmp_path / "hostile.html"
    path.write_text(to_html([_report(HOSTILE, verifier="<script>alert(4)</script>")]), encoding="utf-8")
    page = Page(dump_dom(path))
    assert not [t for t, _, _ in page.elements if t in ("script", "img")]
    assert page.examples[0]["text"].startswith("</script><script>alert(1)</script>")
    assert [a["data-verifier"] for a in page.find("va-verifier")] == ["<script>alert(4)</script>"]


@needs_browser
def test_browser_screenshot_is_a_drawn_page(page_file, tmp_path):
    width, height, bpp, rows = decode_png(screenshot(page_file, tmp_path / "report.png", (1200, 2000)).read_bytes())
    assert (width, height) == (1200, 2000)
    pixels = [row[i : i + 3] for row in rows[::4] for i in range(0, len(row), 4 * bpp)]  # a 1-in-16 sample
    colours = set(pixels)
    white = sum(p == b"\xff\xff\xff" for p in pixels) / len(pixels)
    assert len(colours) > 20 and 0.3 < white < 0.995, (len(colours), white)
    # The weak verifier's over-allowance bars (CSS #c0392b) are drawn near the top.
    red = bytes.fromhex("c0392b") * 40
    rgb = rows if bpp == 3 else [b"".join(row[i : i + 3] for i in range(0, len(row), 4)) for row in rows]
    assert any(red in row for row in rgb), "no red bar drawn"


def test_page_loads_nothing_external():
    out = to_html([_report(HOSTILE)])
    page = Page(out)
    assert not [t for t, _, _ in page.elements if t in ("script", "link", "img", "iframe", "object", "embed", "image")]
    assert not [a for _, a, _ in page.elements if {"src", "href", "xlink:href", "style"} & set(a)]
    assert out.count("<style>") == 1 and not re.search(r"url\(|@import|@font-face", CSS)
