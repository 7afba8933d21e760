"""Ordinary data through the SQL backend, on SQLite and PostgreSQL: a NULL alias after a
LEFT JOIN keeps its row, every row a spec leaves out is counted, an empty result is an
error unless the spec allows it, and a superlative statement never rests on SQL that can
cut its own rows (a tie at the cut would be hidden)."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends.sql_real import make_sqlite, pg_url_or_skip, postgres_schema
from tests.helpers import FIXTURES, ROOT, load_json
from verity import EvidenceGraph, verify
from verity.backends.sql import left_out
from verity.backends.sql.draft import draft_spec
from verity.backends.sql.query import (
    SqlBackendError,
    graph_from_url,
    open_readonly,
    sqlite_url,
)
from verity.backends.sql.sample import create_sqlite
from verity.backends.sql.spec import LEFT_OUT_TYPE, load_spec, row_cut, superlative
from verity.cli.main import main

CUTS = load_json(FIXTURES / "sql" / "row_cuts.json")
EXAMPLE_SPEC = ROOT / "verity" / "data" / "examples" / "sales.spec.json"
SAMPLE_SPEC = ROOT / "verity" / "data" / "sql" / "sample_sales.spec.json"

#: Orders per city code, with the city's name a LEFT JOIN finds (NULL for AVR and BRG,
#: which the cities table lacks).
CITY_ROWS = (
    "SELECT c.city_code AS code, ci.city AS city, COUNT(*) AS orders FROM orders o "
    "JOIN customers c ON c.customer_id = o.customer_id "
    "LEFT JOIN cities ci ON ci.code = c.city_code GROUP BY c.city_code, ci.city "
    "ORDER BY c.city_code"
)


@pytest.fixture(scope="module")
def sqlite_shop(tmp_path_factory: pytest.TempPathFactory) -> str:
    return sqlite_url(make_sqlite(tmp_path_factory.mktemp("shop") / "shop.sqlite", "shop"))


@pytest.fixture(scope="module")
def pg_shop() -> Iterator[str]:
    with postgres_schema(pg_url_or_skip(), "shop") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue("sqlite_shop" if request.param == "sqlite" else "pg_shop")
    return url


def _spec(query: dict[str, Any], **base: Any) -> dict[str, Any]:
    """``base_spec`` of the row-cut fixtures with one query (``base_query`` under it)."""
    spec = copy.deepcopy(CUTS["base_spec"])
    spec.update(base)
    fields = {k: v for k, v in query.items() if k not in ("id", "cut", "word", "note", "nodes")}
    spec["queries"] = [{**copy.deepcopy(CUTS["base_query"]), **fields}]
    return spec


def _entity_spec(sql: str, **query: Any) -> dict[str, Any]:
    """A spec of one query over CITY_ROWS-like SQL: city codes named by themselves, with
    the city's name as an alias."""
    return {
        "format": "verity.sql_spec/1",
        "graph_id": "shop",
        "domain": "retail",
        "entities": [{"kind": "city", "id_prefix": "city_"}],
        "queries": [
            {
                "name": "per_city",
                "node_type": "T",
                "sql": sql,
                "id_template": "orders_{code}",
                "statement_template": "Customers in {code} placed {orders} orders.",
                "entities": [
                    {
                        "column": "code",
                        "kind": "city",
                        "name_column": "code",
                        "alias_columns": ["city"],
                    }
                ],
                "numbers": [{"column": "orders", "format": "integer"}],
                **query,
            }
        ],
        "rules": [{"claim_type": "FACT", "requires": [{"any_of": ["T"]}]}],
    }


def _claim(graph: EvidenceGraph, node_id: str, text: str) -> dict[str, Any]:
    node = graph.nodes[node_id]
    return {
        "id": "c1",
        "type": graph.model.rules[0].claim_type,
        "text": text,
        "cited_evidence_ids": [node_id],
        "entities": list(node.entities),
        "numbers": list(node.numbers),
    }


def _ships(graph: EvidenceGraph, claim: dict[str, Any]) -> bool:
    return verify(graph, {"claims": [claim]}, profile="strict").summary.all_claims_verified


# ---------------------------------------------------------------------------
# a superlative over SQL that can cut its own rows


@pytest.mark.parametrize("case", CUTS["attacks"], ids=lambda c: c["id"])
def test_a_superlative_over_a_cut_is_refused_when_the_spec_loads(case: dict[str, Any]) -> None:
    with pytest.raises(SqlBackendError) as caught:
        load_spec(_spec(case))
    assert row_cut(case["sql"]) == case["cut"]
    message = str(caught.value)
    assert caught.value.code == "spec" and "\n" not in message
    assert f"says {case['word']!r}" in message and f"({case['cut']})" in message
    assert "rank_by" in message


