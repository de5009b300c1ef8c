"""The built-in math reference verifiers, as a file you can point the CLI at:

    verifier-audit run --verifier examples/math_verifiers.py:substring --suite math

They run from weakest to strongest; read their source in
verifier_audit/domains/math/verifiers.py.
"""

from verifier_audit.domains.math.verifiers import last_box_exact, last_number, strong, substring

__all__ = ["substring", "last_number", "last_box_exact", "strong"]
