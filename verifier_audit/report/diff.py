"""``verifier-audit diff old.json new.json``: what got better and what got worse between two
audits of a verifier (a PR review of a reward-function change).

A diff is only worth reading when it compares like with like, so it says first what changed
in what was measured (suite, split, limit, seed, candidates, threshold, tool version), and
calls a category better or worse only when both audits measured it: a category on one side
only, or one whose every call errored, is "not compared" -- a new audit of half the suite
must not read as half the holes fixed (issue 31). Verifiers are paired by their spec
relative to their project root, so the same verifier audited from two checkouts is
compared; ``--match OLD=NEW`` pairs any two."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..audit_files import output_edited
from ..errors import InputError
from ..metrics import coverage_debt
from ..models import CategoryResult, Report, ReportSet

# A category's rate must move by more than this to count as a change (noise of re-runs is
# zero for the same seed; this only hides float formatting).
EPSILON = 1e-9
# Rows a list shows before "and N more" (``--all`` shows every row).
MAX_ROWS = 20


def load_reports(path: Path) -> dict[str, Report]:
    """verifier -> Report from a report or report-set JSON file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    edited = output_edited(path)
    if edited is not None:
        print(f"verifier-audit: warning: {edited}", file=sys.stderr)
    for model in (Report, ReportSet):
        try:
            loaded: Report | ReportSet = model.model_validate_json(text)
        except ValidationError:
            continue
        reports = [loaded] if isinstance(loaded, Report) else loaded.reports
        return {r.verifier: r for r in reports}
    raise InputError(f"{path}: not a verifier-audit report (write one with `verifier-audit run --json PATH`)")


# --- what was measured -------------------------------------------------------------------


def _or(word: str) -> Callable[[Any], str]:
    """How to show a setting that may be unset (``word``: what unset means) or a list."""

    def show(value: Any) -> str:
        if value in (None, [], ""):
            return word
        return ", ".join(map(str, value)) if isinstance(value, list) else str(value)

    return show


# (what, how to read it from a report, how to show it). The candidate set's hash decides
# whether the rates are like for like; the rest names why it changed.
MEASURED: tuple[tuple[str, Callable[[Report], Any], Callable[[Any], str]], ...] = (
    ("suite", lambda r: r.suite, str),
    ("suite hash", lambda r: r.settings.get("suite_hash"), _or("unknown")),
    ("split", lambda r: r.settings.get("split", r.split), _or("all")),
    ("limit", lambda r: r.settings.get("limit"), _or("none")),
    ("seed", lambda r: r.seed, str),
    ("only", lambda r: r.settings.get("origins"), _or("all origins")),
    ("candidates", lambda r: r.n_candidates, str),
    ("candidate set", lambda r: r.settings.get("candidates_hash"), _or("unknown")),
    ("threshold", lambda r: r.threshold, str),
    ("tool version", lambda r: r.tool_version, str),
    ("schema", lambda r: r.schema_version, str),
)
# What the candidates are made of, when a report has no candidate-set hash (an older one).
_CANDIDATE_INPUTS = ("suite", "suite hash", "split", "limit", "seed", "only", "candidates")


def measurement_changes(old: Report, new: Report) -> list[tuple[str, str, str]]:
    """(what, old, new) for each thing measured differently, in MEASURED's order."""
    out = []
    for what, read, show in MEASURED:
        a, b = read(old), read(new)
        if a != b:
            out.append((what, show(a), show(b)))
    return out


def like_for_like(old: Report, new: Report) -> bool:
    """Whether both audits scored the same candidates: the candidate-set hash when both
    reports have one, else everything the candidates are made of."""
    a, b = old.settings.get("candidates_hash"), new.settings.get("candidates_hash")
    if a and b:
        return a == b
    changed = {what for what, _, _ in measurement_changes(old, new)}
    return not changed & set(_CANDIDATE_INPUTS)


# --- which verifier is which -------------------------------------------------------------


