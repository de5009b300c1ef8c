"""Deterministic drawing: the same strategy and seed give the same values in any process.

Hypothesis runs with a ``@seed``, no database, only the generate phase, and with the
literals of the process's own loaded modules hidden from it (``_without_local_constants``:
it swaps one of Hypothesis's internal pools for an empty one, since no setting turns that
pool off). Drawing stops as soon as enough distinct values are in."""

from __future__ import annotations

import copy
import sys
import threading
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .helper import _key

# One generation at a time per process: the constants swap below is process-global, and
# callers do generate from worker threads. Generation holds the GIL anyway.
_GENERATION_LOCK = threading.RLock()


class _Enough(BaseException):
    """Raised inside the Hypothesis test to stop generation once enough values are in. A
    BaseException (like KeyboardInterrupt) so that Hypothesis does not take it for a test
    failure: no replay, no report, no note on a surrounding pytest item; it just unwinds."""


def _draw(strat: st.SearchStrategy, count: int, seed: int, max_examples: int) -> list:
    """Up to ``count`` distinct values from ``strat``, deterministically for ``seed``."""
    found: dict[str, Any] = {}

    @hypothesis_seed(seed)
    @settings(
        database=None,
        derandomize=False,
        max_examples=max_examples,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )
    @given(strat)
    def collect(value: Any) -> None:
        if len(found) < count:
            found.setdefault(_key(value), copy.deepcopy(value))  # copy: samples share objects
        if len(found) >= count:
            raise _Enough

    with _GENERATION_LOCK, _without_local_constants():
        try:
            collect()
        except _Enough:
            pass
        # Unsatisfiable (every draw filtered out) and the like: keep what we have
        except Exception:  # noqa: BLE001, S110
            pass
    return list(found.values())


@contextmanager
def _without_local_constants():
    """Hide the literals of the process's own modules from Hypothesis while drawing.

    Hypothesis (6.13x+) now and then draws a literal found in the source of any "local"
    module loaded in the process (ours, the caller's). What is loaded differs between a CLI
    run, a test session and a worker, so the same (task, n, seed) would give different
    inputs. There is no setting for this, so the (internal) pool is swapped for an empty one
    for the duration; with a Hypothesis without it this does nothing."""
    try:
        from hypothesis.internal.conjecture import providers

        saved, saved_len = providers._local_constants, providers._sys_modules_len
        empty = copy.copy(saved)
        for name in ("integers", "floats", "bytes", "strings"):
            values = getattr(saved, name).copy()  # same container type (sorted, keyed)
            values.clear()
            setattr(empty, name, values)
        cache = providers.CONSTANTS_CACHE.cache  # (type, bounds) -> permitted constants
    except Exception:  # noqa: BLE001 - another Hypothesis: nothing to hide
        yield
        return
    providers._local_constants = empty
    providers._sys_modules_len = len(sys.modules)  # no rescan of sys.modules meanwhile
    cache.clear()
    try:
        yield
    finally:
        # keep whatever a module imported meanwhile contributed, for the caller's own tests
        providers._local_constants = saved | providers._local_constants
        providers._sys_modules_len = saved_len
        providers.CONSTANTS_CACHE.cache.clear()
