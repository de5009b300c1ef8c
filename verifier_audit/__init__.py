"""verifier-audit: measure how much a reward verifier can be fooled."""

__version__ = "0.1.0"
