"""verify-stream: order, error lines, same output with one or two jobs."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import stream_lines as _lines
from verity import stream as stream_module
from verity.cli.main import main
from verity.errors import InputError, VerityError
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


@pytest.mark.parametrize("method", [None, *START_METHODS])
def test_two_jobs_give_the_same_bytes(graph_dir: Path, method: str | None) -> None:
    lines = _lines() * 300
    parallel = list(verify_stream(lines, graph_dir, jobs=2, start_method=method))
    assert parallel == list(verify_stream(lines, graph_dir))
    assert len(parallel) == len(lines)


@pytest.mark.parametrize("jobs", [2, 3])
def test_small_chunks_shared_between_workers_and_this_process_keep_order(
    graph_dir: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With chunks of 2 lines the window turns over many times: chunks sent to workers
    and chunks verified here interleave, and the output stays in input order."""
    lines = _lines() * 40
    expected = list(verify_stream(lines, graph_dir))
    monkeypatch.setattr(stream_module, "CHUNK_LINES", 2)
    here: list[int] = []
    verify_here = stream_module._Window._verify_here

    def counted(self: stream_module._Window, chunk: stream_module._Chunk) -> list[str]:
        here.append(chunk.lines[0][0])
        return verify_here(self, chunk)

    monkeypatch.setattr(stream_module._Window, "_verify_here", counted)
    assert list(verify_stream(lines, graph_dir, jobs=jobs, start_method="fork")) == expected
    assert len(set(here)) == len(here)  # no chunk verified twice here


def test_forked_workers_leave_the_parent_as_they_found_it(graph_dir: Path) -> None:
    frozen = gc.get_freeze_count()
    consumed = verify_stream(_lines() * 100, graph_dir, jobs=2, start_method="fork")
    assert next(consumed).startswith('{"line": 1,')
    consumed.close()  # a consumer that stops early still unfreezes and clears
    assert gc.get_freeze_count() == frozen
    assert stream_module._WORKER == {}


def test_parcels_cross_as_spool_files_or_compressed_through_the_pipe(tmp_path: Path) -> None:
    # lines are bytes, output lines text; a lone surrogate in either must survive
    value: list[tuple[int, bytes | str]] = [(1, b'{"graph_id": "g"}')]
    value.append((2, "caf\u00e9 \ud800".encode("utf-8", "surrogatepass")))
    value.append((3, '{"line": 3, "text": "\ud800 caf\u00e9"}'))
    path = str(tmp_path / "1.in")
    parcel = stream_module._put(value, path)
    assert parcel == ("file", path) and Path(path).is_file()
    assert stream_module._take(parcel) == value
    assert not Path(path).exists()  # read once, then removed
    assert stream_module._put(value, None)[0] == "zlib"
    assert stream_module._take(stream_module._put(value, None)) == value
    unwritable = str(tmp_path / "missing" / "1.in")  # a spool that is gone: the pipe
    parcel = stream_module._put(value, unwritable)
    assert parcel[0] == "zlib" and stream_module._take(parcel) == value


def test_a_spool_file_that_vanished_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VerityError, match="lost a chunk"):
        stream_module._take(("file", str(tmp_path / "7.out")))


def test_chunks_go_through_the_spool_and_it_is_removed(
    graph_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines() * 40
    expected = list(verify_stream(lines, graph_dir))
    root = tmp_path / "spools"
    root.mkdir()
    monkeypatch.setattr(stream_module, "_SPOOL_ROOTS", (str(root),))
    monkeypatch.setattr(stream_module, "CHUNK_LINES", 4)
    kinds: list[str] = []
    put = stream_module._put

    def counted(value: object, path: str | None) -> tuple[str, object]:
        parcel = put(value, path)
        kinds.append(parcel[0])
        return parcel

    monkeypatch.setattr(stream_module, "_put", counted)
    assert list(verify_stream(lines, graph_dir, jobs=2, start_method="fork")) == expected
    assert kinds and set(kinds) == {"file"}
    assert list(root.iterdir()) == []
    consumed = verify_stream(lines, graph_dir, jobs=2, start_method="fork")
    assert next(consumed) == expected[0]
    consumed.close()  # a consumer that stops early leaves no files either
    assert list(root.iterdir()) == []


def test_a_stream_clears_spools_of_ended_processes_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f"verity-stream-{int(ended.stdout)}-abc"
    live = tmp_path / f"verity-stream-{os.getpid()}-xyz"
    other = tmp_path / "verity-stream-notapid"
    for path in (stale, live, other):
        path.mkdir()
    (stale / "3.in").write_bytes(b"left by a killed stream")
    recent = tmp_path / f"verity-stream-{int(ended.stdout)}-new"  # ended, but just changed
    recent.mkdir()
    long_ago = time.time() - stream_module._STALE_AFTER_S - 60
    for path in (stale, live, other):
        os.utime(path, (long_ago, long_ago))
    monkeypatch.setattr(stream_module, "_SPOOL_ROOTS", (str(tmp_path),))
    made = stream_module._spool_dir()
    assert made is not None and Path(made).parent == tmp_path
    assert Path(made).name.startswith(f"verity-stream-{os.getpid()}-")
    assert not stale.exists()
    assert live.is_dir() and other.is_dir() and recent.is_dir()


class FakeAtexit:
    """Records what a stream registers to run at exit, instead of registering it."""

    def __init__(self) -> None:
        self.registered: list[Callable[[], object]] = []
        self.unregistered: list[Callable[[], object]] = []

    def register(self, func: Callable[[], object]) -> None:
        self.registered.append(func)

    def unregister(self, func: Callable[[], object]) -> None:
        self.unregistered.append(func)


def test_the_spool_is_also_removed_at_exit_while_a_stream_runs(
    graph_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "spools"
    root.mkdir()
    monkeypatch.setattr(stream_module, "_SPOOL_ROOTS", (str(root),))
    fake = FakeAtexit()
    monkeypatch.setattr(stream_module, "atexit", fake)
    consumed = verify_stream(_lines() * 100, graph_dir, jobs=2, start_method="fork")
    next(consumed)
    [spool] = list(root.iterdir())
    [at_exit] = fake.registered  # should the caller never finish or close the stream
    consumed.close()
    assert fake.unregistered == [at_exit] and not spool.exists()
    spool.mkdir()
    at_exit()  # what would run at exit removes that directory
    assert not spool.exists()


def test_without_a_spool_chunks_go_through_the_pipe(
    graph_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines() * 40
    expected = list(verify_stream(lines, graph_dir))
    missing = str(tmp_path / "missing")
    monkeypatch.setattr(stream_module, "_SPOOL_ROOTS", (missing,))
    monkeypatch.setattr(tempfile, "tempdir", missing)  # no temporary directory either
    assert stream_module._spool_dir() is None
    monkeypatch.setattr(stream_module, "CHUNK_LINES", 4)
    assert list(verify_stream(lines, graph_dir, jobs=2, start_method="fork")) == expected


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
