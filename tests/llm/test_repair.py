"""The repair pass, the best-of policy, and the `narrate` / `demo` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import TESTS
from verity import EvidenceGraph, InputError, load_graph, verify
from verity.cli.main import main
from verity.llm.narrators import Attempt, ScriptedNarrator
from verity.llm.narrators.base import Usage, api_error_attempt, output_attempt
from verity.llm.narrators.scripted import valid_claims
from verity.llm.prompts import Prompt
from verity.llm.repair import MAX_REPAIRS, best_of, narrate_and_verify

FIXTURES = TESTS / "fixtures" / "narrators"
SMALL = FIXTURES / "graph_small.json"


@pytest.fixture(scope="module")
def small() -> EvidenceGraph:
    return load_graph(SMALL)


@pytest.fixture(scope="module")
def good(small: EvidenceGraph) -> list[dict[str, Any]]:
    return valid_claims(small)


def _bad(claim: dict[str, Any]) -> dict[str, Any]:
    return {**claim, "cited_evidence_ids": ["no-such-node"]}


class FakeNarrator:
    """Answers each pass from a script: a list of claims, a raw string, or an api error code."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.prompts: list[Prompt] = []

    @property
    def name(self) -> str:
        return "fake"

    def narrate(self, prompt: Prompt) -> Attempt:
        self.prompts.append(prompt)
        step = self.script.pop(0)
        if isinstance(step, str) and step.startswith("api."):
            return api_error_attempt(
                prompt, narrator="fake", model="fake", code=step, message="fake transport failure"
            )
        raw = step if isinstance(step, str) else json.dumps({"claims": step})
        return output_attempt(
            prompt,
            narrator="fake",
            model="fake",
            raw_text=raw,
            finish_reason="stop",
            usage=Usage(10, 5),
            latency_s=0.01,
        )


def _review(prompt: Prompt) -> dict[str, Any]:
    block = prompt.user.split("<<<REVIEW\n", 1)[1].removesuffix("\nREVIEW>>>")
    return dict(json.loads(block))


def test_a_fix_that_succeeds(small: EvidenceGraph, good: list[dict[str, Any]]) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], [good[1]]])
    result = narrate_and_verify(small, fake, "grounded")
    first, repair = result.passes
    assert (first.report.summary.claims, first.report.summary.passed) == (2, 1)
    assert repair.kept_ids == ("c1",) and repair.replacement_ids == ("c3",)
    assert [c.id for c in result.final.shipped] == ["c1", "c3"]
    assert result.final.summary.all_claims_verified and result.stop_reason == "all_verified"
    assert result.usage == Usage(20, 10)
    review = _review(fake.prompts[1])
    failing = review["failing_claims"]
    assert len(failing) == 1 and "id" not in failing[0]["claim"]
    assert set(failing[0]["errors"][0]) == {"gate", "code", "message", "expected", "actual"}
    assert failing[0]["errors"][0]["code"] == "evidence.unknown_id"
    assert "cite_one_of_each" in failing[0]["allowed"]
    assert review["kept_claims"] == [{"type": good[0]["type"], "text": good[0]["text"]}]
    assert fake.prompts[1].history[1] == ("assistant", result.passes[0].attempt.raw_text)


def test_a_fix_that_fails(small: EvidenceGraph, good: list[dict[str, Any]]) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], [_bad(good[1])], [_bad(good[1])]])
    result = narrate_and_verify(small, fake, "constrained", repairs=2)
    assert len(result.passes) == 3
    assert [c.id for c in result.final.shipped] == ["c1"]
    assert result.final.summary.removed == 1
    assert result.passes[2].kept_ids == ("c1",) and result.passes[2].replacement_ids == ("c4",)
    assert len(result.dropped()) == 3


def test_no_repair_when_everything_verified(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator([good[:2]])
    result = narrate_and_verify(small, fake, "grounded", repairs=3)
    assert len(result.passes) == 1 and result.stop_reason == "all_verified"


def test_no_repair_when_only_repeats_failed(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator([[good[0], good[0]]])
    result = narrate_and_verify(small, fake, "grounded", repairs=2)
    assert len(fake.prompts) == 1 and result.stop_reason == "only_duplicates_failed"
    assert [c.id for c in result.final.shipped] == ["c1"]


def test_an_api_error_is_never_fed_back(small: EvidenceGraph) -> None:
    fake = FakeNarrator(["api.server_error"])
    result = narrate_and_verify(small, fake, "grounded", repairs=3)
    assert len(fake.prompts) == 1 and len(result.passes) == 1
    assert result.stop_reason == "api_error" and result.final.refused


def test_an_api_error_on_the_repair_keeps_what_passed(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], "api.timeout", [good[1]]])
    result = narrate_and_verify(small, fake, "grounded", repairs=3)
    assert len(fake.prompts) == 2 and result.stop_reason == "api_error"
    assert [c.id for c in result.final.shipped] == ["c1"]
    for prompt in fake.prompts:
        assert "api.timeout" not in prompt.user and "transport" not in prompt.user


def test_unreadable_output_is_fed_back_as_an_output_error(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator(["Sure! Here are the claims.", [good[0]]])
    result = narrate_and_verify(small, fake, "ungrounded")
    review = _review(fake.prompts[1])
    assert review["output_error"]["code"] == "output.not_json"
    assert review["failing_claims"] == []
    assert [c.id for c in result.final.shipped] == ["c1"]
    assert result.passes[0].attempt.parse_error is not None


def test_replacements_repeating_a_kept_claim_are_caught(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], [good[0]]])
    result = narrate_and_verify(small, fake, "grounded")
    codes = [e.code for v in result.final.claims for e in v.errors]
    assert codes == ["duplicate.repeated"]
    assert [c.id for c in result.final.shipped] == ["c1"]


