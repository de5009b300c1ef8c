"""A verifier with a real, common security hole: it hands model output to sympy.sympify,
which calls eval(). The audit's canaries turn that into a security finding."""

import re

import sympy


def sympify_grader(completion: str, reference: str) -> bool:
    boxes = re.findall(r"\\boxed\{([^{}]*)\}", completion)
    if not boxes:
        return False
    try:
        return sympy.simplify(sympy.sympify(boxes[-1]) - sympy.sympify(reference)) == 0
    except Exception:
        return False