@pytest.mark.parametrize("case", CUTS["built_attacks"], ids=lambda c: c["id"])
def test_a_superlative_the_data_fills_in_over_a_cut_is_refused_when_built(
    shop: str, case: dict[str, Any]
) -> None:
    spec = load_spec(_spec(case))  # the template's own words are not superlative
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(shop, spec)
    assert caught.value.code == "cut" and f"says {case['word']!r}" in str(caught.value)


@pytest.mark.parametrize("case", CUTS["controls"], ids=lambda c: c["id"])
def test_true_controls_load_and_build(shop: str, case: dict[str, Any]) -> None:
    graph = graph_from_url(shop, _spec(case))
    nodes = [n for n in graph.model.nodes if n.type != LEFT_OUT_TYPE]
    assert len(nodes) == case["nodes"]
    assert all(_ships(graph, _claim(graph, n.id, n.statement)) for n in nodes)


def test_superlative_words() -> None:
    said = {
        "{x} had the highest revenue.": "highest",
        "{x} was the busiest airport.": "busiest",
        "{x} placed more orders than any other customer.": "than any",
        "{x} is number one.": "number one",
        "{x} led every region.": "led",
        "{highest} sold {n} units in the west.": None,  # a field's name is not its text
        "{x} earned interest in the Midwest.": None,
        "Total revenue across all regions was {revenue}.": None,
    }
    assert {text: superlative(text) for text in said} == said


def test_the_false_superlative_on_a_three_way_tie_never_ships(shop: str) -> None:
    """The issue's attack: the shipped example's ``ORDER BY ... LIMIT 1`` copied onto data
    with a three-way tie shipped "X placed the most orders of all customers"."""
    attack = CUTS["attacks"][0]
    with pytest.raises(SqlBackendError, match="can cut its own rows"):
        graph_from_url(shop, _spec(attack))
    # the tie-safe spec the refusal asks for: every row in rank order, rank_by, top, ties
    safe = dict(attack, rank_by="orders", top=1, ties="report")
    safe["sql"] = safe["sql"].removesuffix(" LIMIT 1")
    graph = graph_from_url(shop, _spec(safe))
    tied = sorted(n.id for n in graph.model.nodes if n.type == "T")
    assert tied == ["q_ada_lovelace", "q_alan_turing", "q_grace_hopper"]  # every tied row
    ada = graph.nodes["q_ada_lovelace"]
    assert ada.statement == (
        "Ada Lovelace placed the most orders of all customers with 4 orders, "
        "tied with Alan Turing and Grace Hopper."
    )
    false = "Ada Lovelace placed the most orders of all customers with 4 orders."
    assert not _ships(graph, _claim(graph, "q_ada_lovelace", false))
    assert _ships(graph, _claim(graph, "q_ada_lovelace", ada.statement))
    counted = left_out(graph)
    assert [(c.query, c.returned, c.below_top) for c in counted] == [("q", 6, 3)]


def _tie_three_regions(path: Path) -> str:
    """The sample database with Gulf Coast, Midwest and Pacific tied for the most revenue."""
    create_sqlite(path)
    connection = sqlite3.connect(path)
    try:
        connection.execute(
            "UPDATE sales SET revenue_cents = "
            "CASE WHEN region_code IN ('NE', 'SW') THEN 50 ELSE 100 END"
        )
        connection.commit()
    finally:
        connection.close()
    return sqlite_url(path)


def test_the_shipped_specs_state_or_refuse_a_tie(tmp_path: Path) -> None:
    url = _tie_three_regions(tmp_path / "tied.sqlite")
    graph = graph_from_url(url, EXAMPLE_SPEC)
    top = [n for n in graph.model.nodes if n.type == "TOP_BY_METRIC"]
    assert [n.id for n in top] == [
        "top_region_gulf_coast",
        "top_region_midwest",
        "top_region_pacific",
    ]
    assert top[0].statement == (
        "Gulf Coast had the highest revenue of all regions at $72.00, tied with Midwest "
        "and Pacific."
    )
    false = "Gulf Coast had the highest revenue of all regions at $72.00."
    assert not _ships(graph, _claim(graph, "top_region_gulf_coast", false))
    # the sample spec's leaders and runners-up refuse a tie rather than pick one
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(url, SAMPLE_SPEC)
    assert caught.value.code == "too_many_rows" and caught.value.query == "top_region_by_revenue"


