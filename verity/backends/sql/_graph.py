"""The rows of a SQL spec's queries become an evidence graph, made with GraphBuilder.

A query's rows are read in two passes. The first, per query, applies the spec's NULL
policies (a row with a NULL in a ``skip_row`` column is dropped; a NULL alias is skipped;
a NULL elsewhere is an error naming the row unless the column reads it as a text), cuts a
ranking at ``top`` and finds its ties, counts every row it left out (:class:`LeftOut`,
one ``ROWS_LEFT_OUT`` node per such query), refuses an empty result unless the query
allows it, and turns each kept row into ids, numbers and text. The second, once
every query has run, knows every entity's display name, so it renders the statements,
checks them (one sentence to the graph's segmenter, every number declared, every row
entity named, no superlative over SQL that can cut its own rows) and hands everything
to :class:`~verity.core.builder.GraphBuilder`.

Entity ids are derived from column values by one rule (:func:`slugify`): Unicode NFKD,
characters outside ASCII dropped, lower case, every run of characters other than
``a-z0-9`` becomes one ``_``, leading and trailing ``_`` removed, then the kind's
``id_prefix`` is put in front. An integer, year or date value with no ``id_prefix``
gets its kind instead (``year_2007``, ``day_2013_01_05``) and is its own display name
(``2007``, ``January 5, 2013``; a date also answers to ``2013-01-05``). The result must
match ``^[a-z][a-z0-9_]*$``; two different values that give one id are an error.

Nodes come in spec order, then row order (so queries must ORDER BY); entities are
sorted by id, aliases by normalized form. A node lists the entities of its row's entity
columns, then those it ties with, then any other entity its statement names; its
``data`` holds the query name and the row (integers as numbers, other numbers as decimal
text, so SQLite and PostgreSQL give equal graphs), and ``tied_with`` for a tied row.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from verity.backends.sql.spec import (
    LEFT_OUT_TYPE,
    ROW_FIELD,
    EntityColumn,
    NullText,
    NumberColumn,
    QuerySpec,
    SqlBackendError,
    SqlSpec,
    cut_message,
    row_cut,
    superlative,
    template_fields,
)
from verity.core.builder import GraphBuilder, format_number, to_decimal
from verity.core.graph import EvidenceGraph, entity_scan
from verity.errors import GraphError
from verity.text.aliases import AliasMatcher, alias_key
from verity.text.align import POLARITY_MARKERS
from verity.text.declarations import name_problem
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers, number_value
from verity.text.segment import split_sentences

__all__ = [
    "LEFT_OUT_TYPE",
    "MAX_STATEMENT_CHARS",
    "LeftOut",
    "SqlGraph",
    "cell_text",
    "join_words",
    "left_out",
    "slugify",
]

#: A node statement is one short sentence.
MAX_STATEMENT_CHARS = 300

_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_INTEGER_TEXT = re.compile(r"^-?\d+$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T]00:00(?::00(?:\.0+)?)?)?$")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip


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


#: Significant digits a non-integral number keeps in a node's ``data``: what a double
#: holds, so that a float (SQLite) and an exact numeric (PostgreSQL) read alike.
DATA_DIGITS = 15
_DATA_CONTEXT = Context(prec=DATA_DIGITS, rounding=ROUND_HALF_UP)


def _json_cell(value: object) -> object:
    """A cell for a node's ``data``: integers stay numbers, other numbers become decimal
    text of at most :data:`DATA_DIGITS` significant digits."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (float, Decimal)) and value == value:
        number = Decimal(repr(value)) if isinstance(value, float) else value
        if number.is_finite():
            return _decimal_text(_DATA_CONTEXT.plus(number))
    return cell_text(value)


def join_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _as_date(value: object) -> date:
    if isinstance(value, datetime):
        if value.time() != time(0, 0):
            raise ValueError(f"holds {value.isoformat()}, a time of day, not a date")
        return value.date()
    if isinstance(value, date):
        return value
    match = _ISO_DATE.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"holds {value!r}, not a date (YYYY-MM-DD)")
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise ValueError(f"holds {value!r}, not a calendar date") from None


def _date_name(day: date) -> str:
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


@dataclass(frozen=True, slots=True)
class _Value:
    """How an entity column's cell reads: its text, whether it is a number or a date (then
    it names itself and takes its kind as id prefix), and extra forms it answers to."""

    text: str
    own_name: str | None
    forms: tuple[str, ...] = ()


