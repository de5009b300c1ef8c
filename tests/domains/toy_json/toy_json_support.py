"""The toy domain installed as a third-party distribution would be: a ``*.dist-info``
folder (``METADATA``, ``entry_points.txt`` with the ``verifier_audit.domains`` group) in a
folder put on the path, beside this folder (which holds the ``toy_json_domain`` package).
No line of the package names the toy: the registry (``verifier_audit.domains``) finds it
through ``importlib.metadata.entry_points`` like any plugin."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent  # holds the toy_json_domain package
DIST = "verifier_audit_toy_json-0.1.dist-info"
ENTRY_POINT = "toy_json = toy_json_domain:DOMAIN"


def install(site: Path) -> list[Path]:
    """Write the distribution's metadata into ``site``; the folders to put on the path
    (``sys.path`` or ``PYTHONPATH``) for the registry to find the toy domain."""
    dist = site / DIST
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: verifier-audit-toy-json\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[verifier_audit.domains]\n{ENTRY_POINT}\n")
    return [site, HERE]
