"""Codes that start with a digit (``9E``, ``3M``) are entities where the graph declares
them, numbers elsewhere; a name that ends with ``Inc.`` ends a sentence before a sentence
opener. Controls and attacks: tests/fixtures/text/codes_and_names.json."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from tests.helpers import TESTS, load_json
from verity import check_answer, verify
from verity.core.builder import GraphBuilder
from verity.core.graph import EvidenceGraph
from verity.formats import REFUSAL
from verity.text.aliases import AliasMatcher
from verity.text.segment import join_sentences
from verity.text.variation import sentence_key

DATA = load_json(TESTS / "fixtures" / "text" / "codes_and_names.json")
CASES = [*DATA["controls"], *DATA["attacks"]]


@cache
def _graph() -> EvidenceGraph:
    spec: dict[str, Any] = DATA["graph"]
    builder = GraphBuilder(spec["graph_id"], spec["domain"])
    for e in spec["entities"]:
        builder.entity(e["id"], e["kind"], name=e["name"], aliases=e["aliases"])
    for n in spec["nodes"]:
        builder.node(
            n["id"],
            n["type"],
            statement=n["statement"],
            numbers=n["numbers"],
            entities=n["entities"],
        )
    for rule in spec["rules"]:
        builder.rule(rule["claim_type"], [rule["any_of"]])
    return builder.build()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_answers_keep_exactly_the_true_sentences(case: dict[str, Any]) -> None:
    result = check_answer(case["answer"], graph=_graph())
    kept = [c.text for c in result.claims if c.supported]
    assert kept == case["kept"]
    assert result.answer == (join_sentences(kept) if kept else REFUSAL)


def test_the_fixture_has_attacks_and_controls() -> None:
    assert len(DATA["attacks"]) >= 10 and len(DATA["controls"]) >= 5
    assert all(c["kept"] for c in DATA["controls"])


def test_a_declared_code_is_an_entity_token_and_money_stays_a_number() -> None:
    matcher = AliasMatcher({"9E": "carrier_9e", "3M": "company_3m"})
    assert sentence_key("9E had 12 delays", matcher) == ("@carrier_9e", "had", "<12>", "delays")
    assert sentence_key("3M earned $3M", matcher) == ("@company_3m", "earned", "<$3m>")
    assert sentence_key("9E fell -9E", matcher)[-1] == "<-9e>"
    assert sentence_key("9E had 12 delays") == ("<9e>", "had", "<12>", "delays")  # undeclared


def test_a_claim_cannot_smuggle_a_number_through_a_code() -> None:
    claim = {
        "id": "c1",
        "type": "TOTAL",
        "text": "F9 had 9E delayed flights.",
        "cited_evidence_ids": ["delays_f9"],
        "entities": ["carrier_f9", "carrier_9e"],
        "numbers": ["9"],
    }
    report = verify(_graph(), {"claims": [claim]}, profile="strict")
    assert report.summary.passed == 0
    honest = dict(claim, text="F9 had 9 delayed flights.", entities=["carrier_f9"])
    assert verify(_graph(), {"claims": [honest]}, profile="strict").summary.passed == 1
