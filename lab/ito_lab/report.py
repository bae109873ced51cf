"""Writing an experiment's outputs: CSV files, Markdown tables and the Markdown report.

Shared by every experiment (see experiments/__init__.py):

    write_csv(path, header, rows)           one CSV file, header first; rows must match it
    read_csv(path) -> (header, rows)        the inverse (all cells as strings)
    markdown_table(header, rows) -> str     a GitHub-flavoured Markdown table
    write_report(path, title, sections)     '# title' then one '## heading' per section
    image(path, alt, relative_to) -> str    Markdown for a PNG beside the report

Invariants: a row whose length differs from the header's raises ValueError (a silently
shifted column is worse than a crash); parent folders are created; files are written
whole (UTF-8, '\\n' line ends). Floats in Markdown tables get a compact fixed format
(format_number); CSV cells are written as given, so callers choose their precision.
"""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Iterable, Sequence

from .parse import parse_results  # noqa: F401  (re-exported: experiments use it with the writers)

__all__ = ["write_csv", "read_csv", "markdown_table", "write_report", "image", "format_number",
           "parse_results"]


def _check_row(header: Sequence, row: Sequence, i: int) -> None:
    if len(row) != len(header):
        raise ValueError(f"row {i} has {len(row)} cells, the header has {len(header)}: {row!r}")


def write_csv(path, header: Sequence[str], rows: Iterable[Sequence]) -> Path:
    """Write `rows` under `header` to `path` (parents created); returns the path."""
    path = Path(path)
    if not header:
        raise ValueError("a CSV needs a header")
    rows = [list(r) for r in rows]
    for i, r in enumerate(rows):
        _check_row(header, r, i)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


def read_csv(path) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV file written by write_csv."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path}: empty CSV")
    return rows[0], rows[1:]


def format_number(v: float) -> str:
    """Compact and readable: 22,385 / 160.2 / 8.12 / 0.0123; nan and inf as words."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1 or a == 0:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        s = format_number(v)
    else:
        s = str(v)
    return s.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A Markdown table; numbers right-aligned (by the first data row), text left-aligned."""
    rows = [list(r) for r in rows]
    if not header:
        raise ValueError("a table needs a header")
    for i, r in enumerate(rows):
        _check_row(header, r, i)
    numeric = [bool(rows) and all(isinstance(r[c], (int, float)) and not isinstance(r[c], bool)
                                  for r in rows if r[c] is not None)
               for c in range(len(header))]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def image(path, alt: str, relative_to) -> str:
    """Markdown that shows the PNG `path` in a report written in folder `relative_to`."""
    rel = os.path.relpath(Path(path), Path(relative_to))
    return f"![{alt}]({Path(rel).as_posix()})"


def write_report(path, title: str, sections: Iterable[tuple[str, str]]) -> Path:
    """Write a Markdown report: '# title', then for each (heading, text) '## heading' and text."""
    path = Path(path)
    if not isinstance(title, str) or not title.strip():
        raise ValueError("a report needs a title")
    parts = [f"# {title.strip()}\n"]
    for i, sec in enumerate(sections):
        if not (isinstance(sec, (tuple, list)) and len(sec) == 2
                and all(isinstance(s, str) for s in sec)):
            raise ValueError(f"section {i} is not a (heading, markdown) pair of strings: {sec!r}")
        heading, text = sec
        parts.append(f"## {heading.strip()}\n\n{text.strip()}\n" if text.strip()
                     else f"## {heading.strip()}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
