"""The audit's own files, out of the verifier's reach: the keys that sign what the audit
writes and reads back later, and the one way reports and other outputs are written.

Why a module of its own (a bottom one: the engine's results file and candidate cache and
every front end's reports use it). A daemon a verifier left behind once rewrote every
verdict of a results file with valid MACs (it could read ``<results>.key``), relabelled the
shared candidate cache and recomputed its plain ``_sha256`` (the next audit of the same
verifier reported a third of the debt, with no warning), and turned a ``--json`` report's
gate to passed; a report path that could not be written failed the audit only at its end,
and on a full disk replaced the previous report by a truncated one. So:

* **Keys** live in a folder of their own, ``.verifier-audit-keys`` beside what they sign
  (mode 0700, owned by the audit's uid), each key a file of mode 0600. At the ``namespaces``
  isolation level the verifier runs as another, unprivileged uid: it can neither list that
  folder nor read a key (nor, with every mount read-only but its work directory, write
  anything of the audit's). A folder or key not owned by the audit's uid, or open to
  others, is not trusted: a key no one else could have made is the point. At ``process``
  and ``none`` the verifier runs with the audit's uid and *can* read the keys: the MACs
  then catch edits by anything else (another user, a stale process, a disk), not by the
  verifier (docs/threat-model.md, "The audit's files").
* **Signed files** (``write_signed``/``read_signed``): the body, then a last line
  ``{"_hmac": HMAC-SHA256(key, body)}``; a body whose MAC does not match is warned about
  and not used (its caller regenerates it). The candidate cache and the answer-format
  label cache are written this way, under one key per cache folder; the results file signs
  each line under a key of its own (``engine/store.py``), from the same ``folder_key``.
* **Outputs** (reports, ``generate --out``) are checked before the audit starts
  (``check_output``: a directory, ``/proc`` or ``/sys``, a device, a parent that does not
  exist or cannot be written is an ``InputError`` naming the flag, the path and why: exit 2
  before any verifier runs) and written atomically (``write_output``: a temporary file in
  the same folder, fsync, ``os.replace``; the previous file's mode kept), so a full disk or
  a crash leaves the previous report whole and says so in one line (exit 2), never a
  traceback.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import tempfile
from pathlib import Path
from typing import Literal, overload

from .errors import InputError

KEYS_FOLDER = ".verifier-audit-keys"
_MAC_FIELD = "_hmac"
_SYSTEM_TREES = ("/proc", "/sys")  # kernel views: nothing there is a file a report can live in


# -- keys ------------------------------------------------------------------------------


def key_path(folder: str | os.PathLike, name: str) -> Path:
    """Where the key ``name`` of ``folder`` is kept: ``folder/.verifier-audit-keys/name.key``."""
    return Path(folder) / KEYS_FOLDER / f"{name}.key"


def _ours(st: os.stat_result, kind: int) -> bool:
    """A key folder or key file the audit can trust: of this kind, owned by the audit's
    uid, closed to group and others (anything else could have been made, or read, by
    someone else)."""
    return stat.S_IFMT(st.st_mode) == kind and st.st_uid == os.geteuid() and not st.st_mode & 0o077


def _keys_folder(folder: Path, *, create: bool) -> Path | None:
    where = folder / KEYS_FOLDER
    if create:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(where, 0o700)
        except FileExistsError:
            pass
    try:
        st = os.lstat(where)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o077:
        os.chmod(where, 0o700)  # ours, opened by someone (a umask, a chmod): closed again
        st = os.lstat(where)
    return where if _ours(st, stat.S_IFDIR) else None


def _read_key_file(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not _ours(os.fstat(fd), stat.S_IFREG):
            return None  # another uid's key, or one others could read: not a secret
        return bytes.fromhex(os.read(fd, 256).decode("ascii").strip()) or None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


# A fresh key is made or an InputError raised: never None (engine/store.py's _new_key).
@overload
def folder_key(folder: str | os.PathLike, name: str, *, create: bool = False, fresh: Literal[True]) -> bytes: ...


@overload
def folder_key(folder: str | os.PathLike, name: str, *, create: bool = False, fresh: bool = False) -> bytes | None: ...


def folder_key(folder: str | os.PathLike, name: str, *, create: bool = False, fresh: bool = False) -> bytes | None:
    """The key ``name`` of ``folder`` (32 random bytes), None when there is none the audit
    can trust. ``create``: make it when missing (two processes sharing a cache folder that
    make it at once end with the same key: the second one's link fails and it reads the
    first's). ``fresh``: replace it by a new one (a results file started over: nothing
    signed before may pass). A key that cannot be made is an InputError naming the folder."""
    folder = Path(folder)
    try:
        keys = _keys_folder(folder, create=create or fresh)
    except OSError as exc:
        raise InputError(
            f"{folder / KEYS_FOLDER}: cannot keep the audit's keys there ({exc.strerror}); "
            "pass a folder you can write (--results, VERIFIER_AUDIT_CACHE)"
        ) from None
    path = key_path(folder, name)
    if keys is None:
        if create or fresh:
            raise InputError(
                f"{folder / KEYS_FOLDER}: not a folder of this user's with mode 0700, so the keys in it "
                "cannot be trusted; remove it (the audit makes it again)"
            )
        return None
    if not fresh:
        key = _read_key_file(path)
        if key is not None or not create:
            return key
    key = secrets.token_bytes(32)
    fd, tmp = tempfile.mkstemp(dir=keys, prefix=f".{name}.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.hex().encode("ascii"))
            fh.flush()
            os.fsync(fh.fileno())
        if fresh:
            os.replace(tmp, path)
            return key
        try:
            os.link(tmp, path)  # never over a key another process made meanwhile
        except FileExistsError:
            return _read_key_file(path)
        return key
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def mac(key: bytes | None, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under ``key`` (no key: the empty one, which nothing the
    audit signed matches)."""
    return hmac.new(key or b"", data, hashlib.sha256).hexdigest()


