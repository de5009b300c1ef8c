"""PNG plots are optional: matplotlib comes with the ``plots`` extra. One place says how to
get it and loads it headless, for every command that writes PNGs (compare, monitor)."""

from __future__ import annotations

from ..errors import InputError

PNG_HINT = "pip install 'verifier-audit[plots]' (matplotlib)"


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend; InputError when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(f"--png-dir needs matplotlib, which is not installed: {PNG_HINT}") from None
    return plt
