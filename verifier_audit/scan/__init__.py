"""``verifier-audit scan``: read a verifier's source and flag what reviewers look for.

The code is parsed with ``ast``, never imported or run (it is the code under review). Each
rule (``RULES``) is a small function over a parsed function; ``confirm`` then holds its
findings against an audit report of the same verifier: what the audit saw confirms a
finding, what it measured and found sound does not, the rest stays unknown.

    >>> from verifier_audit.scan import scan_source
    >>> [f.rule for f in scan_source("examples/executes_output.py")]  # doctest: +SKIP
    ['last-number-regex', 'exec-model-output']

docs/scan.md describes each rule, its limits and the command.
"""

from ..models import SourceFinding
from ._confirm import confirm
from ._literals import MAX_LITERALS, compared_literals
from ._rule import Rule
from ._rules import RULES, RULES_BY_ID
from ._scanner import Scan, scan_file, scan_source, scan_target, scan_text
from ._targets import ScanError

__all__ = [
    "MAX_LITERALS",
    "RULES",
    "RULES_BY_ID",
    "Rule",
    "Scan",
    "ScanError",
    "SourceFinding",
    "compared_literals",
    "confirm",
    "scan_file",
    "scan_source",
    "scan_target",
    "scan_text",
]
