"""Parsing of the lines the lab's C programs print.

Every benchmark or experiment program reports a measurement as one line

    RESULT key=value key=value ...

e.g. ``RESULT benchmark=switch system=ucontext median_ns=160.2 trials=31``. Other lines
(progress, diagnostics) are ignored. Values that look like integers become ``int``, those
that look like finite decimal numbers become ``float``, everything else stays ``str``
(so ``system=nan`` is the string "nan", never a float). A RESULT line with a token that is
not ``key=value``, an empty key or value, or a repeated key is malformed: by default that
raises ResultParseError naming the line; with ``strict=False`` the line is skipped.
"""
from __future__ import annotations

import re

__all__ = ["ResultParseError", "parse_results", "parse_value"]

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


class ResultParseError(ValueError):
    """A RESULT line that is not a list of key=value tokens."""

    def __init__(self, lineno: int, line: str, why: str):
        super().__init__(f"line {lineno}: {why}: {line!r}")
        self.lineno = lineno
        self.line = line
        self.why = why


def parse_value(text: str) -> int | float | str:
    """'31' -> 31, '4.25' / '1e3' -> float, anything else -> the string itself."""
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _parse_line(lineno: int, line: str, tokens: list[str]) -> dict:
    if not tokens:
        raise ResultParseError(lineno, line, "RESULT line without fields")
    out: dict = {}
    for tok in tokens:
        key, sep, val = tok.partition("=")
        if not sep:
            raise ResultParseError(lineno, line, f"field {tok!r} is not key=value")
        if not _KEY.match(key):
            raise ResultParseError(lineno, line, f"bad key {key!r}")
        if not val:
            raise ResultParseError(lineno, line, f"empty value for {key!r}")
        if key in out:
            raise ResultParseError(lineno, line, f"repeated key {key!r}")
        out[key] = parse_value(val)
    return out


def parse_results(text: str, *, strict: bool = True) -> list[dict]:
    """The RESULT lines of a program's output, in order, as dicts of typed values."""
    results = []
    for lineno, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens or tokens[0] != "RESULT":
            continue
        try:
            results.append(_parse_line(lineno, line, tokens[1:]))
        except ResultParseError:
            if strict:
                raise
    return results
