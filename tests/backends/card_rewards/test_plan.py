"""The card-rewards plan first (docs/plan.md): which card takes which category, then what
limits it (a cap, a fee break-even, a threshold), each fact once. Cases:
tests/fixtures/plan/cases.json; every checked-in graph for the no-repeat rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, SharedGraphs, load_json, told_first
from verity import verify
from verity.llm.menu import PLAN_CLAIMS, plan_type
from verity.llm.prompts import build_prompt

CASES: list[dict[str, Any]] = load_json(FIXTURES / "plan" / "cases.json")["card"]
LIMITS: list[str] = load_json(FIXTURES / "plan" / "cases.json")["card_limits"]
NAMES = sorted(p.name for p in (ROOT / "evidence_graphs" / "card_rewards").glob("*.json"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["graph"])
def test_the_default_selection_tells_the_plan_then_a_limit(
    case: dict[str, Any], graphs: SharedGraphs
) -> None:
    graph = graphs.card(case["graph"] + ".json")
    told = told_first(graph)
    if "told" in case:
        assert [i.text for i in told] == case["told"]
    if "told_types" in case:
        assert [i.node_type for i in told] == case["told_types"]
    assert told[0].headline
    assert [i.node_type for i in told[1 : 1 + PLAN_CLAIMS]] == ["ALLOCATION_SEGMENT"] * PLAN_CLAIMS
    assert told[-1].node_type in LIMITS
    report = verify(graph, {"claims": [i.claim() | {"id": f"c{k}"} for k, i in enumerate(told)]})
    assert report.summary.all_claims_verified


@pytest.mark.parametrize("name", NAMES[::7])
def test_the_plan_is_the_allocation_and_each_category_leads_with_its_card(
    name: str, graphs: SharedGraphs
) -> None:
    graph = graphs.card(name)
    prompt = build_prompt(graph, "choice")
    assert plan_type(prompt.menu) == "ALLOCATION_SEGMENT"
    segments = sorted(
        (n for n in graph.model.nodes if n.type == "ALLOCATION_SEGMENT"),
        key=lambda n: -(n.salience or 0.0),
    )
    categories = {n.data["category"] for n in segments}
    leading = [n.data["category"] for n in segments[: len(categories)]]
    assert sorted(leading) == sorted(categories)  # one segment per category first


def _restates(segment: Any, other: Any) -> bool:
    """``other`` states the segment's card, category, amount and rate: the same fact."""
    card, category = segment.data["card"], segment.data["category"]
    amount_and_rate = set(segment.numbers[:2])
    return {card, category} <= set(other.entities) and amount_and_rate <= set(other.numbers)


@pytest.mark.parametrize("name", NAMES)
def test_no_node_restates_where_spend_goes(name: str, graphs: SharedGraphs) -> None:
    graph = graphs.card(name)
    for segment in graph.model.nodes:
        if segment.type != "ALLOCATION_SEGMENT":
            continue
        others = [o.id for o in graph.model.nodes if o.id != segment.id and _restates(segment, o)]
        assert others == [], (segment.statement, others)


def test_cases_name_checked_in_graphs() -> None:
    for case in CASES:
        assert Path(ROOT / "evidence_graphs" / "card_rewards" / f"{case['graph']}.json").exists()
