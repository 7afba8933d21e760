"""Free text against an evidence graph: ``check_answer(answer, graph=...)``,
``verity check-answer --graph`` and their fixtures (benchmarks/adversarial/graph_freetext.json).

Every attack of every class is refused over graphs of both backends; every control (true
sentences in the wording of the graphs' templates) is kept; the analyst's sentences are
refused with the reason and the node that explains it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, SharedGraphs
from verity import check_answer, load_graph, verify
from verity.answer import AnswerResult
from verity.bench import adversarial as harness
from verity.cli.main import main
from verity.core.graph import EvidenceGraph
from verity.errors import GraphError, InputError
from verity.formats import REFUSAL

HERE = ROOT / "benchmarks" / "adversarial"


DATA = harness.load(HERE / "graph_freetext.json")
ATTACKS: list[dict[str, Any]] = DATA["attacks"]
CONTROLS: list[dict[str, Any]] = DATA["controls"]
CLASSES = (
    "number_from_another_node",
    "entity_swapped",
    "dropped_required_span",
    "period_or_scope_cut",
    "coordination_differs_twice",
)


def graph(ref: str) -> EvidenceGraph:
    return harness.graph(ref, str(ROOT))


def _kept_whole(result: AnswerResult) -> bool:
    return not result.refused and result.unsupported_claims_removed == 0


def test_fixtures_cover_every_class_over_both_backends() -> None:
    for name in CLASSES:
        kinds = {a["graph"].split("/")[0] for a in ATTACKS if a["class"] == name}
        assert "card" in kinds and kinds & {"sql", "public"}, name
    assert {a["class"] for a in ATTACKS} == {*CLASSES, "analyst"}
    styles = {c["style"] for c in CONTROLS}
    assert {"variant", "optional_cut", "aggregation", "join"} <= styles
    assert {c["graph"].split("/")[0] for c in CONTROLS} == {"card", "sql", "public"}
    assert len({c["id"] for c in [*ATTACKS, *CONTROLS]}) == len(ATTACKS) + len(CONTROLS)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
def test_attack_is_refused(attack: dict[str, Any]) -> None:
    result = check_answer(attack["answer"], graph=graph(attack["graph"]))
    (claim,) = result.claims
    assert not claim.supported and claim.node_ids == ()
    assert claim.closest_node_id is not None  # the report says what it came closest to
    assert result.refused and result.answer == REFUSAL


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: c["id"])
def test_control_is_kept(control: dict[str, Any]) -> None:
    result = check_answer(control["answer"], graph=graph(control["graph"]))
    assert _kept_whole(result), [(c.reason, c.closest_node_id, c.detail) for c in result.claims]
    assert all(c.node_ids for c in result.claims)
    assert result.answer == control["answer"]


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
def test_attack_is_trimmed_from_a_true_answer(attack: dict[str, Any]) -> None:
    control = next(c for c in CONTROLS if c["graph"] == attack["graph"])
    # The attack comes first: a scope the control states would govern a sentence after it.
    result = check_answer(attack["answer"] + "\n" + control["answer"], graph=graph(attack["graph"]))
    assert result.claims[0].supported is False
    assert result.answer == control["answer"]


# --- the analyst's sentences (SQL results of public data) ----------------------------------


@pytest.mark.parametrize(
    ("ref", "answer", "closest", "detail"),
    [
        ("public/penguins", "The study sampled 120 penguins.", "penguins_2009", "in 2009"),
        (
            "public/penguins",
            "Dream had the most penguins of all islands with 56.",
            "top_island_adelie",
            "adelie",
        ),
        (
            "public/flights",
            "EWR was the busiest origin airport with 9,893 departures.",
            "busiest_origin_january",
            "in january",
        ),
        ("public/analyst", "The study sampled 120 penguins.", "penguins_2009", "; the count"),
        (
            "public/analyst",
            "Dream had the most penguins of all islands with 56.",
            "top_island_adelie",
            "; the count covers adelie",
        ),
        (
            "public/analyst",
            "EWR was the busiest origin airport with 9,893 departures.",
            "busiest_origin_january",
            "; the count covers january",
        ),
    ],
)
def test_analyst_sentences_are_refused_with_why(
    ref: str, answer: str, closest: str, detail: str
) -> None:
    g = graph(ref)
    (claim,) = check_answer(answer, graph=g).claims
    assert (claim.supported, claim.reason, claim.closest_node_id) == (
        False,
        "required_span_dropped",
        closest,
    )
    assert claim.detail.startswith("drops '" + detail)
    # Every word of it is in the closest statement: only the required span tells it apart.
    statement = g.nodes[closest].statement.lower()
    assert all(word.strip(".").lower() in statement for word in answer.split())


def test_statements_as_passages_keep_the_analyst_sentences_the_graph_refuses() -> None:
    """What the graph mode adds: the analyst's statements, scope in a second clause, taken
    as passages keep the first clause alone; the graph's required spans refuse it."""
    g = graph("public/analyst")
    passages = [{"id": n.id, "text": n.statement} for n in g.model.nodes]
    analyst = [a for a in ATTACKS if a["graph"] == "public/analyst"]
    assert len(analyst) == 3
    for attack in analyst:
        assert _kept_whole(check_answer(attack["answer"], passages)), attack["id"]
        assert check_answer(attack["answer"], graph=g).refused, attack["id"]


