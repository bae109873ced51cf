"""argparse types for the experiments' options: a bad value is a one-line usage error
(exit 2) at parse time, never a traceback in the middle of a run."""
from __future__ import annotations

import argparse


def _number(text: str, conv, ok, need: str):
    try:
        v = conv(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if conv is int else 'a number'}") from None
    if not ok(v):
        raise argparse.ArgumentTypeError(f"{text!r} must be {need}")
    return v


def positive_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "at least 1")


def positive_float(text: str) -> float:
    return _number(text, float, lambda v: v > 0, "positive")


def nonneg_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 0, "at least 0")


def positive_int_list(text: str) -> str:
    """A comma-separated list of positive integers; returned unchanged (the experiment splits it)."""
    items = [x for x in text.split(",") if x.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a comma-separated list of integers")
    for x in items:
        positive_int(x.strip())
    return text


def choice_list(choices):
    """A comma-separated subset of `choices`; returned unchanged."""
    def check(text: str) -> str:
        items = [x for x in text.split(",") if x]
        bad = [x for x in items if x not in choices]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected a comma-separated subset of {', '.join(choices)}")
        return text
    return check
