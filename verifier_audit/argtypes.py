"""Command-line value types shared by every subcommand: numbers with the range they must
fall in, refused by argparse with the range in the message ("must be in [0, 1], got 1.5")."""

from __future__ import annotations

import argparse


def _checked(cast, ok, what: str):
    def parse(text: str):
        value = cast(text)
        if not ok(value):  # written so that NaN fails every range
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    parse.__name__ = cast.__name__  # argparse names the type in "invalid int value"
    return parse


positive_int = _checked(int, lambda v: v >= 1, ">= 1")
nonnegative_int = _checked(int, lambda v: v >= 0, ">= 0")
positive_float = _checked(float, lambda v: v > 0, "> 0")
rate = _checked(float, lambda v: 0 <= v <= 1, "in [0, 1]")
open_unit = _checked(float, lambda v: 0 < v < 1, "in (0, 1)")
top_p = _checked(float, lambda v: 0 < v <= 1, "in (0, 1]")
temperature = _checked(float, lambda v: v >= 0, ">= 0 (0 is greedy)")
