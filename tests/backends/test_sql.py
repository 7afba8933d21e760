"""The SQL backend: spec validation, the sample graph, read-only enforcement, CLI, PostgreSQL.

PostgreSQL tests run when ``VERITY_TEST_POSTGRES_URL`` points at a reachable
server (``export VERITY_TEST_POSTGRES_URL="$(.ci/postgres.sh)"``); they load the
sample data into a private schema and drop it afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers import FIXTURES, ROOT, apply_patch, load_json
from verity import EvidenceGraph, InputError, load_graph, verify
from verity.backends.sql.query import (
    POLARITY_MARKERS,
    SqlBackendError,
    format_number,
    graph_dict_from_queries,
    graph_from_queries,
    graph_from_sample,
    graph_from_url,
    open_readonly,
    slugify,
    sqlite_url,
)
from verity.backends.sql.sample import (
    DDL,
    create_sqlite,
    load_statements,
    sample_dump,
    sample_statements,
    shipped_dump,
)
from verity.backends.sql.spec import check_read_only_sql, load_spec, sample_spec
from verity.cli.main import main
from verity.text.numbers import number_value

SQL = FIXTURES / "sql"
SPEC_FILE = ROOT / "verity" / "data" / "sql" / "sample_sales.spec.json"
DUMP_FILE = ROOT / "verity" / "data" / "sql" / "sample_sales.sql"
GOLDEN_GRAPH = SQL / "sample_graph.json"
PG_ENV = "VERITY_TEST_POSTGRES_URL"

EXPECTED_COUNTS = {"TOTAL": 5, "TOP_BY_METRIC": 8, "PERIOD_CHANGE": 11, "SHARE_OF_TOTAL": 11}
CLAIM_TYPE_OF = {
    "TOP_BY_METRIC": "RANKING",
    "PERIOD_CHANGE": "TREND",
    "SHARE_OF_TOTAL": "SHARE",
    "TOTAL": "TOTAL",
}

SPEC_ERRORS = load_json(SQL / "spec_errors.json")["cases"]
RUN_ERRORS = load_json(SQL / "run_errors.json")
READ_ONLY_SQL = load_json(SQL / "read_only_sql.json")["cases"]
NUMBER_CASES = load_json(SQL / "numbers.json")["cases"]
SLUG_CASES = load_json(SQL / "slugs.json")["cases"]

#: Spec SQL that tries to write: the textual check refuses the first kind ("spec"),
#: the database refuses the second ("write_attempt").
WRITE_SQL = [
    pytest.param("DELETE FROM sales", "spec", id="delete"),
    pytest.param(
        "INSERT INTO regions (region_code, region_name) VALUES ('XX', 'Nowhere')",
        "spec",
        id="insert",
    ),
    pytest.param("DROP TABLE sales", "spec", id="drop"),
    pytest.param("SELECT 1 AS x; DELETE FROM sales", "spec", id="two_statements"),
    pytest.param(
        "WITH doomed AS (SELECT region_code FROM regions) "
        "DELETE FROM sales WHERE region_code IN (SELECT region_code FROM doomed)",
        "write_attempt",
        id="with_delete",
    ),
    pytest.param(
        "WITH x AS (SELECT 1 AS one) UPDATE sales SET units = 0 WHERE units > (SELECT one FROM x)",
        "write_attempt",
        id="with_update",
    ),
]

#: Statements run straight on a read-only connection, bypassing the spec check.
DIRECT_WRITES = [
    "DELETE FROM sales",
    "UPDATE sales SET units = 0",
    "INSERT INTO regions (region_code, region_name) VALUES ('XX', 'Nowhere')",
    "CREATE TABLE intruder (x INTEGER)",
    "DROP TABLE sales",
]


def _write_spec(sql: str) -> dict[str, Any]:
    return {
        "format": "verity.sql_spec/1",
        "graph_id": "write_attempt",
        "domain": "sales",
        "queries": [
            {
                "name": "q",
                "node_type": "T",
                "sql": sql,
                "id_template": "n",
                "statement_template": "Nothing.",
            }
        ],
    }


def _fingerprint(connection: Any) -> tuple[Any, ...]:
    """Row counts and sums of the sample tables, for 'nothing changed' checks."""
    cursor = connection.cursor()
    cursor.execute(
        "SELECT (SELECT COUNT(*) FROM sales), (SELECT SUM(units) FROM sales), "
        "(SELECT SUM(revenue_cents) FROM sales), (SELECT COUNT(*) FROM regions), "
        "(SELECT COUNT(*) FROM products)"
    )
    row = cursor.fetchall()[0]
    cursor.close()
    return tuple(int(v) for v in row)


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_sqlite(tmp_path_factory.mktemp("sql") / "sample.sqlite")


@pytest.fixture(scope="module")
def sample_graph(sample_db: Path) -> EvidenceGraph:
    return graph_from_url(sqlite_url(sample_db), sample_spec())


@pytest.fixture(scope="module")
def sample_fingerprint(sample_db: Path) -> tuple[Any, ...]:
    connection = sqlite3.connect(sample_db)
    try:
        return _fingerprint(connection)
    finally:
        connection.close()


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A URL whose search_path is a private schema holding the sample data."""
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f'{PG_ENV} is not set (start a server: export {PG_ENV}="$(.ci/postgres.sh)")')
    psycopg = pytest.importorskip(
        "psycopg", reason="psycopg is not installed (verity-evidence[postgres])"
    )
    try:
        admin = psycopg.connect(url, autocommit=True, connect_timeout=5)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        pytest.skip(f"PostgreSQL at {PG_ENV} is unreachable: {first}")
    schema = f"verity_sql_test_{os.getpid()}"
    try:
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.execute(f"CREATE SCHEMA {schema}")
        admin.execute(f"SET search_path TO {schema}")
        load_statements(admin, sample_statements())
        joiner = "&" if "?" in url else "?"
        yield url + joiner + "options=" + quote(f"-c search_path={schema}", safe="")
    finally:
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.close()


