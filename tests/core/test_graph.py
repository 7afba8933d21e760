"""Loading evidence graphs: errors for broken graphs, indexes, the networkx view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.helpers import EXAMPLES, GOLDEN, GRAPHS, apply_patch, graph_dict, load_json
from verity import GraphError, InputError, Rule, load_graph, load_rules
from verity.schemas_gen import SCHEMA_DIR

GRAPH_ERRORS = load_json(GOLDEN / "graph_errors.json")
SCHEMA_ERRORS = load_json(GOLDEN / "graph_schema_errors.json")
PUBLISHED = Draft202012Validator(load_json(SCHEMA_DIR / "evidence_graph.schema.json"))


@pytest.mark.parametrize("case", GRAPH_ERRORS["cases"], ids=lambda c: c["name"])
def test_broken_graph_is_a_load_error(case: dict[str, Any]) -> None:
    broken = apply_patch(graph_dict(GRAPH_ERRORS["base"]), case["patch"])
    with pytest.raises(GraphError) as info:
        load_graph(broken)
    assert case["error"] in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("case", SCHEMA_ERRORS["cases"], ids=lambda c: c["name"])
def test_graph_breaking_the_schema_is_refused_by_the_loader_and_the_schema(
    case: dict[str, Any],
) -> None:
    broken = apply_patch(graph_dict(SCHEMA_ERRORS["base"]), case["patch"])
    with pytest.raises(GraphError) as info:
        load_graph(broken)
    message = str(info.value)
    assert message.startswith(f"graph fails its schema at {case['at']}: ")
    assert "\n" not in message
    assert not PUBLISHED.is_valid(broken)


@pytest.mark.parametrize("case", GRAPH_ERRORS["cases"], ids=lambda c: c["name"])
def test_published_schema_refuses_what_the_loader_calls_a_schema_error(
    case: dict[str, Any],
) -> None:
    """The loader validates with the model only; the schema generated from it rejects the
    same broken graphs (and accepts those only the consistency checks refuse)."""
    broken = apply_patch(graph_dict(GRAPH_ERRORS["base"]), case["patch"])
    with pytest.raises(GraphError) as info:
        load_graph(broken)
    assert PUBLISHED.is_valid(broken) == ("fails its schema" not in str(info.value))


def test_base_graph_of_error_cases_loads() -> None:
    graph = load_graph(graph_dict(GRAPH_ERRORS["base"]))
    assert graph.graph_id == "card-small"


def test_indexes_are_computed_at_load() -> None:
    graph = load_graph(GRAPHS / "card_small.json")
    assert graph.allowed_entities == {"gold_dining", "flat_two", "dining", "groceries"}
    assert "$6,250.00" in graph.allowed_numbers and "$6,250" not in graph.allowed_numbers
    assert graph.number_nodes["2x"] == {"win-dining", "seg-flat_two-groceries-above"}
    assert graph.aliases["gold dining card"] == "gold_dining"
    assert graph.aliases["restaurants"] == "dining"
    assert set(graph.rules) == {
        "COMPARISON",
        "ALLOCATION",
        "THRESHOLD",
        "ASSUMPTION",
        "FEE_JUSTIFICATION",
        "CAP_SWITCH",
    }
    assert "ALLOCATION_SEGMENT" in graph.node_types


def test_networkx_view_types_nodes_and_links_entities() -> None:
    graph = load_graph(GRAPHS / "card_small.json")
    g = graph.nx
    assert g.nodes[("evidence", "win-dining")]["type"] == "WINNER_BY_CATEGORY"
    assert g.nodes[("entity", "dining")]["kind"] == "category"
    mentions = {
        v
        for _, v, d in g.out_edges(("evidence", "win-dining"), data=True)
        if d["relation"] == "mentions"
    }
    assert mentions == {("entity", "gold_dining"), ("entity", "flat_two"), ("entity", "dining")}
    overflow = [(u, v) for u, v, d in g.edges(data=True) if d["relation"] == "overflow_to"]
    assert overflow == [
        (("evidence", "cap-gold_dining-groceries"), ("evidence", "seg-flat_two-groceries-above"))
    ]


def test_round_trip_is_byte_stable(tmp_path: Path) -> None:
    graph = load_graph(GRAPHS / "card_small.json")
    text = graph.dumps()
    path = tmp_path / "g.json"
    path.write_text(text, "utf-8")
    assert load_graph(path).dumps() == text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b'{"a": NaN}', "NaN is not valid JSON"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
        (b"[]", "fails its schema"),
    ],
)
def test_unusable_graph_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "g.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_graph(path)
    assert message in str(info.value)


def test_graph_file_with_bom_loads(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_bytes(b"\xef\xbb\xbf" + (GRAPHS / "card_small.json").read_bytes())
    assert load_graph(path).graph_id == "card-small"


def test_missing_graph_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_graph(tmp_path / "nope.json")


def test_shipped_card_rewards_rules_match_the_published_table() -> None:
    rules = {r.claim_type: r for r in load_rules("card_rewards").rules}
    assert [r.any_of for r in rules["COMPARISON"].requires] == [["WINNER_BY_CATEGORY"]]
    assert rules["ALLOCATION"].requires == [] and rules["THRESHOLD"].requires == []
    assert [r.any_of for r in rules["ASSUMPTION"].requires] == [["ASSUMPTION"]]
    assert [r.any_of for r in rules["FEE_JUSTIFICATION"].requires] == [["FEE_BREAK_EVEN"]]
    cap = rules["CAP_SWITCH"].requires
    assert [(r.any_of, r.when_present) for r in cap] == [
        (["CAP_HIT"], False),
        (["ALLOCATION_SEGMENT"], True),
    ]


def test_example_graph_embeds_the_shipped_rules() -> None:
    shipped = load_rules("card_rewards").rules
    example = json.loads((EXAMPLES / "graph.json").read_text("utf-8"))
    assert [Rule.model_validate(r) for r in example["rules"]] == shipped


def test_unknown_rule_set_name() -> None:
    with pytest.raises(GraphError, match="no shipped rule set named 'nope'"):
        load_rules("nope")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            [{"op": "set", "path": ["templates", 0, "canonical"], "value": "(A|B) {card}."}],
            "the canonical pattern may hold slots only",
        ),
        (
            [{"op": "set", "path": ["nodes", 0, "slots", "rate"], "value": "5x"}],
            "its statement is not the canonical rendering",
        ),
        (
            [{"op": "append", "path": ["nodes", 0, "numbers"], "value": "$5.00"}],
            "lists number '$5.00' that its statement does not state",
        ),
    ],
    ids=["template", "templated_node", "statement"],
)
def test_a_check_answered_before_refuses_again_naming_each_file(
    tmp_path: Path, patch: list[dict[str, Any]], message: str
) -> None:
    """The checks are kept per process (graphs sharing a template or a node check it
    once): a graph refused once is refused again, each time naming its own file."""
    broken = apply_patch(graph_dict("card_templates.json"), patch)
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        path.write_text(json.dumps(broken), "utf-8")
        with pytest.raises(GraphError) as info:
            load_graph(path)
        assert str(info.value).startswith(f"graph {path}: ") and message in str(info.value)
