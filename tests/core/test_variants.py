"""Variants learned from use (:mod:`verity.core.variants`), from JSON fixtures.

Each case is a claim in a writer's own words that passes gates 1-4 and whose text strict
refuses; the fixture states the proposal (template and variant) or why it is refused.
An accepted proposal, added to the graph, makes the claim pass strict, and the graph
still loads.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity import EvidenceGraph, load_graph, verify
from verity.core.variants import add_variants, refused_sentences, suggest_variants

CASES: list[dict[str, Any]] = load_json(FIXTURES / "variants" / "suggest.json")["cases"]


@cache
def graph_of(name: str) -> EvidenceGraph:
    if name == "sql_sample":
        from verity.backends.sql.query import graph_from_sample

        return graph_from_sample()
    kind, stem = name.split(":")
    assert kind == "card"
    return load_graph(ROOT / "evidence_graphs" / "card_rewards" / f"{stem}.json")


def narration(graph: EvidenceGraph, claim: dict[str, Any]) -> dict[str, Any]:
    return {"graph_id": graph.graph_id, "claims": [{"id": "c1", **claim}]}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_proposal(case: dict[str, Any]) -> None:
    graph = graph_of(case["graph"])
    doc = narration(graph, case["claim"])
    report = verify(graph, doc, "strict")
    assert not report.claims[0].passed
    assert {e.gate for e in report.claims[0].errors} == {"polarity"}
    found = suggest_variants(graph, [doc])
    (proposal,) = found.proposals
    expect = case["expect"]
    if "refused" in expect:
        assert not proposal.accepted
        assert expect["refused"] in (proposal.problem or "")
        assert found.additions == {}
        return
    assert proposal.problem is None
    assert (proposal.template, proposal.variant) == (expect["template"], expect["variant"])
    assert found.additions == {expect["template"]: (expect["variant"],)}
    learned = load_graph(add_variants(graph.to_dict(), found.additions))
    assert verify(learned, doc, "strict").claims[0].passed


def test_only_text_refusals_are_read() -> None:
    """A claim another gate refuses (a number its cited node does not state) is not a
    true-looking sentence: nothing is proposed for it."""
    graph = graph_of("sql_sample")
    claim = dict(CASES[0]["claim"], numbers=["$1,016,395.27"])
    doc = narration(graph, claim)
    assert refused_sentences(graph, [doc]) == []
    assert suggest_variants(graph, [doc]).proposals == ()


def test_one_variant_for_a_sentence_written_twice() -> None:
    graph = graph_of("sql_sample")
    doc = narration(graph, CASES[0]["claim"])
    found = suggest_variants(graph, [doc, doc])
    assert [p.refused.narration for p in found.proposals] == [0, 1]
    assert all(p.accepted for p in found.proposals)
    assert found.additions == {
        "quarter_totals": ("Total revenue for {quarter} reached {revenue}.",)
    }
