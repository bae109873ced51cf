"""The README's promise about return values covers every public function.

README.md says that functions return ITO_OK or a negative ito_err_t, and lists the
exceptions. Every public function whose declared return type is not `int` must be one
of those listed exceptions, and every function listed must still be declared in a public
header. (An `int` function that returns something else cannot be found from its
declaration; those are listed by hand.)"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def public_functions() -> dict[str, str]:
    """name -> return type of every ito_* function declared in include/ito/*.h."""
    out: dict[str, str] = {}
    for h in sorted((ROOT / "include" / "ito").glob("*.h")):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", h.read_text(), flags=re.S)
        text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)  # preprocessor lines
        text = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text)
        for decl in re.split(r"[;{}]", text):
            decl = " ".join(decl.split())
            m = re.match(r"^(?:extern\s+)?([\w\s\*]+?)\s*\b(ito_\w+)\s*\(", decl)
            if m and not decl.startswith("typedef") and "(*" not in decl:
                out[m.group(2)] = " ".join(m.group(1).replace("*", " * ").split())
    return out


def readme_exceptions() -> set[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("### Return values", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"`(ito_\w+)`", section)) - {"ito_err_t"}


def test_headers_parse():
    fns = public_functions()
    assert fns.get("ito_init") == "int"
    assert fns.get("ito_self") == "ito_thread_t"
    assert len(fns) > 50


def test_every_non_int_function_is_listed():
    listed = readme_exceptions()
    missing = sorted(n for n, t in public_functions().items() if t != "int" and n not in listed)
    assert not missing, f"README.md's 'Return values' does not list: {missing}"


def test_every_listed_function_exists():
    fns = public_functions()
    stale = sorted(n for n in readme_exceptions() if n not in fns)
    assert not stale, f"README.md's 'Return values' lists undeclared functions: {stale}"
