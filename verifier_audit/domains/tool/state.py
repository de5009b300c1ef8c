"""Small simulated environments, so a task can be judged by its outcome as well as its calls.

A task's ``metadata["state"]`` is the initial state; each tool is a pure function
``(state, arguments) -> new state`` (the input is never changed). Three environments:

* **file store** ``{"files": {path: content}}``: ``read_file``, ``list_files`` (no effect),
  ``write_file(path, content)``, ``move_file(source, destination)``, ``delete_file(path)``
  (a ``*``/``?`` glob in the path deletes every match, as a shell would), ``delete_all_files
  (directory)`` (everything under it), ``sudo_delete(path)`` (admin: as delete_file),
  ``share_file`` (no effect on contents; recorded under ``"shares"``). Paths are normalised
  (``/a/b/../c`` is ``/a/c``).
* **calendar** ``{"events": {event_id: {"title", "date", "start_time", "duration_minutes"}}}``:
  ``list_events`` (no effect), ``create_event(title, date, start_time, duration_minutes)``
  (the new id is ``"<date>T<start_time>"``, so parallel creations do not depend on order),
  ``reschedule_event(event_id, date, start_time)``, ``delete_event(event_id)``,
  ``delete_all_events(date)``, ``admin_clear_calendar()``.
* **bank** ``{"accounts": {account_id: balance}}``: ``get_balance``, ``list_transactions``
  (no effect), ``transfer(from_account, to_account, amount)`` (fails on an unknown account
  or insufficient funds), ``admin_set_balance(account_id, amount)``.

A call the environment cannot carry out (a missing file, an unknown account) is a
``SimulationError``: the oracle reads it as a wrong answer. Arguments arrive normalised by
``schema.normalise_call`` (defaults filled in).
"""

from __future__ import annotations

import copy
import fnmatch
import json
import posixpath
from collections.abc import Callable, Iterable
from typing import Any

from .calls import Call


class SimulationError(ValueError):
    """The environment cannot carry out the call."""


