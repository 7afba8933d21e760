"""Draft a SQL spec from one query's result, for a person to edit.

:func:`draft_spec` runs the query read-only and looks at its columns' values: a text
column becomes an entity kind (its values name themselves; a date column reads as a
date), a numeric column a number (``integer``, ``year`` for a column called ``year``,
or ``plain`` with the decimals its values show, at most two), anything else a text
field. A text column that holds a NULL is an alias column of the entity column whose
values it names one to one (the column a LEFT JOIN adds: a NULL skips the alias, not the
row), else a text field; every other column that holds a NULL gets an explicit policy
(``{"text": "no value"}``; ``skip_row`` only for a date column or a text column whose
values hold numbers, and the rows it leaves out are counted in the graph). A query that
returns no rows gets no draft. The draft has one query and one
statement template (``For Adelie, island is Torgersen and body mass g is 3,750.``), one
rule, and is checked to build as written on the data it was drafted from; when it would
not, the draft is refused with the reason.

A text column is kept as an entity only when its values are usable names on this data:
no two values of it give one id, none is a polarity marker, and none is also a value of
an earlier entity column (``origin`` and ``dest`` both holding ``JFK``); otherwise it is
a text field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from verity.backends.sql._graph import slugify
from verity.backends.sql.query import Connection, Cursor, _run, graph_from_queries
from verity.backends.sql.spec import QuerySpec, SqlBackendError, check_read_only_sql
from verity.formats import SPEC_FORMAT
from verity.text.aliases import alias_key
from verity.text.align import POLARITY_MARKERS
from verity.text.numbers import find_numbers

__all__ = ["NULL_TEXT", "draft_spec"]

#: What a NULL in a column other than an entity reads as in a draft.
NULL_TEXT = "no value"

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def _label(column: str) -> str:
    """A column name as words: ``bill_length_mm`` -> ``bill length mm``; digits spelled
    (a digit in the sentence would read as a number the graph does not list)."""
    words = re.sub(r"\d", lambda m: f" {_DIGIT_WORDS[int(m.group())]} ", column.replace("_", " "))
    return " ".join(words.split())


def _kind(column: str) -> str:
    kind = re.sub(r"[^a-z0-9_]", "_", column.lower()).strip("_")
    return kind if _SNAKE.match(kind) else "c_" + kind


def _is_date(value: object) -> bool:
    if isinstance(value, datetime):
        return value.time() == datetime.min.time()
    return isinstance(value, date) or (isinstance(value, str) and bool(_ISO_DATE.match(value)))


def _decimals(values: Sequence[object]) -> int:
    places = 0
    for value in values:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
        exponent = number.normalize().as_tuple().exponent
        if isinstance(exponent, int) and exponent < 0:
            places = max(places, -exponent)
    return min(places, 2)


def _column_kind(column: str, values: Sequence[object]) -> str:
    """``entity``, ``date``, ``integer``, ``year``, ``plain`` or ``text``."""
    present = [v for v in values if v is not None]
    if not present or any(isinstance(v, (bool, bytes, bytearray, memoryview)) for v in present):
        return "text"
    if all(_is_date(v) for v in present):
        return "date"
    if all(isinstance(v, str) for v in present):
        return "entity"
    if all(isinstance(v, int) for v in present):
        in_years = all(isinstance(v, int) and 1 <= v <= 9999 for v in present)
        return "year" if "year" in column and in_years else "integer"
    if all(isinstance(v, (int, float, Decimal)) for v in present):
        finite = all(v == v and v not in (float("inf"), float("-inf")) for v in present)
        return "plain" if finite else "text"
    return "text"


def _usable_names(values: Sequence[object], taken: set[str]) -> bool:
    """True when the text values can name entities of one kind on this data."""
    slugs: dict[str, str] = {}
    for value in values:
        if value is None:
            continue
        text = " ".join(str(value).split())
        key, slug = alias_key(text), slugify(text)
        if not slug or key in POLARITY_MARKERS or key in taken or text != str(value):
            return False
        if slugs.setdefault(slug, key) != key:
            return False
    return True


def _pairs_one_to_one(names: Sequence[object], aliases: Sequence[object]) -> bool:
    """True when, over the rows whose alias is not NULL, each name has one alias and each
    alias one name (a name column and the column a LEFT JOIN adds for it)."""
    pairs = {(n, a) for n, a in zip(names, aliases, strict=True) if a is not None}
    return bool(pairs) and len(pairs) == len({n for n, _ in pairs}) == len({a for _, a in pairs})


def _numberless(values: Sequence[object]) -> bool:
    return not any(find_numbers(alias_key(str(v))) for v in values if v is not None)


def _alias_of(
    values: Sequence[object],
    fields: Sequence[Mapping[str, Any]],
    by_column: Sequence[Sequence[object]],
) -> str | None:
    """The entity column whose alias column ``i`` can be: a text column with a NULL whose
    values name that column's values one to one and hold no number."""
    if not _numberless(values):
        return None
    for field in fields:
        if field["kind"] == "entity" and _pairs_one_to_one(by_column[field["index"]], values):
            return str(field["column"])
    return None