# ---------------------------------------------------------------------------
# NULL aliases after a LEFT JOIN


def test_a_null_alias_after_a_left_join_keeps_its_row(shop: str) -> None:
    graph = graph_from_url(shop, _entity_spec(CITY_ROWS))
    assert len(graph.model.nodes) == 5  # AVR and BRG have no name: their rows stay
    assert left_out(graph) == []
    aliases = {e.id: e.aliases for e in graph.model.entities}
    assert aliases["city_brg"] == [] and aliases["city_lis"] == ["Lisbon"]
    assert graph.nodes["orders_city_brg"].statement == "Customers in BRG placed 4 orders."


def test_an_alias_the_statement_shows_may_read_a_null_as_text(shop: str) -> None:
    spec = _entity_spec(
        CITY_ROWS,
        statement_template="Customers in {code} ({city}) placed {orders} orders.",
        nulls={"city": {"text": "a city not on file"}},
    )
    graph = graph_from_url(shop, spec)
    assert graph.nodes["orders_city_brg"].statement == (
        "Customers in BRG (a city not on file) placed 4 orders."
    )
    assert [e.aliases for e in graph.model.entities if e.id == "city_brg"] == [[]]


def test_a_draft_of_a_left_join_keeps_every_row(shop: str) -> None:
    """The draft makes the joined name column an alias (never ``skip_row``): every one of
    the six customers is a node."""
    sql = (
        "SELECT c.customer_id AS code, c.name AS customer, ci.city AS city FROM customers c "
        "LEFT JOIN cities ci ON ci.code = c.city_code ORDER BY c.customer_id"
    )
    with open_readonly(shop) as connection:
        spec = draft_spec(connection, sql)
    query = spec["queries"][0]
    assert "skip_row" not in json.dumps(spec)
    assert [e["column"] for e in query["entities"]] == ["code", "customer"]
    graph = graph_from_url(shop, spec)
    assert len(graph.model.nodes) == 6 and left_out(graph) == []


def test_a_draft_keeps_a_customers_rows_whose_product_is_missing(shop: str) -> None:
    """Two of Grace Hopper's orders name a product the products table lacks: the product
    column (not one to one with the customer) is a text field, so both rows stay."""
    sql = (
        "SELECT c.name AS customer, p.product AS product, o.amount_cents AS amount "
        "FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        "LEFT JOIN products p ON p.code = o.product_code WHERE c.name = 'Grace Hopper' "
        "ORDER BY o.order_id"
    )
    with open_readonly(shop) as connection:
        spec = draft_spec(connection, sql)
    assert spec["queries"][0]["nulls"] == {"product": {"text": "no value"}}
    graph = graph_from_url(shop, spec)
    statements = [n.statement for n in graph.model.nodes]
    assert len(statements) == 4 and statements[1] == (
        "For Grace Hopper, product is no value and amount is 2,500."
    )


# ---------------------------------------------------------------------------
# rows left out are counted; an empty result is an error unless allowed


def test_rows_a_spec_leaves_out_are_counted_in_the_graph_and_the_summary(
    sqlite_shop: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _entity_spec(CITY_ROWS, nulls={"city": "skip_row"})
    graph = graph_from_url(sqlite_shop, spec)
    node = graph.nodes["per_city_rows_left_out"]
    assert node.type == LEFT_OUT_TYPE
    assert node.statement == (
        "Query per_city left out 2 of the 5 rows it returned: 2 for a NULL in city."
    )
    assert node.data == {"query": "per_city", "returned": 5, "left_out": 2, "null": {"city": 2}}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), "utf-8")
    out = tmp_path / "graph.json"
    assert (
        main(["graph-from-sql", "--db", sqlite_shop, "--spec", str(path), "--out", str(out)]) == 0
    )
    assert capsys.readouterr().err == (
        "graph-from-sql: 3 nodes from 1 query; left out 2 of the 5 rows of query "
        "'per_city' (2 for a NULL in city)\n"
    )
    assert out.read_text("utf-8") == graph.dumps()


