"""The results file: verdicts streamed as JSON lines as they come, so an audit can resume.

Line 1 is a header with a fingerprint of everything that decides the verdicts (suite
contents and how they were read, split, limit, seed, verifiers and a hash of their source,
the candidates, timeout, threshold, tool version: ``engine.audit.run_settings``). A resume
with a different fingerprint is refused rather than mixing two audits, and so is a fresh
run into a file that holds another audit's results (a restart with the same settings is
allowed): the message names each setting that differs, its old and new value and the flag
that sets it. After a ``kill -9`` the last line may be cut short: it is dropped and its
call is redone, nothing else is lost.

The file is evidence that something untrusted (the verifier, a process it left behind)
may try to rewrite, so:

* every verdict line carries an HMAC made with a random key of this results file, kept
  in the key folder beside it (``.verifier-audit-keys/<results name>.key``: mode 0600 in a
  0700 folder, which the verifier's uid at the ``namespaces`` level can neither list nor
  read; ``audit_files.folder_key``); on resume a line whose MAC does not match (edited,
  forged, copied from another file, signed with any key but this one) is rejected and its
  call redone;
* lines for candidates or verifiers the audit does not have, and second lines for the same
  call, are rejected too; every rejection is counted in ``warnings``;
* the file is held under an exclusive lock while the audit writes it: a second audit on the
  same file is refused with a message instead of interleaving lines with the first.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Container, Iterator, MutableMapping
from pathlib import Path
from typing import Any

from ..audit_files import folder_key, key_path, mac, mac_matches
from ..errors import InputError
from ..models import Verdict, to_json
from ..report.text import excerpt


def fingerprint(settings: dict[str, Any]) -> str:
    blob = json.dumps(settings, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


#: Each setting of the fingerprint (engine.audit.run_settings) and what sets it, for the
#: messages that name a difference; a key not listed here is shown by its own name.
SETTING_SOURCES = {
    "tool_version": "verifier-audit's version",
    "suite": "--suite",
    "suite_hash": "the suite file's content",
    "split": "--split",
    "limit": "--limit",
    "seed": "--seed",
    "verifiers": "--verifier, --style, --verifier-option",
    "timeout": "--timeout",
    "memory_mb": "--memory-mb",
    "isolation": "--isolation",
    "n_candidates": "the number of candidates",
    "origins": "--only",
    "verifier_sources": "the verifier's source",
    "candidates_hash": "the candidates",
    "domain": "--domain",
    "format": "--format",
    "fields": "--field",
    "db_dir": "--db-dir",
    "dialect": "--dialect",
    "repo_dir": "--repo-dir",
    "tasks_hash": "the tasks as read: the suite through --field and --format, its databases",
    "threshold": "--threshold",
    "answer_formats": "--no-format-probe",
    "search": "--search",
    "source_guided": "the search's source-guided operators (AuditOptions.source_guided)",
    "oracle_timeout": "--oracle-timeout",
}


def settings_difference(old: Any, new: dict[str, Any]) -> str:
    """Why a results file with header settings ``old`` is not this audit's (settings
    ``new``): each setting that differs, old and new value; a header of an older
    verifier-audit that did not record some of them says so, since what it left out may
    differ unseen."""
    old = old if isinstance(old, dict) else {}
    missing = [k for k in new if k not in old]
    # The settings a flag sets first; what follows from them (the hashes) after.
    changed = sorted(
        (k for k in set(old) | set(new) if k in old and old.get(k) != new.get(k)),
        key=lambda k: (not SETTING_SOURCES.get(k, "").startswith("--"), k),
    )
    parts = [f"{k} ({SETTING_SOURCES.get(k, k)}) was {_shown(old.get(k))}, now {_shown(new.get(k))}" for k in changed]
    if missing:
        parts.append(
            "written by an older verifier-audit that did not record "
            f"{', '.join(f'{k} ({SETTING_SOURCES.get(k, k)})' for k in missing)}: "
            "its verdicts may be of other settings"
        )
    return "; ".join(parts) or "its fingerprint differs"


def _shown(value: Any) -> str:
    return excerpt(json.dumps(value, sort_keys=True, default=str), 60)


def _header_of(line: str) -> dict | None:
    """The header of a results file from its first line; None: not a results file."""
    try:
        header = json.loads(line) if line else {}
    except json.JSONDecodeError:
        return None
    return header if isinstance(header, dict) and header.get("kind") == "header" else None


def results_key_path(path: Path) -> Path:
    """Where the results file ``path``'s key is kept (``audit_files.key_path``)."""
    return key_path(Path(path).parent, Path(path).name)


