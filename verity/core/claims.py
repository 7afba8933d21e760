"""Declared-ID claims and narrations (``verity.narration/1``).

A narration is read claim by claim: a malformed claim becomes ``schema`` errors
with the field path and is dropped, while the other claims are still verified. A
narration that is not an object with a ``claims`` list cannot be used at all and
raises :class:`verity.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from verity.core.gate_error import GateError
from verity.core.trusted import trusted_maker
from verity.errors import InputError
from verity.formats import NARRATION_FORMAT

__all__ = [
    "CLAIM_FIELDS",
    "CLAIM_RULES",
    "MAX_CLAIM_TEXT",
    "MAX_LIST_ITEMS",
    "NARRATION_FORMAT",
    "SCHEMA_CODES",
    "Claim",
    "FieldRule",
    "Narration",
    "ParsedClaim",
    "ParsedNarration",
    "model_disagreements",
    "parse_narration",
]

#: Longest claim text accepted, in characters; longer texts fail ``schema.too_long``.
MAX_CLAIM_TEXT = 10_000
#: Most items accepted in one claim's id, entity or number list.
MAX_LIST_ITEMS = 256
_MAX_ID = 256

ClaimText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CLAIM_TEXT)]
ShortStr = Annotated[str, StringConstraints(min_length=1, max_length=_MAX_ID)]


class Claim(BaseModel):
    """One declared-ID claim: what it says and the evidence, entities, numbers it declares."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: ShortStr
    type: ShortStr
    text: ClaimText
    cited_evidence_ids: Annotated[list[ShortStr], Field(max_length=MAX_LIST_ITEMS)]
    entities: Annotated[list[ShortStr], Field(max_length=MAX_LIST_ITEMS)]
    numbers: Annotated[list[ShortStr], Field(max_length=MAX_LIST_ITEMS)]


class Narration(BaseModel):
    """A narration of one evidence graph: a list of claims."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["verity.narration/1"] = NARRATION_FORMAT
    graph_id: str | None = None
    claims: list[Claim]


CLAIM_FIELDS = ("id", "type", "text", "cited_evidence_ids", "entities", "numbers")


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One claim field: its JSON kind, size limits and the code of a blank value.

    ``kind`` is ``"string"`` (``limit`` characters) or ``"list"`` of strings (``limit``
    items of at most ``item_limit`` characters each; a blank item is ``schema.empty``).
    Every field is required. This table drives the pydantic :class:`Claim` (checked by
    :func:`model_disagreements`), the field checks and the parser's fast path.
    """

    name: str
    kind: Literal["string", "list"]
    limit: int
    blank_code: str = "empty"
    item_limit: int = 0


#: The claim fields, in order, and their constraints.
CLAIM_RULES: tuple[FieldRule, ...] = (
    FieldRule("id", "string", _MAX_ID),
    FieldRule("type", "string", _MAX_ID),
    FieldRule("text", "string", MAX_CLAIM_TEXT, blank_code="empty_text"),
    FieldRule("cited_evidence_ids", "list", MAX_LIST_ITEMS, item_limit=_MAX_ID),
    FieldRule("entities", "list", MAX_LIST_ITEMS, item_limit=_MAX_ID),
    FieldRule("numbers", "list", MAX_LIST_ITEMS, item_limit=_MAX_ID),
)

#: The ``schema`` gate's codes, with what they mean.
SCHEMA_CODES: dict[str, str] = {
    "schema.not_an_object": "the claim is not a JSON object",
    "schema.missing_field": "a required claim field is missing",
    "schema.unexpected_field": "the claim has a field the format does not define",
    "schema.wrong_type": "a claim field has the wrong JSON type",
    "schema.empty": "an id, type or list item is an empty string",
    "schema.empty_text": "the claim text is empty or blank",
    "schema.too_long": "a text, id or list exceeds its size limit",
}

#: Per kind: (JSON type name, wrong-type message, too-long message template).
_KIND_TEXT: dict[str, tuple[str, str, str]] = {
    "string": ("string", "must be a string", "is longer than {limit} characters"),
    "list": ("array", "must be an array of strings", "has more than {limit} items"),
}
_NOT_AN_OBJECT = "a claim must be an object"
_MISSING = "is required"
_UNEXPECTED = "is not a claim field"
_BLANK = "must not be empty"
_BLANK_EXPECTED = "non-empty string"

_FIELD_SET = frozenset(CLAIM_FIELDS)


class ParsedClaim(NamedTuple):
    """One claim as read: the claim, or the schema errors that rejected it.

    A named tuple (read-only, and built faster than a frozen dataclass: verify() builds
    one per claim). Its ``index`` field shadows ``tuple.index``, which nothing calls.
    """

    index: int  # type: ignore[assignment]  # the field, not tuple.index (see above)
    id: str
    type: str | None
    text: str | None
    claim: Claim | None
    errors: tuple[GateError, ...]


