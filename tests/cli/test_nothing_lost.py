"""Nothing lost: ``demo``, ``narrate --record``, ``optimize --all`` and ``bench`` stopped
by SIGINT or SIGTERM leave the previous run's files as they were.

Every test runs the command once to completion, then again into the same place, and
signals that second run while it really is mid-run: for the narrating commands, once a
real local HTTP endpoint (``tests/endpoint.py``, mode ``hang``) has received the
narration request it never answers; for ``optimize --all``, once the run's hidden
partial sibling holds a graph.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.endpoint import serve
from tests.helpers import FIXTURES, ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

VERITY = [sys.executable, "-m", "verity"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_WAIT_POLICY": "PASSIVE"}
SIGNALS = [signal.SIGINT, signal.SIGTERM]
GRAPH = FIXTURES / "narrators" / "graph_small.json"
#: One bench instance: the first graph, one variant, one profile, no figures.
BENCH = ["bench", "--limit", "1", "--variants", "grounded", "--profiles", "strict"]
BENCH_QUIET = ["--no-figures", "--quiet"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*VERITY, *args], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=600
    )


def _interrupt(
    args: list[str], cwd: Path, signum: int, ready: Callable[[], bool]
) -> tuple[int, str]:
    """Start ``verity ARGS``, send it ``signum`` once ``ready()`` (the command still
    running), and return its exit status and stderr."""
    child = subprocess.Popen(
        [*VERITY, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not ready() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert child.poll() is None, "the command ended before it could be interrupted"
        child.send_signal(signum)
        _, err = child.communicate(timeout=60)
    finally:  # whatever the test finds, it leaves no process behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    return child.returncode, err.decode()


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, by relative path."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _partials(folder: Path) -> list[str]:
    """The staging siblings left anywhere under ``folder``."""
    return [str(p) for p in folder.rglob("*") if ".partial-" in p.name]


def _said(command: str, signum: int, kept: str) -> str:
    return f"verity {command}: interrupted ({signal.Signals(signum).name}); {kept}\n"


@contextlib.contextmanager
def _silent_endpoint() -> Iterator[tuple[list[str], Callable[[], bool]]]:
    """``--base-url URL`` of an endpoint that never answers, and "a request arrived"."""
    with serve("hang") as endpoint:
        yield ["--base-url", endpoint.url], lambda: bool(endpoint.requests)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_demo_leaves_the_last_demo_whole(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "verity-demo"
    first = _run(["demo", "--narrator", "scripted", "--out-dir", str(out)], tmp_path)
    assert first.returncode in (0, 1, 3), first.stderr
    before = _files(out)
    assert sorted(before) == ["attempts.jsonl", "graph.json", "narration.json", "report.json"]
    assert before["attempts.jsonl"]
    with _silent_endpoint() as (url, asked):
        demo = ["demo", "--narrator", "openai:x", *url, "--out-dir", str(out)]
        status, err = _interrupt(demo, tmp_path, signum, asked)
    assert status == 128 + signum
    assert err.splitlines()[-1] + "\n" == _said("demo", signum, f"{out} is unchanged")
    assert "Traceback" not in err
    assert _files(out) == before
    assert _partials(tmp_path) == []
    recheck = _run(
        ["verify", str(out / "graph.json"), str(out / "narration.json"), "--json"], tmp_path
    )
    assert recheck.returncode == first.returncode
    assert json.loads(recheck.stdout) == json.loads(before["report.json"])


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_narrate_leaves_the_last_record_whole(tmp_path: Path, signum: int) -> None:
    record = tmp_path / "attempts.jsonl"
    narrate = ["narrate", str(GRAPH), "--variant", "grounded", "--record", str(record)]
    first = _run([*narrate, "--narrator", "scripted:paper-like"], tmp_path)
    assert first.returncode in (1, 3), first.stderr
    before = record.read_bytes()
    with _silent_endpoint() as (url, asked):
        status, err = _interrupt(
            [*narrate, "--narrator", "openai:x", *url], tmp_path, signum, asked
        )
    assert status == 128 + signum
    assert err.splitlines()[-1] + "\n" == _said("narrate", signum, f"{record} is unchanged")
    assert "Traceback" not in err
    assert record.read_bytes() == before
    assert _partials(tmp_path) == []
    replay = ["narrate", str(GRAPH), "--variant", "grounded", "--narrator", f"replay:{record}"]
    again = _run(replay, tmp_path)
    assert (again.returncode, again.stdout.splitlines()[-1]) == (
        first.returncode,
        first.stdout.splitlines()[-1],
    )


def test_a_record_holds_one_run(tmp_path: Path) -> None:
    """A record is replaced by the next complete run, not appended to."""
    record = tmp_path / "attempts.jsonl"
    narrate = ["narrate", str(GRAPH), "--narrator", "scripted", "--record", str(record)]
    assert _run(narrate, tmp_path).returncode in (0, 1, 3)
    once = record.read_bytes()
    assert _run(narrate, tmp_path).returncode in (0, 1, 3)
    twice = record.read_bytes()
    keys = [json.loads(line)["key"] for line in once.splitlines()]
    assert keys and [json.loads(line)["key"] for line in twice.splitlines()] == keys
    assert _partials(tmp_path) == []


@pytest.fixture(scope="module")
def optimized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What one complete ``verity optimize --all`` wrote."""
    folder = tmp_path_factory.mktemp("optimized")
    done = _run(["optimize", "--all", "--out-dir", str(folder / "graphs")], folder)
    assert done.returncode == 0, done.stderr
    return folder / "graphs"


