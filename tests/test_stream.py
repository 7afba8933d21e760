"""verify-stream: order, error lines, same output with one or two jobs."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

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
