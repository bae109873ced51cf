"""ito-lab as a user: a bad option value, an unwritable --results folder or a program that
is not built give one line on stderr and a non-zero exit, never a Python traceback."""
import subprocess
import sys

import pytest

BAD = [
    ["net", "--conns", "abc"],
    ["net", "--conns", "0"],
    ["net", "--conns", "-5"],
    ["net", "--servers", "nosuch"],
    ["net", "--placements", "foo"],
    ["net", "--rounds", "-1"],
    ["bench", "--trials", "0"],
    ["bench", "--runs", "0"],
    ["bench", "--cpu", "-1"],
    ["bench", "--timeout", "-3"],
    ["regwin", "--windows", "abc"],
    ["regwin", "--windows", "1-2"],
    ["psafe", "--bound", "-3"],
    ["psafe", "--jobs", "0"],
    ["spawn", "--jobs", "-1"],
    ["cefos-io", "--jobs", "0"],
    ["wsc", "--rooms", "x"],
    ["wsc", "--trials", "0"],
    ["cooperative", "--triples", "0"],
]


def _run(argv, tmp_path):
    return subprocess.run([sys.executable, "-m", "ito_lab.cli", "--results", str(tmp_path / "r"),
                           "--build", str(tmp_path / "nobuild"), "--quick", *argv],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("argv", BAD, ids=lambda a: " ".join(a))
def test_bad_option_is_a_usage_error(argv, tmp_path):
    cp = _run(argv, tmp_path)
    assert cp.returncode == 2, cp.stderr
    assert "Traceback" not in cp.stderr
    assert cp.stderr.strip().splitlines()[-1].startswith(f"ito-lab {argv[0]}: error:")


def test_unwritable_results_is_one_line(tmp_path):
    # a folder under a regular file cannot be made, even by root
    f = tmp_path / "file"
    f.write_text("")
    cp = subprocess.run([sys.executable, "-m", "ito_lab.cli", "--results", str(f / "x"), "--quick",
                         "spawn", "--sim-only"], capture_output=True, text=True, timeout=120)
    assert cp.returncode == 2 and "Traceback" not in cp.stderr, cp.stderr
    assert "cannot write to --results" in cp.stderr


@pytest.mark.parametrize("argv", [["regwin"], ["psafe", "--part", "sim"], ["net", "--no-strace"]])
def test_unbuilt_program_is_one_line(argv, tmp_path):
    cp = _run(argv, tmp_path)
    assert cp.returncode == 1 and "Traceback" not in cp.stderr, cp.stderr
    assert len(cp.stderr.strip().splitlines()) >= 1
    assert "error:" in cp.stderr.strip().splitlines()[-1]