_REJECTED = {
    "damaged": "unreadable",
    "bad_mac": "failed their signature (written by something other than this audit)",
    "unknown": "name a verifier or candidate this audit does not have",
}


def read_verified(path: Path) -> dict[tuple[str, str], Verdict]:
    """The verdicts of a closed results file whose lines pass their signature (for readers
    after the audit, such as ``score``): what anyone else appended is left out."""
    with Path(path).open(encoding="utf-8") as fh:
        header = json.loads(fh.readline() or "{}")
    store = ResultsStore.__new__(ResultsStore)
    store.path, store.fingerprint, store.known = Path(path), header.get("fingerprint", ""), None
    store.done, store.rejected = {}, Counter()
    store._key = store._read_key()
    with Path(path).open(encoding="utf-8") as fh:
        next(fh, None)
        for line in fh:
            store._accept(line.rstrip("\n"))
    return store.done


class ResultsStore:
    def __init__(
        self,
        path: Path,
        settings: dict[str, Any],
        *,
        resume: bool,
        known: Container[tuple[str, str]] | None = None,
        done: MutableMapping[tuple[str, str], Verdict] | None = None,
        remember: bool = True,
    ):
        """``known``: the (verifier name, candidate id) pairs of this audit; lines for any
        other pair are rejected on resume (None: any pair is accepted). ``done``: where the
        verdicts read back on resume are kept (default a dict; ``ResumeIndex``: on disk).
        ``remember`` False: appended verdicts are written, not also kept in ``done`` (a
        caller that streams them keeps its own)."""
        self.path = Path(path)
        self.settings = settings
        self.fingerprint = fingerprint(settings)
        self.known = known
        self.done: MutableMapping[tuple[str, str], Verdict] = {} if done is None else done
        self.remember = remember
        self.rejected: Counter = Counter()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise InputError(
                f"{self.path}: another audit is writing this results file; wait for it, or pass another --results"
            ) from None
        self._fh = os.fdopen(fd, "r+b")
        try:
            if resume and os.fstat(fd).st_size > 0:
                self._key = self._read_key()
                self._load()
            else:
                self._check_fresh()
                self._fh.truncate(0)
                self._key = self._new_key()
                self._write_line(
                    json.dumps(
                        {"kind": "header", "fingerprint": self.fingerprint, "settings": settings}, ensure_ascii=True
                    )
                )
        except BaseException:
            self._fh.close()  # and the lock with it: a refused file is left as it was
            raise

    # -- the key -------------------------------------------------------------------------

    def _new_key(self) -> bytes:
        return folder_key(self.path.parent, self.path.name, fresh=True)

    def _read_key(self) -> bytes | None:
        # None (missing, or not a key only this uid could have made): no line can be
        # trusted, every call is redone.
        return folder_key(self.path.parent, self.path.name)

    def _signed(self, body: str) -> bytes:
        return f"{self.fingerprint}\n{body}".encode()

    def _mac(self, body: str) -> str:
        return mac(self._key, self._signed(body))

    # -- reading -------------------------------------------------------------------------

    def _check_fresh(self) -> None:
        """A fresh run never writes over another audit's results: a file whose header has
        another fingerprint is refused (the same settings again is a restart, allowed; a
        file that is not a results file is left to the caller's choice, as before)."""
        self._fh.seek(0)
        header = _header_of(self._fh.readline().decode("utf-8", errors="replace").strip())
        if header is not None and header.get("fingerprint") != self.fingerprint:
            raise InputError(
                f"{self.path}, line 1 (its header): the results of another audit, which this run would overwrite "
                f"(settings that differ: {settings_difference(header.get('settings'), self.settings)}). "
                "Pass --results a new path, or delete this file to start over in it."
            )

    def _load(self) -> None:
        self._fh.seek(0)
        raw = self._fh.read()
        # Keep only whole lines: a write cut by kill -9 leaves a tail with no newline.
        whole = raw[: raw.rfind(b"\n") + 1]
        if len(whole) != len(raw):
            self._fh.truncate(len(whole))
        lines = whole.decode("utf-8", errors="replace").splitlines()
        header = _header_of(lines[0] if lines else "")
        if header is None:
            raise InputError(
                f"{self.path}: not a verifier-audit results file (no header line); remove it or pass another --results"
            )
        if header.get("fingerprint") != self.fingerprint:
            raise InputError(
                f"{self.path}, line 1 (its header): written by a different audit, whose verdicts are not this one's "
                f"(settings that differ: {settings_difference(header.get('settings'), self.settings)}). "
                "Resume with the settings it was written with, or start over: run without --resume "
                "(with --results, a new path, or delete this file)."
            )
        for line in lines[1:]:
            self._accept(line)

    def _accept(self, line: str) -> None:
        try:
            row = json.loads(line)
            recorded = row.pop("mac")
            verdict = Verdict.model_validate(row)
        except (ValueError, TypeError, KeyError, AttributeError):
            self.rejected["damaged"] += 1  # its call is simply redone
            return
        if not mac_matches(self._key, self._signed(to_json(verdict)), recorded):
            self.rejected["bad_mac"] += 1
            return
        key = (verdict.verifier, verdict.candidate_id)
        # A candidate shown in another answer format is "<id>@<format>" (engine/formats.py).
        base = (verdict.verifier, verdict.candidate_id.rpartition("@")[0])
        if self.known is not None and key not in self.known and base not in self.known:
            self.rejected["unknown"] += 1
        else:
            # A later line of the same call stands: the call was scored again in a fresh worker,
            # its first worker having been poisoned (engine/persistence.py). Every line is the
            # audit's own (signed), so a repeat is never someone else's.
            self.done[key] = verdict

    @property
    def warnings(self) -> list[str]:
        """One sentence per kind of line rejected on resume."""
        return [
            f"{self.path}: {n} line(s) {_REJECTED[kind]} were rejected; their calls are redone"
            for kind, n in sorted(self.rejected.items())
        ]

    # -- writing -------------------------------------------------------------------------

    def _write_line(self, text: str) -> None:
        self._fh.write(text.encode("ascii") + b"\n")
        self._fh.flush()  # in the kernel's hands now: survives kill -9 of this process

    def append(self, verdict: Verdict) -> None:
        body = to_json(verdict)
        self._write_line(body[:-1] + f', "mac": "{self._mac(body)}"}}')
        if self.remember:
            self.done[(verdict.verifier, verdict.candidate_id)] = verdict

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()  # and the lock with it


