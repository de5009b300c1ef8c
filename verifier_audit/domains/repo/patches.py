"""Unified diffs over a repository held as ``{relative path: text}``: make one, read its
files, apply it. Pure Python (no ``git``, no ``patch`` binary), so the oracle, the
generators and the suite script apply a patch the same way everywhere, and a patch is
data the audit parses itself before anything of the candidate runs.

A patch is hostile input. ``apply_patch`` never writes a file: it returns the new mapping,
and every path is checked before it is used -- an absolute path, a ``..`` segment or a
backslash is a ``PatchError`` (a patch that escapes the repository), never a write outside
it. Which paths a patch may change is the task's rule (``allowed_paths``), not this
module's: ``changed_paths`` names them for the oracle to judge.

Hunks match their context exactly (no fuzz) at the line the header names, or at the
nearest line where they do (an offset, as ``git apply`` and ``patch`` allow): a patch made
against the task's snapshot applies, one made against something else fails with the hunk
and the line that did not match.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

NO_NEWLINE = "\\ No newline at end of file"
DEV_NULL = "/dev/null"
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ValueError):
    """A patch that cannot be read or does not apply; the message says where and why."""


@dataclass
class FilePatch:
    """One file's part of a patch: ``old`` / ``new`` are repository paths, None for a file
    created (``--- /dev/null``) or deleted (``+++ /dev/null``)."""

    old: str | None
    new: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path this part changes (the new one; the old one for a deletion)."""
        name = self.new if self.new is not None else self.old
        assert name is not None  # parse_patch refuses a part with neither
        return name


@dataclass
class Hunk:
    old_start: int  # 1-based, as in the header; 0 for an empty old side
    old_lines: list[str]  # the lines the hunk expects (context and removed), with their ends
    new_lines: list[str]  # what replaces them (context and added)
    line: int  # the patch line of the ``@@`` header, for errors


