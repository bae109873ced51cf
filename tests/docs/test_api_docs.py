"""Every public function declared in include/ito/*.h has a doc comment.

The comment is the Doxygen block (`/** ... */`) right before the declaration (nothing but
blank lines between them, or the `#if` that guards the declaration). It must say where the
function may be called from (`@contexts`) and, unless the function returns void, what it
returns and which errors (`@return`). `make docs` renders these blocks and fails on any
Doxygen warning; this test runs without Doxygen."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent
HEADERS = sorted((ROOT / "include" / "ito").glob("*.h"))
DECL = re.compile(r"^(?:__attribute__\(\([^)]*\)\)\s*)?(?:const\s+)?[\w\s\*]*?\b(ito_\w+)\s*\(", re.M)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def code_only(text: str) -> str:
    """text with comments and preprocessor lines (with their continuations) blanked out,
    every offset kept."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", _blank, text, flags=re.S)
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", _blank, text, flags=re.M)


def declarations(text: str) -> list[tuple[str, int, str]]:
    """(name, offset, return-type text) of each top-level ito_* function declaration."""
    out = []
    text = code_only(text)
    for m in DECL.finditer(text):
        start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())  # the match may begin on blank lines
        line_end = text.find(";", start)
        brace = text.find("{", start)
        if line_end < 0 or (0 <= brace < line_end):
            continue  # a definition (inline function, macro body), not a declaration
        head = text[start:m.start(1)]
        if head.startswith(("typedef", "return", "static")) or "(*" in text[start:line_end]:
            continue
        out.append((m.group(1), start, head))
    return out


def doc_before(text: str, offset: int) -> str | None:
    """The /** ... */ block that ends just before offset (skipping blank and #if lines)."""
    before = text[:offset].rstrip()
    while True:
        last_nl = before.rfind("\n")
        last = before[last_nl + 1:].strip()
        if last.startswith("#if"):
            before = before[:last_nl].rstrip()
            continue
        break
    if not before.endswith("*/"):
        return None
    start = before.rfind("/**")
    if start < 0 or "*/" in before[start:-2]:
        return None
    return before[start:]


def all_functions():
    for h in HEADERS:
        text = h.read_text()
        for name, off, ret in declarations(text):
            yield h.name, name, ret, doc_before(text, off)


def test_headers_found():
    names = {n for _, n, _, _ in all_functions()}
    assert {"ito_init", "ito_chan_send", "ito_future_then", "ito_dump_threads", "ito_recv"} <= names
    assert len(names) > 150


def test_every_public_function_has_a_doc_comment():
    missing = [f"{h}: {n}" for h, n, _, doc in all_functions() if doc is None]
    assert not missing, f"no /** */ doc comment before: {missing}"


def test_every_doc_comment_says_contexts_and_returns():
    bad = []
    for h, n, ret, doc in all_functions():
        if doc is None:
            continue
        if "@contexts" not in doc:
            bad.append(f"{h}: {n} (no @contexts)")
        if not re.search(r"\bvoid\s*$", ret.strip()) and "@return" not in doc:
            bad.append(f"{h}: {n} (no @return)")
    assert not bad, f"incomplete doc comments: {bad}"


def test_doxyfile_fails_on_warnings():
    cfg = (ROOT / "docs" / "api" / "Doxyfile").read_text()
    assert re.search(r"^WARN_AS_ERROR\s*=\s*(YES|FAIL_ON_WARNINGS)\s*$", cfg, re.M)
    assert re.search(r"^WARN_IF_UNDOCUMENTED\s*=\s*YES\s*$", cfg, re.M)
    assert "docs/ENVIRONMENT.md" in cfg


def enumerators(text: str):
    """(name, line) of each enumerator of each enum in text (the constants that begin a
    line of an enum's body)."""
    for m in re.finditer(r"\benum\b[^{};]*\{(.*?)\}", text, re.S):
        for line in m.group(1).split("\n"):
            s = line.strip()
            if re.match(r"[A-Z][A-Z0-9_]*\s*(=|,|/|$)", s):
                yield s.split()[0].rstrip(","), s


def test_every_enumerator_has_a_doc_comment():
    """A plain /* */ comment beside an enumerator is not in the API reference (Doxygen
    takes only /**< */ there, and does not warn): ITO_EINVAL and eight other error codes
    had no description in error.h's rendered page (API audit, 2026-12-06)."""
    bad = [f"{h.name}: {name}" for h in HEADERS for name, line in enumerators(h.read_text())
           if "/**<" not in line]
    assert not bad, f"enumerators without a /**< */ doc comment: {bad}"
    names = {name for h in HEADERS for name, _ in enumerators(h.read_text())}
    assert {"ITO_OK", "ITO_EINVAL", "ITO_EIO", "ITO_REGWIN_SP", "ITO_SYS_OPENAT"} <= names