def mac_matches(key: bytes | None, data: bytes, recorded: object) -> bool:
    return key is not None and isinstance(recorded, str) and hmac.compare_digest(recorded, mac(key, data))


# -- signed cache files ------------------------------------------------------------------


def write_signed(path: Path, body: bytes, *, key_name: str = "cache") -> None:
    """Write ``body`` and its MAC line atomically (a concurrent reader never sees half a
    file), mode 0600 (what is cached holds labels), under the key ``key_name`` of the
    file's folder, made when missing. A folder whose key this user cannot have (another
    user's cache) is warned about and left as it is: the next run regenerates instead."""
    try:
        key = folder_key(path.parent, key_name, create=True)
    except InputError as exc:
        print(f"verifier-audit: warning: {exc}; {path.name} is not cached", file=sys.stderr)
        return
    try:
        write_atomic(path, body + json.dumps({_MAC_FIELD: mac(key, body)}).encode("ascii") + b"\n", mode=0o600)
    except OSError as exc:  # a full disk: the audit goes on uncached, the old file (if any) kept
        print(f"verifier-audit: warning: {path}: cannot write ({exc.strerror or exc}); not cached", file=sys.stderr)


def read_signed(path: Path, what: str, *, key_name: str = "cache") -> bytes | None:
    """The body of a file ``write_signed`` wrote, when its MAC matches; None when it is
    missing (quietly) or does not match (a warning on stderr naming ``what`` and why: the
    caller regenerates it)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None  # not written yet
    head, newline, last = data.removesuffix(b"\n").rpartition(b"\n")
    body = head + newline
    try:
        recorded = json.loads(last).get(_MAC_FIELD) if last.startswith(b"{") else None
    except (ValueError, AttributeError):
        recorded = None
    key = folder_key(path.parent, key_name)
    if mac_matches(key, body, recorded):
        return body
    why = (
        "has no key the audit can trust (the key folder is missing, or not this user's)"
        if key is None
        else "has no signature"
        if recorded is None
        else "does not match its signature (written or edited by something other than the audit)"
    )
    print(f"verifier-audit: warning: {what} {path} {why}: regenerating it", file=sys.stderr)
    return None


# -- outputs -----------------------------------------------------------------------------


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """``path`` holds ``data`` whole, or what it held before: a temporary file in the same
    folder, fsync'd, renamed over it. Its mode: ``mode``, else the previous file's, else
    what a plain ``open`` would give (0666 less the umask)."""
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def check_output(flag: str, path: str | os.PathLike, *, folder: bool = False, parents: bool = False) -> Path:
    """``path`` as given, when a report can be written there; else an InputError naming
    the flag, the path and why -- raised before the audit starts, so no audit is thrown
    away at its end. ``folder``: ``path`` is a folder (``--report-dir``) made here when
    missing. ``parents``: a missing parent folder is made (``--results``, which always
    made its folders) instead of refused."""
    path = Path(path)
    real = os.path.realpath(path)
    for tree in _SYSTEM_TREES:
        if real == tree or real.startswith(tree + "/"):
            raise InputError(
                f"{flag} {path}: under {tree}, a view of the kernel, not a place for a file; pass a "
                "path in a folder of yours"
            )
    if folder:
        if path.exists() and not path.is_dir():
            raise InputError(f"{flag} {path}: not a folder; pass a folder (it is made when missing)")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{flag} {path}: cannot make this folder ({exc.strerror}); pass another") from None
        _probe(flag, path, path)
        return path
    if path.is_dir():
        raise InputError(f"{flag} {path}: a folder, not a file; pass a file path such as {path / 'report.json'}")
    if path.exists() and not path.is_file():
        raise InputError(f"{flag} {path}: not a regular file (a device, pipe or socket); pass a file path")
    parent = path.parent
    if parents and not parent.exists():
        try:
            parent.mkdir(parents=True)
        except OSError as exc:
            raise InputError(
                f"{flag} {path}: cannot make its folder {parent} ({exc.strerror}); pass another path"
            ) from None
    if not parent.is_dir():
        raise InputError(f"{flag} {path}: its folder {parent} does not exist; make it first or pass another path")
    _probe(flag, path, parent)
    return path


def _probe(flag: str, path: Path, parent: Path) -> None:
    """Make and remove an empty temporary file in ``parent``: what ``write_atomic`` will
    need (permissions, a read-only mount, a full inode table), asked now."""
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=".verifier-audit.", suffix=".probe")
    except OSError as exc:
        raise InputError(
            f"{flag} {path}: cannot write in {parent} ({exc.strerror}); pass a path in a folder you can write"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def write_output(flag: str, path: str | os.PathLike, text: str | bytes, *, mode: int | None = None) -> None:
    """Write an output the user asked for (a report, ``generate --out``) through
    ``write_atomic``; a failure (a full disk, a file size limit, the folder gone) is an
    InputError naming the flag and the path and saying the previous file is intact."""
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        write_atomic(path, data, mode=mode)
        sign_output(path, data)
    except OSError as exc:
        kept = "the previous file is left as it was" if path.is_file() else "nothing was written"
        raise InputError(
            f"{flag} {path}: cannot write ({exc.strerror or exc}); {kept}. Free space or pass "
            "another path, then run again"
        ) from None


# -- reports' signatures -----------------------------------------------------------------


def _signature_path(path: Path) -> Path:
    return path.parent / KEYS_FOLDER / f"{path.name}.mac"


def sign_output(path: Path, data: bytes) -> None:
    """Keep the MAC of an output the audit wrote beside it, under its folder's ``reports``
    key (``.verifier-audit-keys/<name>.mac``, 0600), so that whoever reads it later
    (``checklist``, ``diff``) can tell an edit by anything else. A folder where no key can
    be kept leaves the output unsigned, which ``output_edited`` does not call an edit."""
    try:
        key = folder_key(path.parent, "reports", create=True)
        write_atomic(_signature_path(path), mac(key, data).encode("ascii"), mode=0o600)
    except (InputError, OSError):
        pass


def output_edited(path: str | os.PathLike) -> str | None:
    """A warning when ``path`` is an output the audit signed and its bytes no longer match
    (the report was edited after the audit: a gate flipped to passed); None when it matches
    or carries no signature (a report written elsewhere, or before signatures)."""
    path = Path(path)
    try:
        recorded = _signature_path(path).read_text(encoding="ascii").strip()
        data = path.read_bytes()
    except (OSError, UnicodeDecodeError):
        return None
    if mac_matches(folder_key(path.parent, "reports"), data, recorded):
        return None
    return (
        f"{path} was changed after verifier-audit wrote it (it does not match the signature the audit "
        f"kept in {_signature_path(path)}): do not trust it; run the audit again"
    )