@pytest.mark.slow
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_optimize_all_leaves_the_last_graphs_whole(
    optimized: Path, tmp_path: Path, signum: int
) -> None:
    out = tmp_path / "graphs"
    shutil.copytree(optimized, out)
    before = _files(out)
    assert len(before) == 150

    def solving() -> bool:
        return any(any(p.iterdir()) for p in tmp_path.glob(".graphs.partial-*"))

    status, err = _interrupt(
        ["optimize", "--all", "--out-dir", str(out)], tmp_path, signum, solving
    )
    assert status == 128 + signum
    assert err.splitlines()[-1] + "\n" == _said("optimize", signum, f"{out} is unchanged")
    assert "Traceback" not in err
    assert _files(out) == before
    assert _partials(tmp_path) == []


def _bench_kept(out: Path) -> str:
    return (
        f"{out / 'results.jsonl'} holds every instance that finished, the report is the one "
        "before; --resume continues"
    )


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_bench_leaves_the_last_run_whole(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "bench"
    first = _run([*BENCH, *BENCH_QUIET, "--narrators", "scripted", "--out", str(out)], tmp_path)
    assert first.returncode == 0, first.stderr
    before = _files(out)
    assert {"results.jsonl", "report.md", "summary.json", "timing.json"} <= set(before)
    with _silent_endpoint() as (url, asked):
        more = [*BENCH, *BENCH_QUIET, "--narrators", "openai:x", *url, "--resume"]
        status, err = _interrupt([*more, "--out", str(out)], tmp_path, signum, asked)
    assert status == 128 + signum
    assert err.splitlines()[-1] + "\n" == _said("bench", signum, _bench_kept(out))
    assert "Traceback" not in err
    assert _files(out) == before  # the openai instance did not finish: nothing was added
    assert _partials(tmp_path) == []


def test_an_interrupted_first_bench_is_resumed(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    with _silent_endpoint() as (url, asked):
        both = [*BENCH, *BENCH_QUIET, "--narrators", "scripted,openai:x", *url, "--out", str(out)]
        status, err = _interrupt(both, tmp_path, signal.SIGINT, asked)
    assert status == 130 and "Traceback" not in err
    assert _partials(tmp_path) == []
    kept = (out / "results.jsonl").read_bytes()
    narrators = {json.loads(x)["narrator"] for x in kept.splitlines()}
    assert kept.endswith(b"\n") and narrators == {"scripted:sloppy (simulated)"}
    resumed = _run(
        [*BENCH, *BENCH_QUIET, "--narrators", "scripted", "--resume", "--out", str(out)], tmp_path
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "0 instances run, 1 already done" in resumed.stdout
    assert (out / "results.jsonl").read_bytes() == kept and (out / "report.md").is_file()
