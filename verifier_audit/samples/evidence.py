"""The authority evidence the security checklist reads (``checklist --authority F``): the
tool-call figures of ``samples/authority.py`` as a ``compare --json`` or a ``score --json``
file carries them (docs/samples-authority.md).

It sits above both the figures (``authority``) and the compare report (``compare/models``,
which holds them), so neither has to import the other back.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from .authority import AuthorityEvidence, AuthorityFigures
from .compare.models import CompareReport


def evidence_from_compare(report, source: str = "compare") -> AuthorityEvidence | None:
    a = getattr(report, "authority", None)
    if a is None:
        return None
    return AuthorityEvidence(source=source, models=[a.base, a.rl], change=a.change)


def evidence_from_section(section, source: str = "score") -> AuthorityEvidence | None:
    models = getattr(section, "authority_by_model", None) or []
    if not models:
        return None
    return AuthorityEvidence(source=source, models=list(models))


def load_evidence(path) -> AuthorityEvidence | None:
    """The authority figures of a ``compare --json`` or ``score --json`` file; None when it
    holds none (samples of no tool task). Raises InputError when it is neither."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError:
        raise InputError(f"{path}: not JSON") from None
    if isinstance(data, dict) and data.get("format") == "verifier-audit-compare":
        try:
            return evidence_from_compare(CompareReport.model_validate(data), str(path))
        except ValueError as exc:
            raise InputError(f"{path}: not a readable compare report ({str(exc).splitlines()[0]})") from None
    if isinstance(data, dict) and isinstance(data.get("samples"), list):
        models: list[AuthorityFigures] = []
        for s in data["samples"]:
            rows = s.get("authority_by_model") if isinstance(s, dict) else None
            if rows:
                models = [AuthorityFigures.model_validate(r) for r in rows]
                break  # every section holds the same figures (they do not depend on the verifier)
        return AuthorityEvidence(source=str(path), models=models) if models else None
    raise InputError(f"{path}: neither `verifier-audit compare --json` nor `verifier-audit score --json` output")


def evidence_in_report_file(path) -> AuthorityEvidence | None:
    """The figures a ``score --json`` report file carries beside its reports, if any."""
    try:
        return load_evidence(path)
    except InputError:
        return None
