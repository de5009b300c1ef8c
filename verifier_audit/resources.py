"""Where the built-in data (suites, adversarial catalogs) lives.

In an installed wheel it is inside the package (``verifier_audit/_data``); in a source
checkout it is at the top of the repository, where people read and edit it.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_path(*parts: str) -> Path:
    installed = _PACKAGE.joinpath("_data", *parts)
    if installed.exists():
        return installed
    return _PACKAGE.parent.joinpath(*parts)
