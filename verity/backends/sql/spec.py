"""The declarative query spec of the SQL backend (``verity.sql_spec/1``).

A spec names the graph, declares the entity kinds and lists the queries. Each
query is one read-only SQL statement whose rows become evidence nodes of one
type: an id template and a statement template (``str.format`` fields over the
row), the columns that name entities (with the columns that hold their display
aliases) and the columns that hold numbers (with how to display them). The
spec also carries the claim-type rules the graph will hold.

Template fields: an entity column stands for the entity id, a number field for
its display string, any other column for its text. Specs take no parameters,
so they run unchanged under every DB-API paramstyle.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from verity.core.builder import DEFAULT_DECIMALS
from verity.core.models import Rule, SlotKind
from verity.errors import InputError
from verity.formats import SPEC_FORMAT
from verity.jsonio import loads, read_json
from verity.text.aliases import alias_key
from verity.text.declarations import (
    coordinable_message,
    coordinable_problem,
    percent_of,
    variant_problem,
)
from verity.text.patterns import Pattern, PatternError, parse_pattern
from verity.text.scan import sentence_key

__all__ = [
    "LEFT_OUT_TYPE",
    "ROW_FIELD",
    "SPEC_FORMAT",
    "EdgeSpec",
    "EntityColumn",
    "EntityFormat",
    "EntityKind",
    "NullPolicy",
    "NullText",
    "NumberColumn",
    "NumberFormat",
    "QuerySpec",
    "SqlBackendError",
    "SqlSpec",
    "check_read_only_sql",
    "cut_message",
    "load_spec",
    "row_cut",
    "sample_spec",
    "superlative",
    "template_fields",
]


NumberFormat = Literal["money", "integer", "percent", "plain", "year"]
#: How an entity column's value reads: as it is, or as a year or a calendar date.
EntityFormat = Literal["text", "year", "date"]

#: The template field that holds the row's 1-based position in its query's result.
ROW_FIELD = "_row"

#: The node type of the statement that counts the rows a query left out (a ``skip_row``
#: NULL, a ranking's cut below ``top``); a rule may name it.
LEFT_OUT_TYPE = "ROWS_LEFT_OUT"

Snake = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
ColumnName = Annotated[str, StringConstraints(pattern=r"^[a-z_][a-z0-9_]*$", max_length=64)]
NodeType = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9_]*$", max_length=64)]
IdPrefix = Annotated[str, StringConstraints(pattern=r"^([a-z][a-z0-9_]*)?$", max_length=32)]
GraphId = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=128)
]
Template = Annotated[str, StringConstraints(min_length=1, max_length=1000)]

_FIELD_RE = re.compile(r"^[a-z_][a-z0-9_]*$")
_TRAILING = re.compile(r"[\s;]+$")
#: SQL that can cut a query's own rows, hiding a tie at the cut: LIMIT, OFFSET, FETCH
#: FIRST/NEXT, SELECT TOP and ROW_NUMBER() (one row per partition picked among tied ones).
_CUTS_ROWS = re.compile(
    r"\b(?:limit|offset|fetch\s+(?:first|next)|select\s+(?:(?:distinct|all)\s+)?top)\b"
    r"|\brow_number\s*\(",
    re.IGNORECASE,
)
#: Words that make a statement superlative (it says a row stands above or below all others).
_SUPERLATIVE_WORDS = (
    "most|least|fewest|best|worst|top|bottom|first|last|maximum|minimum|max|min|"
    "lead|leads|led|leading|leader|rank|ranked|ranks|record|unmatched|unrivaled|unrivalled"
)
#: Words ending in -est that are not superlatives.
_NOT_SUPERLATIVE = frozenset((
    "armrest", "arrest", "attest", "backrest", "behest", "bequest", "budapest", "bucharest",
    "celest", "chest", "congest", "conquest", "contest", "crest", "detest", "digest",
    "dishonest", "divest", "earnest", "everest", "forest", "guest", "harvest", "headrest",
    "honest", "immodest", "infest", "ingest", "inquest", "interest", "invest", "manifest",
    "midwest", "modest", "molest", "northwest", "pretest", "priest", "protest", "quest",
    "reinvest", "request", "retest", "southwest", "suggest", "tempest", "unrest",
))  # fmt: skip
_SUPERLATIVE = re.compile(
    rf"\b(?:{_SUPERLATIVE_WORDS})\b|\b[a-z]{{2,}}est\b|\bthan\s+any\b|\bnumber\s+one\b"
    r"|\bno\.\s*1\b|#\s*1\b",
    re.IGNORECASE,
)
_ALLOWED_FIRST_WORDS = frozenset({"select", "with", "values"})


class SqlBackendError(InputError):
    """A spec, database or query result the SQL backend cannot turn into a graph.

    ``code`` names the failure (``spec``, ``url``, ``connect``, ``driver``,
    ``read_only``, ``write_attempt``, ``sql``, ``no_rows``, ``too_many_rows``,
    ``missing_column``, ``value``, ``null``, ``entity``, ``statement``, ``node_id``,
    ``edge``, ``tie``, ``order``, ``cut``, ``graph``, ``draft``); ``query`` is the spec query it
    concerns, if any, and ``row`` the 1-based row of its result.
    """

    def __init__(
        self, message: str, *, code: str, query: str | None = None, row: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.query = query
        self.row = row


# Characters that the template pattern syntax reads (verity.text.variation).
_PATTERN_SPECIAL = re.compile(r"[\\\[\](){}|]")


def template_fields(template: str) -> list[str]:
    """The field names of a ``str.format`` template, in order, checked to be plain names.

    Raises ``ValueError`` for attribute or index access, conversions, format
    specs and malformed braces: display formatting belongs to the spec.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"template {template!r} is malformed: {exc}") from None
    fields: list[str] = []
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not _FIELD_RE.match(name):
            raise ValueError(
                f"template {template!r} has field {{{name}}}; fields are lower-case column "
                "or number names"
            )
        if spec or conversion:
            raise ValueError(
                f"template {template!r} formats field {{{name}}} itself; "
                "declare the display format in 'numbers' instead"
            )
        fields.append(name)
    return fields


