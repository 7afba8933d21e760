"""GraphBuilder: the one way the backends make graphs; build() checks as the loader does."""

from __future__ import annotations

from decimal import Decimal

import pytest

import verity
from verity import GraphBuilder, GraphError, format_number, load_graph, verify
from verity.core.builder import NUMBER_FORMATS


def _plant_graph() -> GraphBuilder:
    b = GraphBuilder("plan-1", "production", backend="your own backend")
    b.entity("austin", "plant", name="the Austin plant", aliases=["Austin"])
    b.entity("chairs", "product")
    b.template(
        "make",
        "{plant} makes {qty} {product}.",
        ["{plant} (makes|produces|builds) {qty} {product}."],
        coordinable=[],
    )
    b.node(
        "make:austin:chairs",
        "DECISION",
        template="make",
        slots={
            "plant": b.mention("austin"),
            "qty": format_number(1200, "integer"),
            "product": "chairs",
        },
        required=["1,200 chairs"],
        headline=True,
        salience=3,
    )
    b.node("total", "RESULT", statement="Profit is $4,500.00.", data={"sense": "max"})
    b.edge("make:austin:chairs", "total", "contributes_to")
    b.rule("DECISION", [["DECISION"]])
    b.rule("RESULT", [{"any_of": ["RESULT"], "when_present": False}], narrates=["RESULT"])
    return b


def test_build_renders_templates_and_derives_mentions() -> None:
    graph = _plant_graph().build()
    node = graph.nodes["make:austin:chairs"]
    assert node.statement == "the Austin plant makes 1,200 chairs."
    assert node.entities == ["austin", "chairs"] and node.numbers == ["1,200"]
    assert node.headline is True and node.salience == 3.0
    assert graph.nodes["total"].numbers == ["$4,500.00"] and graph.nodes["total"].entities == []
    assert graph.backend == "your own backend"
    assert graph.display_name("austin") == "the Austin plant"
    claim = {
        "id": "c1",
        "type": "DECISION",
        "text": "Austin produces 1,200 chairs.",
        "cited_evidence_ids": ["make:austin:chairs"],
        "entities": ["austin", "chairs"],
        "numbers": ["1,200"],
    }
    assert verify(graph, {"claims": [claim]}).summary.all_claims_verified


def test_to_dict_is_the_file_form_and_byte_stable() -> None:
    data = _plant_graph().to_dict()
    assert list(data) == [
        "format",
        "graph_id",
        "domain",
        "backend",
        "entities",
        "nodes",
        "edges",
        "rules",
        "templates",
    ]
    assert data["entities"][1] == {"id": "chairs", "kind": "product", "aliases": []}
    assert "required_spans" not in data["nodes"][1] and "template" not in data["nodes"][1]
    assert "headline" not in data["nodes"][1] and "salience" not in data["nodes"][1]
    assert data["rules"][0] == {
        "claim_type": "DECISION",
        "requires": [{"any_of": ["DECISION"], "when_present": False}],
    }
    assert data["rules"][1]["narrates"] == ["RESULT"]
    assert _plant_graph().dumps() == _plant_graph().dumps()
    assert load_graph(data).dumps() == _plant_graph().build().dumps()


def test_build_checks_as_the_loader_does() -> None:
    b = _plant_graph()
    b.node("bad", "RESULT", statement="Costs were $9.00.", numbers=["$8.00"])
    with pytest.raises(
        GraphError, match=r"lists number '\$8\.00' that its statement does not state"
    ):
        b.build()
    b = _plant_graph()
    b.entity("austin_2", "plant", name="Austin")
    with pytest.raises(GraphError, match="collides with entity"):
        b.build()
    b = _plant_graph()
    b.node("x", "RESULT", statement="Profit is high.", required=["Profit is low"])
    with pytest.raises(GraphError, match="which its statement does not contain"):
        b.build()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.entity("austin", "plant"), "entity 'austin' is added twice"),
        (lambda b: b.node("total", "RESULT", statement="x."), "node 'total' is added twice"),
        (lambda b: b.template("make", "{x}."), "template 'make' is added twice"),
        (lambda b: b.rule("RESULT", [["RESULT"]]), "two rules for claim type 'RESULT'"),
        (lambda b: b.node("n", "T", template="nope"), "names template 'nope', not added yet"),
        (lambda b: b.node("n", "T", template="make", slots={}), "lacks slot 'plant'"),
        (lambda b: b.node("n", "T"), "needs a statement or a template"),
        (lambda b: b.mention("ghost"), "no entity 'ghost'"),
        (lambda b: b.rule("X", ["RESULT"]), "list of node types, not the string"),
    ],
)
def test_misuse_is_one_clear_error(call: object, message: str) -> None:
    with pytest.raises(GraphError, match=message):
        call(_plant_graph())  # type: ignore[operator]


@pytest.mark.parametrize(
    ("value", "fmt", "decimals", "expected"),
    [
        (Decimal("1234.565"), "money", None, "$1,234.57"),
        (-0.004, "money", None, "$0.00"),
        (2007, "integer", None, "2,007"),
        (2007, "year", None, "2007"),
        (2007.0, "year", None, "2007"),
        (0.125, "percent", 2, "0.13%"),
        (2.675, "plain", 2, "2.68"),  # the float's shortest repr, not its binary fraction
        ("12.5", "plain", 1, "12.5"),
        (1e-7, "plain", 3, "0.000"),
    ],
)
def test_format_number(value: object, fmt: str, decimals: int | None, expected: str) -> None:
    assert format_number(value, fmt, decimals) == expected


@pytest.mark.parametrize(
    ("value", "fmt", "decimals", "message"),
    [
        (2007.5, "year", None, "not a year"),
        (0, "year", None, "not a year"),
        (5, "integer", 1, "takes no decimals"),
        (5, "roman", None, "unknown number format"),
        (True, "plain", None, "boolean"),
        (float("nan"), "plain", None, "holds nan"),
        ("lots", "plain", None, "not a number"),
        (None, "plain", None, "NULL"),
    ],
)
def test_format_number_refuses(value: object, fmt: str, decimals: int | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        format_number(value, fmt, decimals)


def test_public_names() -> None:
    assert verity.GraphBuilder is GraphBuilder and verity.format_number is format_number
    assert NUMBER_FORMATS == ("money", "integer", "percent", "plain", "year")