def make_patch(old: Mapping[str, str], new: Mapping[str, str], *, context: int = 3) -> str:
    """The unified diff (``a/`` and ``b/`` prefixes, files in path order) that turns the
    repository ``old`` into ``new``; empty when they are equal. ``apply_patch(old, it)``
    gives ``new`` back (tests/domains/repo/test_repo_patches.py, a property)."""
    parts: list[str] = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        check_path(path)
        fromfile = f"a/{path}" if before is not None else DEV_NULL
        tofile = f"b/{path}" if after is not None else DEV_NULL
        lines = list(difflib.unified_diff(_lines(before or ""), _lines(after or ""), fromfile, tofile, n=context))
        # An empty file created or deleted: no hunk, the headers alone say it.
        lines = lines or [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        parts.append(f"diff --git a/{path} b/{path}\n")
        for text in lines:
            if text.endswith("\n"):
                parts.append(text)
            else:  # the last line of a file without a final newline
                parts.append(text + "\n" + NO_NEWLINE + "\n")
    return "".join(parts)


def changed_paths(patch: str) -> list[str]:
    """Every repository path the patch creates, changes or deletes (both names of a
    rename), in the order the patch names them."""
    seen: dict[str, None] = {}
    for part in parse_patch(patch):
        for name in (part.old, part.new):
            if name is not None:
                seen[name] = None
    return list(seen)


def apply_patch(files: Mapping[str, str], patch: str) -> dict[str, str]:
    """The repository after ``patch``: a new mapping (``files`` is not changed). Raises
    ``PatchError`` for a patch that does not parse, names a path outside the repository,
    creates a file that exists, changes one that does not, or has a hunk whose lines are
    not in the file."""
    result = dict(files)
    for part in parse_patch(patch):
        if part.old is None:
            if part.path in result:
                raise PatchError(f"the patch creates {part.path}, which already exists")
            text = ""
        else:
            if part.old not in result:
                raise PatchError(f"the patch changes {part.old}, which is not in the repository")
            text = result[part.old]
        updated = _apply_hunks(part, _lines(text))
        if part.old is not None:
            del result[part.old]
        if part.new is not None:
            result[part.new] = updated
    return result


def parse_patch(patch: str) -> list[FilePatch]:
    """The patch's file parts. ``diff --git`` lines, index lines and text before the first
    ``---`` are ignored (a model's prose around its diff included); a ``---`` without its
    ``+++``, a malformed hunk header or a hunk shorter than its header says is an error
    naming the patch line."""
    lines = _lines(patch)
    parts: list[FilePatch] = []
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        old = _path_of(lines[i][4:], "a/", i + 1)
        new = _path_of(lines[i + 1][4:], "b/", i + 2)
        if old is None and new is None:
            raise PatchError(f"patch line {i + 1}: both sides are {DEV_NULL}")
        part = FilePatch(old, new)
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            hunk, i = _read_hunk(lines, i)
            part.hunks.append(hunk)
        parts.append(part)
    if not parts and patch.strip():
        raise PatchError("no file in the patch: a unified diff has '--- a/PATH' and '+++ b/PATH' lines")
    return parts


def check_path(path: str, line: int | None = None) -> str:
    """``path`` if it names a file inside the repository; else a ``PatchError``."""
    where = f"patch line {line}: " if line is not None else ""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        raise PatchError(f"{where}{path!r} is not a relative path inside the repository")
    if any(segment in ("", ".", "..") for segment in path.split("/")):
        raise PatchError(f"{where}{path!r} leaves the repository or is not a plain path (no '.', '..' or '//')")
    return path


def _path_of(header: str, prefix: str, line: int) -> str | None:
    name = header.rstrip("\n").split("\t", 1)[0].rstrip()
    if name == DEV_NULL:
        return None
    if name.startswith(prefix):
        name = name[len(prefix) :]
    return check_path(name, line)


def _read_hunk(lines: list[str], i: int) -> tuple[Hunk, int]:
    match = _HUNK.match(lines[i])
    if match is None:
        raise PatchError(f"patch line {i + 1}: a hunk header reads '@@ -START,COUNT +START,COUNT @@'")
    old_start = int(match.group(1))
    old_count = int(match.group(2)) if match.group(2) is not None else 1
    new_count = int(match.group(4)) if match.group(4) is not None else 1
    hunk = Hunk(old_start, [], [], i + 1)
    i += 1
    old_left, new_left = old_count, new_count
    while old_left > 0 or new_left > 0:
        if i >= len(lines):
            raise PatchError(
                f"patch line {hunk.line}: the hunk ends before its {old_count} old / {new_count} new lines"
            )
        text = lines[i]
        kind, body = text[:1], text[1:]
        if text.rstrip("\n") == "":  # an empty context line whose space an editor dropped
            kind, body = " ", "\n"
        if kind == " ":
            hunk.old_lines.append(body)
            hunk.new_lines.append(body)
            old_left, new_left = old_left - 1, new_left - 1
        elif kind == "-":
            hunk.old_lines.append(body)
            old_left -= 1
        elif kind == "+":
            hunk.new_lines.append(body)
            new_left -= 1
        elif text.startswith("\\"):
            pass
        else:
            raise PatchError(f"patch line {i + 1}: a hunk line starts with ' ', '-' or '+'")
        i += 1
        if old_left < 0 or new_left < 0:
            raise PatchError(f"patch line {hunk.line}: the hunk has more lines than its header says")
        _strip_final_newline(lines, i, hunk, kind)
    while i < len(lines) and lines[i].startswith("\\"):
        _strip_final_newline(lines, i, hunk, "")
        i += 1
    return hunk, i


def _strip_final_newline(lines: list[str], i: int, hunk: Hunk, kind: str) -> None:
    """``\\ No newline at end of file`` after a line: that line has no newline."""
    if i < len(lines) and lines[i].startswith("\\") and kind:
        for side in (hunk.old_lines, hunk.new_lines) if kind == " " else (_side(hunk, kind),):
            if side and side[-1].endswith("\n"):
                side[-1] = side[-1][:-1]


def _side(hunk: Hunk, kind: str) -> list[str]:
    return hunk.old_lines if kind == "-" else hunk.new_lines


def _apply_hunks(part: FilePatch, text: list[str]) -> str:
    out: list[str] = []
    at = 0  # lines of ``text`` already consumed
    for hunk in part.hunks:
        start = _find(text, hunk, at)
        if start is None:
            raise PatchError(
                f"patch line {hunk.line}: the hunk's lines are not in {part.path} "
                f"(at line {hunk.old_start} or after line {at}): the patch was made against other text"
            )
        out.extend(text[at:start])
        out.extend(hunk.new_lines)
        at = start + len(hunk.old_lines)
    out.extend(text[at:])
    return "".join(out)


def _find(text: list[str], hunk: Hunk, at: int) -> int | None:
    """Where the hunk's old lines are in ``text`` at or after ``at``: the header's line
    first, then the nearest other line."""
    size = len(hunk.old_lines)
    wanted = max(hunk.old_start - 1, 0) if size else hunk.old_start
    for start in _nearest(wanted, at, len(text) - size):
        if text[start : start + size] == hunk.old_lines:
            return start
    return None


def _nearest(wanted: int, low: int, high: int) -> Iterator[int]:
    if high < low:
        return
    wanted = min(max(wanted, low), high)
    yield wanted
    for step in range(1, high - low + 1):
        for start in (wanted - step, wanted + step):
            if low <= start <= high:
                yield start


def _lines(text: str) -> list[str]:
    """Lines ended by ``\n`` only (``str.splitlines`` also ends them at ``\r``, form feeds
    and other separators, which a diff keeps inside a line)."""
    return _LINE.findall(text)
