"""Errors a user can act on. The CLI turns them into exit code 2 and a one-paragraph message."""


class InputError(Exception):
    """Bad user input: a malformed suite, a wrong verifier spec, an invalid option.

    The message names the file (and line, where there is one) and says how to fix it.
    """


class VerifierLoadError(InputError):
    """A verifier spec that does not lead to a callable of a known call style."""
