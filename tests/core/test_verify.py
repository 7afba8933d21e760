"""verify(): input kinds, fail-closed gates, report shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import verity
from tests.helpers import GRAPHS, card_small_claim, graph_dict
from verity import Claim, EvidenceGraph, Finding, Narration, load_graph, verify
from verity.core.verify import reading_order

GOOD = card_small_claim("win_dining")


def test_accepts_graph_as_dict_path_or_object_and_narration_as_model() -> None:
    narration = Narration(claims=[Claim(**GOOD)])
    for graph in (
        graph_dict("card_small.json"),
        GRAPHS / "card_small.json",
        str(GRAPHS / "card_small.json"),
        load_graph(GRAPHS / "card_small.json"),
    ):
        report = verify(graph, narration)
        assert report.summary.all_claims_verified
        assert report.shipped[0].text == GOOD["text"]


@verity.custom_gate("boom", codes={"boom.found": "a finding before the gate breaks"})
def _fake_exploding_gate(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    raise RuntimeError("boom")
    yield  # pragma: no cover


@verity.custom_gate("boom", codes={"boom.found": "a finding before the gate breaks"})
def _fake_gate_that_finds_then_explodes(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    yield Finding("boom.found", "first finding", None, None)
    raise KeyError("late")


@pytest.mark.parametrize("fake", [_fake_exploding_gate, _fake_gate_that_finds_then_explodes])
@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_a_gate_that_raises_rejects_the_claim(fake: verity.CustomGate, profile: str) -> None:
    # The public seam adds a gate to a profile: verity.extend (no patching of the table).
    derived = verity.extend(profile, [fake])
    assert [g.name for g in derived.gates][-1] == "boom"
    report = verify(graph_dict("card_small.json"), {"claims": [GOOD]}, profile=derived)
    (verdict,) = report.claims
    assert not verdict.passed
    internal = [e for e in verdict.errors if e.code == "internal.error"]
    assert [(e.gate, e.actual) for e in internal] == [
        ("boom", "RuntimeError" if fake is _fake_exploding_gate else "KeyError")
    ]
    # what the gate found before it broke is kept, ahead of the internal error
    found = [e.code for e in verdict.errors if e.gate == "boom"]
    assert found == (
        ["internal.error"] if fake is _fake_exploding_gate else ["boom.found", "internal.error"]
    )
    assert report.summary.failing_by_gate["boom"] == 1
    assert report.refused


def test_unknown_profile_is_an_input_error() -> None:
    from verity import InputError

    with pytest.raises(InputError, match="unknown profile 'lenient'"):
        verify(graph_dict("card_small.json"), {"claims": [GOOD]}, profile="lenient")


def test_report_serializes_to_its_schema() -> None:
    import json

    from jsonschema import Draft202012Validator

    from tests.helpers import ROOT

    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
    bad = {**GOOD, "id": "c2", "entities": ["amex"]}
    report = verify(graph_dict("card_small.json"), {"claims": [GOOD, bad, 3]})
    data = report.to_dict()
    Draft202012Validator(schema).validate(data)
    assert data["format"] == "verity.report/1"
    err = data["claims"][1]["errors"][0]
    assert set(err) == {"gate", "code", "message", "expected", "actual"}
    assert err["actual"] == "amex"


def _marked_run() -> tuple[EvidenceGraph, dict[str, object]]:
    """A solved card-rewards graph (headline and salience marked) and a narration of four
    of its statements, the plan last."""
    from verity.backends.card_rewards import optimize

    graph = load_graph(optimize(7, "max_value"))
    picks = [
        "assumption:annual_basis",  # salience 0.05
        "segment:steady_cash:other_spend:within",  # 0.68
        "segment:cart_rewards:online:within",  # 0.85
        "objective",  # the headline
    ]
    types = {"ASSUMPTION": "ASSUMPTION", "ALLOCATION_SEGMENT": "ALLOCATION"}
    claims = []
    for i, node_id in enumerate(picks, start=1):
        node = graph.nodes[node_id]
        claims.append(
            {
                "id": f"c{i}",
                "type": types.get(node.type, "ALLOCATION"),
                "text": node.statement,
                "cited_evidence_ids": [node_id],
                "entities": list(node.entities),
                "numbers": list(node.numbers),
            }
        )
    return graph, {"graph_id": graph.graph_id, "claims": claims}


def test_shipped_claims_follow_reading_order_headline_then_salience() -> None:
    graph, narration = _marked_run()
    report = verify(graph, narration)
    assert report.summary.all_claims_verified
    assert [c.id for c in report.shipped] == ["c4", "c3", "c2", "c1"]
    assert [v.id for v in report.claims] == ["c1", "c2", "c3", "c4"]  # verdicts keep input order
    assert report.answer.startswith(graph.nodes["objective"].statement)


def test_ties_keep_the_narration_order_and_unmarked_graphs_keep_it_all() -> None:
    graph, narration = _marked_run()
    data = graph.to_dict()
    for node in data["nodes"]:
        node.pop("headline", None)
        node["salience"] = 0.5  # all equal: the narration's order
    tied = load_graph(data)
    assert [c.id for c in verify(tied, narration).shipped] == ["c1", "c2", "c3", "c4"]
    for node in data["nodes"]:
        node.pop("salience")
    plain = load_graph(data)
    assert not plain.marked
    assert [c.id for c in verify(plain, narration).shipped] == ["c1", "c2", "c3", "c4"]
    assert reading_order(plain, []) == []


def test_salience_without_headline_orders_by_salience_alone() -> None:
    graph, narration = _marked_run()
    data = graph.to_dict()
    for node in data["nodes"]:
        node.pop("headline", None)
    graph = load_graph(data)
    # the objective's salience (1.0) is still the highest
    assert [c.id for c in verify(graph, narration).shipped] == ["c4", "c3", "c2", "c1"]
    for node in data["nodes"]:
        if node["id"] == "objective":
            node.pop("salience")  # absent counts as 0: after every marked node
    graph = load_graph(data)
    assert [c.id for c in verify(graph, narration).shipped] == ["c3", "c2", "c1", "c4"]
