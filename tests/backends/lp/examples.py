"""The optimization models the tests solve: the two worked examples under examples/,
two models with linking rows of tests/fixtures/lp (depots: capacity-if-open,
minimum-if-open and big-M rows; staffing: people switched on by a lead, customers by
people) and an 8 x 8 transportation LP whose reduced costs outnumber the default detail
(``transport_brief``: the same model with two of each kind stated, the rest summarised)."""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any

import pytest

from tests.helpers import EXAMPLES, FIXTURES
from verity import EvidenceGraph
from verity.backends.pulp import DEFAULT_DETAIL, graph_from_file, read_model, solve_problem

#: example name -> (model file, labels file)
MODELS = {
    "production_plan": (EXAMPLES / "production_plan.lp", EXAMPLES / "production_plan.labels.json"),
    "staff_schedule": (EXAMPLES / "staff_schedule.mps", EXAMPLES / "staff_schedule.labels.json"),
    "depots": (FIXTURES / "lp" / "depots.lp", FIXTURES / "lp" / "depots.labels.json"),
    "staffing": (FIXTURES / "lp" / "staffing.lp", FIXTURES / "lp" / "staffing.labels.json"),
    "transport": (FIXTURES / "lp" / "transport.lp", FIXTURES / "lp" / "transport.labels.json"),
}
#: graph name -> (model of MODELS, detail): graphs of a model at another detail
BRIEF = {"transport_brief": ("transport", 2)}
SOLVER_PARAMS = [
    "cbc",
    pytest.param(
        "highs",
        marks=pytest.mark.skipif(
            importlib.util.find_spec("highspy") is None,
            reason="highspy is not installed (verity-evidence[highs])",
        ),
    ),
]


@cache
def example_graph(name: str, solver: str = "cbc") -> EvidenceGraph:
    base, detail = BRIEF.get(name, (name, DEFAULT_DETAIL))
    model, labels = MODELS[base]
    return graph_from_file(model, labels, solver_name=solver, detail=detail)


def solved(name: str, solver: str = "cbc") -> Any:
    return solve_problem(read_model(MODELS[name][0]), solver)


def claim_of(graph: EvidenceGraph, node_id: str, text: str | None = None) -> dict[str, Any]:
    """The node's statement (or ``text``) as a claim of the type that narrates it."""
    node = graph.nodes[node_id]
    rule = next(r for r in graph.model.rules if node.type in r.requires[0].any_of)
    return {
        "id": "c1",
        "type": rule.claim_type,
        "text": node.statement if text is None else text,
        "cited_evidence_ids": [node_id],
        "entities": list(node.entities),
        "numbers": list(node.numbers),
    }
