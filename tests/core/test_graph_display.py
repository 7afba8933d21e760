"""The display fields of the graph format: entity ``name``, node ``headline`` and
``salience``, graph ``backend``. Optional, omitted by ``to_dict`` when unset, and the name
is an accepted mention of its entity with the aliases' collision rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import GRAPHS, ROOT, graph_dict, load_json
from verity import GraphError, load_graph, verify
from verity.jsonio import dumps


def _with_display_fields() -> dict[str, Any]:
    data = graph_dict("card_small.json")
    data["backend"] = "a MILP optimizer (pulp)"
    data["entities"][0]["name"] = "Gold Dining Rewards"
    data["nodes"][0]["headline"] = True
    data["nodes"][0]["salience"] = 2.5
    data["nodes"][1]["salience"] = 0
    return data


def test_fields_load_and_round_trip() -> None:
    data = _with_display_fields()
    graph = load_graph(data)
    entity = data["entities"][0]["id"]
    assert graph.backend == "a MILP optimizer (pulp)"
    assert graph.display_name(entity) == "Gold Dining Rewards"
    assert graph.model.nodes[0].headline is True and graph.model.nodes[0].salience == 2.5
    assert graph.model.nodes[1].salience == 0  # set to zero stays set
    again = graph.to_dict()
    assert (
        again["backend"] == data["backend"]
        and again["entities"][0]["name"] == data["entities"][0]["name"]
    )
    assert again["nodes"][0]["headline"] is True and again["nodes"][1]["salience"] == 0
    assert load_graph(again).dumps() == graph.dumps()
    assert graph.nx.nodes[("entity", entity)]["name"] == "Gold Dining Rewards"


def test_unset_fields_are_omitted() -> None:
    graph = load_graph(GRAPHS / "card_small.json")
    text = graph.dumps()
    for key in ('"backend"', '"name"', '"headline"', '"salience"'):
        assert key not in text
    assert graph.backend is None
    first = graph.model.entities[0]
    assert graph.display_name(first.id) == first.id
    golden = ROOT / "tests" / "fixtures" / "sql" / "sample_graph.json"
    assert load_graph(golden).dumps() == golden.read_text("utf-8")


def test_name_is_an_accepted_mention() -> None:
    data = _with_display_fields()
    graph = load_graph(data)
    entity = data["entities"][0]["id"]
    assert graph.aliases["gold dining rewards"] == entity
    node = data["nodes"][0]
    text = node["statement"].replace(entity, "Gold Dining Rewards", 1)
    assert text != node["statement"]
    claim = {
        "id": "c1",
        "type": "COMPARISON",
        "text": text,
        "cited_evidence_ids": [node["id"]],
        "entities": [e for e in node["entities"] if e != entity],
        "numbers": node["numbers"],
    }
    undeclared = verify(graph, {"claims": [claim]}, profile="strict")
    codes = [e.code for e in undeclared.claims[0].errors]
    assert "prose.undeclared_entity" in codes  # the name names the entity


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (lambda d: d["entities"][0].update(name="dining"), "collides with entity"),
        (lambda d: d["entities"][0].update(name=" "), "alias that is blank"),
        (lambda d: d["entities"][0].update(name=""), "fails its schema"),
        (lambda d: d["nodes"][0].update(salience=-1), "fails its schema"),
        (lambda d: d["nodes"][0].update(headline="yes"), "fails its schema"),
        (lambda d: d.update(backend=""), "fails its schema"),
    ],
    ids=["name_collides", "name_blank", "name_empty", "negative_salience", "headline", "backend"],
)
def test_bad_display_fields_are_refused(patch: Any, message: str) -> None:
    data = _with_display_fields()
    patch(data)
    with pytest.raises(GraphError) as info:
        load_graph(data)
    assert message in str(info.value)


def test_schema_documents_the_fields() -> None:
    schema = load_json(ROOT / "schemas" / "evidence_graph.schema.json")
    assert "backend" in schema["properties"]
    defs = schema["$defs"]
    assert "name" in defs["EntityModel"]["properties"]
    assert {"headline", "salience"} <= set(defs["NodeModel"]["properties"])
    assert json.loads(dumps(schema)) == schema
