"""The adversarial fixtures (benchmarks/adversarial): every attack of every class is kept
out by strict and check-answer; the true controls ship at least as often as the figures in
benchmarks/README.md say."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import ROOT
from verity import check_answer
from verity.bench import adversarial as harness

HERE = ROOT / "benchmarks" / "adversarial"
R = str(ROOT)
ATTACKS = [
    *harness.load(HERE / "structured_attacks.json")["cases"],
    *harness.load(HERE / "v4_attacks.json")["cases"],
]
CONTROLS = harness.load(HERE / "structured_controls.json")["cases"]
V4_CONTROLS = harness.load(HERE / "v4_controls.json")["cases"]
FREE = [harness.load(HERE / "freetext.json"), harness.load(HERE / "v4_freetext.json")]

#: Controls that strict ships, at least (the figures in benchmarks/README.md): the older
#: set loses compression and shared-subject ellipsis by design, the v4 set the ``'s``
#: contractions (``is``, ``has`` or a possessive: not a universal equivalence).
CONTROL_FLOOR = 55  # of 65
V4_CONTROL_FLOOR = 65  # of 74
V4_CARD_FLOOR = 0.85  # share of the v4 controls over card-rewards graphs


def test_fixtures_cover_every_class() -> None:
    classes = {c["class"] for c in ATTACKS}
    assert {"coordination", "deleted_verb", "deleted_intention", "deleted_comparator"} <= classes
    assert {"recombined_objects", "compound_head", "dash_sign", "collective_reading"} <= classes
    assert {"splice", "deleted_scope", "reattachment", "reader_view", "type_laundering"} <= classes
    assert {c["graph"].split("/")[0] for c in ATTACKS} == {"card", "sql"}
    assert {c["graph"].split("/")[0] for c in V4_CONTROLS} == {"card", "sql"}


@pytest.mark.parametrize("case", ATTACKS, ids=lambda c: c["id"])
def test_strict_ships_no_attack(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="class")
    assert not outcome.escaped, (outcome.codes, outcome.cross_claim)


def test_control_acceptance_does_not_fall() -> None:
    accepted = sum(harness.judge(c, "strict", R, group_key="style").all_shipped for c in CONTROLS)
    assert accepted >= CONTROL_FLOOR
    outcomes = [(c, harness.judge(c, "strict", R, group_key="style")) for c in V4_CONTROLS]
    assert sum(o.all_shipped for _, o in outcomes) >= V4_CONTROL_FLOOR
    card = [o.all_shipped for c, o in outcomes if c["graph"].startswith("card/")]
    assert sum(card) / len(card) >= V4_CARD_FLOOR


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in [*CONTROLS, *V4_CONTROLS]
        if c["style"] in ("verbatim", "aggregation", "display_names")
    ],
    ids=lambda c: c["id"],
)
def test_strict_ships_every_verbatim_named_and_aggregated_control(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="style")
    assert outcome.all_shipped, outcome.codes


@pytest.mark.parametrize(
    ("free", "item"),
    [(f, a) for f in FREE for a in f["attacks"]],
    ids=lambda x: x["id"] if "answer" in x else "",
)
def test_check_answer_removes_every_attack(free: dict[str, Any], item: dict[str, Any]) -> None:
    result = check_answer(item["answer"], harness.freetext_passages(free, item))
    assert result.unsupported_claims_removed >= 1


def test_check_answer_keeps_most_controls() -> None:
    rejected = [
        c["id"]
        for f in FREE
        for c in f["controls"]
        if check_answer(c["answer"], harness.freetext_passages(f, c)).unsupported_claims_removed
    ]
    assert len(rejected) <= 9, rejected  # 7 of 16 older (sub-spans v4 refuses), 2 of 27 v4