@pytest.fixture()
def pg_fingerprint(pg_url: str) -> tuple[Any, ...]:
    import psycopg

    with psycopg.connect(pg_url) as connection:
        return _fingerprint(connection)


def _pg_fingerprint_now(pg_url: str) -> tuple[Any, ...]:
    import psycopg

    with psycopg.connect(pg_url) as connection:
        return _fingerprint(connection)


# ---------------------------------------------------------------------------
# the sample database and spec


def test_generator_reproduces_the_checked_in_dump() -> None:
    assert sample_dump() == shipped_dump() == DUMP_FILE.read_text("utf-8")


def test_sample_dump_statements_are_portable_sql() -> None:
    statements = sample_statements()
    assert statements[: len(DDL)] == list(DDL)
    assert all(";" not in s and "\n" not in s for s in statements)
    assert len(statements) == len(DDL) + 5 + 6 + 5 * 6 * 12


def test_sample_spec_file_is_the_shipped_spec() -> None:
    assert load_spec(SPEC_FILE) == sample_spec()


def test_sample_graph_has_every_node_type(sample_graph: EvidenceGraph) -> None:
    counts = Counter(node.type for node in sample_graph.model.nodes)
    assert dict(counts) == EXPECTED_COUNTS


def test_sample_rules_name_present_node_types(sample_graph: EvidenceGraph) -> None:
    rules = {r.claim_type: [q.any_of for q in r.requires] for r in sample_graph.model.rules}
    assert rules == {
        "RANKING": [["TOP_BY_METRIC"]],
        "TREND": [["PERIOD_CHANGE"]],
        "SHARE": [["SHARE_OF_TOTAL"]],
        "TOTAL": [["TOTAL"]],
    }
    assert all(t in sample_graph.node_types for types in rules.values() for t in types[0])