def test_the_true_versions_of_the_analyst_sentences_are_kept() -> None:
    answer = (
        "The study sampled 344 penguins. In 2009, the study sampled 120 penguins. "
        "Of all islands, Biscoe had the most penguins with 168."
    )
    result = check_answer(answer, graph=graph("public/penguins"))
    assert [c.node_ids for c in result.claims] == [
        ("total_penguins",),
        ("penguins_2009",),
        ("top_island",),
    ]


def test_a_number_from_another_node_names_the_node_that_states_it() -> None:
    (claim,) = check_answer(
        "Total revenue in q1 was $952,278.95.", graph=graph("sql/sample")
    ).claims
    assert claim.closest_node_id == "total_revenue_q1"
    assert claim.detail == (
        "states '$952,278.95', which total_revenue_q1 does not (total_revenue_q2 states it)"
    )


def test_a_number_no_node_states_is_said_so() -> None:
    (claim,) = check_answer(
        "Total revenue in q1 was $982,289.03.", graph=graph("sql/sample")
    ).claims
    assert not claim.supported and claim.detail.endswith("(no node states it)")


def test_supporters_of_joins_and_aggregations_are_named_in_order() -> None:
    g = graph("card/p05-max_value")
    answer = (
        "Each steady_cash and rotating_bonus point is worth 1\u00a2. "
        "Annual spending on travel is $6,540.00 and annual spending on dining is $6,860.00."
    )
    first, second = check_answer(answer, graph=g).claims
    assert first.node_ids == (
        "assumption:point_value:steady_cash",
        "assumption:point_value:rotating_bonus",
    )
    assert second.node_ids == ("assumption:spend:travel", "assumption:spend:dining")


# --- every statement of real graphs, whole and with a required span cut --------------------

GRAPHS = ("card/p05-max_value", "card/p14-no_fee", "card/p36-two_cards", "sql/sample")


@pytest.mark.parametrize("ref", [*GRAPHS, "public/penguins", "public/flights", "public/analyst"])
def test_every_statement_is_kept_and_every_required_cut_refused(ref: str) -> None:
    g = graph(ref)
    for node in g.model.nodes:
        (claim,) = check_answer(node.statement, graph=g).claims
        assert claim.supported and node.id in (claim.node_ids or ()), node.id
        for span in node.required_spans:
            cut = " ".join(node.statement.replace(span, " ", 1).split())
            result = check_answer(cut, graph=g)
            assert not any(c.supported for c in result.claims), (node.id, span, cut)


# --- the mention barriers ------------------------------------------------------------------


def _barrier_graph(variant: str) -> dict[str, Any]:
    """One node whose template declares ``variant``: a variant whose literal text names an
    entity or a number the node does not state."""
    return {
        "format": "verity.evidence_graph/1",
        "graph_id": "barrier",
        "domain": "test",
        "entities": [
            {"id": "gold", "kind": "card", "aliases": ["Gold"]},
            {"id": "silver", "kind": "card", "aliases": ["Silver"]},
        ],
        "nodes": [
            {
                "id": "win",
                "type": "WINNER",
                "statement": "gold wins dining at 5%.",
                "entities": ["gold"],
                "numbers": ["5%"],
                "template": "t",
                "slots": {"card": "gold", "rate": "5%"},
            }
        ],
        "rules": [{"claim_type": "WIN", "requires": [{"any_of": ["WINNER"]}]}],
        "templates": [
            {"id": "t", "canonical": "{card} wins dining at {rate}.", "variants": [variant]}
        ],
    }


