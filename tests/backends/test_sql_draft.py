"""`verity graph-from-sql --query ... --write-spec FILE`: a draft spec from a query's columns
and values, that builds as written on the data it was drafted from (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.backends.sql_real import DATASETS, make_sqlite, pg_url_or_skip, postgres_schema
from tests.helpers import ROOT, load_json
from verity import verify
from verity.backends.sql import left_out
from verity.backends.sql.draft import NULL_TEXT, draft_spec
from verity.backends.sql.query import (
    SqlBackendError,
    graph_from_url,
    open_readonly,
    sqlite_url,
)
from verity.cli.main import main

#: (data set, query): what an analyst asks first, NULLs, floats, dates and mixed kinds.
QUERIES = [
    ("penguins", "SELECT * FROM penguins ORDER BY species, island, body_mass_g"),
    (
        "penguins",
        "SELECT species, island, AVG(body_mass_g) AS mean_mass, COUNT(sex) AS sexed "
        "FROM penguins GROUP BY species, island ORDER BY species, island",
    ),
    ("penguins", "SELECT year, COUNT(*) AS birds FROM penguins GROUP BY year ORDER BY year"),
    ("flights", "SELECT * FROM flights ORDER BY flight_date, carrier, flight"),
    (
        "flights",
        "SELECT a.name AS airline, f.origin, AVG(f.dep_delay) AS mean_dep_delay "
        "FROM flights f JOIN airlines a ON a.carrier = f.carrier "
        "GROUP BY a.name, f.origin ORDER BY a.name, f.origin",
    ),
    ("flights", "SELECT COUNT(*) AS flights, SUM(arr_delay) AS total_delay FROM flights"),
]


@pytest.fixture(scope="module")
def sqlite_urls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("draft")
    return {name: sqlite_url(make_sqlite(folder / f"{name}.sqlite", name)) for name in DATASETS}


@pytest.fixture(scope="module")
def pg_urls() -> Iterator[dict[str, str]]:
    url = pg_url_or_skip()
    with postgres_schema(url, "penguins") as penguins, postgres_schema(url, "flights") as flights:
        yield {"penguins": penguins, "flights": flights}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def urls(request: pytest.FixtureRequest) -> dict[str, str]:
    found: dict[str, str] = request.getfixturevalue(
        "sqlite_urls" if request.param == "sqlite" else "pg_urls"
    )
    return found


def _draft(url: str, sql: str) -> dict[str, Any]:
    with open_readonly(url) as connection:
        return draft_spec(connection, sql)


def _null_columns(url: str, sql: str) -> set[str]:
    with open_readonly(url) as connection:
        cursor = connection.cursor()
        cursor.execute(sql)
        names = [str(d[0]).lower() for d in cursor.description]
        rows = cursor.fetchmany(100_000)
        cursor.close()
    return {n for i, n in enumerate(names) if any(row[i] is None for row in rows)}


@pytest.mark.parametrize(
    ("name", "sql"), QUERIES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(QUERIES)]
)
def test_a_draft_builds_as_written_and_every_statement_verifies(
    urls: dict[str, str], name: str, sql: str
) -> None:
    spec = _draft(urls[name], sql)
    graph = graph_from_url(urls[name], spec)
    assert graph.model.nodes
    query = spec["queries"][0]
    assert set(query.get("nulls", {})) == _null_columns(urls[name], sql)  # every NULL column
    claims = [
        {
            "id": f"c{i}",
            "type": "FACT",
            "text": node.statement,
            "cited_evidence_ids": [node.id],
            "entities": list(node.entities),
            "numbers": list(node.numbers),
        }
        for i, node in enumerate(graph.model.nodes)
    ]
    assert verify(graph, {"claims": claims}, profile="strict").summary.all_claims_verified
    schema = Draft202012Validator(load_json(ROOT / "schemas" / "sql_spec.schema.json"))
    schema.validate(spec)


def test_what_a_draft_makes_of_the_columns(sqlite_urls: dict[str, str]) -> None:
    spec = _draft(sqlite_urls["penguins"], QUERIES[0][1])
    query = spec["queries"][0]
    # sex holds NULLs: a text field read as "no value" there, so no row is left out
    assert [e["column"] for e in query["entities"]] == ["species", "island"]
    formats = {n["column"]: (n["format"], n.get("decimals")) for n in query["numbers"]}
    assert formats == {
        "bill_length_mm": ("plain", 1),
        "bill_depth_mm": ("plain", 1),
        "flipper_length_mm": ("integer", None),
        "body_mass_g": ("integer", None),
        "year": ("year", None),
    }
    assert query["nulls"]["sex"] == query["nulls"]["body_mass_g"] == {"text": NULL_TEXT}
    graph = graph_from_url(sqlite_urls["penguins"], spec)
    assert "skip_row" not in json.dumps(spec) and left_out(graph) == []
    first = graph.model.nodes[0].statement
    assert first.startswith("For Adelie, island is Biscoe, bill length mm is 37.8")
    assert first.endswith("and year is 2007.")
    flights = _draft(sqlite_urls["flights"], QUERIES[3][1])["queries"][0]
    assert flights["entities"][0] == {
        "column": "flight_date",
        "kind": "flight_date",
        "format": "date",
    }


def test_a_text_column_whose_values_another_entity_column_names_is_text(
    sqlite_urls: dict[str, str],
) -> None:
    sql = (
        "SELECT origin, origin AS again, COUNT(*) AS n FROM flights GROUP BY origin ORDER BY origin"
    )
    query = _draft(sqlite_urls["flights"], sql)["queries"][0]
    assert [e["column"] for e in query["entities"]] == ["origin"]
    assert "again is {again}" in query["statement_template"]


def test_cli_writes_a_new_file_and_never_overwrites(
    sqlite_urls: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "penguins.spec.json"
    args = ["graph-from-sql", "--db", sqlite_urls["penguins"], "--query", QUERIES[1][1]]
    assert main([*args, "--write-spec", str(target)]) == 0
    err = capsys.readouterr().err
    assert "it builds as written on this data" in err and str(target) in err
    spec = json.loads(target.read_text("utf-8"))
    assert spec["graph_id"] == "penguins"
    out = tmp_path / "graph.json"
    assert (
        main(
            [
                "graph-from-sql",
                "--db",
                sqlite_urls["penguins"],
                "--spec",
                str(target),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    before = target.read_text("utf-8")
    assert main([*args, "--write-spec", str(target)]) == 2
    assert "never overwrites" in capsys.readouterr().err
    assert target.read_text("utf-8") == before


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--query", "SELECT 1 AS x"], "--query and --write-spec go together"),
        (["--write-spec", "x.json"], "--query and --write-spec go together"),
        (["--query", "DELETE FROM sales", "--write-spec", "d.json"], "starts with DELETE"),
        (["--query", "SELECT 1 AS x", "--write-spec", "d.json", "--spec", "s.json"], "not --spec"),
        (["--query", "SELECT nope FROM sales", "--write-spec", "d.json"], "failed"),
    ],
)
def test_cli_draft_errors_exit_2_with_one_line(
    extra: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["graph-from-sql", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("verity: error: ") and err.count("\n") == 1
    assert message in err, err
    assert not (tmp_path / "d.json").exists()


def test_the_sample_database_is_the_default(tmp_path: Path) -> None:
    target = tmp_path / "sales.spec.json"
    sql = "SELECT region_name, region_code FROM regions ORDER BY region_code"
    assert main(["graph-from-sql", "--query", sql, "--write-spec", str(target)]) == 0
    graph_statements = json.loads(target.read_text("utf-8"))["queries"][0]["statement_template"]
    assert graph_statements == "For {region_name}, region code is {region_code}."


def test_a_draft_that_cannot_build_is_refused(sqlite_urls: dict[str, str]) -> None:
    # 'Route 66' and 'route-66' give one id, so the column is text, and its text states 66
    sql = "SELECT 'Route 66' AS road UNION ALL SELECT 'route-66' AS road"
    with pytest.raises(SqlBackendError) as caught:
        _draft(sqlite_urls["flights"], sql)
    assert caught.value.code == "draft" and "write the spec by hand" in str(caught.value)
    assert "states '66'" in str(caught.value)
