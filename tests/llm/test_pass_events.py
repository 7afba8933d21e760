"""The repair loop reports each pass to ``on_event``; attempts keep their settings
through a recording and its replay."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.helpers import TESTS
from verity import load_graph
from verity.llm.narrators import Attempt, RecordingNarrator, ReplayNarrator, ScriptedNarrator
from verity.llm.prompts import Prompt, build_prompt
from verity.llm.repair import narrate_and_verify
from verity.progress import Event, PassEnded, PassStarted

SMALL = TESTS / "fixtures" / "narrators" / "graph_small.json"


def test_each_pass_is_reported_with_its_verify_result() -> None:
    events: list[Event] = []
    result = narrate_and_verify(
        SMALL, ScriptedNarrator("paper-like", seed=3), "grounded", repairs=2, on_event=events.append
    )
    assert len(result.passes) >= 2, "the fixture needs a repair pass to test"
    expected: list[Event] = []
    for p in result.passes:
        expected.append(PassStarted(p.index, "scripted:paper-like (simulated)"))
        s = p.report.summary
        expected.append(PassEnded(p.index, s.claims, s.passed, p.attempt.latency_s))
    assert events == expected


def test_without_a_callback_nothing_is_reported(capsys) -> None:  # type: ignore[no-untyped-def]
    narrate_and_verify(SMALL, ScriptedNarrator("clean"), "choice")
    assert capsys.readouterr() == ("", "")


class _FakeLocal:
    """A fake narrator whose attempts carry settings, as the local model's do."""

    name = "fake-local"

    def narrate(self, prompt: Prompt) -> Attempt:
        attempt = ScriptedNarrator("clean").narrate(prompt)
        return dataclasses.replace(attempt, settings={"threads": 3, "wait_policy": "PASSIVE"})


def test_settings_round_trip_through_a_recording_and_its_replay(tmp_path: Path) -> None:
    prompt = build_prompt(load_graph(SMALL), "choice")
    record = tmp_path / "attempts.jsonl"
    live = RecordingNarrator(_FakeLocal(), record).narrate(prompt)
    stored = json.loads(record.read_text("utf-8"))["attempt"]
    assert stored["settings"] == {"threads": 3, "wait_policy": "PASSIVE"}
    assert ReplayNarrator(record).narrate(prompt) == live
    plain = ScriptedNarrator("clean").narrate(prompt)
    assert "settings" not in plain.to_dict()  # left out when empty: old records stay the same
    assert Attempt.from_dict(plain.to_dict()) == plain
