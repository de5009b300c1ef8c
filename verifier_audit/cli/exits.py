"""The one place where an error becomes an exit code (``errors.ExitCode``).

Every subcommand's ``run`` is wrapped in ``mapped``, and ``app.main`` calls it through
``call``: a subcommand raises (``InputError``, ``PoolError``, ``Interrupted``) and never
writes a code or the error line itself. The wrapper sits on ``run`` rather than only in
``app.main`` because ``run`` is called on its own too (``python -m verifier_audit.cli.scan``,
the tests), and this module sits below the subcommands because ``app`` imports them: the
mapping in ``app`` would be an import circle.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable

from .._version import __version__
from ..engine.pool import PoolError
from ..errors import ExitCode, InputError, Interrupted

RESUME_HINT = "run the same command with --resume to continue"


def mapped(run: Callable[..., int]) -> Callable[..., int]:
    """``run`` with its errors turned into exit codes by ``call``."""

    @functools.wraps(run)
    def wrapper(args) -> int:
        return call(run, args)

    return wrapper


def call(run: Callable[..., int], args) -> int:
    """``run(args)``, its errors said on stderr and mapped: input errors (and a pool that
    cannot start) 2, Ctrl-C 130, a closed stdout 0, anything else 3 with the traceback."""
    try:
        return run(args)
    except (InputError, PoolError) as exc:
        print(f"verifier-audit: error: {exc}", file=sys.stderr)
        return ExitCode.INPUT
    except BrokenPipeError:
        # The reader went away (`verifier-audit catalog | head`): not an error. Point stdout
        # at /dev/null so the interpreter's own flush at exit does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except KeyboardInterrupt as exc:
        hint = exc.hint if isinstance(exc, Interrupted) else RESUME_HINT
        print(f"\nverifier-audit: interrupted; {hint}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception:  # noqa: BLE001 - the one place that turns a bug into exit 3
        traceback.print_exc()
        print(
            f"verifier-audit {__version__}: internal error (exit 3); please report it with the traceback above",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL
