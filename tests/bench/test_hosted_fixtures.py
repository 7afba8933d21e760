"""The hosted-model narrations of ``benchmarks/hosted/narrations.json``: well formed (every
cited id a node of its graph, or a near miss of the id it names as intended; every claim
type a rule of the graph; enough true and false claims) and no false claim ships under
strict, verified as a whole narration the way ``benchmarks/hosted/run.py`` verifies it."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

import verity
from tests.helpers import ROOT, SharedGraphs, load_json
from verity.bench.adversarial import declare

DATA: dict[str, Any] = load_json(ROOT / "benchmarks" / "hosted" / "narrations.json")
CASES = DATA["narrations"]
CLAIMS = [(case, i, claim) for case in CASES for i, claim in enumerate(case["claims"])]


def graph(ref: str) -> verity.EvidenceGraph:
    kind, _, name = ref.partition("/")
    return SharedGraphs.named(f"{name}.json" if kind == "card" else ref)


def test_counts_and_backends() -> None:
    truths = [claim["truth"] for _, _, claim in CLAIMS]
    assert sum(truths) >= 60
    assert len(truths) - sum(truths) >= 20
    assert {case["backend"] for case in CASES} == {"card_rewards", "sql", "lp"}
    assert {case["graph"] for case in CASES} >= {
        "sql/sample",
        "lp/production_plan",
        "lp/staff_schedule",
    }
    assert len({case["id"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("case", "index", "claim"),
    CLAIMS,
    ids=[f"{case['id']}-c{i + 1}" for case, i, _ in CLAIMS],
)
def test_claim_well_formed(case: dict[str, Any], index: int, claim: dict[str, Any]) -> None:
    g = graph(case["graph"])
    assert claim["type"] in g.rules, f"claim type {claim['type']!r} has no rule"
    assert isinstance(claim["truth"], bool) and claim["text"].strip() and claim["style"]
    intended = claim.get("intended", [])
    assert all(i in g.nodes for i in intended)
    assert (claim["style"] == "id_slip") == bool(intended)
    wrong = [i for i in claim["cite"] if i not in g.nodes]
    if not intended:
        assert not wrong, f"cited ids not in {g.graph_id}: {wrong}"
        return
    # A slip: each wrong id is a near miss of an intended id, and is not a node.
    assert wrong, "an id_slip claim cites an id that is not a node"
    for slip in wrong:
        assert difflib.get_close_matches(slip, intended, n=1, cutoff=0.8), slip


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_no_false_claim_ships_under_strict(case: dict[str, Any]) -> None:
    g = graph(case["graph"])
    claims = [declare(c, g, i) for i, c in enumerate(case["claims"])]
    report = verity.verify(g, {"graph_id": g.graph_id, "claims": claims}, "strict")
    shipped = {c.id for c in report.shipped}
    escaped = [
        c["text"]
        for c, fixture in zip(claims, case["claims"], strict=True)
        if not fixture["truth"] and c["id"] in shipped
    ]
    assert escaped == []
    assert report.shipped, "the narration ships nothing at all"
