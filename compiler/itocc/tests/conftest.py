"""What the driver tests need: clang-19, the plugin, and ito-cc run from these sources.

The plugin is $ITO_YIELD_PLUGIN or the newest <repo>/build/*/compiler/ItoYield.so; clang is
$ITO_CLANG, /usr/lib/llvm-19/bin/clang or clang-19 on PATH. Tests that compile are skipped
when either is missing. $ITOCC_SOURCES runs another copy of the itocc package instead of
this one (e.g. an older version, to see a test fail on it).
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
PKG_DIR = Path(os.environ.get("ITOCC_SOURCES") or HERE.parents[1])


def _clang() -> str | None:
    for c in (os.environ.get("ITO_CLANG"), "/usr/lib/llvm-19/bin/clang", shutil.which("clang-19")):
        if c and Path(c).is_file():
            return c
    return None


def _plugin() -> str | None:
    env = os.environ.get("ITO_YIELD_PLUGIN")
    if env:
        return env if Path(env).is_file() else None
    found = sorted(REPO.glob("build*/*/compiler/ItoYield.so"), key=lambda p: p.stat().st_mtime)
    found += sorted(REPO.glob("build*/compiler/ItoYield.so"), key=lambda p: p.stat().st_mtime)
    return str(found[-1]) if found else None


CLANG = _clang()
PLUGIN = _plugin()
TOOLS = Path(CLANG).parent if CLANG else None
STUB = ["--ito-variant=stub", "--ito-tls=local-exec", "--ito-policy=bound", "--ito-bound=5000"]
needs_clang = pytest.mark.skipif(not CLANG or not PLUGIN,
                                 reason="clang-19 or the plugin (ItoYield.so) not found")

LAUNCH = """import sys
sys.path.insert(0, sys.argv[1])
from itocc.driver import main
sys.exit(main(sys.argv[3:], clang=sys.argv[2], plugins=[]))
"""


def tool(name: str) -> str:
    """An LLVM tool beside clang (llvm-nm, llvm-readobj, llvm-dwarfdump)."""
    p = TOOLS / name if TOOLS else None
    return str(p) if p and p.is_file() else name


class ItoCC:
    """ito-cc (or ito-c++) from the sources under test, run in a working directory."""

    def __init__(self, cwd: Path, cache: Path):
        self.cwd, self.cache = cwd, cache

    def __call__(self, *args, cxx=False, input=None, check=False, env=None):
        clang = CLANG + "++" if cxx else CLANG
        e = {**os.environ, "ITO_YIELD_PLUGIN": PLUGIN, "XDG_CACHE_HOME": str(self.cache),
             **(env or {})}
        cp = subprocess.run([sys.executable, "-c", LAUNCH, str(PKG_DIR), clang, *map(str, args)],
                            cwd=self.cwd, input=input, capture_output=True, env=e)
        cp.err = cp.stderr.decode(errors="replace")
        if check:
            assert cp.returncode == 0, cp.err
        return cp

    def ok(self, *args, **kw):
        return self(*args, check=True, **kw)


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def itocc(tmp_path, cache_dir):
    return ItoCC(tmp_path, cache_dir)


def write(d: Path, files: dict[str, str]):
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def symbols(path: Path) -> str:
    return subprocess.run([tool("llvm-nm"), str(path)], capture_output=True, text=True,
                          check=True).stdout


def run(path: Path) -> str:
    cp = subprocess.run([str(path)], capture_output=True, text=True, timeout=60)
    assert cp.returncode == 0, cp.stderr
    return cp.stdout
