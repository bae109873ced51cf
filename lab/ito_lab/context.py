"""What an experiment gets from the CLI: where to write, where the C programs are, how to run them."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Context:
    results_dir: Path
    build_dir: Path
    quick: bool = False

    def out(self, name: str) -> Path:
        """The folder of one experiment's outputs, created if missing."""
        d = self.results_dir / name
        d.mkdir(parents=True, exist_ok=True)
        return d

    def program(self, rel: str) -> Path:
        """Path of a program built by CMake, relative to the build tree (e.g. 'bench/ito_bench')."""
        p = self.build_dir / rel
        if not p.exists():
            raise FileNotFoundError(f"{p} is not built: run `make build` first")
        return p

    def progress(self, total: int, description: str):
        """A context manager over `total` steps (see progress.steps): `with ctx.progress(n, "x")
        as step: step("label")` shows a live bar on a terminal, one line per step elsewhere."""
        from .progress import steps  # rich is imported only by experiments that report progress

        return steps(total, description)

    def run_program(self, rel: str, *args: str, env: dict | None = None, timeout: float = 1800) -> str:
        """Run a built program and return its stdout; a non-zero exit raises with its stderr."""
        e = dict(os.environ)
        if env:
            e.update(env)
        cp = subprocess.run([str(self.program(rel)), *args], capture_output=True, text=True,
                            env=e, timeout=timeout)
        if cp.returncode != 0:
            raise RuntimeError(f"{rel} {' '.join(args)} exited {cp.returncode}: {cp.stderr.strip()[-2000:]}")
        return cp.stdout


def default_context(results: str | None = None, build: str | None = None, quick: bool = False) -> Context:
    res = Path(results or os.environ.get("ITO_RESULTS_DIR", REPO / "results"))
    bld = Path(build or os.environ.get("ITO_BUILD_DIR", REPO / "build" / "release"))
    return Context(results_dir=res, build_dir=bld, quick=quick)