def _mask_sql(sql: str) -> str:
    """``sql`` with string literals, quoted identifiers and comments blanked out."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
        elif sql.startswith("/*", i):
            depth, end = 1, i + 2
            while end < n and depth:
                if sql.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif sql.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                else:
                    end += 1
        elif ch in "'\"`":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:
                        end += 2
                        continue
                    end += 1
                    break
                end += 1
            else:
                end = n
        elif ch == "$":
            tag = re.match(r"\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$", sql[i:])
            if tag is None:
                out.append(ch)
                i += 1
                continue
            close = sql.find(tag.group(0), i + len(tag.group(0)))
            end = n if close < 0 else close + len(tag.group(0))
        else:
            out.append(ch)
            i += 1
            continue
        out.append(" ")
        i = end
    return "".join(out)


@lru_cache(maxsize=256)
def row_cut(sql: str) -> str | None:
    """The first construct of ``sql`` that can cut the query's own rows (``LIMIT``,
    ``OFFSET``, ``FETCH FIRST``, ``TOP``, ``ROW_NUMBER(``), outside strings, quoted names
    and comments; None when there is none."""
    found = _CUTS_ROWS.search(_mask_sql(sql))
    if found is None:
        return None
    words = " ".join(found.group(0).upper().replace("(", "").split())
    return words + "()" if words == "ROW_NUMBER" else words


def superlative(text: str) -> str | None:
    """The first word or phrase of ``text`` that makes it superlative (``most``,
    ``highest``, ``top``, ``than any``...), or None. Template fields are not read."""
    literal = re.sub(r"\{[^{}]*\}", " ", text)
    for found in _SUPERLATIVE.finditer(literal):
        word = " ".join(found.group(0).lower().split())
        if word not in _NOT_SUPERLATIVE:
            return word
    return None


def cut_message(word: str, cut: str) -> str:
    """Why a superlative statement over SQL that cuts its own rows is refused."""
    return (
        f"the statement says {word!r} but the SQL can cut its own rows ({cut}), which "
        "hides a row tied at the cut; return every row in rank order and declare rank_by, "
        "top and ties, so that a tie is stated or refused"
    )


def check_read_only_sql(sql: str) -> None:
    """Refuse SQL that is not one SELECT, WITH or VALUES statement (``ValueError``).

    This is a first, textual line of defence with a clear message. The guarantee
    is the database's: the backend opens SQLite with ``mode=ro`` and runs
    PostgreSQL in a read-only transaction that it always rolls back.
    """
    body = _TRAILING.sub("", _mask_sql(sql))
    if ";" in body:
        raise ValueError("holds more than one SQL statement; each query is one statement")
    first = re.match(r"[\s(]*([A-Za-z]+)", body)
    if first is None:
        raise ValueError("holds no SQL statement")
    word = first.group(1).lower()
    if word not in _ALLOWED_FIRST_WORDS:
        raise ValueError(
            f"starts with {word.upper()}; only read-only SELECT, WITH or VALUES queries are allowed"
        )


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: One surface form of an entity: a line of visible text.
Form = Annotated[
    str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\n\r]*\S[^\n\r]*$")
]


class EntityKind(_Model):
    """An entity kind: ids are ``id_prefix`` plus the slug of the column value.

    ``forms`` declares, once per entity, the other names a reader takes for it, keyed by
    the entity's column value (``{"EWR": ["Newark", "Newark Liberty International"]}``):
    every query that names the entity accepts them, as it accepts an alias column's
    values. A form names one entity only (two values of the kind may not share one, and
    the graph refuses a form that is another entity's name or alias). A value no query
    gives adds nothing (which entities a graph names depends on the data); a mistyped key
    can only leave forms unaccepted, never accept one. An alias column does the same per
    query, from the database.
    """

    kind: Snake
    id_prefix: IdPrefix = ""
    description: str = ""
    forms: dict[Form, list[Form]] = Field(default_factory=dict)

    @field_validator("forms")
    @classmethod
    def _forms_name_one_entity(cls, forms: dict[str, list[str]]) -> dict[str, list[str]]:
        owner: dict[str, str] = {}
        for value, names in forms.items():
            for name in (value, *names):
                key = alias_key(name)
                if owner.setdefault(key, value) != value:
                    raise ValueError(
                        f"the form {name!r} of {value!r} is also a form of {owner[key]!r}"
                    )
        return forms


class EntityColumn(_Model):
    """A result column whose values name entities of ``kind``.

    ``name_column`` holds the display name a person reads (the entity's ``name``); an
    integer, ``year`` or ``date`` value is its own display name (``2007``, ``January 5,
    2013``) and gets its id from the kind (``year_2007``). A template field of the column
    renders the display name, or the id when there is none.
    """

    column: ColumnName
    kind: Snake
    alias_columns: list[ColumnName] = Field(default_factory=list)
    name_column: ColumnName | None = None
    format: EntityFormat = "text"


class NumberColumn(_Model):
    """A result column shown as a number.

    The value is ``column`` (divided by ``denominator`` when given) times
    ``multiplier``, made absolute when ``absolute`` is set, rounded half-up to
    ``decimals`` places and displayed as ``money`` (``$1,234.56``), ``integer``
    (``1,234``), ``percent`` (``12.5%``), ``plain`` (``1234.5``) or ``year`` (``2007``).
    A float is rounded from its shortest decimal form, so the statement and the number
    list show one string. ``name`` is the template field (default: the column name).
    """

    column: ColumnName
    format: NumberFormat
    name: ColumnName | None = None
    decimals: int | None = Field(default=None, ge=0, le=6)
    denominator: ColumnName | None = None
    multiplier: Decimal = Decimal(1)
    absolute: bool = False

    @property
    def field(self) -> str:
        """The template field this number fills."""
        return self.name or self.column

    @property
    def places(self) -> int:
        """Decimal places of the display string."""
        return DEFAULT_DECIMALS[self.format] if self.decimals is None else self.decimals

    @field_validator("format", mode="before")
    @classmethod
    def _not_a_date(cls, value: object) -> object:
        if value == "date":
            raise ValueError(
                "a date is not a number; declare the column under 'entities' with format 'date'"
            )
        return value

    @model_validator(mode="after")
    def _check(self) -> NumberColumn:
        if self.format in ("integer", "year") and self.places != 0:
            raise ValueError(f"number {self.field!r}: the {self.format} format has no decimals")
        if not self.multiplier.is_finite() or self.multiplier == 0:
            raise ValueError(f"number {self.field!r}: multiplier must be a finite non-zero number")
        return self


class NullText(_Model):
    """Read a NULL as this text (``{"text": "no value"}``)."""

    text: Annotated[
        str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\n\r]*\S[^\n\r]*$")
    ]


#: What a NULL in a column means: drop the row (``skip_row``), stop with an error naming
#: the row (``error``, the default), or read it as a text.
NullPolicy = Literal["skip_row", "error"] | NullText


class EdgeSpec(_Model):
    """An edge from each row's node to the node whose id ``target_template`` renders."""

    relation: Snake
    target_template: Template

    @field_validator("target_template")
    @classmethod
    def _fields(cls, value: str) -> str:
        template_fields(value)
        return value


class QuerySpec(_Model):
    """One SQL query; each result row becomes one evidence node of ``node_type``."""

    name: Snake
    node_type: NodeType
    sql: Annotated[str, StringConstraints(min_length=1, max_length=20000)]
    id_template: Template
    statement_template: Template
    #: Parts of ``statement_template`` (each a substring of it) that a claim may not
    #: drop: the scope or condition the statement's truth depends on.
    required_templates: list[Template] = Field(default_factory=list)
    #: Parts of ``statement_template`` (each a substring of it) that a claim may drop whole.
    optional_templates: list[Template] = Field(default_factory=list)
    #: Other sentences a claim may state for a row: patterns over the statement's fields
    #: with alternatives ``(was|came to)`` and optional parts ``[ on {units} units]``.
    statement_variants: list[Annotated[str, StringConstraints(min_length=1)]] = Field(
        default_factory=list
    )
    #: Statement fields over which a claim may coordinate rows that differ in that field
    #: alone; only fields whose statement holds of each value apart (never a total).
    coordinable: list[Snake] = Field(default_factory=list)
    #: The kind of a statement field (``period``, ``place``, ``group``, ``condition``
    #: scope what the row states; ``set`` is a list in any order; see
    #: :data:`verity.text.kinds.SLOT_KINDS`).
    slot_kinds: dict[Snake, SlotKind] = Field(default_factory=dict)
    entities: list[EntityColumn] = Field(default_factory=list)
    numbers: list[NumberColumn] = Field(default_factory=list)
    edges: list[EdgeSpec] = Field(default_factory=list)
    #: The fewest rows a non-empty result may keep (after NULL skips and a ranking's cut).
    min_rows: int = Field(default=1, ge=1)
    max_rows: int | None = Field(default=None, ge=1)
    #: An empty result (no row returned or kept) is a fact of the data, not an error:
    #: the query then adds no node. Without it an empty result stops the build.
    allow_empty: bool = False
    #: Per column, what a NULL means (default ``error``; a NULL alias is skipped).
    nulls: dict[ColumnName, NullPolicy] = Field(default_factory=dict)
    #: A ranking: the query returns one row per rank, ordered by ``rank_by`` (no LIMIT:
    #: ``top`` cuts it, after every row tied with the last one kept). ``ties`` is required:
    #: ``report`` states each tie in the tied rows' statements (a span no claim may drop),
    #: ``error`` refuses the result.
    rank_by: ColumnName | None = None
    top: int | None = Field(default=None, ge=1)
    ties: Literal["report", "error"] | None = None
    #: The clause a tied row's statement gains before its full stop; ``{tied}`` names the
    #: rows it ties with (by their first entity column).
    tie_template: Template = ", tied with {tied}"
    description: str = ""
    #: The rows of this query state the headline of the result (what a reader hears first).
    headline: bool = False
    #: How much the rows matter to a reader (higher first; absent counts as 0).
    salience: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None

    @field_validator("min_rows", mode="before")
    @classmethod
    def _not_zero(cls, value: object) -> object:
        if value == 0 and not isinstance(value, bool):
            raise ValueError(
                "min_rows must be at least 1; an empty result is allowed by allow_empty: true"
            )
        return value

    @field_validator("sql")
    @classmethod
    def _read_only(cls, value: str) -> str:
        check_read_only_sql(value)
        return value

    @field_validator("id_template", "statement_template")
    @classmethod
    def _fields(cls, value: str) -> str:
        template_fields(value)
        return value

    @model_validator(mode="after")
    def _check(self) -> QuerySpec:
        if self.max_rows is not None and self.max_rows < self.min_rows:
            raise ValueError(f"max_rows {self.max_rows} is below min_rows {self.min_rows}")
        entity_columns = [e.column for e in self.entities]
        number_fields = [n.field for n in self.numbers]
        seen: set[str] = set()
        for name in (*entity_columns, *number_fields):
            if name in seen:
                raise ValueError(f"field {name!r} is declared twice (entity columns, numbers)")
            seen.add(name)
        if not self.statement_template.rstrip().endswith("."):
            raise ValueError("statement_template must end with a full stop")
        parts_by_kind = (
            ("required", self.required_templates),
            ("optional", self.optional_templates),
        )
        for kind, parts in parts_by_kind:
            for part in parts:
                if not part.strip() or part not in self.statement_template:
                    raise ValueError(
                        f"{kind} template {part!r} is not a part of statement_template"
                    )
        fields = set(template_fields(self.statement_template))
        canonical = parse_pattern(self.canonical_pattern())
        for variant in self.statement_variants:
            try:
                pattern = parse_pattern(variant)
            except PatternError as exc:
                raise ValueError(f"statement variant: {exc}") from None
            unknown = sorted(pattern.slots - fields)
            if unknown:
                raise ValueError(
                    f"statement variant {variant[:80]!r} uses {{{unknown[0]}}}, which "
                    "statement_template does not"
                )
        unknown = sorted(set(self.coordinable) - fields)
        if unknown:
            raise ValueError(f"coordinable field {unknown[0]!r} is not in statement_template")
        unknown = sorted(set(self.slot_kinds) - fields)
        if unknown:
            raise ValueError(f"slot_kinds field {unknown[0]!r} is not in statement_template")
        self._check_nulls()
        self._check_ranking()
        self._check_cut()
        self._check_declarations(canonical)
        return self

    def _check_declarations(self, canonical: Pattern) -> None:
        """No variant says more than the statement (:mod:`verity.text.declarations`), and
        no coordinable field on a statement of a share or a total of one whole (its words,
        or a percentage number followed by ``of``)."""
        for variant in self.statement_variants:
            problem = variant_problem(canonical, parse_pattern(variant))
            if problem is not None:
                raise ValueError(f"query {self.name!r}: {problem}")
        if not self.coordinable:
            return
        problem = coordinable_problem(canonical, tuple(self.coordinable))
        if problem is None:
            percents = {n.field for n in self.numbers if n.format == "percent"}
            names = template_fields(self.statement_template)
            sample = {f: "12.5%" if f in percents else "x" for f in names}
            if percent_of(sentence_key(self.statement_template.format_map(sample))):
                problem = coordinable_message(self.coordinable[0], "a percentage of a whole")
        if problem is not None:
            raise ValueError(f"query {self.name!r} {problem}")

    def _check_nulls(self) -> None:
        used = set(self.referenced_columns())
        text_free = {e.column for e in self.entities}
        text_free |= {e.name_column for e in self.entities if e.name_column is not None}
        if self.rank_by is not None:
            text_free.add(self.rank_by)
        for column, policy in self.nulls.items():
            if column not in used:
                raise ValueError(f"nulls names column {column!r}, which the query does not use")
            if isinstance(policy, NullText) and column in text_free:
                raise ValueError(
                    f"nulls: column {column!r} names entities or ranks rows, so a NULL in it "
                    "cannot be read as text (use skip_row or error)"
                )

    def _check_ranking(self) -> None:
        if self.rank_by is None:
            if self.top is not None or self.ties is not None:
                raise ValueError("top and ties go with rank_by (the column the rows rank by)")
            return
        if self.ties is None:
            raise ValueError(
                "rank_by needs ties: report (state each tie) or error (refuse a result with one)"
            )
        cut = row_cut(self.sql)
        if cut is not None:
            raise ValueError(
                f"a ranked query may not cut its own rows ({cut} hides ties); "
                "return every row in rank order and set top"
            )
        if template_fields(self.tie_template) != ["tied"]:
            raise ValueError("tie_template must use the field {tied} once and no other field")
        if self.ties == "report" and not self.entities:
            raise ValueError("ties: report names tied rows by an entity column; declare one")

    def superlative_text(self) -> str | None:
        """The first superlative word of the statement template or a variant, or None."""
        for text in (self.statement_template, *self.statement_variants):
            word = superlative(text)
            if word is not None:
                return word
        return None

    def _check_cut(self) -> None:
        """A superlative statement over SQL that can cut its own rows is refused: the cut
        may hide a row tied with the one the statement puts above all others."""
        cut = row_cut(self.sql)
        word = None if cut is None else self.superlative_text()
        if cut is not None and word is not None:
            raise ValueError(cut_message(word, cut))

    def canonical_pattern(self) -> str:
        """``statement_template`` as a template pattern: its text escaped, its fields slots."""
        out: list[str] = []
        for literal, name, _spec, _conversion in string.Formatter().parse(self.statement_template):
            out.append(_PATTERN_SPECIAL.sub(r"\\\g<0>", literal))
            if name is not None:
                out.append("{" + name + "}")
        return "".join(out)

    @property
    def statement_sql(self) -> str:
        """The SQL as sent to the database: trailing semicolons and whitespace removed."""
        return _TRAILING.sub("", self.sql)

    @property
    def computed_fields(self) -> frozenset[str]:
        """Template fields filled by the backend rather than straight from a column."""
        computed = [e.column for e in self.entities] + [n.field for n in self.numbers]
        return frozenset([*computed, ROW_FIELD])

    def tied_pattern(self, pattern: str) -> str:
        """A statement pattern with the tie clause put before its closing full stop."""
        clause = _PATTERN_SPECIAL.sub(r"\\\g<0>", self.tie_template).replace(r"\{tied\}", "{tied}")
        if pattern.endswith(".") and not pattern.endswith("\\."):
            return pattern[:-1] + clause + "."
        return pattern + clause

    def template_columns(self) -> list[str]:
        """The columns the templates read as text (not entity or number fields), in order."""
        templates = [self.id_template, self.statement_template]
        templates += [e.target_template for e in self.edges]
        computed = self.computed_fields
        names = [f for t in templates for f in template_fields(t) if f not in computed]
        return list(dict.fromkeys(names))

    def referenced_columns(self) -> list[str]:
        """Every result column the query's spec needs, each once, in a stable order."""
        names: list[str] = []
        for entity in self.entities:
            names += [entity.column, *entity.alias_columns]
            if entity.name_column is not None:
                names.append(entity.name_column)
        if self.rank_by is not None:
            names.append(self.rank_by)
        for number in self.numbers:
            names.append(number.column)
            if number.denominator is not None:
                names.append(number.denominator)
        names += self.template_columns()
        return list(dict.fromkeys(names))


class SqlSpec(_Model):
    """A ``verity.sql_spec/1`` document."""

    format: Literal["verity.sql_spec/1"]
    graph_id: GraphId
    domain: Snake
    description: str = ""
    #: What the graph says produced it (``"a SQL query"``); absent from the graph if unset.
    backend: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    entities: list[EntityKind] = Field(default_factory=list)
    queries: Annotated[list[QuerySpec], Field(min_length=1)]
    rules: list[Rule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> SqlSpec:
        kinds = [k.kind for k in self.entities]
        _no_duplicates(kinds, "entity kind")
        _no_duplicates([q.name for q in self.queries], "query name")
        _no_duplicates([r.claim_type for r in self.rules], "rule claim_type")
        for query in self.queries:
            for entity in query.entities:
                if entity.kind not in kinds:
                    raise ValueError(
                        f"query {query.name!r}: entity column {entity.column!r} has kind "
                        f"{entity.kind!r}, which 'entities' does not declare"
                    )
        node_types = {q.node_type for q in self.queries}
        if LEFT_OUT_TYPE in node_types:
            raise ValueError(
                f"node type {LEFT_OUT_TYPE!r} is the backend's own (it counts the rows a "
                "query left out); name the query's node type otherwise"
            )
        node_types.add(LEFT_OUT_TYPE)
        for rule in self.rules:
            for requirement in rule.requires:
                for node_type in requirement.any_of:
                    if node_type not in node_types:
                        raise ValueError(
                            f"rule {rule.claim_type!r} names node type {node_type!r}, "
                            "which no query produces"
                        )
        return self

    def kind(self, name: str) -> EntityKind:
        """The declared entity kind called ``name``."""
        return next(k for k in self.entities if k.kind == name)


def _no_duplicates(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{what} {value!r} appears twice")
        seen.add(value)


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _validate(data: Any, what: str) -> SqlSpec:
    try:
        return SqlSpec.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SqlBackendError(
            f"{what} is invalid at {_location(tuple(first['loc']))}: {message}{more}", code="spec"
        ) from None


def load_spec(source: SqlSpec | Mapping[str, Any] | str | Path) -> SqlSpec:
    """Load and validate a spec from a model, a dict or a JSON file path.

    Raises :class:`SqlBackendError` (code ``spec``) or :class:`InputError` with
    one line when the spec cannot be used.
    """
    if isinstance(source, SqlSpec):
        return source
    if isinstance(source, Mapping):
        return _validate(dict(source), "SQL spec")
    if isinstance(source, (str, Path)):
        return _validate(read_json(source, "SQL spec file"), f"SQL spec {source}")
    raise SqlBackendError(
        f"a SQL spec must be a path, a dict or a SqlSpec, not {type(source).__name__}", code="spec"
    )


def sample_spec() -> SqlSpec:
    """The shipped spec for the embedded sample sales database."""
    ref = resources.files("verity").joinpath("data", "sql", "sample_sales.spec.json")
    return _validate(loads(ref.read_text("utf-8"), "sample SQL spec"), "sample SQL spec")
