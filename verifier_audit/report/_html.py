"""The one way text enters the package's HTML pages (the audit report, report/html.py; the
training monitor, monitor/html.py and plots.py; compare, samples/compare/render.py), and
what those pages share: the base stylesheet, the head with its Content-Security-Policy, the
numbers written into attributes and the tables.

Candidate text, verifier names, training-log keys and model answers are hostile by
construction (NULs, lone surrogates, bidirectional overrides, ``</script>``, megabytes of
output): ``esc`` clips, replaces what cannot be shown and escapes, quotes included, so its
result is safe in text and in attributes alike. Each writer once had to remember to call
the renderer's private ``_esc``; one small module below every writer (standard library
only) is the single place to get it right, and jinja2's autoescape would add a dependency
and a template language for three pages of f-strings.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable
from typing import Any

CLIP = 4000  # characters of one example shown; the answer is usually at the end, so head + tail
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
#: nothing may load or run: each page is a file, and the text in it is hostile
CSP = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 12px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;max-width:100%}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
.va-reasons{margin:2px 0;padding-left:16px;font-size:12px}
code,pre,.va-mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;word-break:break-all;overflow-wrap:anywhere;margin:0;max-height:22em;overflow:auto;background:#f7f7f7;padding:6px}
li,p,h2,h3,h4,summary{overflow-wrap:anywhere}svg{max-width:100%;height:auto}
.va-path{overflow-wrap:anywhere;word-break:normal}
.va-pass{color:#1e7b34;font-weight:bold}.va-fail{color:#b02a1a;font-weight:bold}.va-muted{color:#777}
.va-card{border:1px solid #ccc;border-left:6px solid #888;border-radius:4px;margin:14px 0;padding:4px 14px 10px}
.va-card-failed{border-left-color:#b02a1a}.va-card-passed{border-left-color:#1e7b34}
.va-card h2{margin:6px 0;border:0}.va-path code{font-size:14px}.va-card h3{margin:10px 0 4px;font-size:14px}
.va-verdict{font-size:15px;margin:4px 0}.va-verdict summary{cursor:pointer}
.va-hole{margin:6px 0}.va-hole pre{max-height:none}.va-mini{vertical-align:middle;margin-right:6px}
.va-mini-bg{fill:#e4e4e4}.va-mini-bar{fill:#3b7dd8}.va-mini-over{fill:#c0392b}.va-mini-waived{fill:#b5b5b5}
details.va-more{border:1px solid #e4e4e4;border-radius:4px;margin:6px 0;padding:2px 10px}
details.va-more>summary{cursor:pointer;font-weight:bold;padding:4px 0}
.va-example{border:1px solid #ddd;margin:8px 0;padding:6px}
.va-pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}.va-pair h4{margin:2px 0;font-size:12px;color:#555}
.va-bar{fill:#3b7dd8}.va-bar.va-over{fill:#c0392b}.va-bar.va-waived{fill:#b5b5b5}
.va-ci{stroke:#222;stroke-width:1.2}.va-allowance-own{stroke:#e67e22;stroke-width:3}.va-allowance{stroke:#e67e22;stroke-width:2;stroke-dasharray:5 3}
.va-grid{stroke:#e4e4e4}.va-label{font:12px ui-monospace,Menlo,Consolas,monospace;fill:#222}
.va-value{font:11px system-ui,sans-serif;fill:#444}.va-waived-label{fill:#888;font-style:italic}
.va-check{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px;color:#fff;background:#888}
.va-check-checked{background:#1e7b34}.va-check-open{background:#b02a1a}.va-check-unknown{background:#888}
"""


def clean(text: str) -> str:
    """Printable text that encodes to UTF-8: control characters (tab and newline stay),
    lone surrogates and bidirectional overrides (which can make shown text lie about its
    order) become U+FFFD."""
    return "".join(
        "\ufffd" if (unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n") or ch in BIDI else ch for ch in text
    )


def clip(text: str, limit: int = CLIP) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - 2 * half} characters clipped] …\n{text[-half:]}"


def esc(value: Any, limit: int = CLIP) -> str:
    """The only way text enters the page: clipped, cleaned, escaped (quotes too, so the
    result is safe inside attributes)."""
    return html.escape(clean(clip(str(value), limit)), quote=True)


def percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def ci(low: float, high: float, pct: bool = True) -> str:
    return f"[{percent(low)}, {percent(high)}]" if pct else f"[{low:.3f}, {high:.3f}]"


def num(x: float) -> str:
    """Numbers in attributes: short, exact enough, and stable across runs."""
    return f"{x:.6g}"


def table(head: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> str:
    """A table from already-escaped cells."""
    out = [f'<table class="{cls}"><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    out += [
        "<tr>" + "".join(cell if cell.startswith("<td") else f"<td>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
    ]
    return "\n".join(out) + "</table>"


def page_head(title: str, extra_css: str = "") -> list[str]:
    """The lines a page starts with, up to its ``<body>``: UTF-8, the policy, the escaped
    title and the base stylesheet with the page's own rules after it."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        CSP,
        f"<title>{esc(title, 300)}</title><style>{CSS}{extra_css}</style></head><body>",
    ]
