"""The one escaping path of the HTML pages (issue 32): ``report/_html.py``. The audit report,
the training monitor and compare each once reached into the audit report's private
``_esc``; now all three write through ``_html``, and nothing else in the package escapes
HTML by itself -- checked from the source, so a fourth page that brings its own escaping
fails here."""

from __future__ import annotations

import ast
import html
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.report import _html

PACKAGE = Path(__file__).resolve().parents[2] / "verifier_audit"
HELPER = PACKAGE / "report" / "_html.py"
#: the three pages (monitor/html.py reaches the helper through plots._h, which imports it)
PAGES = [PACKAGE / "report" / "html.py", PACKAGE / "monitor" / "html.py", PACKAGE / "samples" / "compare" / "render.py"]
IMPORTERS = [
    PACKAGE / "report" / "html.py",
    PACKAGE / "monitor" / "plots.py",
    PACKAGE / "samples" / "compare" / "render.py",
]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {f"{'.' * node.level}{node.module or ''}:{a.name}" for a in node.names}
            names.add(f"{'.' * node.level}{node.module or ''}")
    return names


def test_only_the_helper_imports_the_html_module():
    escaping = sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p != HELPER and {"html", "markupsafe", "jinja2"} & _imports(p)
    )
    assert escaping == [], f"escape HTML through report/_html.py, not on your own: {escaping}"


def test_every_page_writer_goes_through_the_helper():
    for path in IMPORTERS:
        imports = _imports(path)
        assert any(name.endswith(("_html", ":_html")) for name in imports), path


@given(st.text())
def test_escaped_text_is_inert_and_reads_back_as_the_cleaned_text(text):
    out = _html.esc(text, limit=10_000)
    assert not set("<>\"'") & set(out)
    assert html.unescape(out) == _html.clean(_html.clip(text, 10_000))
    assert not _html.BIDI & set(out)
    assert all(ch in "\t\n" or ord(ch) >= 32 and not 0xD800 <= ord(ch) <= 0xDFFF for ch in out)
    out.encode("utf-8")  # a lone surrogate would not encode


@given(st.text(min_size=1), st.integers(min_value=2, max_value=50))
def test_long_text_keeps_its_head_and_tail(text, limit):
    clipped = _html.clip(text * 60, limit)
    if len(text) * 60 > limit:
        assert clipped.startswith((text * 60)[: limit // 2]) and clipped.endswith((text * 60)[-(limit // 2) :])
        assert "characters clipped" in clipped


def test_the_three_pages_share_one_head_with_its_policy():
    head = _html.page_head('a <title> & "more"', ".x{}")
    assert head[2] == _html.CSP and "default-src 'none'" in _html.CSP
    assert head[3] == (
        f"<title>a &lt;title&gt; &amp; &quot;more&quot;</title><style>{_html.CSS}.x{{}}</style></head><body>"
    )
    for path in PAGES:
        source = path.read_text(encoding="utf-8")
        assert "page_head(" in source and 'Content-Security-Policy\\"' not in source, path