def _norm_path(path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise SimulationError(f"path {path!r} is not a path")
    return posixpath.normpath(path if path.startswith("/") else "/" + path)


def _dir(path: Any) -> str:
    return _norm_path(path).rstrip("/") + "/"


# ----------------------------------------------------------------------------- file store


def _files(state: dict) -> dict:
    files = state.setdefault("files", {})
    if not isinstance(files, dict):
        raise SimulationError("the state's files are not a mapping")
    return files


def _no_effect(state: dict, args: dict) -> dict:
    return state


def _read_file(state: dict, args: dict) -> dict:
    if _norm_path(args.get("path")) not in _files(state):
        raise SimulationError(f"no file {args.get('path')!r}")
    return state


def _write_file(state: dict, args: dict) -> dict:
    _files(state)[_norm_path(args.get("path"))] = args.get("content", "")
    return state


def _move_file(state: dict, args: dict) -> dict:
    files = _files(state)
    src, dst = _norm_path(args.get("source")), _norm_path(args.get("destination"))
    if src not in files:
        raise SimulationError(f"no file {src!r}")
    if dst.endswith("/") or dst in {p.rsplit("/", 1)[0] for p in files}:
        dst = dst.rstrip("/") + "/" + posixpath.basename(src)
    files[dst] = files.pop(src)
    return state


def _delete_file(state: dict, args: dict) -> dict:
    files = _files(state)
    raw = args.get("path")
    pattern = _norm_path(raw)
    matched = (
        [p for p in files if fnmatch.fnmatchcase(p, pattern)]
        if any(c in pattern for c in "*?[")
        else [pattern]
        if pattern in files
        else []
    )
    if not matched:
        raise SimulationError(f"no file {raw!r}")
    for p in matched:
        del files[p]
    return state


def _delete_all_files(state: dict, args: dict) -> dict:
    files = _files(state)
    prefix = _dir(args.get("directory", "/"))
    for p in [p for p in files if p.startswith(prefix)]:
        del files[p]
    return state


def _share_file(state: dict, args: dict) -> dict:
    path = _norm_path(args.get("path"))
    if path not in _files(state):
        raise SimulationError(f"no file {path!r}")
    shares = state.setdefault("shares", {})
    shares.setdefault(path, {})[str(args.get("user"))] = args.get("role", "viewer")
    return state


# ----------------------------------------------------------------------------- calendar


def _events(state: dict) -> dict:
    events = state.setdefault("events", {})
    if not isinstance(events, dict):
        raise SimulationError("the state's events are not a mapping")
    return events


def _create_event(state: dict, args: dict) -> dict:
    events = _events(state)
    event_id = f"{args.get('date')}T{args.get('start_time')}"
    if event_id in events:
        raise SimulationError(f"an event already starts at {event_id}")
    events[event_id] = {
        "title": args.get("title"),
        "date": args.get("date"),
        "start_time": args.get("start_time"),
        "duration_minutes": args.get("duration_minutes", 60),
    }
    return state


def _event(state: dict, args: dict) -> tuple[dict, str]:
    events = _events(state)
    event_id = args.get("event_id")
    if event_id not in events:
        raise SimulationError(f"no event {event_id!r}")
    return events, event_id


def _delete_event(state: dict, args: dict) -> dict:
    events, event_id = _event(state, args)
    del events[event_id]
    return state


def _reschedule_event(state: dict, args: dict) -> dict:
    events, event_id = _event(state, args)
    event = events[event_id]
    event.update(date=args.get("date", event["date"]), start_time=args.get("start_time", event["start_time"]))
    return state


def _delete_all_events(state: dict, args: dict) -> dict:
    events = _events(state)
    for event_id in [i for i, e in events.items() if "date" not in args or e.get("date") == args["date"]]:
        del events[event_id]
    return state


def _admin_clear_calendar(state: dict, args: dict) -> dict:
    _events(state).clear()
    return state


# ----------------------------------------------------------------------------- bank


def _accounts(state: dict) -> dict:
    accounts = state.setdefault("accounts", {})
    if not isinstance(accounts, dict):
        raise SimulationError("the state's accounts are not a mapping")
    return accounts


def _transfer(state: dict, args: dict) -> dict:
    accounts = _accounts(state)
    src, dst, amount = args.get("from_account"), args.get("to_account"), args.get("amount")
    if src not in accounts or dst not in accounts:
        raise SimulationError(f"unknown account in {src!r} -> {dst!r}")
    if src == dst:
        raise SimulationError("a transfer to the same account")
    if not isinstance(amount, (int, float)) or isinstance(amount, bool) or amount <= 0:
        raise SimulationError(f"amount {amount!r} is not a positive number")
    if accounts[src] < amount:
        raise SimulationError(f"insufficient funds in {src!r}")
    accounts[src] = round(accounts[src] - amount, 2)
    accounts[dst] = round(accounts[dst] + amount, 2)
    return state


def _admin_set_balance(state: dict, args: dict) -> dict:
    accounts = _accounts(state)
    if args.get("account_id") not in accounts:
        raise SimulationError(f"unknown account {args.get('account_id')!r}")
    accounts[args["account_id"]] = round(float(args.get("amount", 0)), 2)
    return state


TOOLS: dict[str, Callable[[dict, dict], dict]] = {
    "read_file": _read_file,
    "list_files": _no_effect,
    "write_file": _write_file,
    "move_file": _move_file,
    "delete_file": _delete_file,
    "delete_all_files": _delete_all_files,
    "sudo_delete": _delete_file,
    "share_file": _share_file,
    "list_events": _no_effect,
    "create_event": _create_event,
    "reschedule_event": _reschedule_event,
    "delete_event": _delete_event,
    "delete_all_events": _delete_all_events,
    "admin_clear_calendar": _admin_clear_calendar,
    "get_balance": _no_effect,
    "list_transactions": _no_effect,
    "transfer": _transfer,
    "admin_set_balance": _admin_set_balance,
}


def simulate(calls: Iterable[Call], state: dict, read_only: Iterable[str] = ()) -> dict:
    """The state after the calls, in order. A tool without a simulator is an error unless
    it is named in ``read_only`` (the task's read-privilege tools: no effect)."""
    out = copy.deepcopy(state)
    quiet = set(read_only)
    for call in calls:
        tool = TOOLS.get(call.name)
        if tool is None:
            if call.name in quiet:
                continue
            raise SimulationError(f"{call.name}: no simulator for this tool")
        out = tool(out, dict(call.arguments))
    return out


def canonical_state(state: dict) -> str:
    """The state as canonical text (sorted keys; 1 and 1.0 the same)."""
    return json.dumps(_num(state), sort_keys=True, ensure_ascii=False)


def _num(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _num(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_num(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
