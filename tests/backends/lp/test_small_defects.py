"""Small models whose statements were wrong or lost: shadow prices in dollars per gram keep
the decimals that show them (or the graph says they round to 0), and statements agree in
number (``1 desk``, ``at the upper bound`` of a plural name)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.backends.lp.examples import SOLVER_PARAMS, claim_of
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, verify
from verity.backends.pulp import graph_from_file
from verity.backends.pulp._graph import singular

SPEC: dict[str, Any] = load_json(FIXTURES / "lp" / "small_defects.json")
CASES = {c["id"]: c for c in SPEC["cases"]}


def _graph(case: dict[str, Any], solver: str = "cbc") -> EvidenceGraph:
    return graph_from_file(FIXTURES / "lp" / case["model"], case["labels"], solver_name=solver)


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("case", SPEC["cases"], ids=list(CASES))
def test_the_statements_are_right(case: dict[str, Any], solver: str) -> None:
    graph = _graph(case, solver)
    for node_id, statement in case["statements"].items():
        assert graph.nodes[node_id].statement == statement
    for node_id in case["absent"]:
        assert node_id not in graph.nodes
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(graph.model.nodes)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []


@pytest.mark.parametrize("claim", SPEC["claims"], ids=[c["text"] for c in SPEC["claims"]])
def test_claims_in_either_number(claim: dict[str, Any]) -> None:
    graph = _graph(CASES[claim["case"]])
    report = verify(graph, {"claims": [claim_of(graph, claim["node"], claim["text"])]})
    assert report.claims[0].passed is claim["passes"]


@pytest.mark.parametrize(("unit", "one"), SPEC["singular"])
def test_a_unit_after_one_is_singular(unit: str, one: str) -> None:
    assert singular(unit) == one
