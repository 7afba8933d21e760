"""verify-stream: order, error lines, the same bytes with any number of jobs, bounded
read-ahead, workers that fail or die, early close, and signals on the command line."""

from __future__ import annotations

import contextlib
import gc
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

import verity
from tests.helpers import ROOT
from tests.helpers import stream_lines as _lines
from verity import stream as stream_module
from verity.cli.main import main
from verity.errors import InputError
from verity.stream import START_METHODS, verify_stream


def test_one_output_line_per_input_line_in_order(graph_dir: Path) -> None:
    out = [json.loads(x) for x in verify_stream(_lines(), graph_dir)]
    assert [o["line"] for o in out] == list(range(1, 9))
    assert out[0]["report"]["summary"]["all_claims_verified"] is True
    assert out[1]["error"]["code"] == "input.unusable"
    assert out[2]["error"]["code"] == "input.invalid_utf8"
    assert out[3]["report"]["claims"][0]["errors"][0]["code"] == "schema.missing_field"
    assert out[4]["error"]["code"] == "input.unknown_graph"
    assert out[5]["error"]["code"] == "input.empty_line"
    assert out[6]["error"]["code"] == "input.unusable"
    assert out[7] == {**out[0], "line": 8}


@pytest.mark.parametrize(
    ("jobs", "method"), [(2, None), (2, "fork"), (2, "spawn"), (3, "fork"), (3, "spawn")]
)
def test_any_number_of_jobs_gives_the_same_bytes(
    graph_dir: Path, jobs: int, method: str | None
) -> None:
    lines = _lines() * 300
    parallel = list(verify_stream(lines, graph_dir, jobs=jobs, start_method=method))
    assert parallel == list(verify_stream(lines, graph_dir))
    assert len(parallel) == len(lines)


