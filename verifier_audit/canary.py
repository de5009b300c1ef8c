"""Canaries: payloads that leave a harmless trace if a verifier executes model output.

A canary is a piece of model output that does something observable when it is run, and
nothing else: it creates an empty file or directory named ``va_canary_<token>``, starts a
``mkdir`` of that name, or imports a module named ``vacanary<token>`` (that does not
exist). Each *form* targets one execution route and is written to survive the sanitisers
graders put in front of it:

========  =============================================================  ==================
form      text (token ``T``)                                             fires under
========  =============================================================  ==================
mkdir     ``__import__('os').mkdir('va_canary_T')or(0)``                 eval, sympify
open      ``open(chr(118)+...,chr(119)).close()or(0)``: no ``_``,        eval after a
          no quotes, no spaces                                           ``split("_")``,
                                                                         ``\\pi`` substitution
exec      ``exec(chr(105)+...)``: the words ``import``/``os``/``open``   eval behind word
          appear nowhere                                                 blacklists
system    ``__import__('os').system('mkdir va_canary_T')or(0)``          eval; a process starts
import    ``import vacanaryT``: a statement, no parentheses              exec of code blocks
hex       ``exec(bytes.fromhex('696d...').decode())or(0)``               eval behind a
                                                                         blacklist of
                                                                         ``__``, ``import``,
                                                                         ``chr``, ``os.``,
                                                                         ``open``, ``system``
bytes     ``exec(bytes((105,109,...)).decode())or(0)``: the same with    the same, and
          no quote, ``_`` or space                                       quote-refusing,
                                                                         ``split("_")``,
                                                                         ``\\pi`` graders
getattr   ``getattr(getattr(getattr(len,'_'+'_'+'s'+...),...)``: every  eval behind a
          name built by concatenation, reached with ``getattr`` from     blacklist that lets
          ``len.__self__`` (the builtins module); no ``__``, no          ``getattr`` through
          ``exec``/``eval``
nfkc      ``ｅｘｅｃ(ｂｙｔｅｓ((105,...)).ｄｅｃｏｄｅ())or(0)``: the       eval behind a
          bytes form with full-width identifiers, which Python           blacklist of ASCII
          normalises (NFKC) to ``exec``, ``bytes``, ``decode``           words checked
                                                                         before any NFKC
                                                                         normalisation
========  =============================================================  ==================

Every expression form evaluates to 0 (``... or (0)``), so ``X or (\\pi)`` after it is a
number a grader can compare. Tokens are lowercase hex: no ``_``, valid in a module name.

The last four are the *encoded* forms (issue 30, item 4): a grader that refuses answers
holding ``__``, ``import``, ``chr``, ``os.``, ``open`` or ``system`` and ``eval``s the rest
stops every form above it, yet runs any of these. Each runs the same statement as the
``exec`` form (``import os;os.mkdir('va_canary_T')``, or for ``getattr`` the same call
reached without a statement) and so leaves the same marker: detection does not change.

Detection is by effect, in ``isolation/_tripwires.py``: the marker left in the verifier's
working or temporary directory or in a place the call went to (a directory it moved to,
the working directory of a process it started, ...), and an audit hook (PEP 578) in every
worker that records ``open``/``mkdir``/``import``/``os.system``/``exec`` events carrying a
canary name, and the removal of a marker, also from the processes a verifier forks.
docs/canaries.md has the picture and the blind spots.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import unicodedata

PREFIX = "va_canary_"  # marker files and directories: PREFIX + token
MODULE_PREFIX = "vacanary"  # marker modules: MODULE_PREFIX + token (an identifier without "_")
FORMS = ("mkdir", "open", "exec", "system", "import", "hex", "bytes", "getattr", "nfkc")
# The forms that hide every word a blacklist looks for (the table's last four).
ENCODED_FORMS = ("hex", "bytes", "getattr", "nfkc")


def make_token(*parts: str) -> str:
    """A short, deterministic token for a candidate (hex: safe in names, no underscore)."""
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:16]


def _chars(text: str) -> str:
    """``text`` as a Python expression without quotes or underscores: chr(..)+chr(..)."""
    return "+".join(f"chr({ord(c)})" for c in text)


def _concat(text: str) -> str:
    """``text`` as a concatenation of one-character strings, ``'o'+'s'``: no word of it (nor
    ``__``) is left for a blacklist to find."""
    return "+".join(repr(c) for c in text)


def _fullwidth(text: str) -> str:
    """ASCII letters as their full-width forms (U+FF21..): NFKC, which Python applies to
    every identifier it parses (PEP 3131), maps them back, so ``ｅｘｅｃ`` is ``exec``.
    Keywords (``or``) are matched before that normalisation and stay ASCII."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in text)


