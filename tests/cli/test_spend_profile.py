"""``--spend-profile N`` names the card-rewards spending profile; ``--profile`` is the gate
profile alone, and the names that were never released are gone."""

from __future__ import annotations

from pathlib import Path

import pytest

import verity.llm.narrators as narrators
import verity.llm.narrators.scripted as scripted
from tests.helpers import ROOT
from verity.cli.main import main

GRAPH_DIR = ROOT / "evidence_graphs" / "card_rewards"


def test_optimize_spend_profile_writes_the_graph(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "--spend-profile", "3", "--goal", "no_fee"]) == 0
    out, err = capsys.readouterr()
    assert out == (GRAPH_DIR / "p03-no_fee.json").read_text("utf-8") and err == ""


def test_optimize_names_the_option_in_its_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "--spend-profile", "50", "--goal", "no_fee"]) == 2
    assert "--spend-profile must be a number from 0 to 49" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["optimize", "demo"])
def test_profile_is_not_a_spend_profile(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--profile", "3", "--goal", "no_fee"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --profile 3" in capsys.readouterr().err


def test_demo_takes_the_spend_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["demo", "--spend-profile", "3", "--narrator", "scripted:clean"]
    assert main([*argv, "--out-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("verity demo: profile 3, goal max_value")


@pytest.mark.parametrize(
    ("module", "old"),
    [
        (scripted, "ErrorProfile"),
        (scripted, "PROFILES"),
        (scripted, "DEFAULT_PROFILE"),
        (narrators, "ErrorProfile"),
        (narrators, "SCRIPTED_PROFILES"),
    ],
)
def test_the_old_error_mix_names_are_gone(module: object, old: str) -> None:
    with pytest.raises(AttributeError):
        getattr(module, old)
    assert not hasattr(scripted.ScriptedNarrator("clean"), "profile")