def _entity_value(column: EntityColumn, raw: object) -> _Value:
    if column.format == "date":
        day = _as_date(raw)
        return _Value(day.isoformat(), _date_name(day), (day.isoformat(),))
    if column.format == "year":
        year = format_number(raw, "year")
        return _Value(year, year)
    text = cell_text(raw)
    typed = isinstance(raw, (int, date)) and not isinstance(raw, bool)
    if typed or _INTEGER_TEXT.match(text) or _ISO_DATE.match(text):
        return _Value(text, text)
    return _Value(text, None)


# ---------------------------------------------------------------------------
# first pass: rows


@dataclass
class _Entity:
    id: str
    kind: str
    value: str
    name: str | None = None
    name_query: str = ""
    aliases: dict[str, str] = field(default_factory=dict)  # alias -> first query giving it
    #: Forms the value itself gives (a date's ISO form): they may hold numbers.
    own_forms: set[str] = field(default_factory=set)
    #: Forms the spec's entity kind declares for the value (``EntityKind.forms``).
    declared_forms: set[str] = field(default_factory=set)


@dataclass
class _Row:
    query: QuerySpec
    index: int
    node_id: str
    entity_fields: dict[str, str]  # field -> entity id
    text_fields: dict[str, str]
    number_fields: dict[str, str]
    numbers: list[str]
    edges: list[tuple[str, str]]
    data: dict[str, Any]
    tied: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"query {self.query.name!r}, row {self.index}"


def _null_hint(column: str) -> str:
    return (
        f'; say what a NULL means there with "nulls": {{"{column}": "skip_row"}}, '
        f'"error" or {{"text": "..."}}'
    )


def _row_label(query: QuerySpec, index: int, row: Mapping[str, object]) -> str:
    """``query 'q', row 3 (species 'Adelie')``: the row and its entity values."""
    values = [f"{e.column} {row[e.column]!r}" for e in query.entities if row[e.column] is not None]
    return f"query {query.name!r}, row {index}" + (f" ({', '.join(values)})" if values else "")


def _skipped_for(query: QuerySpec, row: Mapping[str, object]) -> str | None:
    """The first column whose NULL drops the row (its policy is ``skip_row``), or None."""
    for column, policy in query.nulls.items():
        if row.get(column) is None and policy == "skip_row":
            return column
    return None


@dataclass(frozen=True, slots=True)
class LeftOut:
    """The rows one query returned and left out: per column, the rows a NULL dropped
    (``skip_row``), and the rows a ranking cut below its ``top``."""

    query: str
    returned: int
    nulls: dict[str, int]
    below_top: int
    top: int | None

    @property
    def count(self) -> int:
        return sum(self.nulls.values()) + self.below_top

    @property
    def node_id(self) -> str:
        return f"{self.query}_rows_left_out"

    def reasons(self) -> list[str]:
        """``4 for a NULL in dest_name``, ``7 below the top 3``."""
        out = [f"{_count(n)} for a NULL in {column}" for column, n in self.nulls.items()]
        if self.below_top:
            out.append(f"{_count(self.below_top)} below the top {_count(self.top or 0)}")
        return out

    def statement(self) -> str:
        return (
            f"Query {self.query} left out {_count(self.count)} of the {_rows(self.returned)} "
            f"it returned: {join_words(self.reasons())}."
        )

    def numbers(self) -> list[str]:
        counts = [self.count, self.returned, *self.nulls.values()]
        if self.below_top:
            counts += [self.below_top, self.top or 0]
        return list(dict.fromkeys(_count(n) for n in counts))

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "returned": self.returned,
            "left_out": self.count,
        }
        if self.nulls:
            data["null"] = dict(self.nulls)
        if self.below_top:
            data["below_top"] = self.below_top
            data["top"] = self.top
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> LeftOut:
        """The counts a ``ROWS_LEFT_OUT`` node's ``data`` holds."""
        return cls(
            str(data["query"]),
            int(data["returned"]),
            {str(k): int(v) for k, v in data.get("null", {}).items()},
            int(data.get("below_top", 0)),
            data.get("top"),
        )


def _count(n: int) -> str:
    return format_number(n, "integer")


def _rows(n: int) -> str:
    return f"{_count(n)} row" if n == 1 else f"{_count(n)} rows"