@pytest.mark.parametrize(
    ("variant", "sentence", "reason", "detail", "strict_codes"),
    [
        (
            "{card} wins dining at {rate}, ahead of Silver.",
            "gold wins dining at 5%, ahead of Silver.",
            "entity_not_stated",
            "mentions entity 'silver', which win does not name",
            set(),  # strict ships it: the claim declares silver, an allowed entity
        ),
        (
            "{card} wins dining at {rate}, ahead of 4%.",
            "gold wins dining at 5%, ahead of 4%.",
            "number_not_stated",
            "states '4%', which win does not (no node states it)",
            {"prose.undeclared_number"},  # strict refuses it too
        ),
    ],
)
def test_every_mention_must_be_stated_by_a_supporting_node(
    variant: str, sentence: str, reason: str, detail: str, strict_codes: set[str]
) -> None:
    data = _barrier_graph(variant)
    (claim,) = check_answer(sentence, graph=data).claims
    assert (claim.supported, claim.reason, claim.closest_node_id, claim.detail) == (
        False,
        reason,
        "win",
        detail,
    )
    # The barrier is what refuses it: the variant itself is declared (v4 supports it).
    claim_data = {
        "id": "c1",
        "type": "WIN",
        "text": sentence,
        "cited_evidence_ids": ["win"],
        "entities": ["gold", "silver"] if "Silver" in sentence else ["gold"],
        "numbers": ["5%"],
    }
    report = verify(load_graph(data), {"claims": [claim_data]}, profile="strict")
    assert {e.code for v in report.claims for e in v.errors} == strict_codes
    assert check_answer("gold wins dining at 5%.", graph=data).claims[0].supported


# --- the API ----------------------------------------------------------------------------------


def test_graph_is_a_path_a_dict_or_a_loaded_graph() -> None:
    path = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"
    answer = "rotating_bonus wins gas at 5%."
    results = [
        check_answer(answer, graph=source)
        for source in (str(path), path, json.loads(path.read_text("utf-8")), load_graph(path))
    ]
    assert all(r == results[0] for r in results) and results[0].claims[0].supported


def test_exactly_one_of_passages_and_graph() -> None:
    g = graph("sql/sample")
    with pytest.raises(InputError, match="not both"):
        check_answer("x", [], graph=g)
    with pytest.raises(InputError, match="give one"):
        check_answer("x")
    with pytest.raises(InputError, match="brings its own"):
        check_answer("x", graph=g, matcher=g.matcher)
    with pytest.raises(GraphError):
        check_answer("x", graph={"format": "verity.evidence_graph/1"})


def test_graph_result_format() -> None:
    answer = "Total revenue in q1 was $982,289.02. Total revenue was $982,289.02."
    data = json.loads(json.dumps(check_answer(answer, graph=graph("sql/sample")).to_dict()))
    assert list(data) == [
        "format", "graph_id", "claims", "unsupported_claims_removed", "all_claims_verified",
        "answer", "refused",
    ]  # fmt: skip
    assert data["format"] == "verity.answer_result/1" and data["graph_id"] == "sample_sales"
    kept, removed = data["claims"]
    assert kept == {
        "text": "Total revenue in q1 was $982,289.02.",
        "supported": True,
        "reason": "supported",
        "node_ids": ["total_revenue_q1"],
        "closest_node_id": None,
        "detail": "",
        "expected": "",
    }
    assert removed["reason"] == "required_span_dropped" and removed["node_ids"] == []
    assert removed["expected"] == "Total revenue in q1 was $982,289.02."
    assert removed["closest_node_id"] == "total_revenue_q1" and removed["detail"] == "drops 'in q1'"


def test_passages_result_keeps_its_format() -> None:
    data = check_answer("Rent is due.", [{"id": "p", "text": "Rent is due."}]).to_dict()
    assert "graph_id" not in data and "node_ids" not in data["claims"][0]  # type: ignore[index]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("Total revenue in q1 was \u200b$982,289.02.", "unreadable"), ("...", "empty_claim")],
)
def test_unreadable_and_empty_sentences(answer: str, reason: str) -> None:
    (claim,) = check_answer(answer, graph=graph("sql/sample")).claims
    assert (claim.supported, claim.reason, claim.node_ids) == (False, reason, ())


