"""SQL specs on real data files made in the test (penguins- and flights-shaped tables), on
SQLite and on PostgreSQL: abbreviations inside names, NULL policies, integer and date
entities, the year format, decimals, and ties in rankings."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends.sql_real import DATASETS, make_sqlite, pg_url_or_skip, postgres_schema, spec
from verity import EvidenceGraph, verify
from verity.backends.sql.query import SqlBackendError, graph_from_url, sqlite_url
from verity.backends.sql.spec import LEFT_OUT_TYPE, load_spec
from verity.text.segment import split_sentences


@pytest.fixture(scope="module")
def sqlite_urls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("real")
    return {name: sqlite_url(make_sqlite(folder / f"{name}.sqlite", name)) for name in DATASETS}


@pytest.fixture(scope="module")
def pg_urls() -> Iterator[dict[str, str]]:
    url = pg_url_or_skip()
    with postgres_schema(url, "penguins") as penguins, postgres_schema(url, "flights") as flights:
        yield {"penguins": penguins, "flights": flights}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def urls(request: pytest.FixtureRequest) -> dict[str, str]:
    fixture = "sqlite_urls" if request.param == "sqlite" else "pg_urls"
    found: dict[str, str] = request.getfixturevalue(fixture)
    return found


def _graph(urls: dict[str, str], name: str, data: dict[str, Any] | None = None) -> EvidenceGraph:
    return graph_from_url(urls[name], spec(name) if data is None else data)


def _query(data: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(q for q in data["queries"] if q["name"] == name)
    return found


def _claim(graph: EvidenceGraph, node_id: str, text: str | None = None) -> dict[str, Any]:
    node = graph.nodes[node_id]
    rule = next(r for r in graph.model.rules if node.type in r.requires[0].any_of)
    return {
        "id": "c1",
        "type": rule.claim_type,
        "text": node.statement if text is None else text,
        "cited_evidence_ids": [node_id],
        "entities": list(node.entities),
        "numbers": list(node.numbers),
    }


def _passes(graph: EvidenceGraph, claim: dict[str, Any]) -> bool:
    return verify(graph, {"claims": [claim]}, profile="strict").summary.all_claims_verified


# ---------------------------------------------------------------------------
# the specs build on both databases, every statement verifies, and they agree


@pytest.mark.parametrize("name", DATASETS)
def test_spec_builds_and_every_statement_verifies(urls: dict[str, str], name: str) -> None:
    graph = _graph(urls, name)
    assert graph.backend == "a SQL query"
    nodes = [n for n in graph.model.nodes if n.type != LEFT_OUT_TYPE]  # counts, no rule
    failing = [n.id for n in nodes if not _passes(graph, _claim(graph, n.id))]
    assert failing == []
    assert len(graph.model.nodes) >= 15


@pytest.mark.postgres
@pytest.mark.parametrize("name", DATASETS)
def test_postgres_and_sqlite_give_one_graph(
    sqlite_urls: dict[str, str], pg_urls: dict[str, str], name: str
) -> None:
    assert _graph(pg_urls, name).dumps() == _graph(sqlite_urls, name).dumps()


# ---------------------------------------------------------------------------
# abbreviations inside names


def test_company_names_with_abbreviations_are_one_sentence(urls: dict[str, str]) -> None:
    graph = _graph(urls, "flights")
    ua = graph.nodes["arrival_carrier_ua_flight_1545_day_2013_01_01"]
    assert (
        ua.statement
        == "United Air Lines Inc. Flight 1545 on January 1, 2013 arrived 11 minutes late."
    )
    assert graph.display_name("carrier_wn") == "Southwest Airlines Co."
    names = [e.name for e in graph.model.entities if e.name and e.name.endswith(".")]
    assert len(names) == 6
    for node in graph.model.nodes:
        assert split_sentences(node.statement, graph.matcher) == [node.statement]
    tied = graph.nodes["busiest_carrier_b6"].statement
    assert tied.endswith("tied with United Air Lines Inc.")  # one stop: the name's
    assert _passes(graph, _claim(graph, "busiest_carrier_b6"))
    short = "United Air Lines Inc flights arrived 10.8 minutes late on average."
    assert _passes(graph, _claim(graph, "delay_carrier_ua", short))  # the name without its stop


def test_a_name_that_is_a_marker_is_refused(sqlite_urls: dict[str, str]) -> None:
    data = spec("flights")
    named = "CASE WHEN f.carrier = 'MQ' THEN 'None' ELSE a.name END AS carrier_name"
    for query in data["queries"]:
        query["sql"] = query["sql"].replace("a.name AS carrier_name", named)
    with pytest.raises(SqlBackendError, match="is a polarity marker") as caught:
        _graph(sqlite_urls, "flights", data)
    assert caught.value.code == "entity"


# ---------------------------------------------------------------------------
# NULL policies


def test_a_null_is_an_error_naming_the_row_by_default(urls: dict[str, str]) -> None:
    data = spec("penguins")
    del _query(data, "birds_by_sex")["nulls"]
    with pytest.raises(SqlBackendError) as caught:
        _graph(urls, "penguins", data)
    message = str(caught.value)
    assert caught.value.code == "value" and caught.value.query == "birds_by_sex"
    assert re.search(r"row \d+ \(species 'Adelie'\): column 'sex' is NULL", message), message
    assert '"nulls": {"sex": "skip_row"}' in message and "\n" not in message


def test_a_null_read_as_text(urls: dict[str, str]) -> None:
    graph = _graph(urls, "penguins")
    node = graph.nodes["birds_gentoo_unrecorded"]
    assert node.statement == "The study recorded 2 Gentoo penguins of sex unrecorded."
    assert node.data["row"]["sex"] is None


def test_skip_row_drops_the_row_and_says_so_when_too_few_remain(urls: dict[str, str]) -> None:
    graph = _graph(urls, "flights")
    arrivals = [n.id for n in graph.model.nodes if n.type == "ARRIVAL"]
    assert len(arrivals) == 4  # flight 725 of January 2 was cancelled: skipped
    data = spec("flights")
    query = _query(data, "united_1545")
    query["min_rows"] = 6
    left_out = graph.nodes["united_1545_rows_left_out"]
    assert left_out.statement == (
        "Query united_1545 left out 1 of the 5 rows it returned: 1 for a NULL in delay."
    )
    assert left_out.data == {
        "query": "united_1545",
        "returned": 5,
        "left_out": 1,
        "null": {"delay": 1},
    }
    message = r"returned 5 rows and kept 4 \(left out 1 for a NULL in delay\); the spec requires"
    with pytest.raises(SqlBackendError, match=message):
        _graph(urls, "flights", data)
    del query["nulls"]
    with pytest.raises(
        SqlBackendError, match=r"row 2 \(.*\): number 'delay' \(column 'delay'\) is NULL"
    ):
        _graph(urls, "flights", data)


@pytest.mark.parametrize(
    ("query", "nulls", "message"),
    [
        ("birds_by_sex", {"species": {"text": "unknown"}}, "cannot be read as text"),
        ("birds_by_sex", {"island": "skip_row"}, "which the query does not use"),
        ("birds_by_sex", {"sex": {"text": " "}}, "nulls"),
        ("birds_by_sex", {"sex": "ignore"}, "nulls"),
        ("heaviest_island", {"mass": {"text": "none"}}, "cannot be read as text"),
    ],
)
def test_bad_null_policies_are_refused(query: str, nulls: dict[str, Any], message: str) -> None:
    data = spec("penguins")
    _query(data, query)["nulls"] = nulls
    with pytest.raises(SqlBackendError, match=message) as caught:
        load_spec(data)
    assert caught.value.code == "spec"


# ---------------------------------------------------------------------------
# integer and date entities, the year format, decimals


def test_integer_and_date_entities_get_ids_from_their_kind(urls: dict[str, str]) -> None:
    penguins, flights = _graph(urls, "penguins"), _graph(urls, "flights")
    assert [e.id for e in penguins.model.entities if e.kind == "year"] == [
        "year_2007",
        "year_2008",
        "year_2009",
    ]
    assert penguins.display_name("year_2007") == "2007"
    assert penguins.nodes["birds_year_2007"].statement == "In 2007, the study recorded 20 penguins."
    day = flights.entities["day_2013_01_02"]
    assert (day.name, day.aliases) == ("January 2, 2013", ["2013-01-02"])
    assert flights.entities["flight_1545"].name == "1545"
    iso = "On 2013-01-02, 8 flights were scheduled, 1 of them cancelled."
    assert _passes(flights, _claim(flights, "flights_day_2013_01_02", iso))  # the ISO form
    wrong_day = "On January 3, 2013, 8 flights were scheduled, 1 of them cancelled."
    claim = _claim(flights, "flights_day_2013_01_02", wrong_day)
    claim["entities"] = ["day_2013_01_03"]
    assert not _passes(flights, claim)


def _span_spec(fmt: str) -> dict[str, Any]:
    return {
        "format": "verity.sql_spec/1",
        "graph_id": "span",
        "domain": "ecology",
        "queries": [
            {
                "name": "span",
                "node_type": "SPAN",
                "sql": "SELECT MIN(year) AS first, MAX(year) AS last, COUNT(*) AS n FROM penguins",
                "id_template": "span",
                "statement_template": (
                    "The study ran from {first} to {last} and recorded {n} penguins."
                ),
                "numbers": [
                    {"column": "first", "format": fmt},
                    {"column": "last", "format": fmt},
                    {"column": "n", "format": "integer"},
                ],
            }
        ],
    }


def test_the_year_format(urls: dict[str, str]) -> None:
    year = graph_from_url(urls["penguins"], _span_spec("year")).nodes["span"]
    assert year.statement == "The study ran from 2007 to 2009 and recorded 40 penguins."
    assert year.numbers == ["2007", "2009", "40"]
    integer = graph_from_url(urls["penguins"], _span_spec("integer")).nodes["span"]
    assert "from 2,007 to 2,009" in integer.statement  # what the year format is for


def test_a_date_is_not_a_number_format() -> None:
    data = _span_spec("date")
    with pytest.raises(SqlBackendError, match="declare the column under 'entities' with format"):
        load_spec(data)


def test_decimals_round_a_float_once_for_statement_and_number(urls: dict[str, str]) -> None:
    graph = _graph(urls, "penguins")
    node = graph.nodes["size_adelie"]
    assert node.numbers == ["38.3", "3663.5", "13"]
    assert "bill length of 38.3 mm" in node.statement and "3663.5 g" in node.statement
    delays = {n.id: n.numbers for n in graph.model.nodes}
    assert delays["size_gentoo"] == ["47.5", "5103.8", "13"]


# ---------------------------------------------------------------------------
# ties


def test_a_tie_is_stated_and_required(urls: dict[str, str]) -> None:
    graph = _graph(urls, "flights")
    ranked = [n for n in graph.model.nodes if n.type == "TOP_BY_METRIC"]
    assert [n.id for n in ranked] == ["busiest_carrier_b6", "busiest_carrier_ua"]
    ua = graph.nodes["busiest_carrier_ua"]
    assert ua.statement == (
        "United Air Lines Inc. scheduled the most flights of any carrier, 5, tied with "
        "JetBlue Airways."
    )
    assert "tied with JetBlue Airways" in ua.required_spans
    assert ua.entities == ["carrier_ua", "carrier_b6"] and ua.data["tied_with"] == ["carrier_b6"]
    hidden = "United Air Lines Inc. scheduled the most flights of any carrier, 5."
    claim = _claim(graph, ua.id, hidden)
    claim["entities"] = ["carrier_ua"]
    assert not _passes(graph, claim)
    variant = (
        "United Air Lines Inc. had the most flights of any carrier, 5, tied with JetBlue Airways."
    )
    assert _passes(graph, _claim(graph, ua.id, variant))


def test_ties_error_refuses_the_result(urls: dict[str, str]) -> None:
    data = spec("flights")
    _query(data, "busiest_carrier")["ties"] = "error"
    with pytest.raises(SqlBackendError) as caught:
        _graph(urls, "flights", data)
    assert caught.value.code == "tie" and caught.value.row == 1
    assert "rows 1 and 2 ('B6' and 'UA') tie on 'n'" in str(caught.value)


def test_no_tie_no_clause(urls: dict[str, str]) -> None:
    graph = _graph(urls, "penguins")
    node = graph.nodes["heaviest_biscoe"]
    assert node.template == "heaviest_island" and "tied" not in node.statement
    assert [n.id for n in graph.model.nodes if n.type == "TOP_BY_METRIC"] == ["heaviest_biscoe"]


def test_top_keeps_every_row_tied_at_the_cut(urls: dict[str, str]) -> None:
    data = spec("flights")
    query = _query(data, "busiest_carrier")
    query["top"] = 3  # UA, B6 (5 flights), then AA and DL (4 each): four rows
    graph = _graph(urls, "flights", data)
    ranked = [n.id for n in graph.model.nodes if n.type == "TOP_BY_METRIC"]
    assert ranked == [
        "busiest_carrier_b6",
        "busiest_carrier_ua",
        "busiest_carrier_aa",
        "busiest_carrier_dl",
    ]
    assert graph.nodes["busiest_carrier_aa"].data["tied_with"] == ["carrier_dl"]


def test_a_ranking_out_of_order_is_refused(urls: dict[str, str]) -> None:
    data = spec("flights")
    query = _query(data, "busiest_carrier")
    query["sql"] = query["sql"].replace("ORDER BY n DESC, f.carrier", "ORDER BY f.carrier")
    with pytest.raises(SqlBackendError, match="breaks the order of 'n'") as caught:
        _graph(urls, "flights", data)
    assert caught.value.code == "order"


_LIMITED = (
    "SELECT f.carrier AS carrier, a.name AS carrier_name, COUNT(*) AS n FROM flights f "
    "JOIN airlines a ON a.carrier = f.carrier GROUP BY f.carrier, a.name "
    "ORDER BY n DESC LIMIT 1"
)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sql": _LIMITED}, "may not cut its own rows"),
        ({"ties": None}, "rank_by needs ties"),
        ({"rank_by": None}, "top and ties go with rank_by"),
        ({"tie_template": ", level with {runner}"}, "{tied} once"),
    ],
    ids=["limit", "no_ties", "ties_without_rank", "tie_template"],
)  # fmt: skip
def test_bad_rankings_are_refused(change: dict[str, Any], message: str) -> None:
    data = spec("flights")
    query = _query(data, "busiest_carrier")
    for key, value in change.items():
        if value is None:
            query.pop(key)
        else:
            query[key] = value
    with pytest.raises(SqlBackendError, match=re.escape(message)):
        load_spec(data)


def test_the_specs_are_valid_as_checked_in() -> None:
    for name in DATASETS:
        assert load_spec(copy.deepcopy(spec(name))).graph_id


def test_data_files_are_where_the_docstring_says(tmp_path: Path) -> None:
    made = make_sqlite(tmp_path / "p.sqlite", "penguins")
    assert made.stat().st_size > 0
