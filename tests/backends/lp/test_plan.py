"""The plan first (docs/plan.md): an optimization model's graph ranks its decisions
before what limits them, its headline states the plan's size, no node restates a
decision's value, and the default (choice) selection tells at least three decisions (or
all) before a limit. Cases: tests/fixtures/plan/cases.json, on CBC and HiGHS."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.backends.lp.examples import SOLVER_PARAMS, claim_of
from tests.helpers import EXAMPLES, FIXTURES, load_json, told_first
from verity import EvidenceGraph, verify
from verity.backends.pulp import graph_from_file

CASES: dict[str, Any] = load_json(FIXTURES / "plan" / "cases.json")
MODELS = {case["name"]: case for case in CASES["models"]}
DIRS = {"examples": EXAMPLES, "plan": FIXTURES / "lp" / "plan"}


@cache
def _graph(name: str, solver: str) -> EvidenceGraph:
    case = MODELS[name]
    where = DIRS[case["dir"]]
    return graph_from_file(where / case["model"], where / case["labels"], solver_name=solver)


def _ranked(graph: EvidenceGraph) -> list[Any]:
    """The nodes that are no headline, most salient first (file order breaks ties)."""
    nodes = [n for n in graph.model.nodes if not n.headline]
    return sorted(nodes, key=lambda n: -(n.salience or 0.0))


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_decisions_rank_first_grouped_and_the_headline_counts_them(name: str, solver: str) -> None:
    graph = _graph(name, solver)
    decisions = [n for n in graph.model.nodes if n.type == "DECISION"]
    ranked = _ranked(graph)
    assert [n.type for n in ranked[: len(decisions)]] == ["DECISION"] * len(decisions)
    assert all(n.salience is not None for n in decisions)
    # grouped: the decisions of one group (a plant, an origin) are ranked side by side
    groups = [n.data["plan_group"] for n in ranked[: len(decisions)]]
    runs = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
    assert len(runs) == len(set(groups)), groups
    result = graph.nodes["result"]
    assert result.statement == MODELS[name]["headline"]
    claim = claim_of(graph, "result") | {"id": "c1"}
    assert verify(graph, {"claims": [claim]}).summary.all_claims_verified


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_default_selection_tells_the_plan_then_a_limit(name: str) -> None:
    graph = _graph(name, "cbc")
    told = told_first(graph)
    assert [i.node_id for i in told] == MODELS[name]["told"]
    plan = sum(1 for n in graph.model.nodes if n.type == "DECISION")
    decisions = [i for i in told if i.node_type == "DECISION"]
    assert len(decisions) >= min(3, plan)
    assert told[0].headline and told[1 : 1 + len(decisions)] == decisions  # the plan first
    assert told[-1].node_type in CASES["limits"]  # then what limits it
    report = verify(graph, {"claims": [i.claim() | {"id": f"c{k}"} for k, i in enumerate(told)]})
    assert report.summary.all_claims_verified


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_no_node_restates_a_decisions_value(name: str, solver: str) -> None:
    """Each fact once: the value of a decision in the plan is stated by its decision node
    alone: no other node (a bound, a reduced cost) names the same decision and states the
    same number. A limit of the same size on another item (a capacity of 500 units that
    production reaches) is the limit's own fact."""
    graph = _graph(name, solver)
    allowed = set(CASES["restating"]["types"])
    for node in graph.model.nodes:
        if node.type != "DECISION":
            continue
        for other in graph.model.nodes:
            if other.id == node.id or other.type in allowed:
                continue
            names_it = node.slots["name"] in other.slots.values()
            assert not (names_it and set(node.numbers) & set(other.numbers)), (
                node.statement,
                other.statement,
            )


@pytest.mark.parametrize("case", CASES["plan_sizes"], ids=lambda c: c["headline"])
def test_the_plan_size_agrees_in_number(case: dict[str, Any], tmp_path: Path) -> None:
    model = tmp_path / "model.lp"
    model.write_text(case["lp"], "utf-8")
    graph = graph_from_file(model)
    assert graph.nodes["result"].statement == case["headline"]
    short = claim_of(graph, "result", case["headline"].split(",")[0] + ".") | {"id": "c1"}
    assert verify(graph, {"claims": [short]}).summary.all_claims_verified  # the size may go