def test_an_empty_answer_is_the_refusal() -> None:
    result = check_answer("  ", graph=graph("sql/sample"))
    assert result.claims == () and result.refused and not result.all_claims_verified


# --- the command line ----------------------------------------------------------------------


def _write(tmp_path: Path, g: EvidenceGraph, answer: str) -> tuple[str, str]:
    gp, ap = tmp_path / "graph.json", tmp_path / "answer.txt"
    gp.write_text(g.dumps(), "utf-8")
    ap.write_text(answer, "utf-8")
    return str(gp), str(ap)


def test_cli_graph_mode_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    g = graph("public/penguins")
    gp, ap = _write(tmp_path, g, "The study sampled 344 penguins. The study sampled 120 penguins.")
    assert main(["check-answer", "--graph", gp, ap]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "graph public-penguins | 2 sentences: 1 supported, 1 removed",
        "  KEEP   [total_penguins] The study sampled 344 penguins.",
        "  REMOVE [required_span_dropped; closest penguins_2009] The study sampled 120 penguins.",
        "         drops 'in 2009 ,'",
        "answer: The study sampled 344 penguins.",
    ]
    assert main(["check-answer", ap, "--graph", gp, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data == check_answer(Path(ap).read_text("utf-8"), graph=g).to_dict()
    Path(ap).write_text("The study sampled 120 penguins.", "utf-8")
    assert main(["check-answer", "--graph", gp, ap]) == 3


def test_cli_names_a_swapped_graph_and_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "A").write_text("The study sampled 120 penguins.", "utf-8")
    (tmp_path / "G").write_text(graph("sql/sample").dumps(), "utf-8")
    assert main(["check-answer", "--graph", "A", "G"]) == 2
    assert capsys.readouterr().err == (
        "verity: error: the files look swapped: A is not JSON and G is an evidence graph; "
        "the answer comes last: verity check-answer --graph G A\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check-answer", "--graph", "G", "P", "A"], "PASSAGES (P) and --graph (G) conflict"),
        (["check-answer", "P", "--graph", "G", "A"], "PASSAGES (P) and --graph (G) conflict"),
        (["check-answer", "P", "A", "--graph", "G"], "PASSAGES (P) and --graph (G) conflict"),
        (["check-answer", "A"], "give PASSAGES or --graph GRAPH to check the answer against"),
        (["check-answer", "--graph", "missing.json", "A"], "does not exist"),
        (["check-answer", "--graph", "NOTGRAPH", "A"], "fails its schema"),
    ],
)
def test_cli_graph_mode_errors_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "A").write_text("x", "utf-8")
    (tmp_path / "NOTGRAPH").write_text("[]", "utf-8")
    (tmp_path / "G").write_text(graph("sql/sample").dumps(), "utf-8")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_graph_dict_is_not_changed_by_a_check() -> None:
    data = _barrier_graph("{card} wins dining at {rate}.")
    before = copy.deepcopy(data)
    check_answer("gold wins dining at 5%.", graph=data)
    assert data == before


# --- scopes read across the sentences of an answer (v5) ------------------------------------


def test_a_scope_carries_into_the_next_sentence_of_an_answer() -> None:
    g = SharedGraphs.fixture("scoped_sales.json")
    result = check_answer("In Q3, revenue in north was $410. South had revenue of $330.", graph=g)
    assert [c.node_ids for c in result.claims] == [("rev-north-q3",), ("rev-south-q3",)]
    refused = check_answer(
        "In Q3, revenue in north was $410. South had revenue of $1,250.", graph=g
    )
    assert [c.supported for c in refused.claims] == [True, False]
    assert refused.claims[1].reason == "scope_carried"


def test_a_removed_sentence_does_not_lend_its_scope_to_the_kept_answer() -> None:
    # The first sentence is removed (an invisible character); read without it, the second
    # states south's annual revenue, which is $1,250, not $330.
    g = SharedGraphs.fixture("scoped_sales.json")
    result = check_answer(
        "In Q3, revenue in north was $410\u200b. South had revenue of $330.", graph=g
    )
    assert [c.supported for c in result.claims] == [False, False]
    assert result.refused
