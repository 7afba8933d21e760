"""Hypothesis properties: strict never accepts what paper rejects; verify never raises."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import GRAPHS
from verity import InputError, load_graph, verify

GRAPH = load_graph(GRAPHS / "card_small.json")
NODE_IDS = sorted(GRAPH.nodes) + ["win-travel", "WIN-DINING", ""]
ENTITIES = sorted(GRAPH.allowed_entities) + ["amex_gold", "g\u043eld_dining", "Dining"]
NUMBERS = sorted(GRAPH.allowed_numbers) + ["$6,250", "4.0x", "12%", "1.000,50"]
STATEMENT_WORDS = sorted({w for n in GRAPH.nodes.values() for w in n.statement.split()})
WORDS = STATEMENT_WORDS + [
    "not",
    "never",
    "no",
    "Gold Dining",
    "restaurants",
    "$6,250",
    "4%",
    ".",
    "!",
]
TYPES = sorted(GRAPH.rules) + ["SUMMARY"]

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=14).map(" ".join)
claims = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1, max_size=5),
        "type": st.sampled_from(TYPES),
        "text": texts,
        "cited_evidence_ids": st.lists(st.sampled_from(NODE_IDS), max_size=3),
        "entities": st.lists(st.sampled_from(ENTITIES), max_size=3),
        "numbers": st.lists(st.sampled_from(NUMBERS), max_size=3),
    }
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(claims, min_size=1, max_size=4))
def test_strict_accepts_nothing_paper_rejects(batch: list[dict[str, Any]]) -> None:
    paper = verify(GRAPH, {"claims": batch}, profile="paper")
    strict = verify(GRAPH, {"claims": batch}, profile="strict")
    for p, s in zip(paper.claims, strict.claims, strict=True):
        if s.passed:
            assert p.passed, (s, p)
        paper_codes = {e.code for e in p.errors}
        assert paper_codes <= {e.code for e in s.errors}


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values | claims, max_size=5))
def test_verify_never_raises_on_json_shaped_claims(items: list[Any]) -> None:
    for profile in ("paper", "strict"):
        report = verify(GRAPH, {"claims": items}, profile=profile)
        assert report.summary.claims == len(items)
        assert report.summary.passed + report.summary.removed == len(items)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_verify_raises_only_input_errors_on_any_json(value: Any) -> None:
    try:
        verify(GRAPH, value)
    except InputError as exc:
        assert "\n" not in str(exc)