class ParsedNarration(NamedTuple):
    """A narration as read: its graph id (if given) and its claims."""

    graph_id: str | None
    claims: tuple[ParsedClaim, ...]


_new_error = trusted_maker(GateError)
_new_claim = trusted_maker(Claim)


def _schema_error(code: str, path: str, message: str, expected: Any, actual: Any) -> GateError:
    return _new_error(
        {
            "gate": "schema",
            "code": f"schema.{code}",
            "message": f"{path}: {message}",
            "expected": expected,
            "actual": actual,
        },
    )


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), type(value).__name__)


def _check_string(value: Any, path: str, limit: int, blank_code: str) -> list[GateError]:
    type_name, wrong, too_long = _KIND_TEXT["string"]
    if not isinstance(value, str):
        return [_schema_error("wrong_type", path, wrong, type_name, _type_name(value))]
    if not value.strip():
        return [_schema_error(blank_code, path, _BLANK, _BLANK_EXPECTED, value)]
    if len(value) > limit:
        return [_schema_error("too_long", path, too_long.format(limit=limit), limit, len(value))]
    return []


def _check_field(rule: FieldRule, value: Any, path: str) -> list[GateError]:
    """The schema errors of one present field under its rule."""
    if rule.kind == "string":
        return _check_string(value, path, rule.limit, rule.blank_code)
    type_name, wrong, too_long = _KIND_TEXT["list"]
    if not isinstance(value, list):
        return [_schema_error("wrong_type", path, wrong, type_name, _type_name(value))]
    if len(value) > rule.limit:
        message = too_long.format(limit=rule.limit)
        return [_schema_error("too_long", path, message, rule.limit, len(value))]
    errors: list[GateError] = []
    for j, item in enumerate(value):
        errors.extend(_check_string(item, f"{path}[{j}]", rule.item_limit, "empty"))
    return errors


def _fast_source(rules: tuple[FieldRule, ...]) -> str:
    """Source of the fast path: one function with every rule of the table inlined.

    A string passes when it is a ``str`` of 1 to ``limit`` characters, not all
    whitespace; a list when it is a ``list`` of at most ``limit`` such strings. It is
    stricter than the checks (exact types only), never looser: whatever it refuses
    goes through the checks, which decide.
    """
    lines = ["def _well_formed(obj):", "    if obj.keys() != _FIELD_SET:", "        return False"]
    for rule in rules:
        v = f"obj[{rule.name!r}]"
        if rule.kind == "string":
            lines += [
                f"    v = {v}",
                f"    if type(v) is not str or not v or len(v) > {rule.limit} or v.isspace():",
                "        return False",
            ]
        else:
            lines += [
                f"    v = {v}",
                f"    if type(v) is not list or len(v) > {rule.limit}:",
                "        return False",
                "    for x in v:",
                f"        if type(x) is not str or not x or len(x) > {rule.item_limit} "
                "or x.isspace():",
                "            return False",
            ]
    lines.append("    return True")
    return "\n".join(lines) + "\n"


def _compile_fast_path(rules: tuple[FieldRule, ...]) -> Callable[[dict[Any, Any]], bool]:
    namespace: dict[str, Any] = {"_FIELD_SET": frozenset(r.name for r in rules)}
    exec(compile(_fast_source(rules), "<verity claim fast path>", "exec"), namespace)
    fast: Callable[[dict[Any, Any]], bool] = namespace["_well_formed"]
    fast.__doc__ = "True only when the checks of :func:`_parse_claim` find nothing wrong."
    return fast


#: The fast path, generated from :data:`CLAIM_RULES`.
_well_formed = _compile_fast_path(CLAIM_RULES)


def model_disagreements(model: type[BaseModel] = Claim) -> list[str]:
    """Where the pydantic model's field constraints differ from :data:`CLAIM_RULES` (empty
    when they agree). The model may admit blank strings: the checks refuse those."""
    problems: list[str] = []
    fields = model.model_fields
    if tuple(fields) != CLAIM_FIELDS:
        problems.append(f"fields {tuple(fields)} != {CLAIM_FIELDS}")
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    if set(schema.get("required", ())) != _FIELD_SET:
        problems.append("not every field is required")
    for rule in CLAIM_RULES:
        prop = props.get(rule.name, {})
        if rule.kind == "string":
            got: tuple[Any, ...] = (prop.get("type"), prop.get("minLength"), prop.get("maxLength"))
            want: tuple[Any, ...] = ("string", 1, rule.limit)
        else:
            items = prop.get("items", {})
            got = (
                prop.get("type"),
                prop.get("maxItems"),
                items.get("type"),
                items.get("minLength"),
                items.get("maxLength"),
            )
            want = ("array", rule.limit, "string", 1, rule.item_limit)
        if got != want:
            problems.append(f"{rule.name}: model has {got}, table has {want}")
    return problems


