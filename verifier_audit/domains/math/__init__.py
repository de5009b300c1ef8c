"""The math domain: final-answer verifiers (GSM8K, MATH, AIME style).

Shape shared by every domain: ``latex``/``extract``/``oracle`` decide truth,
``generators`` make candidates, ``verifiers`` are the naive-to-strong reference graders,
``loaders`` read public dataset formats.
"""

from __future__ import annotations

from ...models import Task
from ..base import DomainPackage, FormatSign, OracleLabel, suite_formats, verifier_specs


class MathDomain(DomainPackage):
    name = "math"
    package = __name__
    reference_verifiers = verifier_specs(__name__, "substring", "last_number", "last_box_exact", "strong")
    suite_formats = suite_formats(__name__, gsm8k="gsm8k_suite", math="math_suite")
    suite_signs = {
        "gsm8k": FormatSign(
            ("question", "answer"),
            "answer",
            r"\S[\s\S]*####\s*\$?-?[\d,]*\.?\d+\s*\.?\s*$",
            "worked solutions ending in '#### n'",
            "which reads the number after ####",
        ),
        "math": FormatSign(
            ("problem", "solution"),
            "solution",
            r"\w[\s\S]*\\(?:boxed|fbox)\s*\{",
            "worked solutions with the answer in \\boxed{}",
            "which reads the last \\boxed{}",
        ),
    }

    def check_task(self, task: Task) -> str | None:
        from .answer import ParseError
        from .latex import parse_answer

        try:
            parse_answer(task.reference)
        except ParseError as exc:
            return f"reference {task.reference!r} does not parse: {exc}"
        return None

    def label(self, text: str, task: Task) -> OracleLabel:
        from .oracle import label_completion

        return label_completion(text, task.reference)  # math judges against the answer alone

    def canonical_answer(self, text: str, task: Task) -> str | None:
        """The single final answer (``extract.extract_answers``; several different answers
        are none), parsed and written back as canonical LaTeX (``render.to_latex``): ``1/2``,
        ``\\frac12`` and ``\\dfrac{1}{2}`` are one answer; ``0.5`` is another (a decimal keeps
        its form)."""
        from .answer import ParseError
        from .extract import extract_answers
        from .latex import parse_answer
        from .render import to_latex

        found = extract_answers(text)
        if not found.answers or found.conflict:
            return None
        try:
            return to_latex(parse_answer(found.answers[-1]))
        except ParseError:
            return None
        except Exception:  # noqa: BLE001 - an odd value the renderer cannot write: keep the text
            return " ".join(found.answers[-1].split())


DOMAIN = MathDomain()
