"""An independent reference for the spell checker of the register-window reproduction
(workloads/spellcheck): the same specification, a different design.

The C checker keeps its two lists as hashed bit tables (as UNIX spell did) and its test compares
the threaded pipeline with a single-threaded composition of the same code -- so it cannot see a
mistake of the tables or of the rules themselves.  This module judges the same words with exact
Python sets built straight from the dictionary file, and with the derivative rules written again
from their description (sc.h), as a table of suffixes rather than a chain of tests:

    W      = the words of the dictionary, lowercased, a-z only;
    stems  = what a word may derive from: -s, -es, -ies>y, -ed, -d (e kept), -ied>y, -ing (e restored),
             -ly, -ily>y, -er / -est (e restored), 's, a doubled final consonant undoubled before
             -ed, -ing, -er, -est; stems shorter than 2 letters are not produced;
    kept   = W taken shortest first, a word kept unless one of its stems is already kept;
    forms  = what a stem yields: +s, +ed (+d after e), +ing (e dropped), and after a final
             consonant-vowel-consonant (not w, x, y) the doubled +Ced, +Cing;
    stop   = for every kept stem with at least one form in W, its forms that are not in W;
    a word is correct iff it is in W, or it is not in stop and one of its stems is kept.

    Reference(dict_path).flagged(words) -> the words reported as misspelled, in order.
"""
from __future__ import annotations

import re

VOWELS = set("aeiou")
_AZ = re.compile(r"^[a-z]+$")


def _undoubled(base: str) -> list[str]:
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in VOWELS:
        return [base[:-1]]
    return []


# (suffix, [replacements], undouble?) -- every replacement appended to the word minus the suffix
_RULES = (
    ("ies", ["y"], False), ("es", [""], False), ("s", [""], False),
    ("ied", ["y"], False), ("ed", ["", "e"], True), ("ing", ["", "e"], True),
    ("ily", ["y"], False), ("ly", [""], False), ("est", ["", "e"], True), ("er", ["", "e"], True),
)


def stems(word: str) -> list[str]:
    out: list[str] = []
    w = word
    if len(w) > 2 and w.endswith("'s"):
        w = w[:-2]
        if len(w) >= 2:
            out.append(w)
    for suf, reps, undouble in _RULES:
        if len(w) <= len(suf) or not w.endswith(suf):
            continue
        if suf == "s" and w.endswith("ss"):
            continue
        if suf == "er" and w.endswith("est"):
            continue
        base = w[: -len(suf)]
        cands = [base + r for r in reps] + (_undoubled(base) if undouble else [])
        out += [c for c in cands if len(base) >= 2 and len(c) >= 2]
    return out


def forms(stem: str) -> list[str]:
    e = stem.endswith("e")
    out = [stem + "s", stem + ("d" if e else "ed"), (stem[:-1] if e else stem) + "ing"]
    if (len(stem) >= 3 and stem[-1] not in VOWELS and stem[-1] not in "wxy" and stem[-2] in VOWELS
            and stem[-3] not in VOWELS):
        out += [stem + stem[-1] + "ed", stem + stem[-1] + "ing"]
    return out


class Reference:
    def __init__(self, dict_path: str):
        with open(dict_path, encoding="utf-8", errors="replace") as f:
            words = {w.strip().lower() for w in f}
        self.W = {w for w in words if _AZ.match(w) and len(w) < 64}
        self.kept: set[str] = set()
        for w in sorted(self.W, key=lambda x: (len(x), x)):
            if not any(s in self.kept for s in stems(w)):
                self.kept.add(w)
        self.stop: set[str] = set()
        for s in self.kept:
            fs = forms(s)
            if any(f in self.W for f in fs):
                self.stop.update(f for f in fs if f not in self.W)

    def correct(self, word: str) -> bool:
        if word in self.W:
            return True
        return word not in self.stop and any(s in self.kept for s in stems(word))

    def flagged(self, words) -> list[str]:
        return [w for w in words if not self.correct(w)]