def _file_target(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def project_spec(spec: str) -> str:
    """A verifier spec as its project sees it: a file's path relative to the nearest folder
    above it holding .git or pyproject.toml (``/a/repo/rewards.py:f`` -> ``rewards.py:f``),
    so that two checkouts of one verifier read alike. A module spec (a dotted name), a
    server, or a file in no project (or no longer on this disk) is kept as it is."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not _file_target(target):
        return spec
    path = Path(os.path.abspath(target))
    for folder in path.parents:
        if (folder / ".git").exists() or (folder / "pyproject.toml").exists():
            return f"{path.relative_to(folder).as_posix()}:{name}"
    return spec


def parse_matches(values: list[str]) -> list[tuple[str, str]]:
    """``--match OLD=NEW`` values as (old spec, new spec) pairs."""
    pairs = []
    for value in values:
        a, sep, b = value.partition("=")
        if not (sep and a.strip() and b.strip()):
            raise InputError(
                f"--match {value!r}: expected OLD=NEW, two verifier specs as the reports name them "
                "(e.g. --match old/rewards.py:score=new/rewards.py:score)"
            )
        pairs.append((a.strip(), b.strip()))
    return pairs


def _find(given: str, specs: list[str], side: str, path: Path) -> str:
    """The spec of ``specs`` that ``given`` names: the spec itself, its project spec, or a
    relative file path from here."""
    if given in specs:
        return given
    target, _, name = given.rpartition(":")
    absolute = f"{Path(target).resolve()}:{name}" if target and _file_target(target) else given
    found = [s for s in specs if s == absolute or project_spec(s) == given]
    if len(found) == 1:
        return found[0]
    what = "names several verifiers" if found else "names no verifier"
    raise InputError(
        f"--match: {given!r} {what} of the {side} report {path} (its verifiers: {', '.join(specs)}); "
        "give the spec as the report names it"
    )


@dataclass
class Pairing:
    pairs: list[tuple[str, str]]  # (old spec, new spec)
    only_old: list[str]
    only_new: list[str]


def pair_verifiers(
    old: dict[str, Report],
    new: dict[str, Report],
    matches: Sequence[tuple[str, str]] = (),
    old_path: Path = Path("old"),
    new_path: Path = Path("new"),
) -> Pairing:
    """Pair old and new verifiers: ``--match`` first, then the same spec, then the same
    project spec when it names one verifier on each side."""
    left, right = [v for v in old], [v for v in new]
    pairs = []
    for a, b in matches:
        a, b = _find(a, list(old), "old", old_path), _find(b, list(new), "new", new_path)
        if a not in left or b not in right:
            raise InputError(f"--match {a}={b}: a verifier is paired twice; give each --match once")
        pairs.append((a, b))
        left.remove(a)
        right.remove(b)
    for v in [v for v in left if v in right]:
        pairs.append((v, v))
        left.remove(v)
        right.remove(v)
    for v in list(left):
        key = project_spec(v)
        same_l, same_r = [x for x in left if project_spec(x) == key], [x for x in right if project_spec(x) == key]
        if len(same_l) == 1 and len(same_r) == 1:
            pairs.append((v, same_r[0]))
            left.remove(v)
            right.remove(same_r[0])
    return Pairing(pairs, left, right)


# --- what moved --------------------------------------------------------------------------


def measured(c: CategoryResult | None) -> bool:
    """Whether a category has a rate to compare: present, scored without error at least once."""
    return c is not None and c.measured and c.n > 0


def _why_not(a: CategoryResult | None, b: CategoryResult | None) -> str:
    if a is None or b is None:
        return "only in new" if a is None else "only in old"
    side = [s for s, c in (("old", a), ("new", b)) if not measured(c)]
    errored = [c for c in (a, b) if not measured(c) and c.errors]
    how = "every call errored" if errored else "nothing scored"
    return f"not measured in {side[0] if len(side) == 1 else 'either'} ({how})"


@dataclass
class VerifierDiff:
    old_spec: str
    new_spec: str
    changes: list[tuple[str, str, str]]  # measurement_changes
    like: bool  # like_for_like
    debt: tuple[float, float]
    false_acceptance: tuple[float, float]
    false_rejection: tuple[float, float]
    compared: int  # categories measured on both sides
    debt_compared: tuple[float, float] | None  # debt over those, when some were not compared
    worse: list[tuple[str, float, float]] = field(default_factory=list)
    better: list[tuple[str, float, float]] = field(default_factory=list)
    not_compared: list[tuple[str, str]] = field(default_factory=list)  # (category, why)
    newly_unmeasured: list[str] = field(default_factory=list)  # measured in old, every call errored in new
    new_security: list[tuple[str, str]] = field(default_factory=list)
    fixed_security: list[tuple[str, str]] = field(default_factory=list)

    @property
    def regressions(self) -> list[str]:
        """Why ``--fail-on-regression`` fails, one phrase each; empty: no regression."""
        # Like with like: when some categories were measured on one side only, the debt is
        # judged over the categories both measured (the overall figures cover different
        # categories: a smaller audit can raise or lower them with nothing changed).
        why: list[str] = []
        if self.debt_compared is None:
            (a, b), where = self.debt, ""
        else:
            (a, b), where = self.debt_compared, f" on the {self.compared} categories both measured"
        if b > a + EPSILON:
            why.append(f"coverage debt rose {a:.3f} -> {b:.3f}{where}")
        if self.worse:
            why.append(f"worse categories: {len(self.worse)} ({_names([n for n, _, _ in self.worse], 3)})")
        if self.newly_unmeasured:
            why.append(
                f"categories no longer measured (every call errored): {len(self.newly_unmeasured)} "
                f"({_names(self.newly_unmeasured, 3)})"
            )
        if self.new_security:
            why.append(f"new security findings: {len(self.new_security)}")
        if why and not self.like:
            why.append("the candidate sets differ (not like for like)")
        return why


def diff(old: Report, new: Report) -> VerifierDiff:
    before = {c.name: c for c in old.categories}
    after = {c.name: c for c in new.categories}
    worse, better, not_compared, newly_unmeasured, both = [], [], [], [], []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name), after.get(name)
        if not (measured(a) and measured(b)):
            not_compared.append((name, _why_not(a, b)))
            if measured(a) and b is not None and b.errors:
                newly_unmeasured.append(name)
            continue
        both.append(name)
        if b.rate > a.rate + EPSILON:
            worse.append((name, a.rate, b.rate))
        elif b.rate < a.rate - EPSILON:
            better.append((name, a.rate, b.rate))
    debt_compared = None
    if not_compared:
        debt_compared = (coverage_debt(before[n] for n in both)[0], coverage_debt(after[n] for n in both)[0])
    old_sec = {(f.kind, f.candidate_id) for f in old.security_findings}
    new_sec = {(f.kind, f.candidate_id) for f in new.security_findings}
    return VerifierDiff(
        old_spec=old.verifier,
        new_spec=new.verifier,
        changes=measurement_changes(old, new),
        like=like_for_like(old, new),
        debt=(old.coverage_debt, new.coverage_debt),
        false_acceptance=(old.false_acceptance_rate, new.false_acceptance_rate),
        false_rejection=(old.false_rejection_rate, new.false_rejection_rate),
        compared=len(both),
        debt_compared=debt_compared,
        worse=worse,
        better=better,
        newly_unmeasured=newly_unmeasured,
        # Calls that errored first (the verifier broke), then what one audit left out.
        not_compared=sorted(not_compared, key=lambda row: (row[1].startswith("only in"), row[1], row[0])),
        new_security=sorted(new_sec - old_sec),
        fixed_security=sorted(old_sec - new_sec),
    )


# --- text --------------------------------------------------------------------------------


def _names(names: list[str], rows: int) -> str:
    more = f" and {len(names) - rows} more" if len(names) > rows else ""
    return ", ".join(names[:rows]) + more


def _rows(lines: list[str], rows: int | None, indent: str) -> list[str]:
    """``lines``, the first ``rows`` of them and "and N more" when there are more."""
    if rows is None or len(lines) <= rows:
        return lines
    return lines[:rows] + [f"{indent}and {len(lines) - rows} more (--all lists them)"]


def render_measured(changes: list[tuple[str, str, str]], like: bool, report: Report, indent: str = "") -> list[str]:
    """What changed in what was measured, old -> new, and whether the rates compare; when
    nothing changed, one line saying what both measured (``report``: either side)."""
    if not changes:
        return [
            (
                f"{indent}measured alike: suite {report.suite}, split {_or('all')(report.settings.get('split'))}, "
                f"limit {_or('none')(report.settings.get('limit'))}, seed {report.seed}, "
                f"{report.n_candidates} candidates, threshold {report.threshold}"
            )
        ]
    width = max(len(what) for what, _, _ in MEASURED)
    out = [f"{indent}measured differently (old -> new):"]
    out += [f"{indent}  {what:<{width}}  {a} -> {b}" for what, a, b in changes]
    if not like:
        out.append(
            f"{indent}  the candidate sets differ: the rates below are not like for like "
            "(audit both with the same suite, split, limit, seed and tool version)"
        )
    return out


def render_diff(title: str, d: VerifierDiff, *, rows: int | None = MAX_ROWS) -> list[str]:
    """One verifier's debt, rates and the categories and findings that moved."""

    def move(pair: tuple) -> str:
        a, b = pair
        return f"{a:.3f} -> {b:.3f}" + ("" if abs(b - a) <= EPSILON else f" ({b - a:+.3f})")

    out = [title, f"  coverage debt     {move(d.debt)}"]
    if d.debt_compared is not None:
        out.append(f"    on the {d.compared} categories both measured  {move(d.debt_compared)}")
    out += [f"  false acceptance  {move(d.false_acceptance)}", f"  false rejection   {move(d.false_rejection)}"]
    for name, moves in (("worse", d.worse), ("better", d.better)):
        if moves:
            out.append(f"  {name} ({len(moves)} of {d.compared} compared):")
            out += _rows([f"    {c}: {a:.3f} -> {b:.3f}" for c, a, b in moves], rows, "    ")
    if d.not_compared:
        out.append(f"  not compared ({len(d.not_compared)}):")
        out += _rows([f"    {c}: {why}" for c, why in d.not_compared], rows, "    ")
    for name, found in (("NEW SECURITY FINDINGS", d.new_security), ("fixed security findings", d.fixed_security)):
        if found:
            out.append(f"  {name} ({len(found)}):")
            out += _rows([f"    {kind} on {cid}" for kind, cid in found], rows, "    ")
    if not (d.worse or d.better or d.new_security or d.fixed_security):
        out.append(f"  no category changed ({d.compared} compared)")
    return out


def render(
    diffs: list[VerifierDiff],
    pairing: Pairing,
    old: dict[str, Report],
    *,
    rows: int | None = MAX_ROWS,
    name: Callable[[str], str] = str,
) -> str:
    """The whole diff: what changed in what was measured first (once, when every pair of
    verifiers agrees on it, else at the top of each), the verifiers not compared with the
    fix, then each pair. ``name`` shows a spec (the CLI's is relative to the cwd)."""
    shared = len({(tuple(d.changes), d.like) for d in diffs}) == 1
    out = render_measured(diffs[0].changes, diffs[0].like, old[diffs[0].old_spec]) if shared else []
    unpaired = [(v, "old") for v in pairing.only_old] + [(v, "new") for v in pairing.only_new]
    if unpaired:
        out.append(f"not compared ({len(unpaired)} {'verifier' if len(unpaired) == 1 else 'verifiers'}):")
        out += _rows([f"  {name(v)}: only in {side}" for v, side in unpaired], rows, "  ")
        out.append(
            "  pair an old and a new verifier with --match OLD=NEW"
            + (
                f" (e.g. --match {name(pairing.only_old[0])}={name(pairing.only_new[0])})"
                if pairing.only_old and pairing.only_new
                else ""
            )
        )
    for d in diffs:
        title = name(d.old_spec) if d.old_spec == d.new_spec else f"{name(d.old_spec)} -> {name(d.new_spec)}"
        block = render_diff(title, d, rows=rows)
        if not shared:
            block[1:1] = render_measured(d.changes, d.like, old[d.old_spec], "  ")
        out += block
    return "\n".join(out)
