"""verifier-audit: measure how much a reward verifier can be fooled.

Public API: ``audit`` (run an audit, get a ``Report``), the models, and the CLI
``verifier-audit``. Everything under ``engine`` and ``domains`` is implementation.
"""

from ._version import __version__
from .models import Candidate, Report, Task, Verdict


def audit(*args, **kwargs):
    """See ``verifier_audit.api.audit``; imported lazily to keep ``import verifier_audit`` fast."""
    from .api import audit as _audit

    return _audit(*args, **kwargs)


__all__ = ["audit", "Report", "Task", "Candidate", "Verdict", "__version__"]
