"""The front end ``verifier-audit``: one module per subcommand, each with ``add_parser``
(its arguments) and ``run`` (the glue that calls the work and turns it into output and an
exit code); the work itself lives in the layers below (engine, report, samples, monitor,
scan).

    app.py        the top parser, the subcommands in order
    exits.py      errors to exit codes (errors.ExitCode), the one mapping: each ``run`` is wrapped
    options.py    the flags several subcommands share
    run.py generate.py diff.py checklist.py scan.py sample.py logprobs.py score.py
    import_.py compare.py monitor.py catalog.py   one subcommand each

``main`` is the console script (pyproject: ``verifier-audit = "verifier_audit.cli:main"``)
and ``python -m verifier_audit``. A new subcommand is a module here with ``add_parser`` and
``run``, named in ``app.SUBCOMMANDS``.

``main`` and ``build_parser`` load ``app`` when called, not when this package is imported,
so that ``python -m verifier_audit.cli.scan`` (``checklist``, ``monitor``) runs its module
without the package having imported it first.
"""

__all__ = ["build_parser", "main"]


def build_parser():
    """The ``verifier-audit`` parser, every subcommand on it (``app.build_parser``)."""
    from .app import build_parser as build

    return build()


def main(argv=None) -> int:
    """Run ``verifier-audit`` on ``argv`` (default: the command line); the exit code (``app.main``)."""
    from .app import main as run_command

    return run_command(argv)
