"""Errors a user can act on, and the exit codes every subcommand ends with. The CLI turns an
error into exit code 2 and a one-paragraph message (``cli/exits.py``, the one mapping)."""

from enum import IntEnum


class ExitCode(IntEnum):
    """How ``verifier-audit`` ends, the same for every subcommand. Here, at the bottom, so that
    the front ends and the pipelines they call name the codes and never write a number."""

    OK = 0  # the gate passed (no alarm, no finding, nothing open)
    GATE = 1  # the gate failed: an alarm, a finding, an open item
    INPUT = 2  # usage or input error: the message names the file, the line and the fix
    INTERNAL = 3  # a bug: the traceback is printed, with a request to report it
    INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT (128 + 2)


class InputError(Exception):
    """Bad user input: a malformed suite, a wrong verifier spec, an invalid option.

    The message names the file (and line, where there is one) and says how to fix it.
    """


class VerifierLoadError(InputError):
    """A verifier spec that does not lead to a callable of a known call style."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during work that resumes in its own way: ``hint`` says how (``sample``: run the
    same command again). A plain KeyboardInterrupt gets the ``--resume`` hint."""

    def __init__(self, hint: str):
        super().__init__(hint)
        self.hint = hint
