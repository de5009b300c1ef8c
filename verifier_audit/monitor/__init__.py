"""Training health from training logs: ``verifier-audit monitor LOG...``.

Readers (``readers``) turn TRL, verl, CSV and generic JSONL logs into ``Run`` objects with
canonical metric names (``run``); alarms (``alarms``) and the entropy-reward fit (``fit``)
read only ``Run``s; ``report`` renders the verdict, JSON, HTML and PNG.
"""
