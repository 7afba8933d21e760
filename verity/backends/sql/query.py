"""The SQL backend: evidence graphs from declarative queries over a database.

:func:`graph_from_queries` runs each query of a :class:`~verity.backends.sql.spec.SqlSpec`
on any DB-API 2.0 connection and turns every result row into one evidence
node; :func:`graph_from_url` opens the database read-only first
(``sqlite:///path`` or ``postgresql://...``); :func:`graph_from_sample` runs on
the embedded sample sales database.

Entity ids are derived from column values by one rule (:func:`slugify`):
Unicode NFKD, characters outside ASCII dropped, lower case, every run of
characters other than ``a-z0-9`` becomes one ``_``, leading and trailing ``_``
removed, then the kind's ``id_prefix`` is put in front. The result must match
``^[a-z][a-z0-9_]*$``; two different values that give one id are an error.

Nodes come in spec order, then row order (so queries must ORDER BY); entities
are sorted by id, aliases by normalized form. A node lists the entities of its
row's entity columns, then any other entity its statement names; its ``data``
holds the query name and the row (integers as numbers, other numbers as
decimal text, so SQLite and PostgreSQL give equal graphs). Result column names
are compared in lower case (PostgreSQL folds unquoted names).

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
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from verity.backends.sql.spec import (
    EntityColumn,
    NumberColumn,
    QuerySpec,
    SqlBackendError,
    SqlSpec,
    load_spec,
    sample_spec,
    template_fields,
)
from verity.core.graph import EvidenceGraph, load_graph
from verity.extras import install_hint
from verity.formats import GRAPH_FORMAT
from verity.text.aliases import AliasMatcher, alias_key
from verity.text.align import POLARITY_MARKERS
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers, number_value

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
#: A node statement is one short sentence.
MAX_STATEMENT_CHARS = 300


#: Session option that makes every PostgreSQL transaction read-only by default.
READ_ONLY_OPTION = "-c default_transaction_read_only=on"

_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_SENTENCE_END_INSIDE = re.compile(r"[.!?](?=\s)")


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
# values


def slugify(value: str) -> str:
    """The id slug of a column value (see the module docstring); may be empty."""
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", folded.lower()).strip("_")


def _decimal_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def cell_text(value: object) -> str:
    """A cell as template text; numbers in a form SQLite and PostgreSQL share."""
    if value is None:
        raise ValueError("is NULL")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"holds {value}")
        return _decimal_text(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"holds {value}")
        return _decimal_text(Decimal(repr(value)))
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise ValueError("holds binary data")
    return str(value)


def _json_cell(value: object) -> object:
    """A cell for a node's ``data``: integers stay numbers, other numbers become text."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return cell_text(value)


def _to_decimal(value: object) -> Decimal:
    if value is None:
        raise ValueError("is NULL")
    if isinstance(value, bool):
        raise ValueError("holds a boolean, not a number")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"holds {value!r}, not a number") from None
    else:
        raise ValueError(f"holds a {type(value).__name__}, not a number")
    if not result.is_finite():
        raise ValueError(f"holds {value}")
    return result


def format_number(value: Decimal, fmt: str, places: int) -> str:
    """Display ``value`` rounded half-up: ``$1,234.56``, ``1,234``, ``12.5%`` or ``1234.5``."""
    quantum = Decimal(1).scaleb(-places)
    rounded = value.quantize(quantum, rounding=ROUND_HALF_UP)
    sign = "-" if rounded < 0 else ""
    magnitude = abs(rounded)
    if fmt == "money":
        return f"{sign}${magnitude:,.{places}f}"
    if fmt == "integer":
        return f"{sign}{magnitude:,.0f}"
    if fmt == "percent":
        return f"{sign}{magnitude:,.{places}f}%"
    if fmt == "plain":
        return f"{sign}{magnitude:.{places}f}"
    raise ValueError(f"unknown number format {fmt!r}")


def _number_value(number: NumberColumn, row: Mapping[str, object]) -> Decimal:
    value = _to_decimal(row[number.column])
    if number.denominator is not None:
        denominator = _to_decimal(row[number.denominator])
        if denominator == 0:
            raise ValueError(f"is divided by {number.denominator!r}, which is zero")
        value = value / denominator
    value = value * number.multiplier
    return abs(value) if number.absolute else value


