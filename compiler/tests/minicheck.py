#!/usr/bin/env python3
"""A fallback for FileCheck when LLVM's is not installed: the subset the tests use.

minicheck.py CHECKFILE [--check-prefix=P] < input
Directives: P:, P-NEXT:, P-NOT:, P-LABEL:, P-DAG:, P-COUNT-n:. Patterns are literal text with
{{regex}} parts and [[VAR:regex]] / [[VAR]] variables; whitespace runs match any whitespace
run (not an empty one). Like FileCheck, P-NOT lines
forbid a match between the previous positive match and the next one.
"""
from __future__ import annotations

import re
import sys


def literal(text: str) -> str:
    return r"\s+".join(re.escape(w) for w in re.split(r"\s+", text))


def compile_pattern(text: str, env: dict[str, str]) -> re.Pattern:
    """{{re}} is a regex, [[V:re]] defines variable V, [[V]] is its value."""
    out, i = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}|\[\[(\w+)(?::(.*?))?\]\]", text):
        out.append(literal(text[i:m.start()]))
        if m.group(1) is not None:
            out.append(f"(?:{m.group(1)})")
        elif m.group(3) is not None:
            out.append(f"(?P<{m.group(2)}>{m.group(3)})")
        else:
            out.append(re.escape(env.get(m.group(2), "\0undefined")))
        i = m.end()
    out.append(literal(text[i:]))
    return re.compile("".join(out))


def main(argv: list[str]) -> int:
    prefixes = ["CHECK"]
    files = []
    for a in argv:
        if a.startswith("--check-prefix=") or a.startswith("-check-prefix="):
            prefixes = [a.split("=", 1)[1]]
        elif not a.startswith("-"):
            files.append(a)
    prefix = prefixes[0]
    directive = re.compile(rf"{re.escape(prefix)}(-NEXT|-NOT|-LABEL|-DAG|-COUNT-(\d+))?:\s?(.*)$")
    checks = []
    for line in open(files[0]).read().splitlines():
        m = directive.search(line)
        if m:
            kind = m.group(1) or ""
            if kind.startswith("-COUNT"):
                checks.extend([("", m.group(3).strip())] * int(m.group(2)))
            else:
                checks.append((kind, m.group(3).strip()))
    if not checks:
        print(f"minicheck: no {prefix}: lines", file=sys.stderr)
        return 2
    lines = sys.stdin.read().splitlines()
    pos, nots, env = 0, [], {}  # pos: index of the first line not yet consumed
    dag_taken: dict[int, set[int]] = {}
    dag_end = 0
    for kind, text in checks:
        pat = compile_pattern(text, env)
        if kind == "-NOT":
            nots.append((text, pat))
            continue
        if kind == "-DAG":  # any order after pos, distinct lines; the group ends at its last
            taken = dag_taken.setdefault(pos, set())
            cand = [i for i in range(pos, len(lines)) if i not in taken and pat.search(lines[i])][:1]
            if not cand:
                print(f"minicheck: {prefix}-DAG: '{text}' not found after line {pos}", file=sys.stderr)
                return 1
            taken.add(cand[0])
            env.update({k: v for k, v in pat.search(lines[cand[0]]).groupdict().items() if v})
            dag_end = max(dag_end, cand[0] + 1)
            continue
        if dag_end > pos:
            pos, dag_end = dag_end, 0
        if kind == "-NEXT":
            cand = [pos] if pos < len(lines) and pat.search(lines[pos]) else []
        else:
            cand = [i for i in range(pos, len(lines)) if pat.search(lines[i])][:1]
        if not cand:
            print(f"minicheck: {prefix}{kind}: '{text}' not found after line {pos}", file=sys.stderr)
            return 1
        for t, p in nots:
            for i in range(pos, cand[0]):
                if p.search(lines[i]):
                    print(f"minicheck: {prefix}-NOT: '{t}' found at line {i + 1}", file=sys.stderr)
                    return 1
        nots = []
        env.update({k: v for k, v in pat.search(lines[cand[0]]).groupdict().items() if v})
        pos = cand[0] + 1
    pos = max(pos, dag_end)
    for t, p in nots:
        for i in range(pos, len(lines)):
            if p.search(lines[i]):
                print(f"minicheck: {prefix}-NOT: '{t}' found at line {i + 1}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
