"""AuditSettings: every option of an audit declared once.

One row per option: its key in ``[tool.verifier_audit]`` (dotted), its flag, the default
as the docs say it and as ``plan`` applies it, its range (an ``argtypes`` check) and the
front ends that offer it (``run``, ``score``, ``generate``, the Python API, the pytest
plugin). What used to be spelled out six to eight times is derived from here:

* ``config.py``: the model's field types and ranges (``config_type``), the defaults of
  ``ProjectConfig``, the key <-> flag table behind docs/config.md, the plugin's option
  names and its ``reproduce:`` flags;
* ``plan.py``: the ranges every front end's values are checked against (``RANGES``) and
  the built-in defaults (``default``), so the CLI, the plugin, ``score`` and the API mean
  the same by an option they do not give;
* ``cli/options.py`` and ``cli/score.py``: the names of the options they hand to ``plan``.

The argparse flags themselves (with their help, which docs/config.md quotes) are still
written in ``cli/``; tests/cli/test_settings.py fails when a front end's flags, their types
or the API's keyword arguments disagree with this table. A new option is one row here,
its flag in the parser and its field in ``config.ProjectConfig``.

Bottom layer: this module imports only ``argtypes`` and ``models`` (the gate's defaults
live on ``GateConfig``), so ``config.py``, ``plan.py`` and ``cli/`` use it without the
engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import argtypes
from .models import GateConfig

# The front ends an option can be given through.
RUN, SCORE, GENERATE, API, PLUGIN = "run", "score", "generate", "api", "plugin"
FRONT_ENDS = (RUN, SCORE, GENERATE, API, PLUGIN)
_SUITE = frozenset({RUN, GENERATE, API, PLUGIN})  # what is read: not ``score`` (its samples say)
_CALLS = frozenset(FRONT_ENDS)  # how calls run: every front end that runs a verifier or an oracle
_VERDICTS = frozenset({RUN, SCORE, API, PLUGIN})  # verdicts and gate: not ``generate`` (no verifier)
_AUDIT = frozenset({RUN, API, PLUGIN})  # what only an audit of candidates has

#: worker processes when nothing says: the cores, at most 8
DEFAULT_WORKERS = max(1, min(os.cpu_count() or 2, 8))


def _gate(name: str) -> Any:
    """A gate option's default: GateConfig's, the one place the gate's thresholds live."""
    return GateConfig.model_fields[name].default


@dataclass(frozen=True)
class Setting:
    """One option of an audit: its key of [tool.verifier_audit], its flag, its default,
    its range and where it can be given.

    ``name`` is the key as written in the file, dotted: "gate.max_debt", "verifiers[].style".
    ``default`` says in words what applies when nothing says (docs/config.md); ``value`` is
    that default as ``plan`` applies it (None: none, or one decided later, e.g. the code
    domain's own timeout). ``check`` is the range of the command line (``argtypes``), which
    the file, ``plan`` and the API check too; ``many``: repeatable, checked item by item."""

    name: str
    flag: str
    default: str
    option: str = ""  # its name among plan's options when not the key's last part ("origins" for only)
    check: Callable[[Any], Any] | None = None
    value: Any = None
    fronts: frozenset = _AUDIT
    many: bool = False

    @property
    def option_name(self) -> str:
        """The name among plan's options (given_options, the plugin's and the API's keyword
        arguments)."""
        return self.option or self.name.rpartition(".")[2]

    @property
    def value_type(self) -> type:
        """The type of one value, as the range's check casts it (``int`` for ``workers``)."""
        return {"int": int, "float": float, "str": str}[self.check.__name__] if self.check else str


