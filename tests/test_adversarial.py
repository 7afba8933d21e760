"""The adversarial fixtures (benchmarks/adversarial): every attack of every class is kept
out by strict and check-answer; the true controls ship; each v3 rule is needed."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import ROOT
from verity import Claim, Narration, check_answer, verify
from verity.text.align_v3 import _ablated

HERE = ROOT / "benchmarks" / "adversarial"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


harness = _module("harness")
ATTACKS = harness.load("structured_attacks.json")["cases"]
CONTROLS = harness.load("structured_controls.json")["cases"]
FREE = harness.load("freetext.json")
R = str(ROOT)

#: Controls that strict refuses today: free paraphrase (words no statement holds). Every
#: other control must ship; this list may only shrink.
REFUSED_CONTROL_STYLES = {"paraphrase"}
CONTROL_FLOOR = 61  # of 65: the figure in benchmarks/README.md


def test_fixtures_cover_every_class() -> None:
    classes = {c["class"] for c in ATTACKS}
    assert classes == {"splice", "deleted_scope", "reattachment", "reader_view", "type_laundering"}
    assert len(CONTROLS) >= 60
    assert {c["graph"].split("/")[0] for c in ATTACKS} == {"card", "sql"}
    assert {c["graph"].split("/")[0] for c in CONTROLS} == {"card", "sql"}


@pytest.mark.parametrize("case", ATTACKS, ids=lambda c: c["id"])
def test_strict_ships_no_attack(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="class")
    assert not outcome.escaped, (outcome.codes, outcome.cross_claim)


@pytest.mark.parametrize("case", ATTACKS, ids=lambda c: c["id"])
def test_paper_ships_the_attack_or_joins_nothing(case: dict[str, Any]) -> None:
    """The attacks are real against the published four gates (except where our answer
    join alone stops a cross-claim splice)."""
    outcome = harness.judge(case, "paper", R, group_key="class")
    assert outcome.shipped > 0


@pytest.mark.parametrize(
    "case", [c for c in CONTROLS if c["style"] not in REFUSED_CONTROL_STYLES], ids=lambda c: c["id"]
)
def test_strict_ships_every_control(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="style")
    assert outcome.all_shipped, outcome.codes


def test_control_acceptance_does_not_fall() -> None:
    accepted = sum(harness.judge(c, "strict", R, group_key="style").all_shipped for c in CONTROLS)
    assert accepted >= CONTROL_FLOOR


@pytest.mark.parametrize("item", FREE["attacks"], ids=lambda a: a["id"])
def test_check_answer_removes_every_attack(item: dict[str, Any]) -> None:
    result = check_answer(item["answer"], harness.freetext_passages(FREE, item))
    assert result.unsupported_claims_removed >= 1


@pytest.mark.parametrize("item", FREE["controls"], ids=lambda a: a["id"])
def test_check_answer_keeps_every_control(item: dict[str, Any]) -> None:
    result = check_answer(item["answer"], harness.freetext_passages(FREE, item))
    assert result.all_claims_verified, [c.to_dict() for c in result.claims]


@pytest.mark.parametrize(
    ("rule", "klass"),
    [
        ("reader", "reader_view"),
        ("symbols", "reader_view"),
        ("barriers", "deleted_scope"),
        ("barriers", "reattachment"),
        ("required", "deleted_scope"),
        ("type_binding", "type_laundering"),
    ],
)
def test_without_a_rule_attacks_of_its_class_ship(rule: str, klass: str) -> None:
    cases = [c for c in ATTACKS if c["class"] == klass]
    with _ablated(**{rule: False}):
        escaped = [
            c["id"] for c in cases if harness.judge(c, "strict", R, group_key="class").escaped
        ]
    assert escaped


@pytest.mark.parametrize("rule", ["clause_guard", "object_cut", "extra_markers", "anchoring"])
def test_without_a_rule_free_text_attacks_pass(rule: str) -> None:
    with _ablated(**{rule: False}):
        accepted = [
            a["id"]
            for a in FREE["attacks"]
            if check_answer(a["answer"], harness.freetext_passages(FREE, a)).all_claims_verified
        ]
    assert accepted


def test_without_and_readings_shared_subject_controls_fail() -> None:
    cases = [c for c in CONTROLS if c["style"] == "shared_subject"]
    with _ablated(and_readings=False):
        assert not any(harness.judge(c, "strict", R, group_key="style").all_shipped for c in cases)


def test_no_sentence_of_the_answer_spans_two_claims() -> None:
    """Two shipped fragments join into one false sentence unless the answer ends each."""
    graph, narration = harness.narration(
        {
            "graph": "card/p00-max_value",
            "claims": [
                {
                    "type": "COMPARISON",
                    "text": "golden_fork wins dining",
                    "cite": ["winner:dining"],
                },
                {
                    "type": "ALLOCATION",
                    "text": "golden_fork gets $5,040.00 on travel at 3x, worth $189.00.",
                    "cite": ["segment:golden_fork:travel:within"],
                },
            ],
        },
        R,
    )
    report = verify(graph, narration, profile="strict")
    assert len(report.shipped) == 2
    assert report.answer.startswith("golden_fork wins dining. golden_fork gets")
    assert harness.cross_claim_sentences(report, graph) == []


@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_a_narration_object_gets_the_same_field_checks_as_json(profile: str) -> None:
    """Issue 11 bug: a blank text passed paper when the narration came as a Narration."""
    blank = {"id": "c1", "type": "COMPARISON", "text": "   ", "cited_evidence_ids": ["win-dining"],
             "entities": [], "numbers": []}  # fmt: skip
    graph = ROOT / "examples" / "graph.json"
    as_object = verify(graph, Narration(claims=[Claim(**blank)]), profile=profile)
    as_dict = verify(graph, {"claims": [blank]}, profile=profile)
    assert as_object.refused and as_dict.refused
    assert as_object.answer == as_dict.answer
    codes = [e.code for e in as_object.claims[0].errors]
    assert codes == [e.code for e in as_dict.claims[0].errors] == ["schema.empty_text"]
