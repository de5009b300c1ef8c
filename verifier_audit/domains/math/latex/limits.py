"""Caps on hostile input, shared by every step: each is checked before the work it bounds."""

MAX_LEN = 10_000  # characters; a final answer is never longer
MAX_DEPTH = 40  # bracket nesting; keeps Python recursion far below its limit
MAX_BITS = 40_000  # ~12,000 digits: the largest exact number we agree to compute
MAX_ITEMS = 2_000  # elements of a list/set/tuple/matrix
ROOT_BITS = 512  # roots of larger integers are not handed to sympy (it factors them)
