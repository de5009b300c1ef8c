"""Score real model samples: false acceptance and false rejection of a verifier on what a
model actually wrote.

    verifier-audit score rl.jsonl --base base.jsonl --verifier rewards.py:accuracy

Each sample is labelled by the domain's oracle (``samples/labels.py``, in the worker pool;
the samples it cannot decide are counted apart) and becomes a ``Candidate`` of origin
"sampled" whose label is the oracle's, in the category
``<domain>.sampled.<model>.<split>.<correct|incorrect>``. Those candidates go through the
engine's machinery (sandboxing, timeouts, results store, probes, security findings), so the
Report is the one ``run`` writes, with a category per model, split and truth. The samples
are streamed in blocks, in memory that does not grow with their number (``stream``: how,
and what a run of more than one block samples instead of taking whole). ``SamplesSection``
adds what is particular to samples: the rates per model and per split, the disagreeing
samples, and the comparison of models (an RL policy against its base: "the policy may have
learned the verifier's blind spot").

    stream.py      score_samples / score_stream: the three passes, in order
    files.py       1. validate every samples file       label.py  2. label, spill to disk
    audit.py       3. audit the spilled blocks          shown.py  the format each verifier reads
    tally.py       the samples section's counts         probe_pool.py  what the probes pick from
    section.py     the section and result models        comparison.py  model against model
    render.py      the section as text and Markdown
"""

from .comparison import BLIND_SPOT
from .render import render_section, section_markdown
from .section import SamplesSection, ScoreResult
from .stream import DEFAULT_BLOCK, score_samples, score_stream

__all__ = [
    "BLIND_SPOT",
    "DEFAULT_BLOCK",
    "SamplesSection",
    "ScoreResult",
    "render_section",
    "score_samples",
    "score_stream",
    "section_markdown",
]
