"""The call styles and the module that implements each (imported when used)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from ..domains.base import SuiteScheme
from ..errors import VerifierLoadError


@dataclass(frozen=True)
class Style:
    name: str
    module: str  # relative to this package
    summary: str
    #: the reward lives behind a socket (a server, a judge): the spec is a URL, nothing is
    #: imported, and its workers keep the host's network (engine/audit.py)
    remote: bool = False
    #: its verdicts may come from a model (an LLM judge, a reward model behind a server),
    #: which at temperature > 0 can flip on any candidate, not only on the near-misses a
    #: rule-based grader flips on: the flip probe spreads its repeats over the categories,
    #: paid and refused (engine/probes.py, ``flip_prone``; docs/grader-behaviour.md)
    judged: bool = False
    #: checked in this order by ``auto`` (the first whose ``detect`` says yes)
    detects: bool = False

    def implementation(self) -> ModuleType:
        return importlib.import_module(f".{self.module}", __package__)

    def detect(self, target) -> bool:
        """Whether ``auto`` picks this style for ``target``. A style module imports its
        framework lazily, so detecting never needs the framework installed."""
        detect = getattr(self.implementation(), "detect", None)
        return bool(detect is not None and detect(target))


_ALL = (
    Style("native", "function", "fn(completion, task) with our Task"),
    Style("pair", "function", "fn(completion, reference)"),
    Style("trl", "trl", "TRL GRPO reward functions: one, or a list combined with reward_weights", detects=True),
    Style(
        "verl",
        "verl",
        "verl's compute_score(data_source, solution_str, ground_truth, extra_info), one call or batched (lists)",
        detects=True,
    ),
    Style("verifiers", "verifiers_env", "a Prime Intellect verifiers environment: its parser and rubric", detects=True),
    Style("inspect", "inspect_scorer", "an Inspect AI @scorer", detects=True),
    Style("reasoning-gym", "reasoning_gym", "reasoning-gym's own score_answer for the task's dataset"),
    Style(
        "http",
        "http",
        "a reward server: OpenRLHF's {query, prompts, labels} -> {rewards}, or JSON with a field mapping",
        remote=True,
        judged=True,
    ),
    Style("judge", "judge", "an LLM judge behind an OpenAI-compatible chat endpoint", remote=True, judged=True),
)
STYLES: tuple[str, ...] = tuple(s.name for s in _ALL)
_BY_NAME = {s.name: s for s in _ALL}


# Suites a framework makes, named by a prefix (a domain declares its own in
# ``Domain.suite_schemes``); each loader is imported only when its prefix is used.
SUITE_SCHEMES = (
    SuiteScheme("reasoning-gym:", "verifier_audit.frameworks.reasoning_gym:load_suite", "NAME"),
    SuiteScheme("verifiers:", "verifier_audit.frameworks.verifiers_env:scheme_suite"),
)


def get_style(name: str) -> Style:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise VerifierLoadError(f"style {name!r}: expected one of {', '.join(STYLES)}") from None


def detecting() -> list[Style]:
    return [s for s in _ALL if s.detects]


def missing_extra(package: str, extra: str, exc: ImportError) -> VerifierLoadError:
    """The error for a framework that is not installed: what to install."""
    return VerifierLoadError(
        f"this style needs {package}, which cannot be imported ({exc}); "
        f"install it with: pip install 'verifier-audit[{extra}]'"
    )
