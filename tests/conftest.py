"""Shared pytest set-up: the Hypothesis profile and fixtures used by several test modules."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import GRAPHS, SharedGraphs

# The test suite is reproducible: property tests draw the same examples on every run.
# The fuzz benchmark (benchmarks/fuzz/run.py, VERITY_FUZZ_EXAMPLES) explores at random.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("VERITY_FUZZ_EXAMPLES") else "reproducible")


@pytest.fixture
def graph_dir(tmp_path: Path) -> Path:
    """A copy of the test graphs (``tests/fixtures/graphs``) in a temporary directory."""
    for path in GRAPHS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


@pytest.fixture(scope="session")
def graphs() -> SharedGraphs:
    """The graphs several test modules read, each loaded once per run (:class:`SharedGraphs`)."""
    return SharedGraphs()


# Progress of long tests. Every _SLOW_EVERY seconds (VERITY_TEST_PROGRESS_EVERY), each test
# that has run that long (the embedded model's tests run for minutes on a loaded machine)
# gets a line naming it and how long it has run, so a person watching sees the run move,
# with or without pytest-xdist (there the controller prints it: it learns when each worker
# starts a test). The line goes to the terminal pytest started on, never into a test's
# captured output. VERITY_TEST_PROGRESS=0 turns it off.
_SLOW_EVERY = 20.0


def slow_lines(running: dict[str, tuple[float, str]], now: float, after: float) -> list[str]:
    """The progress lines for the tests of ``running`` (nodeid: start time, worker) that
    have run ``after`` seconds or more at ``now``."""
    return [
        f"still running: {nodeid}{f' ({worker})' if worker else ''} for {now - started:.0f} s"
        for nodeid, (started, worker) in sorted(running.items(), key=lambda item: item[1][0])
        if now - started >= after
    ]


class _SlowTestLines:
    """Writes :func:`slow_lines` to the terminal every ``every`` seconds from a thread."""

    def __init__(self, fd: int, after: float, every: float) -> None:
        self._fd, self._after, self._every = fd, after, every
        self._running: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="slow-test-lines", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        os.close(self._fd)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        with self._lock:
            self._running[nodeid] = (time.monotonic(), "")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        with self._lock:
            if report.when == "teardown":
                self._running.pop(report.nodeid, None)
            elif report.nodeid in self._running and getattr(report, "node", None) is not None:
                worker = getattr(getattr(report, "node", None), "gateway", None)
                started = self._running[report.nodeid][0]
                self._running[report.nodeid] = (started, getattr(worker, "id", ""))

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            with self._lock:
                lines = slow_lines(self._running, time.monotonic(), self._after)
            if lines:
                with contextlib.suppress(OSError):
                    os.write(self._fd, ("\n" + "\n".join(lines) + "\n").encode())


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get("VERITY_TEST_PROGRESS") == "0":
        return  # an xdist worker: its controller prints the lines
    # Here the output capture is suspended: fd 1 is the terminal (or file) pytest writes to.
    every = float(os.environ.get("VERITY_TEST_PROGRESS_EVERY", _SLOW_EVERY))
    plugin = _SlowTestLines(os.dup(1), every, every)
    config.pluginmanager.register(plugin, "verity-slow-test-lines")
    config.add_cleanup(plugin.close)
