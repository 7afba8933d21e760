"""`verity optimize`: one graph, all graphs, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import ROOT
from verity.cli.main import main

GRAPH_DIR = ROOT / "evidence_graphs" / "card_rewards"


@pytest.mark.parametrize("solver", ["cbc", "highs"])
def test_one_graph_to_stdout_matches_the_checked_in_file(
    solver: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["optimize", "--spend-profile", "12", "--goal", "two_cards", "--solver", solver]) == 0
    )
    out, err = capsys.readouterr()
    assert out == (GRAPH_DIR / "p12-two_cards.json").read_text("utf-8")
    assert err == ""


def test_one_graph_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "graph.json"
    assert main(["optimize", "--spend-profile", "0", "--goal", "no_fee", "--out", str(target)]) == 0
    assert target.read_bytes() == (GRAPH_DIR / "p00-no_fee.json").read_bytes()
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--spend-profile", "50", "--goal", "max_value"],
            "--spend-profile must be a number from 0 to 49",
        ),
        (
            ["--spend-profile", "-1", "--goal", "max_value"],
            "--spend-profile must be a number from 0 to 49",
        ),
        (
            ["--spend-profile", "seven", "--goal", "max_value"],
            "--spend-profile must be a number from 0 to 49",
        ),
        (["--spend-profile", "3", "--goal", "cheapest"], "--goal must be one of max_value, no_fee"),
        (
            ["--spend-profile", "3", "--goal", "no_fee", "--solver", "glpk"],
            "--solver must be one of",
        ),
        (["--spend-profile", "3"], "give --spend-profile N and --goal GOAL"),
        ([], "give --spend-profile N and --goal GOAL"),
        (["--all"], "--all needs --out-dir DIR"),
        (["--all", "--out-dir", "x", "--spend-profile", "1"], "--all takes --out-dir"),
        (
            ["--spend-profile", "1", "--goal", "no_fee", "--out-dir", "x"],
            "--out-dir goes with --all",
        ),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["optimize", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("verity: error: ") and message in err
    assert err.count("\n") == 1


def test_unwritable_output_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "graph.json"
    assert (
        main(["optimize", "--spend-profile", "1", "--goal", "max_value", "--out", str(target)]) == 2
    )
    assert "cannot write" in capsys.readouterr().err