AUDIT_SETTINGS = (
    Setting("verifiers[].spec", "--verifier", "none: the suite's reference verifiers side by side, no gate",
            fronts=frozenset({RUN, SCORE}), many=True),
    Setting("verifiers[].style", "--style", "auto", value="auto", fronts=frozenset({RUN, SCORE, API, PLUGIN})),
    Setting("verifiers[].options", "--verifier-option", "none", fronts=frozenset({RUN, SCORE, API}), many=True),
    Setting("suite", "--suite", "math", value="math", fronts=_CALLS),
    Setting("format", "--format", "jsonl", value="jsonl", fronts=_SUITE),
    Setting("db_dir", "--db-dir", "beside the suite's JSON", fronts=_SUITE),
    Setting("fields", "--field", "none", fronts=_SUITE, many=True),
    Setting("domain", "--domain", "what the suite's lines say, else math", fronts=_SUITE),
    Setting("split", "--split", "every split", fronts=_SUITE),
    Setting("limit", "--limit", "every task", check=argtypes.positive_int, fronts=_SUITE),
    Setting("seed", "--seed", "0", value=0, fronts=_CALLS),
    Setting("workers", "--workers", "the cores, at most 8", check=argtypes.workers, value=DEFAULT_WORKERS,
            fronts=_CALLS),
    Setting("oracle_timeout", "--oracle-timeout", "10", check=argtypes.positive_float, value=10.0, fronts=_CALLS),
    Setting("memory_mb", "--memory-mb", "4096", check=argtypes.memory_mb, value=4096, fronts=_CALLS),
    Setting("isolation", "--isolation", "the strongest this machine gives", fronts=_CALLS),
    Setting("inspect_timeout", "--inspect-timeout", "30", check=argtypes.positive_float, fronts=_CALLS),
    # file_mb and max_processes: the engine's limits apply when nothing says (engine/limits.py)
    Setting("file_mb", "--file-mb", "1024", check=argtypes.file_mb, fronts=_CALLS),
    Setting("max_processes", "--max-processes", "1024", check=argtypes.max_processes, fronts=_CALLS),
    Setting("pass_env", "--pass-env", "none", check=argtypes.env_name, fronts=_CALLS, many=True),
    Setting("executor", "--executor", "local", value="local", fronts=_CALLS),
    Setting("ray_address", "--ray-address", "RAY_ADDRESS, else a local cluster", fronts=_CALLS),
    Setting("only", "--only", "every origin", option="origins", fronts=_SUITE, many=True),
    Setting("timeout", "--timeout", "10 (the code domain: 4)", check=argtypes.positive_float, fronts=_VERDICTS),
    Setting("threshold", "--threshold", "0.5", check=argtypes.rate, value=0.5, fronts=_VERDICTS),
    Setting("gate.max_debt", "--max-debt", "0.05", check=argtypes.rate, value=_gate("max_debt"), fronts=_VERDICTS),
    Setting("gate.max_category", "--max-category", "0.5", check=argtypes.rate, value=_gate("max_category"),
            fronts=_VERDICTS),
    Setting("gate.max_false_rejection", "--max-false-rejection", "0.10", check=argtypes.rate,
            value=_gate("max_false_rejection"), fronts=_VERDICTS),
    Setting("gate.max_error_rate", "--max-error-rate", "0.05", check=argtypes.rate, value=_gate("max_error_rate"),
            fronts=_VERDICTS),
    Setting("gate.max_retry_rate", "--max-retry-rate", "0.05", check=argtypes.rate, value=_gate("max_retry_rate"),
            fronts=_VERDICTS),
    Setting("gate.min_slice_n", "--min-slice-n", "10", check=argtypes.positive_int, value=_gate("min_slice_n")),
    Setting("search", "--search", "0 (no search)", check=argtypes.nonnegative_int, value=0),
    Setting("weights_from", "--weights-from", "none"),
    Setting("slice_field", "--slice-field", "slice", value="slice"),
    Setting("probe_sample", "--probe-sample", "24", check=argtypes.nonnegative_int, value=24,
            fronts=frozenset({RUN, SCORE, API, PLUGIN})),
    Setting("answer_formats", "--no-format-probe", "true (false is --no-format-probe)", value=True),
    Setting("waivers[].category", "--waive", "none", option="waive", fronts=_VERDICTS, many=True),
    Setting("report_dir", "--report-dir", "none", fronts=frozenset({RUN})),
)

#: the settings that are keys of [tool.verifier_audit] (today: every one)
KEYS = tuple(s for s in AUDIT_SETTINGS if s.name)

#: ``run`` flags with no key, and why a project file should not say them.
COMMAND_LINE_ONLY = {
    "--config": "which file to read cannot be said inside it",
    "--no-config": "which file to read cannot be said inside it",
    "--no-cache": "a one-off: the candidate cache is keyed by content, so a project never needs to skip it",
    "--json": "one report file of one run; report_dir writes every format",
    "--markdown": "one report file of one run; report_dir writes every format",
    "--junit": "one report file of one run; report_dir writes every format",
    "--html": "one report file of one run; report_dir writes every format",
    "--sarif": "one report file of one run; report_dir writes every format",
    "--results": "where one run streams its verdicts (default: the cache, named by what decides them)",
    "--resume": "continues one interrupted run; said in a file, every run would take up old verdicts",
    "--all-categories": "how this terminal shows the report, not what is audited",
    "--by-task": "how this terminal shows the report, not what is audited",
    "--no-progress": "how this terminal shows the audit, not what is audited",
    "--quiet": "how this terminal shows the report, not what is audited",
    "--color": "how this terminal shows the report, not what is audited (NO_COLOR and FORCE_COLOR are read)",
}

_BY_OPTION = {s.option_name: s for s in AUDIT_SETTINGS}

#: option name -> its range, for the values a front end passes as values (plan.check_ranges)
RANGES = {s.option_name: s for s in AUDIT_SETTINGS if s.check is not None}


def setting(option: str) -> Setting:
    """The setting of an option name ("max_debt", "origins")."""
    return _BY_OPTION[option]


def default(option: str) -> Any:
    """The built-in default ``plan`` applies to an option nothing set."""
    return _BY_OPTION[option].value


def settings_of(front: str) -> tuple[Setting, ...]:
    """The settings a front end offers, in the table's order."""
    return tuple(s for s in AUDIT_SETTINGS if front in s.fronts)


def argparse_dest(s: Setting) -> str:
    """Where argparse keeps a setting's flag: ``--max-debt`` in ``max_debt``."""
    return {"--verifier-option": "verifier_options"}.get(s.flag, s.flag[2:].replace("-", "_"))
