"""verifier-audit: measure how much a reward verifier can be fooled.

Public API: ``audit`` (run an audit, get a ``Report``), the models, and the CLI
``verifier-audit``. Everything under ``engine`` and ``domains`` is implementation.
"""

from . import loading as _loading
from ._version import __version__
from .models import Candidate, Report, Task, Verdict


def audit(*args, **kwargs):
    """See ``verifier_audit.api.audit``; imported lazily to keep ``import verifier_audit`` fast."""
    from .api import audit as _audit

    return _audit(*args, **kwargs)


def _inspect_confined(groups):
    """Read verifiers' signatures behind the walls of a verifier call, at the default level
    (engine/inspection.py): what ``loading.resolve`` uses when its caller names no
    inspector. Named here because ``loading`` may not import the engine, and every import
    of ``loading`` runs this first: no spec is ever read by a less confined process."""
    from .engine.inspection import inspect_groups

    return inspect_groups(groups)


_loading.set_inspector(_inspect_confined)

__all__ = ["audit", "Report", "Task", "Candidate", "Verdict", "__version__"]