def _claim_of(obj: Mapping[Any, Any]) -> Claim:
    return _new_claim(
        {
            "id": obj["id"],
            "type": obj["type"],
            "text": obj["text"],
            "cited_evidence_ids": list(obj["cited_evidence_ids"]),
            "entities": list(obj["entities"]),
            "numbers": list(obj["numbers"]),
        },
    )


def _parse_claim(obj: Any, index: int) -> ParsedClaim:
    if type(obj) is dict and _well_formed(obj):
        return ParsedClaim(index, obj["id"], obj["type"], obj["text"], _claim_of(obj), ())
    return _checked_claim(obj, index)


def _checked_claim(obj: Any, index: int) -> ParsedClaim:
    """Every check of :data:`CLAIM_RULES`, each failure a ``schema`` error."""
    path = f"claims[{index}]"
    fallback_id = f"#{index}"
    if not isinstance(obj, dict):
        err = _schema_error("not_an_object", path, _NOT_AN_OBJECT, "object", _type_name(obj))
        return ParsedClaim(index, fallback_id, None, None, None, (err,))
    errors: list[GateError] = []
    for name in CLAIM_FIELDS:
        if name not in obj:
            errors.append(_schema_error("missing_field", f"{path}.{name}", _MISSING, name, None))
    for name in sorted(k for k in obj if k not in _FIELD_SET):
        shown = name if isinstance(name, str) and len(name) <= 64 else str(name)[:64] + "..."
        errors.append(
            _schema_error(
                "unexpected_field", f"{path}.{shown}", _UNEXPECTED, list(CLAIM_FIELDS), shown
            )
        )
    for kind in ("string", "list"):  # string fields first, then lists
        for rule in CLAIM_RULES:
            if rule.kind == kind and rule.name in obj:
                errors.extend(_check_field(rule, obj[rule.name], f"{path}.{rule.name}"))
    raw_id = obj.get("id")
    claim_id = (
        raw_id
        if isinstance(raw_id, str) and raw_id.strip() and len(raw_id) <= _MAX_ID
        else fallback_id
    )
    raw_type = obj.get("type")
    claim_type = raw_type if isinstance(raw_type, str) and len(raw_type) <= _MAX_ID else None
    raw_text = obj.get("text")
    text = raw_text if isinstance(raw_text, str) else None
    if errors:
        return ParsedClaim(index, claim_id, claim_type, text, None, tuple(errors))
    return ParsedClaim(index, claim_id, claim_type, text, _claim_of(obj), ())


_NARRATION_KEYS = ("format", "graph_id", "claims")


def parse_narration(source: Narration | Mapping[str, Any]) -> ParsedNarration:
    """Read a narration claim by claim.

    Raises :class:`InputError` when the narration as a whole is unusable (not an
    object, no ``claims`` array, wrong ``format``, unknown top-level keys).
    """
    if isinstance(source, Narration):
        # The same field checks as for JSON input: the pydantic model alone admits blank
        # texts and ids, which would ship an empty answer.
        items = tuple(
            _parse_claim(c.model_dump(mode="python"), i) for i, c in enumerate(source.claims)
        )
        return ParsedNarration(source.graph_id, items)
    if not isinstance(source, Mapping):
        raise InputError(f"a narration must be a JSON object, not {_type_name(source)}")
    unknown = [k for k in source if k not in _NARRATION_KEYS]
    if unknown:
        raise InputError(
            f"narration has unknown key {str(unknown[0])[:64]!r}; "
            f"expected {', '.join(_NARRATION_KEYS)}"
        )
    fmt = source.get("format", NARRATION_FORMAT)
    if fmt != NARRATION_FORMAT:
        raise InputError(f"narration format must be {NARRATION_FORMAT!r}, not {str(fmt)[:64]!r}")
    graph_id = source.get("graph_id")
    if graph_id is not None and not isinstance(graph_id, str):
        raise InputError(f"narration graph_id must be a string, not {_type_name(graph_id)}")
    claims = source.get("claims")
    if not isinstance(claims, list):
        raise InputError(
            "narration has no claims array"
            if claims is None
            else f"narration claims must be an array, not {_type_name(claims)}"
        )
    return ParsedNarration(graph_id, tuple(_parse_claim(obj, i) for i, obj in enumerate(claims)))