@pytest.mark.parametrize("jobs", [2, 3])
def test_tiny_chunks_come_back_in_input_order(
    graph_dir: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 2 lines: many chunks in the pool at once, finished in any order."""
    lines = _lines() * 40
    expected = list(verify_stream(lines, graph_dir))
    monkeypatch.setattr(stream_module, "CHUNK_LINES", 2)
    assert list(verify_stream(lines, graph_dir, jobs=jobs, start_method="fork")) == expected


def test_the_input_is_read_a_bounded_number_of_chunks_ahead(
    graph_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What bounds memory: lines read and not yet answered stay under a few chunks a
    worker, however long the stream (here 200 chunks of 2 lines)."""
    monkeypatch.setattr(stream_module, "CHUNK_LINES", 2)
    read = 0

    def counted() -> Iterator[bytes]:
        nonlocal read
        for line in _lines() * 50:
            read += 1
            yield line

    ahead = [read - n for n, _ in enumerate(verify_stream(counted(), graph_dir, jobs=2))]
    bound = 2 * stream_module._CHUNKS_PER_JOB * 2  # jobs x chunks per job x lines a chunk
    assert read == 400 and max(ahead) <= bound
    assert max(ahead) > 2  # chunks were in the pool together: the workers ran side by side


@pytest.mark.parametrize("method", START_METHODS)
def test_a_consumer_that_stops_early_leaves_no_worker_running(graph_dir: Path, method: str) -> None:
    frozen = gc.get_freeze_count()
    consumed = verify_stream(_lines() * 500, graph_dir, jobs=2, start_method=method)
    assert next(consumed).startswith('{"line": 1,')
    workers = multiprocessing.active_children()
    assert len(workers) == 2
    consumed.close()
    assert not any(w.is_alive() for w in workers)
    assert gc.get_freeze_count() == frozen


def _stalling(claim: object, graph: object) -> Iterator[object]:
    """A gate that stalls on a claim with the id ``slow``."""
    if getattr(claim, "id", None) == "slow":
        time.sleep(120)
    return iter(())


def test_a_worker_that_dies_fails_the_stream_with_one_error(graph_dir: Path) -> None:
    """Killed while it verifies: a SIGKILL halfway through sending a chunk's output would
    leave the pool waiting for the rest (a SIGTERM waits for the end of the message)."""
    stalling = verity.extend("paper", [verity.CustomGate("stall", _stalling, {"stall.x": "-"})])
    good = json.loads(_lines()[0])
    slow = {**good, "claims": [{**good["claims"][0], "id": "slow"}]}
    lines = [_lines()[0]] * stream_module.CHUNK_LINES + [json.dumps(slow).encode()] * 2000
    consumed = verify_stream(lines, graph_dir, stalling, 2, start_method="fork")
    next(consumed)  # the first chunk's output is in; each worker now stalls on a later one
    victim = multiprocessing.active_children()[0].pid
    assert victim is not None
    started = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    with pytest.raises(InputError, match="worker process ended unexpectedly"):
        list(consumed)
    assert time.monotonic() - started < 60 and multiprocessing.active_children() == []


def _send_as_a_worker(pipe: Connection, size: int) -> None:
    """A worker's signal handling, then one message of ``size`` bytes through ``pipe``."""
    stream_module._leave_signals_to_the_stream()
    pipe.send_bytes(b"x" * size)
    time.sleep(60)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX signals")
@pytest.mark.parametrize("read", [True, False], ids=["read", "never-read"])
def test_a_worker_ends_on_sigterm_but_not_halfway_through_sending(read: bool) -> None:
    """Output cut short would leave the pool's reader waiting for its rest for ever; a
    reader that stopped reading does not keep the worker for more than a moment."""
    size = 20_000_000
    reader, writer = multiprocessing.Pipe(duplex=False)
    worker = multiprocessing.get_context("fork").Process(
        target=_send_as_a_worker, args=(writer, size)
    )
    worker.start()
    writer.close()
    try:
        assert reader.poll(30)  # sending, and blocked: the pipe holds far less than that
        time.sleep(0.2)
        worker.terminate()  # SIGTERM
        if read:
            assert len(reader.recv_bytes()) == size
        worker.join(30)
        assert worker.exitcode == 128 + signal.SIGTERM
    finally:
        worker.kill()
        worker.join()


SPAWN_FAILURE = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import verity
from verity.stream import verify_stream

def lines(graphs):
    # read after this process has loaded the graphs, before the workers start
    (graphs / "zz-broken.json").write_text("{not json", encoding="utf-8")
    yield from [b'{"graph_id": "card-small", "claims": []}'] * 3

if __name__ == "__main__":
    graphs = Path(sys.argv[2])
    try:
        list(verify_stream(lines(graphs), graphs, jobs=2, start_method="spawn"))
    except verity.InputError as exc:
        print("INPUT ERROR:", exc)
"""


def test_a_worker_that_cannot_start_is_one_input_error_not_a_hang(graph_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SPAWN_FAILURE, str(ROOT), str(graph_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [message] = done.stdout.splitlines()
    assert message.startswith("INPUT ERROR: a verify-stream worker process could not start (")
    assert "zz-broken.json" in message and done.stderr == ""


def test_a_profile_that_cannot_be_pickled_goes_to_forked_workers_only(graph_dir: Path) -> None:
    gate = verity.CustomGate("local", lambda claim, graph: iter(()), {"local.bad": "never"})
    unpicklable = verity.extend("paper", [gate])
    lines = _lines() * 40
    forked = list(verify_stream(lines, graph_dir, unpicklable, 2, start_method="fork"))
    assert forked == list(verify_stream(lines, graph_dir, unpicklable))
    with pytest.raises(InputError, match="cannot be sent to worker processes"):
        list(verify_stream(lines, graph_dir, unpicklable, 2, start_method="spawn"))
    assert multiprocessing.active_children() == []


def test_unknown_start_method_is_an_input_error(graph_dir: Path) -> None:
    with pytest.raises(InputError, match="start method"):
        list(verify_stream(_lines(), graph_dir, jobs=2, start_method="thread"))


def test_cli_reads_file_and_reports_bad_directory(
    graph_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "n.jsonl"
    path.write_bytes(b"\n".join(_lines()) + b"\n")
    assert main(["verify-stream", str(graph_dir), str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 8
    assert main(["verify-stream", str(tmp_path / "none"), str(path)]) == 2
    assert "does not exist" in capsys.readouterr().err


def _children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        found.update(int(x) for x in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def _shm() -> set[str]:
    """The entries of /dev/shm that verity made."""
    return {name for name in os.listdir("/dev/shm") if "verity" in name}


def _interrupt(
    command: list[str], env: dict[str, str], out: Path, signum: int, group: bool
) -> tuple[int, str, set[int], set[int]]:
    """Run ``command`` in a session of its own, send it (or its group) ``signum`` once its
    output starts: (exit status, stderr, the pids of its children at that moment, those
    of them still there once it has ended)."""
    with out.open("wb") as sink:
        child = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.PIPE, env=env, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while out.stat().st_size == 0 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = _children(child.pid)
        if group:
            os.killpg(child.pid, signum)
        else:
            child.send_signal(signum)
        _, err = child.communicate(timeout=60)
        left = {pid for pid in workers if Path(f"/proc/{pid}").exists()}
    finally:  # whatever the test finds, it leaves no process behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    return child.returncode, err.decode(), workers, left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and /dev/shm")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("group", [False, True], ids=["to-the-command", "to-its-group"])
def test_a_signal_ends_the_command_with_one_line_and_nothing_left(
    graph_dir: Path, tmp_path: Path, signum: signal.Signals, group: bool
) -> None:
    """Sent to its group as a terminal's Ctrl-C or a service manager's stop is, the
    signal reaches the workers too."""
    narrations = tmp_path / "n.jsonl"
    narrations.write_bytes(b"\n".join(_lines() * 25_000) + b"\n")
    out, temp = tmp_path / "out.jsonl", tmp_path / "temp"
    temp.mkdir()
    shm = _shm()
    command = [sys.executable, "-m", "verity", "verify-stream", str(graph_dir), str(narrations)]
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    status, err, workers, left = _interrupt([*command, "--jobs", "2"], env, out, signum, group)
    assert len(workers) == 2
    assert status == 128 + signum
    name = signal.Signals(signum).name
    said = re.fullmatch(
        rf"verity verify-stream: interrupted \({name}\); (\d+) lines written\n", err
    )
    assert said, err[-2000:]
    lines = out.read_bytes().splitlines()
    assert 0 < len(lines) == int(said[1]) < 200_000
    assert [json.loads(x)["line"] for x in lines] == list(range(1, len(lines) + 1))
    assert left == set()  # the command stopped and reaped its workers before it ended
    assert list(temp.iterdir()) == [] and _shm() <= shm