class ResumeIndex(MutableMapping):
    """The verdicts a resumed audit reads back, kept in a temporary SQLite file instead of
    a dict: a ``ResultsStore(done=ResumeIndex(folder))`` resumes a results file of millions
    of lines in bounded memory, and the caller looks up each candidate as it comes
    (``score``'s blocks). Counts the keys looked up, so what was never asked for (lines of
    candidates the audit does not have) can be told apart at the end. The file is removed
    by ``close``."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / "resume-index.sqlite"
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS v (name TEXT, cid TEXT, body TEXT, PRIMARY KEY (name, cid)) WITHOUT ROWID"
        )
        self._db.execute("BEGIN")  # one transaction while loading: committed by the first lookup
        self._loading = True
        self._got = 0  # lookups that found a verdict (each key is asked for once)

    def _commit(self) -> None:
        if self._loading:
            self._db.execute("COMMIT")
            self._loading = False

    def __setitem__(self, key: tuple[str, str], verdict: Verdict) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO v (name, cid, body) VALUES (?, ?, ?)", (key[0], key[1], to_json(verdict))
        )

    def __contains__(self, key) -> bool:
        return self._db.execute("SELECT 1 FROM v WHERE name = ? AND cid = ?", key).fetchone() is not None

    def __getitem__(self, key: tuple[str, str]) -> Verdict:
        self._commit()
        row = self._db.execute("SELECT body FROM v WHERE name = ? AND cid = ?", key).fetchone()
        if row is None:
            raise KeyError(key)
        self._got += 1
        return Verdict.model_validate(json.loads(row[0]))  # json: a lone surrogate reads back as written

    def __delitem__(self, key: tuple[str, str]) -> None:
        self._db.execute("DELETE FROM v WHERE name = ? AND cid = ?", key)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        self._commit()
        return iter(self._db.execute("SELECT name, cid FROM v").fetchall())

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM v").fetchone()[0]

    def unused(self) -> int:
        """Verdicts read back that no lookup asked for (when each key is asked for once)."""
        return len(self) - self._got

    def close(self) -> None:
        self._commit()
        self._db.close()
        try:
            self.path.unlink()
        except OSError:
            pass