def test_sample_graph_matches_golden_file(sample_graph: EvidenceGraph) -> None:
    # After an intended change, regenerate with:
    #   verity graph-from-sql --out tests/fixtures/sql/sample_graph.json
    assert sample_graph.dumps() == GOLDEN_GRAPH.read_text("utf-8")


def test_sample_graph_reloads_identically(sample_graph: EvidenceGraph) -> None:
    again = load_graph(json.loads(sample_graph.dumps()))
    assert again.dumps() == sample_graph.dumps()


def test_sample_entities(sample_graph: EvidenceGraph) -> None:
    kinds = Counter(e.kind for e in sample_graph.model.entities)
    assert dict(kinds) == {"region": 5, "product": 6, "period": 4}
    # the column value, then the kind's declared forms (``EntityKind.forms``)
    assert sample_graph.entities["gulf_coast"].aliases == [
        "Gulf Coast",
        "Gulf Coast region",
        "the Gulf Coast",
        "the Gulf Coast region",
    ]
    # the value only repeats the id: the forms alone
    assert sample_graph.entities["midwest"].aliases == [
        "Midwest region",
        "the Midwest",
        "the Midwest region",
    ]


def test_every_statement_verifies_as_its_own_claim(sample_graph: EvidenceGraph) -> None:
    claims = [
        {
            "id": f"c{i}",
            "type": CLAIM_TYPE_OF[node.type],
            "text": node.statement,
            "cited_evidence_ids": [node.id],
            "entities": list(node.entities),
            "numbers": list(node.numbers),
        }
        for i, node in enumerate(sample_graph.model.nodes)
    ]
    narration = {"graph_id": sample_graph.graph_id, "claims": claims}
    report = verify(sample_graph, narration, profile="strict")
    failing = [(v.id, [e.code for e in v.errors]) for v in report.claims if not v.passed]
    assert failing == []
    assert report.summary.passed == len(claims) == 35


def test_statements_state_their_numbers(sample_graph: EvidenceGraph) -> None:
    for node in sample_graph.model.nodes:
        assert node.statement.endswith(".")
        assert node.numbers, node.id
        assert all(n in node.statement for n in node.numbers)


def test_edges_point_between_produced_nodes(sample_graph: EvidenceGraph) -> None:
    relations = Counter(e.relation for e in sample_graph.model.edges)
    assert dict(relations) == {"part_of": 15, "share": 2, "period_total": 11}


# ---------------------------------------------------------------------------
# determinism and DB-API genericity


def test_graph_is_byte_identical_across_runs(sample_graph: EvidenceGraph) -> None:
    assert graph_from_sample().dumps() == sample_graph.dumps()


def test_any_dbapi_connection_and_row_order_do_not_matter(sample_graph: EvidenceGraph) -> None:
    statements = sample_statements()
    reordered = list(DDL) + list(reversed(statements[len(DDL) :]))
    connection = sqlite3.connect(":memory:")
    try:
        load_statements(connection, reordered)
        graph = graph_from_queries(connection, sample_spec())
    finally:
        connection.close()
    assert graph.dumps() == sample_graph.dumps()


def test_graph_dict_is_the_loader_input(sample_db: Path, sample_graph: EvidenceGraph) -> None:
    connection = sqlite3.connect(sample_db)
    try:
        data = graph_dict_from_queries(connection, SPEC_FILE)
    finally:
        connection.close()
    assert data == sample_graph.to_dict()


# ---------------------------------------------------------------------------
# values


@pytest.mark.parametrize("case", NUMBER_CASES, ids=lambda c: f"{c['format']}:{c['value']}")
def test_format_number(case: dict[str, Any]) -> None:
    text = format_number(Decimal(case["value"]), case["format"], case["places"])
    assert text == case["expected"]
    parsed = number_value(text)
    assert parsed is not None and parsed.value is not None