def _fields(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> list[dict[str, Any]]:
    """One description per column: its name, what it holds, and whether it holds a NULL.

    A text column with a NULL never names entities (a row would have none): it is an alias
    column of the entity column it pairs with one to one (a NULL skips the alias), else a
    text field (a NULL reads as :data:`NULL_TEXT`) when its values hold no number, else
    an entity column whose NULL rows are left out (and counted)."""
    out: list[dict[str, Any]] = []
    taken: set[str] = set()
    by_column = [[row[i] for row in rows] for i in range(len(columns))]
    for i, column in enumerate(columns):
        values = by_column[i]
        kind = _column_kind(column, values)
        nullable = any(v is None for v in values)
        alias = None
        if kind == "entity" and not _usable_names(values, taken):
            kind = "text"
        if kind == "entity" and nullable:
            alias = _alias_of(values, out, by_column)
            kind = "alias" if alias is not None else ("text" if _numberless(values) else kind)
        if kind in ("entity", "date", "alias"):
            taken |= {alias_key(str(v)) for v in values if v is not None}
        out.append(
            {
                "column": column,
                "index": i,
                "kind": kind,
                "alias_of": alias,
                "nullable": nullable,
                "decimals": _decimals([v for v in values if v is not None])
                if kind == "plain"
                else 0,
            }
        )
    return out


def _statement(fields: Sequence[Mapping[str, Any]]) -> str:
    subject = next((f for f in fields if f["kind"] in ("entity", "date")), None)
    rest = [f for f in fields if f is not subject and f["kind"] != "alias"]
    parts = [f"{_label(f['column'])} is {{{f['column']}}}" for f in rest]
    if len(parts) > 1:
        parts = [", ".join(parts[:-1]) + " and " + parts[-1]]
    said = parts[0] if parts else ""
    if subject is None:
        return f"In the result, {said}." if said else "The result has a row."
    if not said:
        return f"The result includes {{{subject['column']}}}."
    return f"For {{{subject['column']}}}, {said}."


def _spec(
    sql: str, name: str, graph_id: str, fields: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    entities: list[dict[str, Any]] = []
    numbers: list[dict[str, Any]] = []
    nulls: dict[str, Any] = {}
    kinds: list[dict[str, str]] = []
    for f in fields:
        column = f["column"]
        if f["kind"] == "alias":
            continue
        if f["kind"] in ("entity", "date"):
            kind = _kind(column)
            kinds.append({"kind": kind, "id_prefix": kind + "_", "description": f"A {column}."})
            entity: dict[str, Any] = {"column": column, "kind": kind}
            if f["kind"] == "date":
                entity["format"] = "date"
            else:
                entity["name_column"] = column
            aliases = [a["column"] for a in fields if a["alias_of"] == column]
            if aliases:
                entity["alias_columns"] = aliases
            entities.append(entity)
            if f["nullable"]:
                nulls[column] = "skip_row"
            continue
        if f["kind"] in ("integer", "year", "plain"):
            number: dict[str, Any] = {"column": column, "format": f["kind"]}
            if f["kind"] == "plain":
                number["decimals"] = f["decimals"]
            numbers.append(number)
        if f["nullable"]:
            nulls[column] = {"text": NULL_TEXT}
    query: dict[str, Any] = {
        "name": name,
        "node_type": "ROW",
        "description": "Drafted from the query's result: edit the statement and its variation.",
        "sql": sql,
        "id_template": name + "_{_row}",
        "statement_template": _statement(fields),
        "entities": entities,
        "numbers": numbers,
    }
    if nulls:
        query["nulls"] = nulls
    return {
        "format": SPEC_FORMAT,
        "graph_id": graph_id,
        "domain": "data",
        "backend": "a SQL query",
        "description": "A draft spec written by verity graph-from-sql --write-spec.",
        "entities": kinds,
        "queries": [query],
        "rules": [{"claim_type": "FACT", "requires": [{"any_of": ["ROW"]}]}],
    }


def draft_spec(
    connection: Connection, sql: str, *, name: str = "rows", graph_id: str = "draft"
) -> dict[str, Any]:
    """A ``verity.sql_spec/1`` draft for ``sql`` that builds as written on this
    connection's data (``SqlBackendError`` with code ``draft`` when no draft would)."""
    try:
        check_read_only_sql(sql)
    except ValueError as exc:
        raise SqlBackendError(f"--query {exc}", code="spec") from None
    probe = QuerySpec(
        name=name,
        node_type="ROW",
        sql=sql,
        id_template="row",
        statement_template="A row.",
        allow_empty=True,
    )
    cursor: Cursor = connection.cursor()
    try:
        columns, rows = _run(cursor, probe)
    finally:
        cursor.close()
    if not rows:
        raise SqlBackendError(
            "--query returned no rows; a draft is made from the values of a result's rows, "
            "so run it where it returns some",
            code="no_rows",
            query=name,
        )
    spec = _spec(sql, name, graph_id, _fields(columns, rows))
    try:
        graph_from_queries(connection, spec)
    except SqlBackendError as exc:
        raise SqlBackendError(
            f"no draft of this query builds on its data ({exc}); write the spec by hand",
            code="draft",
            query=name,
        ) from None
    return spec