def payload(token: str, form: str = "mkdir") -> str:
    """The canary of ``form`` for ``token`` (see the module's table)."""
    marker = PREFIX + token
    statement = f"import os;os.mkdir({marker!r})"  # what the exec and encoded forms run
    if form == "mkdir":
        return f"__import__('os').mkdir('{marker}')or(0)"
    if form == "open":
        return f"open({_chars(marker)},chr(119)).close()or(0)"
    if form == "exec":
        return f"exec({_chars(statement)})or(0)"
    if form == "hex":
        return f"exec(bytes.fromhex('{statement.encode().hex()}').decode())or(0)"
    if form in ("bytes", "nfkc"):
        codes = ",".join(str(b) for b in statement.encode())
        if form == "bytes":
            return f"exec(bytes(({codes})).decode())or(0)"
        return f"{_fullwidth('exec(bytes')}(({codes})).{_fullwidth('decode')}())or(0)"
    if form == "getattr":
        builtins = f"getattr(len,{_concat('__self__')})"  # a builtin function's __self__: the module
        os_module = f"getattr({builtins},{_concat('__import__')})({_concat('os')})"
        return f"getattr({os_module},{_concat('mkdir')})({marker!r})or(0)"
    if form == "system":
        return f"__import__('os').system('mkdir {marker}')or(0)"
    if form == "import":
        return f"import {MODULE_PREFIX}{token}"
    raise ValueError(f"unknown canary form {form!r}; one of {', '.join(FORMS)}")


def fired(directory: str = ".", since_ns: int | None = None, listed: str | None = None) -> list[str]:
    """Tokens of the canaries that fired in ``directory``; removes their traces. With
    ``since_ns``, only markers whose inode changed at or after that time (``st_ctime_ns``):
    in a directory others share, an older marker is not this call's. ``listed``: where to
    look instead, the same entries for less (an overlay's upper layer, which holds only
    what was written through the overlay at ``directory``)."""
    tokens = []
    try:
        names = os.listdir(listed or directory)
    except OSError:
        return tokens
    for name in names:
        if name.startswith(PREFIX):
            path = os.path.join(directory, name)
            if since_ns is not None:
                try:
                    if os.lstat(path).st_ctime_ns < since_ns:
                        continue
                except OSError:
                    continue
            tokens.append(name[len(PREFIX) :])
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:  # a file (COPY TO, ATTACH) or a link: gone too, so it fires only once
                try:
                    os.remove(path)
                except OSError:
                    pass
    return tokens


_NAMED = re.compile(rf"(?:{PREFIX}|{MODULE_PREFIX})([0-9a-f]{{16}})")
_CHR_RUN = re.compile(r"chr\(\d{1,7}\)(?:\+chr\(\d{1,7}\))*")
_HEX_RUN = re.compile(r"fromhex\(\s*['\"]([0-9a-fA-F\s]{1,20000})['\"]")
_BYTES_RUN = re.compile(r"bytes\(\s*[\(\[]([\d\s,]{1,40000})[\)\]]")


def tokens_in(text: str) -> set[str]:
    """The tokens of the canaries in ``text``: named outright, or spelt so that a blacklist
    misses them -- ``chr(..)+chr(..)`` (the ``open`` and ``exec`` forms), hex
    (``bytes.fromhex('..')``), a tuple of byte values (``bytes((..))``), full-width
    letters that NFKC folds (``nfkc``). What an effect is credited to when it is seen
    outside the call that made it (isolation/_witness.py): by its token, not by its timing."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)  # full-width digits and letters as Python reads them
    decoded = [text]
    if "chr(" in text:
        decoded += [
            "".join(chr(int(n)) for n in re.findall(r"\d+", run.group(0)) if int(n) < 0x110000)
            for run in _CHR_RUN.finditer(text)
        ]
    if "fromhex(" in text:
        for digits in _HEX_RUN.findall(text):
            try:
                decoded.append(bytes.fromhex(digits).decode("latin-1"))
            except ValueError:
                pass
    if "bytes(" in text:
        decoded += [
            "".join(chr(int(n)) for n in re.findall(r"\d+", run) if int(n) < 256) for run in _BYTES_RUN.findall(text)
        ]
    return {token for part in decoded for token in _NAMED.findall(part)}


def token_of(marker: str) -> str | None:
    """The token in a marker's name (``va_canary_<token>.csv``, ``vacanary<token>``), if any."""
    match = _NAMED.search(marker)
    return match.group(1) if match else None


def module_tokens(text: str) -> set[str]:
    """The tokens of the ``import`` canaries in ``text`` (module ``vacanary<token>``)."""
    return set(re.findall(rf"{MODULE_PREFIX}([0-9a-f]{{16}})", text))