@pytest.mark.parametrize(
    ("value", "expected"), SLUG_CASES, ids=[c[1] or "empty" for c in SLUG_CASES]
)
def test_slugify(value: str, expected: str) -> None:
    assert slugify(value) == expected


def test_polarity_markers_are_the_twenty_of_the_predicate() -> None:
    assert len(POLARITY_MARKERS) == 20
    assert {"no", "not", "never", "without", "other"} <= POLARITY_MARKERS


# ---------------------------------------------------------------------------
# spec validation


@pytest.mark.parametrize("case", SPEC_ERRORS, ids=lambda c: c["id"])
def test_invalid_spec_is_refused(case: dict[str, Any]) -> None:
    data = apply_patch(load_json(SPEC_FILE), case["patch"])
    with pytest.raises(SqlBackendError) as caught:
        load_spec(data)
    assert caught.value.code == "spec"
    assert case["message"] in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("case", READ_ONLY_SQL, ids=lambda c: c["sql"][:40])
def test_read_only_sql_check(case: dict[str, Any]) -> None:
    if case["error"] is None:
        check_read_only_sql(case["sql"])
    else:
        with pytest.raises(ValueError, match=case["error"]):
            check_read_only_sql(case["sql"])


def test_missing_spec_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="does not exist") as caught:
        load_spec(tmp_path / "absent.json")
    assert caught.type.__name__ == "InputError"


# ---------------------------------------------------------------------------
# run-time errors


@pytest.mark.parametrize("case", RUN_ERRORS["cases"], ids=lambda c: c["id"])
def test_run_error(
    case: dict[str, Any], sample_db: Path, sample_fingerprint: tuple[Any, ...]
) -> None:
    spec = dict(RUN_ERRORS["base_spec"], queries=case["queries"])
    if "entities" in case:  # a case on the kinds' declared forms
        spec["entities"] = case["entities"]
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(sqlite_url(sample_db), spec)
    query = case.get("query", case["queries"][0]["name"])  # a kind's form names no query
    assert (caught.value.code, caught.value.query) == (case["code"], query)
    assert case["message"] in str(caught.value)
    assert "\n" not in str(caught.value)
    connection = sqlite3.connect(sample_db)
    try:
        assert _fingerprint(connection) == sample_fingerprint
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("url", "code", "message"),
    [
        ("mysql://localhost/db", "url", "unsupported database URL"),
        ("sales.db", "url", "unsupported database URL"),
        ("sqlite://sales.db", "url", "bad SQLite URL"),
        ("sqlite:///sales.db?mode=rw", "url", "no query string"),
        ("sqlite:///definitely/not/here.db", "connect", "does not exist"),
        ("postgresql://nobody:secret@127.0.0.1:1/none", "connect", "cannot connect to PostgreSQL"),
    ],
)
def test_bad_database_url(url: str, code: str, message: str) -> None:
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(url, sample_spec())
    assert caught.value.code == code
    assert message in str(caught.value)
    assert "secret" not in str(caught.value)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_text("this is not a database\n" * 100, encoding="utf-8")
    with pytest.raises(SqlBackendError, match="not a usable SQLite database") as caught:
        graph_from_url(sqlite_url(bogus), sample_spec())
    assert caught.value.code == "connect"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SqlBackendError, match="is not a file"):
        graph_from_url(sqlite_url(tmp_path), sample_spec())


# ---------------------------------------------------------------------------
# read-only enforcement on SQLite


@pytest.mark.parametrize(("sql", "code"), WRITE_SQL)
def test_sqlite_write_spec_fails_and_changes_nothing(
    sql: str, code: str, sample_db: Path, sample_fingerprint: tuple[Any, ...]
) -> None:
    before = _file_digest(sample_db)
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(sqlite_url(sample_db), _write_spec(sql))
    assert caught.value.code == code
    assert _file_digest(sample_db) == before
    connection = sqlite3.connect(sample_db)
    try:
        assert _fingerprint(connection) == sample_fingerprint
    finally:
        connection.close()


