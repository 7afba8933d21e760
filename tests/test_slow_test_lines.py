"""A long test shows progress: every few seconds a line names it and how long it has run
(tests/conftest.py), on the terminal, never in the test's captured output, also when the
suite runs on pytest-xdist workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import slow_lines
from tests.helpers import ROOT

_SLEEPS = """
import time


def test_sleeps() -> None:
    print("captured output of the test")
    time.sleep(3.5)


def test_is_quick() -> None:
    pass
"""


def test_slow_lines_name_the_tests_running_long_enough_oldest_first() -> None:
    running = {"a.py::new": (95.0, ""), "a.py::old": (10.0, "gw1"), "a.py::mid": (70.0, "")}
    assert slow_lines(running, 100.0, 20.0) == [
        "still running: a.py::old (gw1) for 90 s",
        "still running: a.py::mid for 30 s",
    ]
    assert slow_lines(running, 100.0, 200.0) == []


def _pytest(tmp_path: Path, *args: str) -> str:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.conftest"]\n', "utf-8")
    (tmp_path / "test_sleeps.py").write_text(_SLEEPS, "utf-8")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "VERITY_TEST_PROGRESS_EVERY": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, "test_sleeps.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_long_test_gets_a_line_every_few_seconds(tmp_path: Path) -> None:
    out = _pytest(tmp_path)
    lines = re.findall(r"^still running: test_sleeps\.py::test_sleeps for (\d+) s$", out, re.M)
    assert len(lines) >= 2 and lines == sorted(lines, key=int), out
    assert "test_is_quick" not in out and "captured output of the test" not in out


def test_on_xdist_workers_the_controller_names_the_worker(tmp_path: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (the dev extra)")
    out = _pytest(tmp_path, "-n", "2")
    lines = re.findall(
        r"^still running: test_sleeps\.py::test_sleeps \(gw[01]\) for \d+ s$", out, re.M
    )
    assert len(lines) >= 2, out