def test_an_empty_result_is_an_error_unless_the_spec_allows_it(
    shop: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = CITY_ROWS.replace("GROUP BY", "WHERE 1 = 0 GROUP BY")
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(shop, _entity_spec(empty))
    assert caught.value.code == "no_rows"
    assert str(caught.value) == (
        "query 'per_city' returned no rows; an empty result is an error unless the "
        "query sets allow_empty: true"
    )
    assert graph_from_url(shop, _entity_spec(empty, allow_empty=True)).model.nodes == []
    every_row_skipped = _entity_spec(
        CITY_ROWS.replace("GROUP BY", "WHERE ci.city IS NULL GROUP BY"),
        nulls={"city": "skip_row"},
    )
    with pytest.raises(
        SqlBackendError, match=r"returned 2 rows and kept none \(left out 2 for a NULL in city\)"
    ):
        graph_from_url(shop, every_row_skipped)
    path = tmp_path / "empty.spec.json"
    path.write_text(json.dumps(_entity_spec(empty)), "utf-8")
    assert main(["graph-from-sql", "--db", shop, "--spec", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "allow_empty: true" in err


def test_min_rows_zero_points_at_allow_empty() -> None:
    with pytest.raises(SqlBackendError, match="an empty result is allowed by allow_empty: true"):
        load_spec(_entity_spec(CITY_ROWS, min_rows=0))


def test_a_draft_of_a_query_with_no_rows_is_refused(
    sqlite_shop: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "draft.spec.json"
    sql = "SELECT name FROM customers WHERE 1 = 0"
    args = ["graph-from-sql", "--db", sqlite_shop, "--query", sql, "--write-spec", str(target)]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--query returned no rows" in err
    assert not target.exists()


# ---------------------------------------------------------------------------
# --out is replaced only by a complete graph


def test_out_is_unchanged_when_the_build_fails(
    sqlite_shop: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "graph.json"
    out.write_text("the previous graph\n", "utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(_entity_spec(CITY_ROWS, max_rows=2)), "utf-8")
    args = ["graph-from-sql", "--db", sqlite_shop, "--spec", str(spec), "--out", str(out)]
    assert main(args) == 2
    assert "at most 2 allowed" in capsys.readouterr().err
    assert out.read_text("utf-8") == "the previous graph\n"
    assert {p.name for p in tmp_path.iterdir()} == {"graph.json", "spec.json"}  # no staging left


# ---------------------------------------------------------------------------
# a carrier code is an entity, not a number with a unit

CARRIERS = [("9E", "Endeavor Air Inc.", 120), ("B6", "JetBlue Airways", 75), ("10K", "Ten K", 3)]


def _carriers(path: Path, rows: list[tuple[str, str, int]]) -> str:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE carriers (code TEXT, name TEXT, delays INTEGER)")
        db.executemany("INSERT INTO carriers VALUES (?, ?, ?)", rows)
    return sqlite_url(path)


def _carrier_spec() -> dict[str, Any]:
    return {
        "format": "verity.sql_spec/1",
        "graph_id": "carriers",
        "domain": "flights",
        "entities": [{"kind": "carrier", "id_prefix": "carrier_"}],
        "queries": [
            {
                "name": "delays",
                "node_type": "T",
                "sql": "SELECT code, name, delays FROM carriers ORDER BY code",
                "id_template": "delays_{code}",
                "statement_template": "{name} had {delays} delayed flights.",
                "entities": [
                    {
                        "column": "code",
                        "kind": "carrier",
                        "name_column": "name",
                        "alias_columns": ["code"],
                    }
                ],
                "numbers": [{"column": "delays", "format": "integer"}],
            }
        ],
        "rules": [{"claim_type": "FACT", "requires": [{"any_of": ["T"]}]}],
    }


def test_a_carrier_code_alias_is_an_entity(tmp_path: Path) -> None:
    graph = graph_from_url(_carriers(tmp_path / "c.sqlite", CARRIERS[:2]), _carrier_spec())
    aliases = {e.id: e.aliases for e in graph.model.entities}
    assert "9E" in aliases["carrier_9e"] and "B6" in aliases["carrier_b6"]
    node = graph.nodes["delays_carrier_9e"]
    assert _ships(graph, _claim(graph, node.id, "Endeavor Air Inc. had 120 delayed flights."))
    # the code smuggles no number: 9 is not a number the node states
    false = _claim(graph, node.id, "Endeavor Air Inc. had 9 delayed flights.")
    false["numbers"] = ["9"]
    assert not _ships(graph, false)


def test_an_alias_of_two_digits_still_holds_a_number(tmp_path: Path) -> None:
    with pytest.raises(SqlBackendError, match="holds a number"):
        graph_from_url(_carriers(tmp_path / "c.sqlite", CARRIERS), _carrier_spec())
