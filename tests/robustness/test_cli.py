"""Hostile files through the command line: exit 0, 1 or 3 with a report, or exit 2 with
exactly one line on stderr, never a traceback. Most runs are in-process
(:func:`verity.cli.main`); a few go through a real subprocess."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import GRAPHS, ROOT, card_small_claim
from tests.robustness.strategies import ROBUST, hostile_files
from verity.cli.main import main

GRAPH_BYTES = (GRAPHS / "card_small.json").read_bytes()
NARRATION = {
    "format": "verity.narration/1",
    "graph_id": "card-small",
    "claims": [card_small_claim("win_dining_vs_flat_two")],
}
NARRATION_BYTES = json.dumps(NARRATION).encode()
PASSAGES_BYTES = json.dumps([{"id": "p1", "text": "gold_dining wins dining at 4x."}]).encode()
ANSWER_BYTES = b"gold_dining wins dining at 4x. It never rains."


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors exit through SystemExit
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _check_outcome(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2, 3), (code, err)
    assert "Traceback" not in out + err
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("verity: error: ")
    else:
        assert out.strip()


@ROBUST
@given(hostile_files(GRAPH_BYTES), hostile_files(NARRATION_BYTES), st.sampled_from(
    [["--profile", "paper"], ["--profile", "strict"], ["--json"], []]
))  # fmt: skip
def test_verify_on_hostile_files(graph: bytes, narration: bytes, flags: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        g, n = Path(tmp, "g.json"), Path(tmp, "n.json")
        g.write_bytes(graph)
        n.write_bytes(narration)
        _check_outcome(*_run(["verify", str(g), str(n), *flags]))


@ROBUST
@given(hostile_files(PASSAGES_BYTES), st.one_of(hostile_files(ANSWER_BYTES), st.binary()))
def test_check_answer_on_hostile_files(passages: bytes, answer: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p, a = Path(tmp, "p.json"), Path(tmp, "a.txt")
        p.write_bytes(passages)
        a.write_bytes(answer)
        _check_outcome(*_run(["check-answer", str(p), str(a), "--json"]))


@ROBUST
@given(hostile_files(GRAPH_BYTES), st.lists(hostile_files(NARRATION_BYTES), max_size=4))
def test_verify_stream_on_hostile_files(graph: bytes, lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        graphs = Path(tmp, "graphs")
        graphs.mkdir()
        Path(graphs, "g.json").write_bytes(graph)
        stream = Path(tmp, "n.jsonl")
        stream.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        code, out, err = _run(["verify-stream", str(graphs), str(stream)])
        _check_outcome(code, out or "-", err)
        if code == 0:
            pieces = stream.read_bytes().split(b"\n")  # a binary file splits at \n only
            if pieces[-1] == b"":
                pieces.pop()
            rows = out.split("\n")[:-1]
            assert len(rows) == len(pieces)
            for row in rows:
                json.loads(row)


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "/nonexistent/g.json", "/nonexistent/n.json"],
        ["verify", str(GRAPHS), str(GRAPHS)],
        ["verify", str(GRAPHS / "card_small.json"), str(GRAPHS / "card_small.json")],
        ["verify", str(GRAPHS / "card_small.json"), "-"],
        ["verify-stream", "/nonexistent", "/nonexistent.jsonl"],
        ["verify-stream", str(GRAPHS), "/nonexistent.jsonl", "--jobs", "0"],
        ["check-answer", str(GRAPHS / "card_small.json"), str(GRAPHS / "card_small.json")],
        ["verify", "--profile", "lenient", "a", "b"],
        ["no-such-command"],
    ],
    ids=lambda argv: " ".join(argv)[:40],
)
def test_unusable_arguments_exit_2_with_one_line(argv: list[str]) -> None:
    code, _, err = _run(argv)
    assert code == 2
    assert len(err.splitlines()) == 1, err


SUBPROCESS_CASES = {
    "invalid-utf8": b'{"claims": [{"text": "\xff"}]}',
    "bom": b"\xef\xbb\xbf" + NARRATION_BYTES,
    "nan": b'{"claims": [NaN]}',
    "deep": b"[" * 200_000 + b"]" * 200_000,
    "lone-surrogate": NARRATION_BYTES.replace(b"wins", b"\\ud800wins", 1),
    "utf16": "\ufeff".encode("utf-16") + NARRATION_BYTES,
}


@pytest.mark.parametrize("name", list(SUBPROCESS_CASES))
def test_subprocess_hostile_narration(tmp_path: Path, name: str) -> None:
    path = tmp_path / "n.json"
    path.write_bytes(SUBPROCESS_CASES[name])
    done = subprocess.run(
        [sys.executable, "-m", "verity", "verify", str(GRAPHS / "card_small.json"), str(path)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr
    if name == "bom":
        assert done.returncode == 0, stderr
    else:
        assert done.returncode == 2, stderr
        assert len(stderr.splitlines()) == 1


def test_subprocess_stream_survives_every_bad_line(tmp_path: Path) -> None:
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    (graphs / "g.json").write_bytes(GRAPH_BYTES)
    bad = [value for key, value in SUBPROCESS_CASES.items() if key != "deep"]
    stream = tmp_path / "n.jsonl"
    stream.write_bytes(b"\n".join([*bad, NARRATION_BYTES]) + b"\n")
    done = subprocess.run(
        [sys.executable, "-m", "verity", "verify-stream", str(graphs), str(stream)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in done.stdout.decode("utf-8").splitlines()]
    assert [r["line"] for r in rows] == list(range(1, len(bad) + 2))
    assert "report" in rows[-1] and rows[-1]["report"]["summary"]["passed"] == 1
