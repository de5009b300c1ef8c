"""The rules, one module each, registered here in the order they are reported."""

from __future__ import annotations

from .._rule import Rule
from . import (
    exec_model_output,
    last_number_regex,
    relative_tolerance,
    signal_alarm,
    substring_match,
    swallowed_exception,
    unparseable_gold,
)

RULES: list[Rule] = [
    exec_model_output.RULE,
    substring_match.RULE,
    last_number_regex.RULE,
    signal_alarm.RULE,
    relative_tolerance.RULE,
    swallowed_exception.RULE,
    unparseable_gold.RULE,
]
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
