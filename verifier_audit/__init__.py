"""verifier-audit: measure how much a reward verifier can be fooled.

Public API: ``audit`` (run an audit, get a ``Report``), the models, and the CLI
``verifier-audit``. Everything under ``engine`` and ``domains`` is implementation.
"""

__version__ = "0.1.0"

from .models import Candidate, Report, Task, Verdict  # noqa: E402


def audit(*args, **kwargs):
    """See ``verifier_audit.api.audit``; imported lazily to keep ``import verifier_audit`` fast."""
    from .api import audit as _audit

    return _audit(*args, **kwargs)


__all__ = ["audit", "Report", "Task", "Candidate", "Verdict", "__version__"]
