"""Every built-in catalog entry names a public source a user can look up, and nothing that
ships or is documented points at a file users do not have (the maintainers' field notes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.resources import data_path

DOMAINS = ("math", "sql", "code", "program", "repo")
ROOT = Path(__file__).resolve().parents[2]
# The maintainers' notes file: a citation of it is a citation of nothing for a user.
PRIVATE_NOTES = re.compile(r"ANCHORS", re.I)
# What a public source looks like: a paper (a year), an arXiv id, a CVE or CWE, a
# repository path (owner/name ...), or named documentation.
PUBLIC = re.compile(
    r"\b(19|20)\d\d\b|arXiv:\d|CVE-\d{4}-\d+|CWE-\d+|\b[\w.-]+/[\w.-]+|documentation|\bdocs?\b|\(\d\)"
    r"|\bPyPI\b|\bRFC\b",
    re.I,
)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_reference_is_a_public_source(domain):
    entries = builtin_catalog(domain)
    assert entries
    for e in entries:
        assert e.reference.strip(), e.id
        assert not PRIVATE_NOTES.search(e.reference), (e.id, e.reference)
        assert PUBLIC.search(e.reference), (e.id, e.reference)


@pytest.mark.parametrize("domain", DOMAINS)
def test_catalog_files_do_not_cite_the_private_notes(domain):
    text = data_path("adversarial_cases", f"{domain}.yaml").read_text(encoding="utf-8")
    assert not PRIVATE_NOTES.search(text)


def test_shipped_code_and_user_docs_do_not_cite_the_private_notes():
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "verifier_audit").rglob("*.py")),
    ]
    assert len(files) > 20
    cited = [str(f.relative_to(ROOT)) for f in files if PRIVATE_NOTES.search(f.read_text(encoding="utf-8"))]
    assert cited == []


def test_the_public_source_check_can_fail():
    # The pattern above is not vacuous: these are the kinds of reference it refuses.
    for vague in ("seen somewhere", "ANCHORS.md Math verifiers", "graders"):
        assert not PUBLIC.search(vague) or PRIVATE_NOTES.search(vague), vague
