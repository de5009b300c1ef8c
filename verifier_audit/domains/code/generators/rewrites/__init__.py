"""Equivalent rewrites: CORRECT programs written differently from the reference.

A verifier that rejects these starves training (false rejection): exact-match or
similarity graders reject renamed variables, an LLM judge may dislike a debug print, a
stdout scraper may trip over it. Each kind is one way a correct solution differs from the
reference: formatting, names, type hints, docstrings, comments, extra output, structure
(a helper, a result variable, a loop instead of a comprehension).

Every rewrite has to behave exactly like the reference (return values and exceptions) on
every input, so each kind checks its preconditions and skips a function (or the whole
kind) rather than guess: renaming needs the function's scopes understood, a loop-to-
comprehension swap needs the loop variable unused afterwards, a wrapper must not double
the frames of a recursive function. The engine's oracle still runs each one and drops
(and counts) any it finds different.

Kinds that only touch text (comments, docstrings, an inserted line) edit the original
source so the rest stays byte for byte; the others rewrite the AST and unparse it. All
outputs compile, differ from the input and still define the entry point. ``rng`` picks new
names and wording; each kind draws from its own generator seeded from ``rng`` and the kind
name, so adding a kind does not change the others.

``generate`` holds the kind table and runs the kinds; each family of kinds has a module
(``layout``, ``additions``, ``docstrings``, ``names``, ``hints``, ``structure``,
``comprehensions``); ``helpers`` answers the scope and name questions they share and
``lines`` makes the text-only edits.
"""

from .generate import KINDS, rewrites

__all__ = ["KINDS", "rewrites"]
