"""Old names kept for one release: they still work and say they are deprecated."""

from __future__ import annotations

from pathlib import Path

import pytest

import verity.llm.narrators as narrators
import verity.llm.narrators.scripted as scripted
from tests.helpers import ROOT
from verity.cli.main import main

GRAPH_DIR = ROOT / "evidence_graphs" / "card_rewards"
NOTE = "--profile N is deprecated, use --spend-profile N"


def test_optimize_profile_still_works_with_a_one_line_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["optimize", "--profile", "3", "--goal", "no_fee"]) == 0
    out, err = capsys.readouterr()
    assert out == (GRAPH_DIR / "p03-no_fee.json").read_text("utf-8")
    assert err.count("\n") == 1 and NOTE in err


def test_optimize_spend_profile_prints_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "--spend-profile", "3", "--goal", "no_fee"]) == 0
    out, err = capsys.readouterr()
    assert out == (GRAPH_DIR / "p03-no_fee.json").read_text("utf-8") and err == ""


def test_optimize_old_option_keeps_its_name_in_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "--profile", "50", "--goal", "no_fee"]) == 2
    assert "--profile must be a number from 0 to 49" in capsys.readouterr().err


def test_optimize_both_spellings_must_agree(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "--profile", "1", "--spend-profile", "2", "--goal", "no_fee"]) == 2
    assert "give --spend-profile N once" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--profile", "--spend-profile"])
def test_demo_takes_either_spelling(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["demo", option, "3", "--narrator", "scripted:clean", "--out-dir", str(tmp_path)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith("verity demo: profile 3, goal max_value")
    assert (NOTE in err) == (option == "--profile")


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        (scripted, "ErrorProfile", "ErrorMix"),
        (scripted, "PROFILES", "MIXES"),
        (scripted, "DEFAULT_PROFILE", "DEFAULT_MIX"),
        (narrators, "ErrorProfile", "ErrorMix"),
        (narrators, "SCRIPTED_PROFILES", "SCRIPTED_MIXES"),
    ],
)
def test_old_error_mix_names_warn_and_alias_the_new(module: object, old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; use {new}"):
        value = getattr(module, old)
    assert value is getattr(module, new)


def test_scripted_narrator_profile_attribute_warns() -> None:
    narrator = scripted.ScriptedNarrator("clean")
    with pytest.warns(DeprecationWarning, match="use ScriptedNarrator.mix"):
        assert narrator.profile is narrator.mix is scripted.MIXES["clean"]
    assert narrator.name == "scripted:clean (simulated)"