def left_out(graph: EvidenceGraph) -> list[LeftOut]:
    """The rows each query of a SQL graph left out, from its ``ROWS_LEFT_OUT`` nodes."""
    return [LeftOut.from_data(n.data) for n in graph.model.nodes if n.type == LEFT_OUT_TYPE]


class SqlGraph:
    """The entities and rows of one spec's queries, and the graph they make."""

    def __init__(self, spec: SqlSpec) -> None:
        self.spec = spec
        self.entities: dict[str, _Entity] = {}
        self.by_value: dict[tuple[str, str], str] = {}
        self.rows: list[_Row] = []
        self.node_ids: dict[str, str] = {}
        self.left_out: list[LeftOut] = []

    # -- entities

    def _entity_id(self, query: QuerySpec, column: EntityColumn, value: _Value, where: str) -> str:
        slug = slugify(value.text)
        prefix = self.spec.kind(column.kind).id_prefix
        if not prefix and value.own_name is not None and slug[:1].isdigit():
            prefix = column.kind + "_"
        entity_id = prefix + slug
        if not slug or not _ID_RE.match(entity_id):
            raise SqlBackendError(
                f"{where}: value {value.text!r} gives the entity id {entity_id!r}, which is not "
                "ascii snake_case starting with a letter (set an id_prefix for the kind)",
                code="entity",
                query=query.name,
            )
        if entity_id in POLARITY_MARKERS:
            raise SqlBackendError(
                f"{where}: value {value.text!r} gives the entity id {entity_id!r}, which is a "
                "polarity marker (set an id_prefix for the kind)",
                code="entity",
                query=query.name,
            )
        other = self.entities.get(entity_id)
        if other is not None:
            raise SqlBackendError(
                f"{where}: {column.kind} {value.text!r} and {other.kind} {other.value!r} both "
                f"give the entity id {entity_id!r}",
                code="entity",
                query=query.name,
            )
        return entity_id

    def _entity(
        self, query: QuerySpec, column: EntityColumn, row: Mapping[str, object], label: str
    ) -> str:
        where = f"{label}, column {column.column!r}"
        raw = row[column.column]
        if raw is None:
            raise SqlBackendError(
                f"{where}: the entity value is NULL{_null_hint(column.column)}",
                code="value",
                query=query.name,
            )
        try:
            value = _entity_value(column, raw)
        except ValueError as exc:
            raise SqlBackendError(
                f"{where}: the entity value {exc}", code="value", query=query.name
            ) from None
        key = (column.kind, value.text)
        entity_id = self.by_value.get(key)
        if entity_id is None:
            entity_id = self._entity_id(query, column, value, where)
            self.by_value[key] = entity_id
            self.entities[entity_id] = _Entity(entity_id, column.kind, value.text)
            for declared in self.spec.kind(column.kind).forms.get(value.text, ()):
                form = " ".join(declared.split())
                self.entities[entity_id].aliases.setdefault(form, query.name)
                self.entities[entity_id].declared_forms.add(form)
        entity = self.entities[entity_id]
        self._name(entity, query, column, row, value, label)
        for form in value.forms:
            entity.aliases.setdefault(form, query.name)
            entity.own_forms.add(form)
        for alias_column in column.alias_columns:
            alias_raw = row[alias_column]
            if alias_raw is None:
                continue
            alias = " ".join(cell_text(alias_raw).split())
            if alias:
                entity.aliases.setdefault(alias, query.name)
        return entity_id

    @staticmethod
    def _name(
        entity: _Entity,
        query: QuerySpec,
        column: EntityColumn,
        row: Mapping[str, object],
        value: _Value,
        label: str,
    ) -> None:
        name = value.own_name
        if column.name_column is not None:
            raw = row[column.name_column]
            if raw is None:
                raise SqlBackendError(
                    f"{label}: column {column.name_column!r} (the name of {column.kind} "
                    f"{value.text!r}) is NULL{_null_hint(column.name_column)}",
                    code="value",
                    query=query.name,
                )
            name = " ".join(cell_text(raw).split())
        if not name:
            return
        if entity.name is not None and entity.name != name:
            raise SqlBackendError(
                f"{label}: {column.kind} {value.text!r} has two names, {entity.name!r} "
                f"(query {entity.name_query!r}) and {name!r}",
                code="entity",
                query=query.name,
            )
        if entity.name is None:
            entity.name, entity.name_query = name, query.name
            if name.endswith("."):  # at a sentence's end the name's stop is the sentence's
                entity.aliases.setdefault(_unstop(name), query.name)
                entity.own_forms.add(_unstop(name))

    # -- rows

    def add_rows(
        self, query: QuerySpec, columns: Sequence[str], rows: Sequence[Sequence[object]]
    ) -> None:
        """Read one query's result: NULL policies, the ranking cut and ties, then one
        node per kept row."""
        if ROW_FIELD in columns:
            raise SqlBackendError(
                f"query {query.name!r} returns a column named {ROW_FIELD!r}, the field that "
                "holds the row's position; rename it",
                code="sql",
                query=query.name,
            )
        kept: list[tuple[int, dict[str, object]]] = []
        nulls: dict[str, int] = {}
        for i, values in enumerate(rows):
            row = dict(zip(columns, values, strict=True))
            column = _skipped_for(query, row)
            if column is None:
                kept.append((i + 1, row))
            else:
                nulls[column] = nulls.get(column, 0) + 1
        groups = _rank(query, kept) if query.rank_by is not None else [[r] for r in kept]
        made = [[self._row(query, index, row) for index, row in group] for group in groups]
        kept_count = sum(len(g) for g in made)
        dropped = LeftOut(query.name, len(rows), nulls, len(kept) - kept_count, query.top)
        _check_kept(query, kept_count, dropped)
        if dropped.count:
            if dropped.node_id in self.node_ids:
                raise SqlBackendError(
                    f"query {query.name!r}: node id {dropped.node_id!r}, which counts the rows "
                    f"it left out, is also produced by query {self.node_ids[dropped.node_id]!r}",
                    code="node_id",
                    query=query.name,
                )
            self.node_ids[dropped.node_id] = query.name
            self.left_out.append(dropped)
        for nodes in made:
            if len(nodes) > 1:
                self._tie(query, nodes)
            self.rows.extend(nodes)

    def _tie(self, query: QuerySpec, group: list[_Row]) -> None:
        first = query.entities[0].column
        if query.ties == "error":
            rows = join_words([f"{r.index}" for r in group])
            names = join_words([repr(self.entities[r.entity_fields[first]].value) for r in group])
            raise SqlBackendError(
                f"query {query.name!r}: rows {rows} ({names}) tie on {query.rank_by!r}, and the "
                "spec says ties: error",
                code="tie",
                query=query.name,
                row=group[0].index,
            )
        for row in group:
            row.tied = [r.entity_fields[first] for r in group if r is not row]
            row.data["tied_with"] = list(row.tied)

    def _row(self, query: QuerySpec, index: int, row: Mapping[str, object]) -> _Row:
        label = _row_label(query, index, row)
        entity_fields = {c.column: self._entity(query, c, row, label) for c in query.entities}
        number_fields: dict[str, str] = {}
        numbers: list[str] = []
        for number in query.numbers:
            shown = _number(query, number, row, label)
            number_fields[number.field] = shown[0]
            if shown[1]:
                numbers.append(shown[0])
        text_fields = _text_fields(query, row, label)
        fields = {**text_fields, **entity_fields, **number_fields, ROW_FIELD: str(index)}
        id_fields = {k: slugify(v) for k, v in fields.items()}
        id_fields.update(entity_fields)
        node_id = query.id_template.format_map(id_fields)
        if not _ID_RE.match(node_id):
            raise SqlBackendError(
                f"{label}: id_template gives {node_id!r}, which is not ascii snake_case "
                "starting with a letter",
                code="node_id",
                query=query.name,
                row=index,
            )
        if node_id in self.node_ids:
            ranked = (
                " (tied rows of a ranking are nodes of their own: put an entity in id_template)"
                if query.rank_by is not None
                else ""
            )
            raise SqlBackendError(
                f"{label}: node id {node_id!r} is also produced by query "
                f"{self.node_ids[node_id]!r}; make id_template unique{ranked}",
                code="node_id",
                query=query.name,
                row=index,
            )
        self.node_ids[node_id] = query.name
        edges = [(e.relation, e.target_template.format_map(id_fields)) for e in query.edges]
        data = {"query": query.name, "row": {k: _json_cell(v) for k, v in row.items()}}
        return _Row(
            query,
            index,
            node_id,
            entity_fields,
            text_fields,
            number_fields,
            list(dict.fromkeys(numbers)),
            edges,
            data,
        )

    # -- second pass: the graph

    def build(self) -> EvidenceGraph:
        """The graph of every query read so far (``SqlBackendError`` when it fails)."""
        builder = GraphBuilder(self.spec.graph_id, self.spec.domain, backend=self.spec.backend)
        forms = self._add_entities(builder)
        matcher = AliasMatcher(forms)
        used_tied = {r.query.name for r in self.rows if r.tied}
        for query in self.spec.queries:
            variants = list(query.statement_variants)
            builder.template(
                query.name,
                query.canonical_pattern(),
                variants,
                coordinable=query.coordinable,
                slot_kinds=query.slot_kinds,
            )
            if query.name in used_tied:
                builder.template(
                    _tied_template(query),
                    query.tied_pattern(query.canonical_pattern()),
                    [query.tied_pattern(v) for v in variants],
                    slot_kinds=query.slot_kinds,
                )
        for row in self.rows:
            self._add_node(builder, row, matcher)
        for dropped in self.left_out:
            builder.node(
                dropped.node_id,
                LEFT_OUT_TYPE,
                statement=dropped.statement(),
                entities=[],
                numbers=dropped.numbers(),
                data=dropped.data(),
            )
        self._add_edges(builder)
        for rule in self.spec.rules:
            builder.rule(rule.claim_type, rule.requires, narrates=rule.narrates)
        try:
            return builder.build()
        except GraphError as exc:
            raise SqlBackendError(
                f"the graph of spec {self.spec.graph_id!r} does not load: {exc}", code="graph"
            ) from None

    def _display(self, entity_id: str) -> str:
        entity = self.entities[entity_id]
        return entity.id if entity.name is None else entity.name

    def _add_node(self, builder: GraphBuilder, row: _Row, matcher: AliasMatcher) -> None:
        query = row.query
        shown = {f: self._display(e) for f, e in row.entity_fields.items()}
        fields = {**row.text_fields, **shown, **row.number_fields, ROW_FIELD: str(row.index)}
        required = [_render(t, fields) for t in query.required_templates]
        optional = [_render(t, fields) for t in query.optional_templates]
        closing = _closing_field(query.statement_template)
        if closing is not None and not row.tied:  # "... Co." ends the sentence once
            fields[closing] = _unstop(fields[closing])
        statement = _render(query.statement_template, fields)
        slots = {name: fields[name] for name in template_fields(query.statement_template)}
        template = query.name
        if row.tied:
            named = join_words([self._display(e) for e in row.tied])
            closes = _closing_field(query.tie_template + ".") == "tied"
            tied = _unstop(named) if closes else named
            clause = query.tie_template.format_map({"tied": tied})
            statement = statement[:-1] + clause + "."
            span = clause.strip().lstrip(",;:").strip()
            required.append(span + "." if tied != named else span)  # the stop is the name's
            slots["tied"], template = tied, _tied_template(query)
        _check_statement(statement, row.numbers, row.where, query.name, matcher)
        cut = row_cut(query.sql)
        word = None if cut is None else superlative(entity_scan(statement, matcher)[1])
        if cut is not None and word is not None:
            raise SqlBackendError(
                f"{row.where}: {cut_message(word, cut)}", code="cut", query=query.name
            )
        mentioned = [m.entity_id for m in matcher.mentions(statement)]
        row_entities = list(dict.fromkeys(row.entity_fields.values()))
        for entity_id in row_entities:
            if entity_id not in mentioned:
                raise SqlBackendError(
                    f"{row.where}: the statement {statement!r} does not name entity "
                    f"{entity_id!r} (by id or alias)",
                    code="statement",
                    query=query.name,
                    row=row.index,
                )
        builder.node(
            row.node_id,
            query.node_type,
            statement=statement,
            template=template,
            slots=slots,
            entities=[*row_entities, *row.tied, *mentioned],
            numbers=row.numbers,
            data=row.data,
            required=required,
            optional=optional,
            headline=query.headline,
            salience=query.salience,
        )

    def _add_entities(self, builder: GraphBuilder) -> dict[str, str]:
        """Add the entities sorted by id, with names and kept aliases; every surface form
        -> its entity id."""
        owners: dict[str, str] = {normalize(i): i for i in self.entities}
        for entity in self.entities.values():
            if entity.name is not None:
                _check_name(entity, entity.name, owners)
                owners[alias_key(entity.name)] = entity.id
        forms: dict[str, str] = {}
        for entity_id in sorted(self.entities):
            entity = self.entities[entity_id]
            taken = {normalize(entity_id)}
            if entity.name is not None:
                taken.add(alias_key(entity.name))
            kept: dict[str, str] = {}
            for alias in sorted(entity.aliases, key=lambda a: (normalize(a), a)):
                key = alias_key(alias)
                if key in taken or key in kept:
                    continue
                _check_alias(alias, key, entity, owners)
                kept[key] = alias
                owners[key] = entity_id
            builder.entity(entity_id, entity.kind, name=entity.name, aliases=list(kept.values()))
            name = () if entity.name is None else (entity.name,)
            for form in (entity_id, *name, *kept.values()):
                forms[form] = entity_id
        return forms

    def _add_edges(self, builder: GraphBuilder) -> None:
        seen: set[tuple[str, str, str]] = set()
        for row in self.rows:
            for relation, target in row.edges:
                if target not in self.node_ids:
                    raise SqlBackendError(
                        f"{row.where}: edge {relation!r} points at node {target!r}, which no "
                        "query produced",
                        code="edge",
                        query=row.query.name,
                        row=row.index,
                    )
                key = (row.node_id, target, relation)
                if key not in seen:
                    seen.add(key)
                    builder.edge(row.node_id, target, relation)