# ---------------------------------------------------------------------------
# building


@dataclass
class _Entity:
    id: str
    kind: str
    value: str
    aliases: dict[str, str] = field(default_factory=dict)  # alias -> first query giving it


@dataclass
class _Node:
    id: str
    type: str
    statement: str
    row_entities: list[str]
    numbers: list[str]
    data: dict[str, Any]
    query: str
    row: int
    edges: list[tuple[str, str]]
    required: list[str]
    optional: list[str]
    slots: dict[str, str]


class _Builder:
    """Accumulates entities and nodes over the queries of one spec."""

    def __init__(self, spec: SqlSpec) -> None:
        self.spec = spec
        self.entities: dict[str, _Entity] = {}
        self.by_value: dict[tuple[str, str], str] = {}
        self.nodes: list[_Node] = []
        self.node_ids: dict[str, str] = {}

    def entity(self, query: QuerySpec, column: EntityColumn, row: Mapping[str, object]) -> str:
        where = f"query {query.name!r}, column {column.column!r}"
        try:
            value = cell_text(row[column.column])
        except ValueError as exc:
            raise SqlBackendError(
                f"{where}: the entity value {exc}", code="value", query=query.name
            ) from None
        key = (column.kind, value)
        entity_id = self.by_value.get(key)
        if entity_id is None:
            slug = slugify(value)
            entity_id = self.spec.kind(column.kind).id_prefix + slug
            if not slug or not _ID_RE.match(entity_id):
                raise SqlBackendError(
                    f"{where}: value {value!r} gives the entity id {entity_id!r}, which is not "
                    "ascii snake_case starting with a letter (set an id_prefix for the kind)",
                    code="entity",
                    query=query.name,
                )
            if entity_id in POLARITY_MARKERS:
                raise SqlBackendError(
                    f"{where}: value {value!r} gives the entity id {entity_id!r}, which is a "
                    "polarity marker (set an id_prefix for the kind)",
                    code="entity",
                    query=query.name,
                )
            other = self.entities.get(entity_id)
            if other is not None:
                raise SqlBackendError(
                    f"{where}: {column.kind} {value!r} and {other.kind} {other.value!r} both "
                    f"give the entity id {entity_id!r}",
                    code="entity",
                    query=query.name,
                )
            self.by_value[key] = entity_id
            self.entities[entity_id] = _Entity(entity_id, column.kind, value)
        entity = self.entities[entity_id]
        for alias_column in column.alias_columns:
            raw = row[alias_column]
            if raw is None:
                continue
            alias = " ".join(cell_text(raw).split())
            if alias:
                entity.aliases.setdefault(alias, query.name)
        return entity_id

    def add_rows(
        self, query: QuerySpec, columns: Sequence[str], rows: Sequence[Sequence[object]]
    ) -> None:
        for index, values in enumerate(rows):
            row = dict(zip(columns, values, strict=True))
            self.nodes.append(self._node(query, index, row))

    def _node(self, query: QuerySpec, index: int, row: Mapping[str, object]) -> _Node:
        where = f"query {query.name!r}, row {index + 1}"
        entity_fields = {c.column: self.entity(query, c, row) for c in query.entities}
        row_entities = list(dict.fromkeys(entity_fields.values()))
        number_fields: dict[str, str] = {}
        for number in query.numbers:
            try:
                value = _number_value(number, row)
            except ValueError as exc:
                raise SqlBackendError(
                    f"{where}: number {number.field!r} (column {number.column!r}) {exc}",
                    code="value",
                    query=query.name,
                ) from None
            number_fields[number.field] = format_number(value, number.format, number.places)
        text_fields = self._text_fields(query, where, row)
        statement_fields = {**text_fields, **entity_fields, **number_fields}
        id_fields = {k: slugify(v) for k, v in statement_fields.items()}
        id_fields.update(entity_fields)
        node_id = query.id_template.format_map(id_fields)
        if not _ID_RE.match(node_id):
            raise SqlBackendError(
                f"{where}: id_template gives {node_id!r}, which is not ascii snake_case "
                "starting with a letter",
                code="node_id",
                query=query.name,
            )
        if node_id in self.node_ids:
            raise SqlBackendError(
                f"{where}: node id {node_id!r} is also produced by query "
                f"{self.node_ids[node_id]!r}; make id_template unique",
                code="node_id",
                query=query.name,
            )
        self.node_ids[node_id] = query.name
        statement = " ".join(query.statement_template.format_map(statement_fields).split())
        numbers = list(dict.fromkeys(number_fields[n.field] for n in query.numbers))
        _check_statement(statement, numbers, where, query.name)
        edges = [(e.relation, e.target_template.format_map(id_fields)) for e in query.edges]
        data = {"query": query.name, "row": {k: _json_cell(v) for k, v in row.items()}}
        required = [
            " ".join(t.format_map(statement_fields).split()) for t in query.required_templates
        ]
        optional = [
            " ".join(t.format_map(statement_fields).split()) for t in query.optional_templates
        ]
        slots = {name: statement_fields[name] for name in template_fields(query.statement_template)}
        return _Node(
            node_id,
            query.node_type,
            statement,
            row_entities,
            numbers,
            data,
            query.name,
            index + 1,
            edges,
            list(dict.fromkeys(required)),
            list(dict.fromkeys(optional)),
            slots,
        )

    @staticmethod
    def _text_fields(query: QuerySpec, where: str, row: Mapping[str, object]) -> dict[str, str]:
        fields: dict[str, str] = {}
        computed = query.computed_fields
        for name in query.referenced_columns():
            if name in computed or name in fields:
                continue
            try:
                fields[name] = cell_text(row[name])
            except ValueError as exc:
                raise SqlBackendError(
                    f"{where}: column {name!r} {exc}", code="value", query=query.name
                ) from None
        return fields

    def entity_list(self) -> list[dict[str, Any]]:
        ids = set(self.entities)
        owners: dict[str, str] = {normalize(i): i for i in ids}
        out: list[dict[str, Any]] = []
        for entity_id in sorted(self.entities):
            entity = self.entities[entity_id]
            kept: dict[str, str] = {}
            for alias in sorted(entity.aliases, key=lambda a: (normalize(a), a)):
                key = alias_key(alias)
                if key == normalize(entity_id) or key in kept:
                    continue
                _check_alias(alias, key, entity_id, owners, entity.aliases[alias])
                kept[key] = alias
                owners[key] = entity_id
            out.append({"id": entity_id, "kind": entity.kind, "aliases": list(kept.values())})
        return out

    def node_list(self, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
        forms = {e["id"]: e["id"] for e in entities}
        for e in entities:
            forms.update({a: e["id"] for a in e["aliases"]})
        matcher = AliasMatcher(forms)
        queries = {q.name: q for q in self.spec.queries}
        out: list[dict[str, Any]] = []
        for node in self.nodes:
            mentioned = [m.entity_id for m in matcher.mentions(node.statement)]
            for entity_id in node.row_entities:
                if entity_id not in mentioned:
                    raise SqlBackendError(
                        f"query {node.query!r}, row {node.row}: the statement {node.statement!r} "
                        f"does not name entity {entity_id!r} (by id or alias)",
                        code="statement",
                        query=node.query,
                    )
            names = list(dict.fromkeys([*node.row_entities, *mentioned]))
            item: dict[str, Any] = {
                "id": node.id,
                "type": node.type,
                "statement": node.statement,
                "entities": names,
                "numbers": node.numbers,
                "data": node.data,
            }
            if node.required:
                item["required_spans"] = node.required
            if node.optional:
                item["optional_spans"] = node.optional
            item["template"], item["slots"] = node.query, node.slots
            query = queries[node.query]
            if query.headline:
                item["headline"] = True
            if query.salience is not None:
                item["salience"] = query.salience
            out.append(item)
        return out

    def edge_list(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        seen: set[tuple[str, str, str]] = set()
        for node in self.nodes:
            for relation, target in node.edges:
                if target not in self.node_ids:
                    raise SqlBackendError(
                        f"query {node.query!r}, row {node.row}: edge {relation!r} points at "
                        f"node {target!r}, which no query produced",
                        code="edge",
                        query=node.query,
                    )
                key = (node.id, target, relation)
                if key not in seen:
                    seen.add(key)
                    out.append({"source": node.id, "target": target, "relation": relation})
        return out


def _check_alias(
    alias: str, key: str, entity_id: str, owners: Mapping[str, str], query: str
) -> None:
    problem = ""
    if key in POLARITY_MARKERS:
        problem = "is a polarity marker"
    elif find_numbers(key):
        problem = "holds a number"
    elif key in owners and owners[key] != entity_id:
        problem = f"collides with entity {owners[key]!r}"
    if problem:
        raise SqlBackendError(
            f"query {query!r}: alias {alias!r} of entity {entity_id!r} {problem}",
            code="entity",
            query=query,
        )


def _check_statement(statement: str, numbers: Sequence[str], where: str, query: str) -> None:
    def fail(problem: str) -> SqlBackendError:
        return SqlBackendError(
            f"{where}: statement {statement!r} {problem}", code="statement", query=query
        )

    if not statement.endswith("."):
        raise fail("does not end with a full stop")
    if _SENTENCE_END_INSIDE.search(statement[:-1]) or "\n" in statement:
        raise fail("is more than one sentence")
    if len(statement) > MAX_STATEMENT_CHARS:
        raise fail(f"is longer than {MAX_STATEMENT_CHARS} characters")
    declared = []
    for number in numbers:
        value = number_value(number)
        if value is None or value.value is None:
            raise fail(f"lists {number!r}, which does not read as one number")
        if number not in statement:
            raise fail(f"does not state {number!r} verbatim")
        declared.append(value)
    for mention in find_numbers(normalize(statement)):
        if not any(mention.value.matches(v) for v in declared):
            raise fail(
                f"states {mention.raw!r}, which is none of its numbers "
                "(declare the column under 'numbers')"
            )


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
    """At most the query's (and the backend's) row cap, at least its ``min_rows``."""
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
    if len(rows) < query.min_rows:
        got = "no rows" if not rows else f"{len(rows)} rows"
        raise SqlBackendError(
            f"query {query.name!r} returned {got}; the spec requires at least {query.min_rows}",
            code="no_rows",
            query=query.name,
        )


def _run(cursor: Cursor, query: QuerySpec) -> tuple[list[str], list[Sequence[object]]]:
    description, rows = _fetch(cursor, query)
    columns = _checked_columns(description, query)
    _check_row_count(rows, query)
    return columns, rows


def graph_dict_from_queries(
    connection: Connection, spec: SqlSpec | Mapping[str, Any] | str | Path
) -> dict[str, Any]:
    """Run the spec's queries on ``connection``; the graph as a ``verity.evidence_graph/1`` dict.

    The connection is only read from; the caller owns it (commit, rollback, close).
    """
    model = load_spec(spec)
    builder = _Builder(model)
    cursor: Cursor = connection.cursor()
    try:
        for query in model.queries:
            columns, rows = _run(cursor, query)
            builder.add_rows(query, columns, rows)
    finally:
        # Closing the cursor of a failed transaction may fail too; the first error wins.
        with suppress(Exception):
            cursor.close()
    entities = builder.entity_list()
    return {
        "format": GRAPH_FORMAT,
        "graph_id": model.graph_id,
        "domain": model.domain,
        "entities": entities,
        "nodes": builder.node_list(entities),
        "edges": builder.edge_list(),
        "rules": [r.model_dump(mode="json") for r in model.rules],
        "templates": [
            {
                "id": q.name,
                "canonical": q.canonical_pattern(),
                "variants": list(q.statement_variants),
                "coordinable": list(q.coordinable),
            }
            for q in model.queries
        ],
    }


def graph_from_queries(
    connection: Connection, spec: SqlSpec | Mapping[str, Any] | str | Path
) -> EvidenceGraph:
    """Run the spec's queries on any DB-API 2.0 connection and load the resulting graph."""
    return load_graph(graph_dict_from_queries(connection, spec))


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
        raise SqlBackendError(f"SQLite database {path} does not exist", code="connect")
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