@pytest.mark.parametrize("sql", DIRECT_WRITES)
def test_sqlite_connection_is_read_only(sql: str, sample_db: Path) -> None:
    before = _file_digest(sample_db)
    with open_readonly(sqlite_url(sample_db)) as connection:
        cursor = connection.cursor()
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            cursor.execute(sql)
    assert _file_digest(sample_db) == before


def test_sqlite_attach_cannot_create_files(sample_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "new.db"
    with open_readonly(sqlite_url(sample_db)) as connection:
        cursor = connection.cursor()
        with pytest.raises(sqlite3.Error):
            cursor.execute(f"ATTACH DATABASE '{target}' AS other")
            cursor.execute("CREATE TABLE other.t (x INTEGER)")
    assert not target.exists() or target.stat().st_size == 0


def test_building_a_graph_leaves_the_file_untouched(sample_db: Path) -> None:
    before = _file_digest(sample_db)
    graph_from_url(sqlite_url(sample_db), sample_spec())
    assert _file_digest(sample_db) == before


# ---------------------------------------------------------------------------
# CLI


def test_cli_default_is_the_embedded_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph-from-sql"]) == 0
    out, err = capsys.readouterr()
    assert out == GOLDEN_GRAPH.read_text("utf-8")
    assert err == "graph-from-sql: 35 nodes from 10 queries; no row left out\n"


def test_cli_writes_out_file(sample_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    code = main(
        [
            "graph-from-sql",
            "--db",
            sqlite_url(sample_db),
            "--spec",
            str(SPEC_FILE),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert out.read_text("utf-8") == GOLDEN_GRAPH.read_text("utf-8")
    assert load_graph(out).graph_id == "sample_sales"


def _cli_error_cases(tmp: Path, db: Path) -> list[tuple[list[str], str]]:
    bad_spec = tmp / "bad_spec.json"
    bad_spec.write_text(
        json.dumps(
            apply_patch(
                load_json(SPEC_FILE),
                [{"op": "set", "path": ["queries", 0, "node_type"], "value": "lower"}],
            )
        ),
        "utf-8",
    )
    write_spec = tmp / "write_spec.json"
    write_spec.write_text(json.dumps(_write_spec(str(WRITE_SQL[4].values[0]))), "utf-8")
    broken_json = tmp / "broken.json"
    broken_json.write_text("{not json", "utf-8")
    url = sqlite_url(db)
    return [
        (["--db", "mysql://localhost/sales"], "unsupported database URL"),
        (["--db", "sqlite:///no/such/file.db"], "does not exist"),
        (["--spec", str(tmp / "absent.json")], "does not exist"),
        (["--spec", str(broken_json)], "is not valid JSON"),
        (["--spec", str(bad_spec)], "node_type"),
        (["--db", url, "--spec", str(write_spec)], "open read-only"),
        (["--out", str(tmp / "no" / "dir" / "g.json")], "cannot write"),
        (["--out", str(tmp)], "it is a directory"),
    ]


def test_cli_errors_exit_2_with_one_line(
    sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, message in _cli_error_cases(tmp_path, sample_db):
        assert main(["graph-from-sql", *args]) == 2, args
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("verity: error: ") and err.count("\n") == 1, err
        assert message in err, (args, err)


# ---------------------------------------------------------------------------
# PostgreSQL


@pytest.mark.postgres
def test_postgres_graph_equals_sqlite_graph(pg_url: str, sample_graph: EvidenceGraph) -> None:
    graph = graph_from_url(pg_url, sample_spec())
    assert graph.dumps() == sample_graph.dumps()


@pytest.mark.postgres
def test_postgres_cli(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph-from-sql", "--db", pg_url]) == 0
    assert capsys.readouterr().out == GOLDEN_GRAPH.read_text("utf-8")


@pytest.mark.postgres
@pytest.mark.parametrize(("sql", "code"), WRITE_SQL)
def test_postgres_write_spec_fails_and_changes_nothing(
    sql: str, code: str, pg_url: str, pg_fingerprint: tuple[Any, ...]
) -> None:
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(pg_url, _write_spec(sql))
    assert caught.value.code == code
    assert _pg_fingerprint_now(pg_url) == pg_fingerprint


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql", [*DIRECT_WRITES, "SELECT 1; COMMIT; DROP TABLE sales", "COMMIT; DELETE FROM sales"]
)
def test_postgres_connection_is_read_only(
    sql: str, pg_url: str, pg_fingerprint: tuple[Any, ...]
) -> None:
    import psycopg

    with open_readonly(pg_url) as connection:
        cursor = connection.cursor()
        with pytest.raises(psycopg.Error):
            cursor.execute(sql)
    assert _pg_fingerprint_now(pg_url) == pg_fingerprint


@pytest.mark.postgres
def test_postgres_run_error_is_one_line(pg_url: str) -> None:
    spec = _write_spec("SELECT no_such_column FROM sales")
    with pytest.raises(SqlBackendError) as caught:
        graph_from_url(pg_url, spec)
    assert caught.value.code == "sql"
    assert "no_such_column" in str(caught.value) and "\n" not in str(caught.value)


def test_the_spec_marks_the_headline_query_and_salience() -> None:
    from verity.backends.sql.query import graph_from_sample
    from verity.llm.prompts import build_prompt

    graph = graph_from_sample()
    assert graph.headline_ids() == {"total_revenue"}
    assert graph.nodes["total_revenue"].salience == 1.0
    assert all(n.salience is not None for n in graph.model.nodes)
    listing = build_prompt(graph, "choice").listing
    assert listing[0].node_id == "total_revenue"  # the choice list opens with the headline
    spec = json.loads(SPEC_FILE.read_text("utf-8"))
    for query in spec["queries"]:
        query.pop("headline", None)
        query.pop("salience", None)
    bare = load_spec(spec)
    assert not any(q.headline or q.salience is not None for q in bare.queries)
    with pytest.raises(InputError, match="salience"):
        load_spec({**spec, "queries": [{**spec["queries"][0], "salience": -1}]})


def test_sqlite_urls_three_slashes_are_relative_to_the_cwd_four_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data").mkdir()
    db = create_sqlite(tmp_path / "data" / "sales.db")
    monkeypatch.chdir(tmp_path)
    assert main(["graph-from-sql", "--db", "sqlite:///data/sales.db", "--out", "rel.json"]) == 0
    absolute = f"sqlite:///{db}"
    assert absolute.startswith("sqlite:////") and absolute == sqlite_url(db)
    monkeypatch.chdir(tmp_path / "data")  # the absolute URL does not depend on the cwd
    assert main(["graph-from-sql", "--db", absolute, "--out", "abs.json"]) == 0
    assert (tmp_path / "rel.json").read_bytes() == (tmp_path / "data" / "abs.json").read_bytes()
    assert main(["graph-from-sql", "--db", "sqlite:///sales.db", "--out", "here.json"]) == 0
    capsys.readouterr()
    assert main(["graph-from-sql", "--db", "sqlite:///data/sales.db"]) == 2  # from data/
    err = capsys.readouterr().err
    assert err == (
        f"verity: error: SQLite database data/sales.db does not exist in the current "
        f"directory {tmp_path / 'data'} (sqlite:///PATH is relative to the current "
        "directory, sqlite:////PATH absolute)\n"
    )


def test_graph_from_sql_help_shows_both_sqlite_forms() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "verity", "graph-from-sql", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "  --db sqlite:///data/sales.db       data/sales.db, relative to the current" in (
        done.stdout
    )
    assert "  --db sqlite:////srv/db/sales.db    /srv/db/sales.db (absolute" in done.stdout
