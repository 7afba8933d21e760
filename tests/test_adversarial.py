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


# --- v5 (issue 36): a claim read whole ----------------------------------------------------

V5_ATTACKS = harness.load(HERE / "v5_attacks.json")["cases"]
V5_CONTROLS = harness.load(HERE / "v5_controls.json")["cases"]
V5_FREE = harness.load(HERE / "v5_freetext.json")
V5_CLASSES = {
    "scope_join",
    "cap_switch_target",
    "gapped",
    "scope_next_sentence",
    "scope_into_list",
    "condition_carry",
    "widening_variant",
    "english_name",
    "wrong_coordinable",
    "linking_row",
}
V5_STYLES = {
    "serial_comma",
    "gapped",
    "member_order",
    "scope_moved",
    "value_parentheses",
    "markdown",
    "entity_form",
    "scoped_join",
    "two_sentence_scope",
}


@pytest.mark.parametrize("case", V5_ATTACKS, ids=lambda c: c["id"])
def test_v5_strict_ships_no_false_claim(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="class")
    if outcome.load_refused:  # only a declaration the loader checks may refuse the graph
        assert case["class"] in REFUSED_AT_LOAD, outcome.codes
        assert REFUSED_AT_LOAD[case["class"]] in outcome.codes[0], outcome.codes
    assert not outcome.escaped, (case["why"], outcome)


#: Classes whose false declarations the loader refuses, with the words of its error: a
#: graph of theirs is never built, so none of its claims can ship.
REFUSED_AT_LOAD = {
    "english_name": "reads as a quantifier phrase",
    "wrong_coordinable": "coordinable",
}


def _well_formed(case: dict[str, Any], group_key: str, groups: set[str]) -> None:
    assert case["id"].startswith("v5-") and case["why"].strip(), case["id"]
    assert case[group_key] in groups, case["id"]
    if case["graph"].startswith("spec/v5_sales_"):  # a spec with a refused declaration
        with pytest.raises(Exception, match=r"quantifier phrase|share or a total"):
            harness.graph(case["graph"], R)
        return
    g = harness.graph(case["graph"], R)
    claim_types = {r.claim_type for r in g.model.rules}
    for claim in case["claims"]:
        assert claim["type"] in claim_types, (case["id"], claim["type"])
        assert claim["text"].strip() and claim["cite"], case["id"]
        assert set(claim["cite"]) <= set(g.nodes), (case["id"], claim["cite"])


def test_v5_attacks_are_well_formed_and_cover_every_class() -> None:
    assert len(V5_ATTACKS) >= 50
    assert len({c["id"] for c in V5_ATTACKS}) == len(V5_ATTACKS)
    assert {c["class"] for c in V5_ATTACKS} == V5_CLASSES
    for case in V5_ATTACKS:
        _well_formed(case, "class", V5_CLASSES)


def test_v5_controls_are_well_formed_and_cover_every_style() -> None:
    assert len(V5_CONTROLS) >= 40
    ids = [c["id"] for c in V5_CONTROLS]
    assert len(set(ids)) == len(ids)
    assert {c["style"] for c in V5_CONTROLS} >= V5_STYLES
    for case in V5_CONTROLS:
        _well_formed(case, "style", V5_STYLES | {"distributive_each"})


def test_v5_free_text_is_well_formed() -> None:
    items = [*V5_FREE["attacks"], *V5_FREE["controls"]]
    assert len({i["id"] for i in items}) == len(items)
    assert {a["class"] for a in V5_FREE["attacks"]} <= V5_CLASSES
    assert {c["style"] for c in V5_FREE["controls"]} <= V5_STYLES | {"analyst"}
    for item in items:
        assert item["answer"].strip() and item["why"].strip(), item["id"]
        harness.graph(item["graph"], R)


def test_a_graph_the_code_refuses_is_load_refused_not_a_crash() -> None:
    case = {**V5_ATTACKS[0], "graph": "spec/no_such_spec"}
    outcome = harness.judge(case, "strict", R, group_key="class")
    assert outcome.load_refused and not outcome.escaped and not outcome.all_shipped
    assert outcome.codes[0].startswith("load_refused: ")
