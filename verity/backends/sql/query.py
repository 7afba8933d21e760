"""The SQL backend: evidence graphs from declarative queries over a database.

:func:`graph_from_queries` runs each query of a :class:`~verity.backends.sql.spec.SqlSpec`
on any DB-API 2.0 connection and turns every result row into one evidence
node; :func:`graph_from_url` opens the database read-only first
(``sqlite:///path`` or ``postgresql://...``); :func:`graph_from_sample` runs on
the embedded sample sales database.

How rows become nodes and entities (ids, display names, NULL policies, ties) is
:mod:`verity.backends.sql._graph`; the graph is made with
:class:`~verity.core.builder.GraphBuilder`. Result column names are compared in lower
case (PostgreSQL folds unquoted names).

Read-only: SQLite databases are opened through the URI ``file:...?mode=ro`` with
``PRAGMA query_only``; PostgreSQL sessions default to read-only transactions,
every query runs as a single prepared statement inside a ``READ ONLY``
transaction, and the transaction is always rolled back. Spec SQL is also
checked to be one SELECT/WITH/VALUES statement before anything runs.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from verity.backends.sql._graph import MAX_STATEMENT_CHARS, SqlGraph, cell_text, slugify
from verity.backends.sql.spec import (
    QuerySpec,
    SqlBackendError,
    SqlSpec,
    load_spec,
    sample_spec,
)
from verity.core.builder import format_number
from verity.core.graph import EvidenceGraph
from verity.extras import install_hint
from verity.text.align import POLARITY_MARKERS

__all__ = [
    "MAX_ROWS_PER_QUERY",
    "MAX_STATEMENT_CHARS",
    "POLARITY_MARKERS",
    "Connection",
    "Cursor",
    "SqlBackendError",
    "cell_text",
    "format_number",
    "graph_dict_from_queries",
    "graph_from_queries",
    "graph_from_sample",
    "graph_from_url",
    "open_readonly",
    "sample_database",
    "slugify",
    "sqlite_url",
]

#: A query returning more rows than this is refused (a graph is meant to be read).
MAX_ROWS_PER_QUERY = 10_000


#: Session option that makes every PostgreSQL transaction read-only by default.
READ_ONLY_OPTION = "-c default_transaction_read_only=on"


class Cursor(Protocol):
    """The part of a DB-API 2.0 cursor the backend uses."""

    @property
    def description(self) -> Any: ...

    def execute(self, operation: str, /) -> Any: ...

    def fetchmany(self, size: int = ..., /) -> Any: ...

    def close(self) -> Any: ...


class Connection(Protocol):
    """The part of a DB-API 2.0 connection the backend uses."""

    def cursor(self) -> Any: ...


# ---------------------------------------------------------------------------
# running queries


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _is_write_refusal(exc: BaseException) -> bool:
    if getattr(exc, "sqlstate", None) == "25006":
        return True
    return getattr(exc, "sqlite_errorname", "") in {"SQLITE_READONLY", "SQLITE_AUTH"}


def _fetch(cursor: Cursor, query: QuerySpec) -> tuple[Any, list[Sequence[object]]]:
    """Execute the query: its cursor description and at most one row past the cap.

    A failure becomes a :class:`SqlBackendError` (``write_attempt`` when the read-only
    connection refused a change, ``sql`` otherwise).
    """
    try:
        cursor.execute(query.statement_sql)
        description = cursor.description
        rows = list(cursor.fetchmany(MAX_ROWS_PER_QUERY + 1)) if description else []
    except Exception as exc:
        if _is_write_refusal(exc):
            raise SqlBackendError(
                f"query {query.name!r} tried to change the database, which is open read-only: "
                f"{_first_line(exc)}",
                code="write_attempt",
                query=query.name,
            ) from None
        raise SqlBackendError(
            f"query {query.name!r} failed: {_first_line(exc)}", code="sql", query=query.name
        ) from None
    return description, rows


def _checked_columns(description: Any, query: QuerySpec) -> list[str]:
    """The result's column names, lower-cased: a result set, no name twice, every
    column the spec refers to present."""
    if not description:
        raise SqlBackendError(
            f"query {query.name!r} returned no result set", code="sql", query=query.name
        )
    columns = [str(d[0]).lower() for d in description]
    for name in columns:
        if columns.count(name) > 1:
            raise SqlBackendError(
                f"query {query.name!r} returns two columns named {name!r}",
                code="sql",
                query=query.name,
            )
    for name in query.referenced_columns():
        if name not in columns:
            raise SqlBackendError(
                f"query {query.name!r} has no column {name!r} (it returns: {', '.join(columns)})",
                code="missing_column",
                query=query.name,
            )
    return columns


def _check_row_count(rows: Sequence[Sequence[object]], query: QuerySpec) -> None:
    """At most the query's (and the backend's) row cap; ``min_rows`` counts the rows kept
    (after NULL skips and a ranking's cut) and is checked when they are read."""
    limit = (
        MAX_ROWS_PER_QUERY if query.max_rows is None else min(query.max_rows, MAX_ROWS_PER_QUERY)
    )
    if len(rows) > limit:
        shown = f"{len(rows)}" if len(rows) <= MAX_ROWS_PER_QUERY else f"over {MAX_ROWS_PER_QUERY}"
        raise SqlBackendError(
            f"query {query.name!r} returned {shown} rows; at most {limit} allowed",
            code="too_many_rows",
            query=query.name,
        )


def _run(cursor: Cursor, query: QuerySpec) -> tuple[list[str], list[Sequence[object]]]:
    description, rows = _fetch(cursor, query)
    columns = _checked_columns(description, query)
    _check_row_count(rows, query)
    return columns, rows


def graph_from_queries(
    connection: Connection, spec: SqlSpec | Mapping[str, Any] | str | Path
) -> EvidenceGraph:
    """Run the spec's queries on any DB-API 2.0 connection and build their graph.

    The connection is only read from; the caller owns it (commit, rollback, close).
    """
    model = load_spec(spec)
    rows = SqlGraph(model)
    cursor: Cursor = connection.cursor()
    try:
        for query in model.queries:
            columns, result = _run(cursor, query)
            rows.add_rows(query, columns, result)
    finally:
        # Closing the cursor of a failed transaction may fail too; the first error wins.
        with suppress(Exception):
            cursor.close()
    return rows.build()


def graph_dict_from_queries(
    connection: Connection, spec: SqlSpec | Mapping[str, Any] | str | Path
) -> dict[str, Any]:
    """:func:`graph_from_queries` as a ``verity.evidence_graph/1`` dict."""
    return graph_from_queries(connection, spec).to_dict()


# ---------------------------------------------------------------------------
# connections


def _sqlite_path(url: str) -> Path:
    rest = url[len("sqlite://") :]
    if not rest.startswith("/") or len(rest) < 2:
        raise SqlBackendError(
            f"bad SQLite URL {url!r}: write sqlite:///relative/path or sqlite:////absolute/path",
            code="url",
        )
    if "?" in rest or "#" in rest:
        raise SqlBackendError(f"bad SQLite URL {url!r}: no query string is accepted", code="url")
    return Path(unquote(rest[1:]))


def _open_sqlite(url: str) -> sqlite3.Connection:
    path = _sqlite_path(url)
    if not path.exists():
        where = "" if path.is_absolute() else f" in the current directory {Path.cwd()}"
        raise SqlBackendError(
            f"SQLite database {path} does not exist{where} (sqlite:///PATH is relative to "
            "the current directory, sqlite:////PATH absolute)",
            code="connect",
        )
    if not path.is_file():
        raise SqlBackendError(f"SQLite database {path} is not a file", code="connect")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise SqlBackendError(
            f"cannot open SQLite database {path}: {_first_line(exc)}", code="connect"
        ) from None
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.Error as exc:
        connection.close()
        raise SqlBackendError(
            f"{path} is not a usable SQLite database: {_first_line(exc)}", code="connect"
        ) from None
    return connection


class _PreparedCursor:
    """A psycopg cursor whose ``execute`` sends one prepared statement (no multi-statements)."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    @property
    def description(self) -> Any:
        return self._cursor.description

    def execute(self, operation: str, /) -> Any:
        return self._cursor.execute(operation, prepare=True)

    def fetchmany(self, size: int = 1, /) -> Any:
        return self._cursor.fetchmany(size)

    def close(self) -> Any:
        return self._cursor.close()


class _ReadOnlyPostgres:
    """A psycopg connection in read-only transactions that are never committed."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def cursor(self) -> _PreparedCursor:
        return _PreparedCursor(self._connection.cursor())

    def rollback(self) -> None:
        self._connection.rollback()

    def close(self) -> None:
        self._connection.close()


def _open_postgres(url: str) -> _ReadOnlyPostgres:
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise SqlBackendError(
            f"PostgreSQL needs the psycopg package: {install_hint('postgres')}", code="driver"
        ) from None
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise SqlBackendError(f"bad PostgreSQL URL: {_first_line(exc)}", code="url") from None
    host, port = params.get("host", "localhost"), params.get("port", 5432)
    where = f"{host}:{port}/{params.get('dbname', '')}"
    extra: dict[str, Any] = {
        "options": " ".join([*str(params.get("options", "")).split(), READ_ONLY_OPTION]),
    }
    if "connect_timeout" not in params:
        extra["connect_timeout"] = 10
    try:
        connection = psycopg.connect(url, autocommit=False, **extra)
    except (psycopg.Error, ValueError) as exc:
        raise SqlBackendError(
            f"cannot connect to PostgreSQL at {where}: {_first_line(exc)}", code="connect"
        ) from None
    connection.read_only = True
    return _ReadOnlyPostgres(connection)


@contextmanager
def open_readonly(url: str) -> Iterator[Connection]:
    """Open ``sqlite:///path`` or ``postgresql://...`` read-only; roll back and close on exit."""
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    connection: sqlite3.Connection | _ReadOnlyPostgres
    if scheme == "sqlite":
        connection = _open_sqlite(url)
    elif scheme in ("postgresql", "postgres"):
        connection = _open_postgres(url)
    else:
        raise SqlBackendError(
            f"unsupported database URL {_redact(url)!r}: use sqlite:///path or postgresql://...",
            code="url",
        )
    try:
        yield connection
    finally:
        try:
            connection.rollback()
        finally:
            connection.close()


def _redact(url: str) -> str:
    return re.sub(r"//([^/@:]*):[^/@]*@", r"//\1:***@", url)


def graph_from_url(url: str, spec: SqlSpec | Mapping[str, Any] | str | Path) -> EvidenceGraph:
    """Open the database at ``url`` read-only and build the spec's graph."""
    model = load_spec(spec)
    with open_readonly(url) as connection:
        return graph_from_queries(connection, model)


@contextmanager
def sample_database() -> Iterator[Path]:
    """The embedded sample database, materialized as a SQLite file in a temporary directory."""
    # Imported here: ``python -m verity.backends.sql.sample`` must find it not yet loaded.
    from verity.backends.sql.sample import create_sqlite

    with tempfile.TemporaryDirectory(prefix="verity-sql-") as tmp:
        yield create_sqlite(Path(tmp) / "sample_sales.sqlite")


def graph_from_sample(
    spec: SqlSpec | Mapping[str, Any] | str | Path | None = None,
) -> EvidenceGraph:
    """The graph of ``spec`` (default: the shipped sample spec) over the sample database."""
    model = sample_spec() if spec is None else load_spec(spec)
    with sample_database() as path:
        return graph_from_url(sqlite_url(path), model)


def sqlite_url(path: str | Path) -> str:
    """The ``sqlite:///`` URL of a file path (absolute paths give four slashes)."""
    return "sqlite:///" + str(Path(path))
