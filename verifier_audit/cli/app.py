"""The ``verifier-audit`` command: the top parser, one subcommand per module of this
package (``SUBCOMMANDS``, in the order ``--help`` lists them), and ``main``, which runs one
through ``exits.call``.

Exit codes: ``errors.ExitCode`` (0 gate passed, 1 gate failed, 2 usage or input error: the
message names the file, the line and what is wrong, 3 internal error, 130 interrupted);
errors become codes in ``exits.call`` only.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .._version import __version__
from ..errors import ExitCode
from . import catalog, checklist, compare, diff, generate, import_, logprobs, monitor, run, sample, scan, score
from .exits import call

# name: the module that adds its parser (``add_parser``) and runs it (``run``)
SUBCOMMANDS = {
    "run": run,
    "generate": generate,
    "diff": diff,
    "checklist": checklist,
    "scan": scan,
    "sample": sample,
    "logprobs": logprobs,
    "score": score,
    "import": import_,
    "compare": compare,
    "monitor": monitor,
    "catalog": catalog,
}


class _Parser(argparse.ArgumentParser):
    """A usage error is its one line and where the help is, not argparse's usage block
    (which runs to twenty lines for ``run``). Subcommands' parsers are of this class too:
    add_subparsers makes them of the parent's class."""

    def error(self, message: str):
        self.exit(ExitCode.INPUT, f"{self.prog}: error: {message}{_choice_hint(message)}\ntry '{self.prog} --help'\n")

    def parse_args(self, args=None, namespace=None):
        # argparse reports a subcommand's unknown options from the top parser ("try
        # 'verifier-audit --help'"); the subcommand's own parser points at the right help.
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = getattr(parsed, "command", None)
            owner = self.commands.choices.get(command, self) if getattr(self, "commands", None) else self
            owner.error(f"unrecognized arguments: {' '.join(extra)}{owner.suggestion(extra)}")
        return parsed

    def suggestion(self, extra: Sequence[str]) -> str:
        """ "; did you mean --limit?" for each unknown flag close to one of this parser's own
        option strings (difflib, as the waivers' misspelt categories get), else ""."""
        import difflib

        known = [o for o in self._option_string_actions if o.startswith("--")]
        pairs = []
        for arg in extra:
            flag = arg.partition("=")[0]
            if flag.startswith("--") and flag not in known:
                pairs += [(flag, close) for close in difflib.get_close_matches(flag, known, n=1, cutoff=0.6)]
        if len(pairs) == 1:
            return f"; did you mean {pairs[0][1]}?"
        return "".join(f"; {flag}: did you mean {close}?" for flag, close in pairs)


def _choice_hint(message: str) -> str:
    """ "; did you mean 'run'?" after argparse's "invalid choice: 'rn' (choose from ...)" (a
    subcommand, a --style, a --format), when one of the choices is close; else ""."""
    import difflib
    import re

    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if not found:
        return ""
    close = difflib.get_close_matches(found.group(1), re.findall(r"'([^']*)'", found.group(2)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="verifier-audit",
        description="Measure how much a reward verifier can be fooled (false acceptance, false rejection, coverage debt).",
    )
    parser.add_argument("--version", action="version", version=f"verifier-audit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub  # for parse_args: which subcommand's help to point at
    for module in SUBCOMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return ExitCode.INPUT
    return call(SUBCOMMANDS[args.command].run, args)