def test_pure_duplicates_and_repeats_are_sent_back_once(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    bad = _bad(good[1])
    fake = FakeNarrator([[good[0], good[0], bad, bad], [good[1]]])
    narrate_and_verify(small, fake, "grounded")
    failing = _review(fake.prompts[1])["failing_claims"]
    assert len(failing) == 1 and failing[0]["claim"] == bad
    assert fake.prompts[1].max_claims == 1


@pytest.mark.parametrize("repairs", [-1, MAX_REPAIRS + 1, True, 1.5, "1"])
def test_repairs_must_be_0_to_3(small: EvidenceGraph, repairs: Any) -> None:
    with pytest.raises(InputError, match="repairs"):
        narrate_and_verify(small, FakeNarrator([]), "grounded", repairs=repairs)


def test_unknown_profile_is_an_input_error(small: EvidenceGraph) -> None:
    with pytest.raises(InputError):
        narrate_and_verify(small, FakeNarrator([]), "grounded", profile="lenient")


def test_best_of_ships_the_pass_with_more_verified_claims(
    small: EvidenceGraph, good: list[dict[str, Any]]
) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], [good[1], good[2]]])
    result = narrate_and_verify(small, fake, "grounded")
    assert best_of(result.passes).index == 1
    assert best_of(result.passes[:1]).index == 0
    tie = narrate_and_verify(
        small, FakeNarrator([[good[0], _bad(good[1])], [_bad(good[2])]]), "grounded"
    )
    assert best_of(tie.passes).index == 0
    with pytest.raises(InputError):
        best_of([])


@pytest.mark.parametrize("profile", ["sloppy", "paper-like"])
def test_scripted_repair_never_loses_verified_claims(small: EvidenceGraph, profile: str) -> None:
    result = narrate_and_verify(small, ScriptedNarrator(profile, seed=1), "grounded", repairs=3)
    shipped = [len(p.report.shipped) for p in result.passes]
    assert shipped == sorted(shipped)
    assert result.simulated
    combined = verify(small, {"claims": list(result.passes[-1].claims)}, "strict")
    assert combined.summary.passed == shipped[-1]


def test_result_to_dict_is_json(small: EvidenceGraph, good: list[dict[str, Any]]) -> None:
    fake = FakeNarrator([[good[0], _bad(good[1])], [good[1]]])
    data = json.loads(json.dumps(narrate_and_verify(small, fake, "grounded").to_dict()))
    assert [set(p) >= {"attempt", "report"} for p in data["passes"]] == [True, True]
    assert [c["id"] for c in data["shipped"]] == ["c1", "c3"]
    assert data["best_pass"] == 1 and data["usage"] == {
        "prompt_tokens": 20,
        "completion_tokens": 10,
    }


# --- the commands ----------------------------------------------------------------------


def test_cli_narrate_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["narrate", str(SMALL), "--narrator", "scripted:clean", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(data["passes"]) == 1 and data["simulated"] is True
    assert data["passes"][0]["attempt"]["model"] == "simulated"
    assert len(data["shipped"]) == 5


def test_cli_narrate_text_and_record_then_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "a.jsonl"
    args = [
        "narrate",
        str(SMALL),
        "--narrator",
        "scripted:paper-like",
        "--variant",
        "grounded",
        "--repairs",
        "2",
    ]
    code = main([*args, "--record", str(record)])
    out = capsys.readouterr().out
    assert code in (1, 3)
    assert "simulated" in out and "pass 1 (repair 1)" in out and "answer:" in out
    replay = main(
        [
            "narrate",
            str(SMALL),
            "--narrator",
            f"replay:{record}",
            "--variant",
            "grounded",
            "--repairs",
            "2",
        ]
    )
    assert replay == code
    assert capsys.readouterr().out.splitlines()[-1] == out.splitlines()[-1]


def test_cli_narrate_replay_miss_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code = main(["narrate", str(SMALL), "--narrator", f"replay:{empty}"])
    captured = capsys.readouterr()
    assert code == 3
    assert "replay.missing" in captured.out and "replay.missing" in captured.err


def _exit_status(argv: list[str]) -> Any:
    """main()'s status, also when argparse exits on its own."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize(
    "args",
    [
        ["--narrator", "scripted", "--repairs", "4"],
        ["--narrator", "nobody"],
        ["--narrator", "openai:m"],
        ["--narrator", "scripted", "--base-url", "http://x"],
        ["--narrator", "scripted", "--variant", "free"],
    ],
)
def test_cli_narrate_bad_input_exits_2(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert _exit_status(["narrate", str(SMALL), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verity: error:") and len(err.strip().splitlines()) == 1


def test_cli_demo_with_the_simulator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "demo"
    code = main(["demo", "--out-dir", str(out_dir), "--narrator", "scripted:sloppy"])
    text = capsys.readouterr().out
    recheck = main(["verify", str(out_dir / "graph.json"), str(out_dir / "narration.json")])
    capsys.readouterr()
    assert code == recheck  # the demo exits as the re-check it prints
    for name in ("graph.json", "attempts.jsonl", "narration.json", "report.json"):
        assert (out_dir / name).is_file(), name
        assert str(out_dir / name) in text
    assert "Shipped narration" in text and "Dropped claims" in text
    assert "variant choice" in text  # the default variant
    report = verify(out_dir / "graph.json", json.loads((out_dir / "narration.json").read_text()))
    assert report.to_dict() == json.loads((out_dir / "report.json").read_text())
    passes = [line for line in text.splitlines() if line.startswith("pass ")]
    assert len((out_dir / "attempts.jsonl").read_text().splitlines()) == len(passes) >= 1
