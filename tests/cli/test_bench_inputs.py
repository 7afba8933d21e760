"""``verity bench`` checks every input before it solves or writes anything: each bad
input is one line, exit status 2, no output directory and no time spent."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from verity.cli.main import EXIT_INPUT, main
from verity.extras import missing_modules

#: A plan that runs in a second: one graph, one variant, one profile, the simulator.
QUICK = ["bench", "--narrators", "scripted", "--limit", "1", "--variants", "grounded"]
QUICK += ["--profiles", "strict", "--no-figures", "--quiet", "--resamples", "10"]

BAD_PLANS = {
    "unknown narrator": ["--narrators", "nosuch"],
    "unknown scripted profile": ["--narrators", "scripted:nosuch"],
    "missing replay file": ["--narrators", "replay:missing.jsonl"],
    "narrator twice": ["--narrators", "scripted,scripted"],
    "unknown variant": ["--variants", "grounded,nosuch"],
    "unknown profile": ["--profiles", "nosuch"],
    "missing graphs directory": ["--graphs", "missing"],
    "graphs directory without graphs": ["--graphs", "empty"],
    "limit 0": ["--limit", "0"],
    "openai options without an openai narrator": ["--base-url", "http://127.0.0.1:9/v1"],
}


def _status(argv: list[str]) -> Any:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own exit
        return exc.code


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``verity bench``; check it was refused at once with one line; return the line."""
    started = time.monotonic()
    status = _status(argv)
    took = time.monotonic() - started
    captured = capsys.readouterr()
    assert status == EXIT_INPUT, captured
    assert captured.err.startswith("verity: error:") and captured.err.count("\n") == 1
    assert captured.out == ""
    assert took < 5
    return captured.err


@pytest.mark.parametrize("bad", list(BAD_PLANS.values()), ids=list(BAD_PLANS))
def test_a_bad_plan_writes_nothing(
    bad: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    _refused([*QUICK, *bad, "--out", str(tmp_path / "out")], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_long_real_model_plan_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    url = "http://127.0.0.1:9/v1"  # never asked: the plan is refused first
    err = _refused(
        ["bench", "--narrators", "openai:x", "--base-url", url, "--out", str(out)], capsys
    )
    assert "--yes" in err and not out.exists()


@pytest.mark.skipif(not missing_modules(("llama_cpp",)), reason="the local extra is installed")
def test_local_without_its_extra_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    err = _refused([*QUICK, "--narrators", "local", "--out", str(out)], capsys)
    assert "verity-evidence[local]" in err and not out.exists()


@pytest.fixture
def finished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The output directory of a finished one-instance run (seed 0)."""
    out = tmp_path / "out"
    assert main([*QUICK, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("again", "said"),
    [
        ([], "pass --resume"),
        (["--resume", "--seed", "1"], "seed 0"),
        (["--resume", "--repairs", "0"], "repairs 1"),
        (["--variants", "nosuch", "--resume"], "unknown variant"),
    ],
    ids=["without --resume", "another seed", "other repairs", "bad plan and --resume"],
)
def test_a_used_output_directory_is_refused_before_anything_runs(
    finished: Path, again: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _contents(finished)
    err = _refused([*QUICK, *again, "--out", str(finished)], capsys)
    assert said in err
    assert _contents(finished) == before and not (finished / "graphs").exists()


def test_an_output_directory_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.write_text("mine\n", encoding="utf-8")
    err = _refused([*QUICK, "--out", str(out)], capsys)
    assert "is a file" in err and out.read_text(encoding="utf-8") == "mine\n"
