"""verify-stream: order, error lines, same output with one or two jobs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import GRAPHS, card_small_claim
from verity.cli import main
from verity.stream import verify_stream

GOOD = {
    "graph_id": "card-small",
    "claims": [card_small_claim("win_dining")],
}
BAD_CLAIM = {"graph_id": "card-no-segment", "claims": [{"id": "c9"}]}


def _lines() -> list[bytes]:
    good = json.dumps(GOOD).encode()
    return [
        good,
        b"{bad",
        b"\xff\xfe",
        json.dumps(BAD_CLAIM).encode(),
        b'{"graph_id": "nope", "claims": []}',
        b"",
        b"[1]",
        good,
    ]


@pytest.fixture
def graph_dir(tmp_path: Path) -> Path:
    for path in GRAPHS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


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


def test_two_jobs_give_the_same_bytes(graph_dir: Path) -> None:
    lines = _lines() * 300
    assert list(verify_stream(lines, graph_dir, jobs=2)) == list(verify_stream(lines, graph_dir))


def test_cli_reads_file_and_reports_bad_directory(
    graph_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "n.jsonl"
    path.write_bytes(b"\n".join(_lines()) + b"\n")
    assert main(["verify-stream", str(graph_dir), str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 8
    assert main(["verify-stream", str(tmp_path / "none"), str(path)]) == 2
    assert "does not exist" in capsys.readouterr().err
