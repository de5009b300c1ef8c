"""Training logs -> ``Run`` objects with canonical metric names.

``read_logs(paths)`` reads each file in the format it is written in (detected, or forced with
``fmt``) and returns one ``Run`` per training run found, in the order given. A file is
usually one run; a Weights & Biases chart export with several runs' columns, or a
TensorBoard long-format CSV with a ``run`` column, gives several; TensorBoard one-metric CSV
files (``Wall time,Step,Value``) of the same run are merged into one.

Formats (``FORMATS``; docs/monitor.md has the tables of names): ``trl`` (trainer_state.json),
``verl`` (its JSONL metrics or its console log), ``csv`` (W&B and TensorBoard exports) and
``jsonl`` (any dict per line with a step key; other names mapped with ``--metric
canonical=theirs``). Names that mean nothing here are left out; a log with no known name at
all is an ``InputError`` that lists the names known and the names found.

One module per job:

* ``read``     -- ``read_logs``: each file through its reader, runs merged and named;
* ``detect``   -- the file's bytes (BOM stripped) and ``detect_format``;
* ``names``    -- aliases, step keys, name normalisation, ``parse_mapping``;
* ``columns``  -- what a reader hands over (``_Raw``), built from log dicts (``_Columns``);
* ``trl``, ``jsonl``, ``console``, ``tables`` -- one reader per format (``console``: verl's
  console log; ``tables``: CSV, wide and long);
* ``layout``   -- the fast JSONL path: one regular expression per line layout;
* ``parallel`` -- chunks of whole lines over idle cores, in forked processes;
* ``resolve``  -- raw columns -> a ``Run`` with canonical names.

Speed: a 1,000,000-line JSONL or CSV file reads in seconds (``jsonl``: layouts learned from
sampled lines; ``tables``: numpy's C parser). Any irregularity falls back to the line-by-line
reader, which is the reference and names the line of any error.
"""

from __future__ import annotations

from .detect import FORMATS, detect_format
from .jsonl import LiveRun
from .names import ALIASES, STEP_KEYS, known_names, parse_mapping
from .read import read_logs, series_span

__all__ = [
    "FORMATS",
    "STEP_KEYS",
    "ALIASES",
    "read_logs",
    "parse_mapping",
    "detect_format",
    "known_names",
    "series_span",
    "LiveRun",
]