def _check_kept(query: QuerySpec, kept: int, dropped: LeftOut) -> None:
    """An empty result is an error unless the query allows it; a non-empty one keeps at
    least ``min_rows`` rows."""
    if (kept and kept >= query.min_rows) or (not kept and query.allow_empty):
        return
    got = _rows(dropped.returned) if dropped.returned else "no rows"
    if dropped.count:
        got += f" and kept {kept or 'none'} (left out {join_words(dropped.reasons())})"
    need = (
        f"the spec requires at least {query.min_rows}"
        if kept
        else "an empty result is an error unless the query sets allow_empty: true"
    )
    raise SqlBackendError(
        f"query {query.name!r} returned {got}; {need}", code="no_rows", query=query.name
    )


def _tied_template(query: QuerySpec) -> str:
    return f"{query.name}:tied"


def _render(template: str, fields: Mapping[str, str]) -> str:
    return " ".join(template.format_map(fields).split())


def _closing_field(template: str) -> str | None:
    """The field right before the template's closing full stop (``... {carrier}.``)."""
    match = re.search(r"\{([a-z_][a-z0-9_]*)\}\.\s*$", template)
    return None if match is None else match.group(1)


def _unstop(text: str) -> str:
    """``Acme Co.`` -> ``Acme Co``: a value whose own full stop closes the sentence."""
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _number(
    query: QuerySpec, number: NumberColumn, row: Mapping[str, object], label: str
) -> tuple[str, bool]:
    """A number field's text, and whether it is a number (not a NULL read as text)."""
    for column in (number.column, number.denominator):
        if column is not None and row[column] is None:
            policy = query.nulls.get(column, "error")
            if isinstance(policy, NullText):
                return policy.text, False
            raise SqlBackendError(
                f"{label}: number {number.field!r} (column {column!r}) is NULL{_null_hint(column)}",
                code="value",
                query=query.name,
            )
    try:
        value = to_decimal(row[number.column])
        if number.denominator is not None:
            denominator = to_decimal(row[number.denominator])
            if denominator == 0:
                raise ValueError(f"is divided by {number.denominator!r}, which is zero")
            value = value / denominator
        value = value * number.multiplier
        value = abs(value) if number.absolute else value
        return format_number(value, number.format, number.places), True
    except ValueError as exc:
        raise SqlBackendError(
            f"{label}: number {number.field!r} (column {number.column!r}) {exc}",
            code="value",
            query=query.name,
        ) from None


