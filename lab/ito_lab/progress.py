"""Terminal output of the lab, built on rich: progress of long runs, tables, warnings.

    with steps(total, "bench") as step:      a progress bar over `total` steps;
        step("bench_go yield")               names the step starting now (and
                                             completes the previous one)
    print_table(title, header, rows)         a rich table on stdout
    warn(message)                            a yellow warning on stderr

On a terminal the progress is a live bar; elsewhere (CI logs, pipes) each step is one
plain line "[i/n] description", so logs show where a long run was.
"""
from __future__ import annotations

import contextlib
from typing import Iterable, Sequence

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn)
from rich.table import Table

from .report import format_number

__all__ = ["console", "err_console", "steps", "print_table", "warn"]

console = Console()
err_console = Console(stderr=True)


@contextlib.contextmanager
def steps(total: int, description: str, *, out: Console | None = None):
    """Progress over `total` steps; yields step(label) to call as each step starts."""
    out = out or console
    if not out.is_terminal:
        count = 0

        def plain(label: str) -> None:
            nonlocal count
            count += 1
            out.print(f"[{count}/{total}] {description}: {label}", highlight=False)

        yield plain
        return
    cols = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
            MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*cols, console=out, transient=True) as prog:
        task = prog.add_task(description, total=total)
        started = False

        def live(label: str) -> None:
            nonlocal started
            if started:
                prog.advance(task)
            started = True
            prog.update(task, description=f"{description}: {label}")

        yield live
        if started:
            prog.advance(task)


def _text(v) -> str:
    if v is None:
        return ""
    return format_number(v) if isinstance(v, float) else str(v)


def print_table(title: str, header: Sequence[str], rows: Iterable[Sequence], *,
                out: Console | None = None) -> None:
    """A table with numbers right-aligned (judged by the first row)."""
    rows = [list(r) for r in rows]
    for r in rows:
        if len(r) != len(header):
            raise ValueError(f"row {r!r} does not match header {list(header)!r}")
    t = Table(title=title, title_justify="left")
    for c, h in enumerate(header):
        numeric = bool(rows) and isinstance(rows[0][c], (int, float))
        t.add_column(str(h), justify="right" if numeric else "left")
    for r in rows:
        t.add_row(*(_text(v) for v in r))
    (out or console).print(t)


def warn(message: str) -> None:
    err_console.print(f"[yellow]warning:[/yellow] {message}", highlight=False)
