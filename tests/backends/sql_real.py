"""Real databases for the SQL backend tests, made from the data files under
``tests/fixtures/sql/real/``: a SQLite file per data set, and a PostgreSQL schema per data
set when ``VERITY_TEST_POSTGRES_URL`` points at a server."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers import FIXTURES, load_json

REAL = FIXTURES / "sql" / "real"
DATASETS = ("penguins", "flights")
PG_ENV = "VERITY_TEST_POSTGRES_URL"

_SQLITE_TYPES = {"text": "TEXT", "integer": "INTEGER", "real": "REAL", "date": "TEXT"}
_PG_TYPES = {"text": "TEXT", "integer": "INTEGER", "real": "DOUBLE PRECISION", "date": "DATE"}


def tables(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_json(REAL / f"{name}.json")["tables"]
    return data


def spec(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_json(REAL / f"{name}.spec.json")
    return data


def make_sqlite(path: Path, name: str) -> Path:
    """A new SQLite file holding the data set's tables."""
    connection = sqlite3.connect(path)
    try:
        for table, body in tables(name).items():
            columns = ", ".join(f"{c} {_SQLITE_TYPES[t]}" for c, t in body["columns"])
            connection.execute(f"CREATE TABLE {table} ({columns})")
            marks = ", ".join("?" for _ in body["columns"])
            connection.executemany(f"INSERT INTO {table} VALUES ({marks})", body["rows"])
        connection.commit()
    finally:
        connection.close()
    return path


def _pg_value(kind: str, value: Any) -> Any:
    return date.fromisoformat(value) if kind == "date" and value is not None else value


def pg_url_or_skip() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f'{PG_ENV} is not set (start a server: export {PG_ENV}="$(.ci/postgres.sh)")')
    pytest.importorskip("psycopg", reason="psycopg is not installed (verity-evidence[postgres])")
    return url


@contextmanager
def postgres_schema(url: str, name: str) -> Iterator[str]:
    """A private schema holding the data set's tables; yields a URL whose search_path is it."""
    import psycopg

    try:
        admin = psycopg.connect(url, autocommit=True, connect_timeout=5)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        pytest.skip(f"PostgreSQL at {PG_ENV} is unreachable: {first}")
    schema = f"verity_real_{name}_{os.getpid()}"
    try:
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.execute(f"CREATE SCHEMA {schema}")
        for table, body in tables(name).items():
            columns = ", ".join(f"{c} {_PG_TYPES[t]}" for c, t in body["columns"])
            admin.execute(f"CREATE TABLE {schema}.{table} ({columns})")
            kinds = [t for _, t in body["columns"]]
            marks = ", ".join("%s" for _ in kinds)
            with admin.cursor() as cursor:
                cursor.executemany(
                    f"INSERT INTO {schema}.{table} VALUES ({marks})",
                    [
                        [_pg_value(k, v) for k, v in zip(kinds, row, strict=True)]
                        for row in body["rows"]
                    ],
                )
        joiner = "&" if "?" in url else "?"
        yield url + joiner + "options=" + quote(f"-c search_path={schema}", safe="")
    finally:
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.close()
