"""Repair that points (the REVIEW's data for text refusals and wrong ids) and ``restate``:
cases from tests/fixtures/repair/pointing.json, narrated by a fake narrator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import TESTS, load_json
from tests.llm.test_repair import FakeNarrator, _review
from verity import load_graph, verify
from verity.cli.main import main
from verity.llm.repair import narrate_and_verify
from verity.pipeline import narrate

CASES: dict[str, Any] = load_json(TESTS / "fixtures" / "repair" / "pointing.json")
GRAPHS = TESTS / "fixtures"


def _claim(case: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c1", **case["claim"]}


@pytest.mark.parametrize("case", CASES["review"], ids=lambda c: c["name"])
def test_the_review_points(case: dict[str, Any]) -> None:
    graph = load_graph(GRAPHS / case["graph"])
    fake = FakeNarrator([[_claim(case)], []])
    result = narrate_and_verify(graph, fake, "grounded")
    errors = result.passes[0].report.claims[0].errors
    assert [e.code for e in errors] == case["codes"]
    (item,) = _review(fake.prompts[1])["failing_claims"]
    allowed = item["allowed"]
    assert allowed.get("nearest_declared_sentences") == case["nearest_declared_sentences"]
    assert allowed.get("text_refusals") == case["text_refusals"]
    if case["nearest_declared_sentences"] is not None:
        assert "statements_of_cited_nodes" not in allowed  # no bare statement to copy
    suggested = allowed.get("suggested_nodes")
    if case["suggested"] is None:
        assert suggested is None
    else:
        assert [s["id"] for s in suggested] == case["suggested"]
        for s in suggested:
            assert s["statement"] == graph.nodes[s["id"]].statement
            assert set(s["states_numbers"]) <= set(graph.nodes[s["id"]].numbers)
        if "suggested_statements" in case:
            assert [s["statement"] for s in suggested] == case["suggested_statements"]
    for node_id, sentences in (case["nearest_declared_sentences"] or {}).items():
        for sentence in sentences:  # each shown sentence is one the node declares
            claim = {**_claim(case), "text": sentence, "cited_evidence_ids": [node_id]}
            found = verify(graph, {"graph_id": graph.graph_id, "claims": [claim]})
            assert not [e for e in found.claims[0].errors if e.gate == "polarity"], sentence


@pytest.mark.parametrize("case", CASES["restate"], ids=lambda c: c["name"])
def test_restate(case: dict[str, Any]) -> None:
    graph = load_graph(GRAPHS / case["graph"])
    claim = _claim(case)
    off = narrate_and_verify(graph, FakeNarrator([[claim]]), "grounded", repairs=0)
    assert not off.restate and off.restated == () and off.final.summary.passed == 0
    on = narrate_and_verify(graph, FakeNarrator([[claim]]), "grounded", repairs=0, restate=True)
    assert on.restate
    if case["ships"] is None:
        assert on.restated == () and on.final.summary.passed == 0 and on.final.refused
        assert on.shipped_by() == {"as_written": 0, "after_repair": 0, "restated": 0}
        return
    (r,) = on.restated
    assert (r.id, r.node_id, r.text, r.restated_from) == (
        "c1",
        case["node_id"],
        case["ships"],
        claim["text"],
    )
    assert [c.text for c in on.final.shipped] == [case["ships"]]
    assert on.shipped_by() == {"as_written": 0, "after_repair": 0, "restated": 1}
    # The final narration, restated, verifies on its own under strict.
    again = verify(graph, {"graph_id": graph.graph_id, "claims": on.final_claims}, "strict")
    assert again.summary.all_claims_verified
    data = json.loads(json.dumps(on.to_dict()))
    assert data["restated"] == [
        {
            "id": "c1",
            "node_id": case["node_id"],
            "text": case["ships"],
            "restated_from": claim["text"],
        }
    ]
    assert data["shipped"][0]["text"] == case["ships"]


def test_restate_after_a_repair_counts_each_way() -> None:
    """Pass 0 ships one claim as written; the repair's replacement is refused only by its
    words and ships restated; the counts say so."""
    graph = load_graph(GRAPHS / "graphs" / "card_templates.json")
    (good, para) = (_claim(c) for c in CASES["restate"][:1] * 2)
    good = {**good, "text": "Annual spending on dining is $4,000.00."}
    bad = {**para, "cited_evidence_ids": ["no-such-node"]}
    fake = FakeNarrator([[good, bad], [para]])
    result = narrate(graph, fake, "grounded", restate=True)
    assert result.shipped_by() == {"as_written": 1, "after_repair": 0, "restated": 1}
    assert [r.id for r in result.restated] == ["c3"]
    plain = narrate(graph, FakeNarrator([[good, bad], [para]]), "grounded")
    assert plain.shipped_by() == {"as_written": 1, "after_repair": 0, "restated": 0}
    fixed = {**good, "text": "Spending on dining is $4,000.00 a year."}
    repaired = narrate(graph, FakeNarrator([[good, bad], [fixed]]), "grounded", restate=True)
    assert repaired.shipped_by() == {"as_written": 1, "after_repair": 1, "restated": 0}


def test_restate_after_a_failed_repair_request_restates_the_pass_before_it() -> None:
    """The repair request fails in transport: the claim pass 0 refused only by its words
    still ships restated, with the claim pass 0 shipped as written."""
    graph = load_graph(GRAPHS / "graphs" / "card_templates.json")
    para = _claim(CASES["restate"][0])
    good = {**para, "text": "Annual spending on dining is $4,000.00."}
    result = narrate(
        graph, FakeNarrator([[good, para], "api.server_error"]), "grounded", restate=True
    )
    assert result.stop_reason == "api_error" and len(result.passes) == 2
    assert [r.id for r in result.restated] == ["c2"]
    assert result.shipped_by() == {"as_written": 1, "after_repair": 0, "restated": 1}
    final = {"graph_id": graph.graph_id, "claims": result.final_claims}
    assert [c["id"] for c in result.final_claims] == ["c1", "c2"]
    assert verify(graph, final, "strict").summary.all_claims_verified
    plain = narrate(graph, FakeNarrator([[good, para], "api.server_error"]), "grounded")
    assert plain.shipped_by() == {"as_written": 1, "after_repair": 0, "restated": 0}


def test_cli_narrate_restate_is_off_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = GRAPHS / "graphs" / "card_templates.json"
    code = main(["narrate", str(graph), "--narrator", "scripted:clean", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["restate"] is False and data["restated"] == []
    assert sum(data["shipped_by"].values()) == len(data["shipped"])
    code = main(["narrate", str(graph), "--narrator", "scripted:clean", "--restate"])
    out = capsys.readouterr().out
    assert code == 0 and " as written, 0 after repair, 0 restated" in out
