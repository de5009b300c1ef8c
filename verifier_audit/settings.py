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
* ``cli/options.py`` and ``cli/score.py``: the names of the options they hand to ``plan``;
* ``cli/options.py`` (``add_settings``): the argparse flags of ``run``, ``score``,
  ``generate`` (and ``compare``'s executor flags), each built from its row: help,
  metavar, choices, type, repeatable, argument group. The help is part of the
  declaration: ``--help`` and docs/config.md quote it.

tests/cli/test_settings.py fails when a front end's flags, their types or help, or the API's
keyword arguments disagree with this table. A new option is one row here (with its help
and group) and its field in ``config.ProjectConfig``.

Bottom layer: this module imports only ``argtypes`` and ``models`` (the gate's defaults
live on ``GateConfig``), so ``config.py``, ``plan.py`` and ``cli/`` use it without the
engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
    # -- the flag (cli/options.py add_settings builds it from these; --help and docs/config.md quote ``help``)
    help: str = ""  # what it does, in run's (and generate's) --help
    score_help: str = ""  # score's words where they differ (its samples, not candidates)
    group: str = ""  # run's argument group: "verifier" (no group), "suite", "verdicts", "output"
    metavar: str | None = None
    choices: tuple | None = None  # fixed choices; those known only above this layer are given by the front end
    parse: Callable[[str], Any] | None = None  # the flag's type when it has no range check (int, Path)
    flag_default: Any = None  # what argparse keeps when the flag is not given (None: plan decides)
    switch: bool = False  # a store_true flag that turns the setting off (--no-format-probe)

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
    Setting(
        "verifiers[].spec",
        "--verifier",
        "none: the suite's reference verifiers side by side, no gate",
        fronts=frozenset({RUN, SCORE}),
        many=True,
        group="verifier",
        metavar="SPEC",
        flag_default=[],
        help="package.module:function or path/to/file.py:function (repeatable)",
    ),
    Setting(
        "verifiers[].style",
        "--style",
        "auto",
        value="auto",
        fronts=frozenset({RUN, SCORE, API, PLUGIN}),
        group="verifier",
        flag_default="auto",
        help="call style: how the reward is loaded and called, as its framework does (default: from the "
        "signature or the object; README, 'Frameworks')",
        score_help="call style (default: from the signature)",
    ),
    Setting(
        "verifiers[].options",
        "--verifier-option",
        "none",
        fronts=frozenset({RUN, SCORE, API}),
        many=True,
        group="verifier",
        metavar="KEY=VALUE",
        flag_default=[],
        help="a setting of the style (repeatable): weights=1,0.5 (trl), data_source=gsm8k (verl), "
        "model=NAME and template=FILE (judge), shape=json and field.completion=response (http)",
        score_help="a setting of the style, as for run (README, 'Frameworks')",
    ),
    Setting(
        "suite",
        "--suite",
        "math",
        value="math",
        fronts=_CALLS,
        group="suite",
        help="built-in suite name or a JSONL file (default: math, or the config's)",
        score_help="the suite the samples were made on (default: the files' manifest)",
    ),
    Setting(
        "format",
        "--format",
        "jsonl",
        value="jsonl",
        fronts=_SUITE,
        group="suite",
        help="suite file format (gsm8k: '#### n' answers; math: \\boxed{} in a solution; "
        "spider: Spider/BIRD JSON with SQLite databases; bird: BIRD's dev.json and dev_databases/; "
        "apps, codecontests, lcb: stdin/stdout program datasets; swebench: SWE-bench instances with --repo-dir)",
    ),
    Setting(
        "db_dir",
        "--db-dir",
        "beside the suite's JSON",
        fronts=_SUITE,
        group="suite",
        help="spider format: folder of <db_id>/<db_id>.sqlite (default: beside the JSON)",
    ),
    Setting(
        "repo_dir",
        "--repo-dir",
        "none: required by the swebench format",
        fronts=_SUITE,
        group="suite",
        help="swebench format: folder of local checkouts at each instance's base_commit, "
        "<repo_dir>/<instance_id> or <repo_dir>/<owner>__<name>",
    ),
    Setting(
        "dialect",
        "--dialect",
        "from the format: sqlite for spider and bird files",
        fronts=_SUITE,
        group="suite",
        choices=("sqlite", "duckdb"),
        help="spider/bird formats: the engine gold and candidates are judged in, on the same databases "
        "(default: sqlite, as their scorers run; duckdb: on the converted copy)",
    ),
    Setting(
        "fields",
        "--field",
        "none",
        fronts=_SUITE,
        many=True,
        group="suite",
        metavar="OURS=THEIRS",
        flag_default=[],
        help="map a suite field, e.g. --field prompt=question --field reference=answer",
    ),
    Setting(
        "domain",
        "--domain",
        "what the suite's lines say, else math",
        fronts=_SUITE,
        group="suite",
        help="domain of a suite file's tasks when its lines do not say (default: math)",
    ),
    Setting(
        "split",
        "--split",
        "every split",
        fronts=_SUITE,
        group="suite",
        choices=("train", "heldout", "shifted"),
        help="audit one split only",
    ),
    Setting(
        "limit",
        "--limit",
        "every task",
        check=argtypes.positive_int,
        fronts=_SUITE,
        group="suite",
        help="audit the first N tasks only (a quick local run)",
    ),
    Setting(
        "seed",
        "--seed",
        "0",
        value=0,
        fronts=_CALLS,
        group="suite",
        parse=int,
        help="generation seed (default 0): same seed, same candidates",
        score_help="seed of the probes' sample (default 0)",
    ),
    Setting(
        "workers",
        "--workers",
        "the cores, at most 8",
        check=argtypes.workers,
        value=DEFAULT_WORKERS,
        fronts=_CALLS,
        group="suite",
        help="worker processes (default: cores, at most 8)",
    ),
    Setting(
        "oracle_timeout",
        "--oracle-timeout",
        "10",
        check=argtypes.positive_float,
        value=10.0,
        fronts=_CALLS,
        group="suite",
        help="hard limit per oracle call, seconds (default 10)",
        score_help="hard limit per oracle call (default 10)",
    ),
    Setting(
        "memory_mb",
        "--memory-mb",
        "4096",
        check=argtypes.memory_mb,
        value=4096,
        fronts=_CALLS,
        group="suite",
        help="address space a worker may add to what it maps at start (default 4096 MiB; 0: no limit)",
        score_help="address-space limit per worker (default 4096 MiB; 0: no limit)",
    ),
    Setting(
        "isolation",
        "--isolation",
        "the strongest this machine gives",
        fronts=_CALLS,
        group="suite",
        choices=argtypes.ISOLATION_LEVELS,
        help="how each worker that runs the verifier is isolated: namespaces (read-only file system but its "
        "work dir, private /tmp, no network, no capabilities, memory bound per process tree), process "
        "(own PID namespace: nothing it starts outlives it), none (warned: runs with your privileges); "
        "default: the strongest this machine gives (docs/threat-model.md)",
    ),
    Setting(
        "inspect_timeout",
        "--inspect-timeout",
        "30",
        check=argtypes.positive_float,
        fronts=_CALLS,
        group="suite",
        metavar="SECONDS",
        help="time the verifier's import may take when its signature is read, behind the same walls "
        "as its calls (default 30)",
    ),
    # file_mb and max_processes: the engine's limits apply when nothing says (engine/limits.py)
    Setting(
        "file_mb",
        "--file-mb",
        "1024",
        check=argtypes.file_mb,
        fronts=_CALLS,
        group="suite",
        help="largest file a worker may write, MiB (default 1024; 0: no limit); a write past it is "
        "the call's error, 'file size limit reached'",
    ),
    Setting(
        "max_processes",
        "--max-processes",
        "1024",
        check=argtypes.max_processes,
        fronts=_CALLS,
        group="suite",
        help="processes and threads a verifier's worker may hold together (default 1024; 0: no "
        "limit): a pids cgroup per worker where one can be made, else RLIMIT_NPROC of its own uid",
    ),
    Setting(
        "pass_env",
        "--pass-env",
        "none",
        check=argtypes.env_name,
        fronts=_CALLS,
        many=True,
        group="suite",
        metavar="NAME",
        help="pass this environment variable to the verifier's workers (repeatable; a judge's API "
        "key); they get only PATH, locale, thread counts and the like otherwise; its value is "
        "masked (***) in results and reports (docs/threat-model.md)",
    ),
    Setting(
        "executor",
        "--executor",
        "local",
        value="local",
        fronts=_CALLS,
        group="suite",
        choices=argtypes.EXECUTORS,
        help="where the oracle's and the verifier's calls run: local (this machine's worker pool; "
        "default) or ray (the same pool, timeouts and isolation on every node of a Ray cluster, "
        "using all its CPUs; needs pip install 'verifier-audit[ray]'; docs/ray.md)",
    ),
    Setting(
        "ray_address",
        "--ray-address",
        "RAY_ADDRESS, else a local cluster",
        fronts=_CALLS,
        group="suite",
        metavar="ADDRESS",
        help="with --executor ray: the cluster to connect to, auto or HOST:PORT (default: RAY_ADDRESS, "
        "else a cluster started on this machine, else a new local one)",
    ),
    Setting(
        "only",
        "--only",
        "every origin",
        option="origins",
        fronts=_SUITE,
        many=True,
        group="suite",
        choices=("near_miss", "equivalent", "known_bad"),
        metavar="ORIGIN",
        help="audit only candidates of this origin (repeatable): near_miss, equivalent, known_bad; "
        "--only near_miss is a mutation analysis of the verifier's tests",
    ),
    Setting(
        "timeout",
        "--timeout",
        "10 (the code domain: 4)",
        check=argtypes.positive_float,
        fronts=_VERDICTS,
        group="verdicts",
        help="hard limit per verifier call, seconds (default 10; the code domain: 4)",
        score_help="hard limit per verifier call, seconds",
    ),
    Setting(
        "threshold",
        "--threshold",
        "0.5",
        check=argtypes.rate,
        value=0.5,
        fronts=_VERDICTS,
        group="verdicts",
        help="a score >= this is an acceptance (default 0.5)",
    ),
    Setting(
        "gate.max_debt",
        "--max-debt",
        "0.05",
        check=argtypes.rate,
        value=_gate("max_debt"),
        fronts=_VERDICTS,
        group="verdicts",
        help="gate: coverage debt at most this (default 0.05)",
        score_help="gate: coverage debt (mean false acceptance of the model/split categories) at most this "
        "(default 0.05)",
    ),
    Setting(
        "gate.max_category",
        "--max-category",
        "0.5",
        check=argtypes.rate,
        value=_gate("max_category"),
        fronts=_VERDICTS,
        group="verdicts",
        help="gate: false acceptance of any one category at most this (default 0.5)",
        score_help="gate: false acceptance of any one model/split category at most this (default 0.5)",
    ),
    Setting(
        "gate.max_false_rejection",
        "--max-false-rejection",
        "0.10",
        check=argtypes.rate,
        value=_gate("max_false_rejection"),
        fronts=_VERDICTS,
        group="verdicts",
        help="gate: false rejection at most this (default 0.10)",
    ),
    Setting(
        "gate.max_error_rate",
        "--max-error-rate",
        "0.05",
        check=argtypes.rate,
        value=_gate("max_error_rate"),
        fronts=_VERDICTS,
        group="verdicts",
        metavar="RATE",
        help="gate: share of verifier calls that errored (timeout, crash, exception) at most this (default 0.05)",
        score_help="gate: share of verifier calls that errored at most this (default 0.05)",
    ),
    Setting(
        "gate.max_retry_rate",
        "--max-retry-rate",
        "0.05",
        check=argtypes.rate,
        value=_gate("max_retry_rate"),
        fronts=_VERDICTS,
        group="verdicts",
        metavar="RATE",
        help="gate: share of a reward server's or judge's requests that were retried (HTTP 5xx or 429, "
        "connection refused or reset) at most this (default 0.05; docs/frameworks-remote.md)",
        score_help="gate: share of a remote verifier's requests that were retried at most this (default 0.05)",
    ),
    Setting(
        "gate.max_nondeterminism",
        "--max-nondeterminism",
        "0",
        check=argtypes.rate,
        value=_gate("max_nondeterminism"),
        fronts=_VERDICTS,
        group="verdicts",
        metavar="RATE",
        help="gate: share of the flip-prone candidates (partial scores, near-misses, the worst categories' "
        "misjudged ones), each scored again several times, whose score changed at most this (default 0: "
        "any flip fails; docs/grader-behaviour.md)",
        score_help="gate: share of the samples scored again several times whose score changed at most this (default 0)",
    ),
    Setting(
        "gate.max_call_seconds",
        "--max-call-seconds",
        "none (not gated)",
        check=argtypes.positive_float,
        value=_gate("max_call_seconds"),
        fronts=_VERDICTS,
        group="verdicts",
        metavar="SECONDS",
        help="gate: the p99 call time of every category at most this many seconds (default: not gated; "
        "the report shows the latency per category either way; docs/grader-behaviour.md)",
    ),
    Setting(
        "gate.min_slice_n",
        "--min-slice-n",
        "10",
        check=argtypes.positive_int,
        value=_gate("min_slice_n"),
        group="verdicts",
        metavar="N",
        help="gate: --max-category also holds on every slice of a category (integer answers, queries "
        "with a join, ...) with at least N candidates scored (default 10)",
    ),
    Setting(
        "search",
        "--search",
        "0 (no search)",
        check=argtypes.nonnegative_int,
        value=0,
        group="verdicts",
        metavar="CALLS",
        help="also search for exploits the fixed candidates miss, within CALLS verifier calls per verifier "
        "(e.g. 3000): found families are <domain>.search.<family> categories, gated like the rest "
        "(docs/search.md)",
    ),
    Setting(
        "weights_from",
        "--weights-from",
        "none",
        group="verdicts",
        metavar="TASKS",
        parse=Path,
        help="also report, and gate, the coverage debt reweighted to the mix of task slices in this file "
        "(your own tasks, any format --suite reads)",
    ),
    Setting(
        "slice_field",
        "--slice-field",
        "slice",
        value="slice",
        group="verdicts",
        metavar="NAME",
        help="the task metadata field that names a task's slice (default: slice; tasks without it are "
        "sliced by the domain: answer type, query features, return type)",
    ),
    Setting(
        "probe_sample",
        "--probe-sample",
        "24",
        check=argtypes.nonnegative_int,
        value=24,
        fronts=frozenset({RUN, SCORE, API, PLUGIN}),
        group="verdicts",
        metavar="N",
        help="candidates rescored to check determinism and thread/process safety (default 24; 0: none)",
        score_help="samples rescored to check determinism and thread/process safety (default 24; 0: none)",
    ),
    Setting(
        "answer_formats",
        "--no-format-probe",
        "true (false is --no-format-probe)",
        value=True,
        group="verdicts",
        switch=True,
        help="show every verifier its candidates as generated (\\boxed{} in math), without first probing "
        "which answer formats it reads (docs/answer-formats.md)",
    ),
    Setting(
        "waivers[].category",
        "--waive",
        "none",
        option="waive",
        fronts=_VERDICTS,
        many=True,
        group="verdicts",
        metavar="CATEGORY",
        flag_default=[],
        help="do not gate on this category (left out of the per-category check and of the gated debt); "
        "a category the domain does not have is an error",
        score_help="do not gate on this category (one of the domain's or of the samples'; another is an error)",
    ),
    # run and score add --report-dir with the report formats (cli/options.py add_report_options)
    Setting("report_dir", "--report-dir", "none", fronts=frozenset({RUN}), group="output"),
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