def _text_fields(query: QuerySpec, row: Mapping[str, object], label: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    computed = query.computed_fields
    for name in query.template_columns():
        if name in computed or name in fields:
            continue
        raw = row[name]
        policy = query.nulls.get(name, "error")
        if raw is None and isinstance(policy, NullText):
            fields[name] = policy.text
            continue
        try:
            fields[name] = cell_text(raw)
        except ValueError as exc:
            hint = _null_hint(name) if raw is None else ""
            raise SqlBackendError(
                f"{label}: column {name!r} {exc}{hint}", code="value", query=query.name
            ) from None
    return fields


def _rank(
    query: QuerySpec, rows: list[tuple[int, dict[str, object]]]
) -> list[list[tuple[int, dict[str, object]]]]:
    """The kept rows of a ranking in groups of equal rank: cut after ``top`` rows and the
    rows tied with the last one kept. The rows must come in rank order."""
    column = str(query.rank_by)
    values: list[Decimal] = []
    for index, row in rows:
        try:
            values.append(to_decimal(row[column]))
        except ValueError as exc:
            hint = _null_hint(column) if row[column] is None else ""
            raise SqlBackendError(
                f"{_row_label(query, index, row)}: the rank column {column!r} {exc}{hint}",
                code="value",
                query=query.name,
                row=index,
            ) from None
    _check_order(query, rows, values)
    groups: list[list[tuple[int, dict[str, object]]]] = []
    for i, item in enumerate(rows):  # every row before i is kept
        if groups and values[i] == values[i - 1]:
            groups[-1].append(item)
        elif query.top is not None and i >= query.top:
            break
        else:
            groups.append([item])
    return groups


def _check_order(
    query: QuerySpec, rows: list[tuple[int, dict[str, object]]], values: list[Decimal]
) -> None:
    direction = 0
    for i in range(1, len(values)):
        step = (values[i] > values[i - 1]) - (values[i] < values[i - 1])
        if step and direction and step != direction:
            raise SqlBackendError(
                f"query {query.name!r}: row {rows[i][0]} breaks the order of {query.rank_by!r} "
                "(a ranked query must ORDER BY its rank column)",
                code="order",
                query=query.name,
                row=rows[i][0],
            )
        direction = direction or step


def _check_name(entity: _Entity, name: str, owners: Mapping[str, str]) -> None:
    key = alias_key(name)
    problem = ""
    if key in POLARITY_MARKERS:
        problem = "is a polarity marker"
    elif key in owners and owners[key] != entity.id:
        problem = f"collides with entity {owners[key]!r}"
    else:
        problem = name_problem(name) or ""
    if problem:
        raise SqlBackendError(
            f"query {entity.name_query!r}: the name {name!r} of entity {entity.id!r} {problem}",
            code="entity",
            query=entity.name_query,
        )


#: A code such as an airline's (``9E``, ``B6``, ``3M``, ``7UP``): two to four capitals and
#: digits, one digit only and at least one capital. It names its entity, as the key column's
#: own values may, and is no number: the alias matcher never reads a digit-led code inside a
#: number (``$3M`` stays an amount). Two digits or more (``10K``) still hold a number.
_CODE = re.compile(r"(?=[A-Z]*[0-9][A-Z]*$)(?=[0-9]*[A-Z])[0-9A-Z]{2,4}")


def _alias_problem(alias: str, key: str, entity: _Entity, owners: Mapping[str, str]) -> str:
    """What is wrong with an alias or a declared form of ``entity`` ('' when nothing)."""
    if key in POLARITY_MARKERS:
        return "is a polarity marker"
    if find_numbers(key) and alias not in entity.own_forms and not _CODE.fullmatch(alias):
        return "holds a number"
    if key in owners and owners[key] != entity.id:
        return f"collides with entity {owners[key]!r}"
    return name_problem(alias) or ""


def _check_alias(alias: str, key: str, entity: _Entity, owners: Mapping[str, str]) -> None:
    problem = _alias_problem(alias, key, entity, owners)
    if not problem:
        return
    if alias in entity.declared_forms:  # the kind's forms: the error names the kind
        raise SqlBackendError(
            f"entity kind {entity.kind!r}: the form {alias!r} of {entity.value!r} {problem}",
            code="entity",
        )
    query = entity.aliases[alias]
    raise SqlBackendError(
        f"query {query!r}: alias {alias!r} of entity {entity.id!r} {problem}",
        code="entity",
        query=query,
    )


def _check_statement(
    statement: str, numbers: Sequence[str], where: str, query: str, matcher: AliasMatcher
) -> None:
    def fail(problem: str) -> SqlBackendError:
        return SqlBackendError(
            f"{where}: statement {statement!r} {problem}", code="statement", query=query
        )

    if not statement.endswith("."):
        raise fail("does not end with a full stop")
    if "\n" in statement or len(split_sentences(statement, matcher)) != 1:
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
    for mention in find_numbers(entity_scan(statement, matcher)[1]):
        if not any(mention.value.matches(v) for v in declared):
            raise fail(
                f"states {mention.raw!r}, which is none of its numbers "
                "(declare the column under 'numbers')"
            )
