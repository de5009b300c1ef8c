"""What an audit is asked to do (``AuditOptions``) and what it works on (``Prepared``: the
suite's tasks and the oracle-confirmed candidates). Shared by the engine's steps (audit,
probes, formats, search) and by the report builder, so none of them imports another back.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..isolation import FILE_MB, MAX_PROCESSES
from ..models import Candidate, DroppedCandidate, GateConfig, Task
from .slices import SliceWeights


@dataclass
class AuditOptions:
    seed: int = 0
    workers: int = 2
    timeout: float = 10.0
    oracle_timeout: float = 10.0
    memory_mb: int | None = 4096
    # The largest file a worker may write and the tasks a verifier's worker tree may hold
    # (isolation/_limits.py); None: no limit. Not in the fingerprint: a verdict they change is
    # an error that says so.
    file_mb: int | None = FILE_MB
    max_processes: int | None = MAX_PROCESSES
    threshold: float = 0.5
    gate: GateConfig = field(default_factory=GateConfig)
    enforce_gate: bool = True
    results: Path | None = None
    resume: bool = False
    cache_dir: Path | None = None  # None: no candidate cache
    progress: bool | None = None  # None: a bar when stderr is a terminal
    quiet_workers: bool = True
    origins: tuple[str, ...] | None = None  # audit only these candidate origins (None: all)
    # Candidates rescored by the determinism and thread probes (engine/probes.py) after the
    # verdicts are in; 0: no probe. Not part of the results' fingerprint: probes never
    # change a verdict, and a resumed audit runs them again.
    probe_sample: int = 24
    # Probe the answer formats the verifier reads and show it its candidates in one it reads
    # (engine/formats.py); False: always as generated.
    answer_formats: bool = True
    # How each worker that runs the verifier is isolated (isolation/_lockdown.py): none,
    # process, namespaces; None: the strongest this machine gives.
    isolation: str | None = None
    # The task metadata field that names a task's slice (engine/slices.py); tasks without
    # it are sliced by the domain.
    slice_field: str = "slice"
    # The user's own mix of slices (--weights-from): the debt is also reported, and gated,
    # reweighted to it. Not in the fingerprint: it changes no verdict.
    weights: SliceWeights | None = None
    # Verifier calls the exploit search may spend per verifier (engine/search); 0: none. Its
    # verdicts stay outside the results file (a resumed audit searches again, same seed).
    search: int = 0
    # The search also inserts the literals the verifier's source compares completions
    # against (engine/search/_source.py); False: the domain's own operators only.
    source_guided: bool = True
    # Where the oracle's and the verifier's calls run (engine/executor.py): "local", this
    # machine's worker pool, or "ray", the same pool on each node of a Ray cluster at
    # ``ray_address`` (None: RAY_ADDRESS, else a local cluster; docs/ray.md). Not in the
    # fingerprint: it changes no verdict, and a resumed audit may use the other one.
    executor: str = "local"
    ray_address: str | None = None


@dataclass
class Prepared:
    suite_name: str
    suite_hash: str
    domain: str
    tasks: list[Task]
    candidates: list[Candidate]
    dropped: list[DroppedCandidate]
    split: str | None = None
    limit: int | None = None
    # How the suite file was read: {"format", "fields" (the --field mapping), "db_dir", "dialect", "repo_dir"},
    # as the front end chose them (plan.SuiteChoice.reading). Part of the results'
    # fingerprint, so that a resume names a changed mapping; empty: not said (the API).
    reading: dict = field(default_factory=dict)

    @property
    def dropped_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(d.reason for d in self.dropped).items()))
