"""Training health from training logs: ``verifier-audit monitor LOG...``.

Readers (``readers``) turn TRL, verl, CSV and generic JSONL logs into ``Run`` objects with
canonical metric names (``run``); alarms (``alarms``) and the entropy-reward fit (``fit``)
read only ``Run``s; ``report`` builds the report (``models``, the JSON) and re-exports its
renderings: ``text``, ``html`` (with ``plots``) and ``png``. The subcommand is
``cli/monitor.py``.
"""
