"""Declared-ID claims and narrations (``verity.narration/1``).

The pydantic :class:`Claim` is the one statement of what a claim is: its fields, their
types and size limits, and that no string may be blank. A narration is read claim by
claim with it: a malformed claim becomes ``schema`` errors with the field path (the
model's validation errors mapped to the stable codes of :data:`SCHEMA_CODES`) and is
dropped, while the other claims are still verified. A narration that is not an object
with a ``claims`` list cannot be used at all and raises :class:`verity.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from verity.core.codes import code_of, row_codes
from verity.core.gate_error import GateError
from verity.errors import InputError
from verity.formats import NARRATION_FORMAT

__all__ = [
    "CLAIM_FIELDS",
    "MAX_CLAIM_TEXT",
    "MAX_LIST_ITEMS",
    "NARRATION_FORMAT",
    "SCHEMA_CODES",
    "Claim",
    "Narration",
    "ParsedClaim",
    "ParsedNarration",
    "parse_narration",
]

#: Longest claim text accepted, in characters; longer texts fail ``schema.too_long``.
MAX_CLAIM_TEXT = 10_000
#: Most items accepted in one claim's id, entity or number list.
MAX_LIST_ITEMS = 256
_MAX_ID = 256


def _not_blank(code: str) -> WrapValidator:
    """A string that is empty or all white space fails with ``code`` (before its length
    is checked: a blank text is reported as blank, however long)."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, str) and not value.strip():
            raise PydanticCustomError(code, "must not be empty")
        return handler(value)

    return WrapValidator(check)


ShortStr = Annotated[str, StringConstraints(min_length=1, max_length=_MAX_ID), _not_blank("empty")]
ClaimText = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_CLAIM_TEXT), _not_blank("empty_text")
]
ShortList = Annotated[list[ShortStr], Field(max_length=MAX_LIST_ITEMS)]


class Claim(BaseModel):
    """One declared-ID claim: what it says and the evidence, entities, numbers it declares."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: ShortStr
    type: ShortStr
    text: ClaimText
    cited_evidence_ids: ShortList
    entities: ShortList
    numbers: ShortList


class Narration(BaseModel):
    """A narration of one evidence graph: a list of claims."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["verity.narration/1"] = NARRATION_FORMAT
    graph_id: str | None = None
    claims: list[Claim]


#: The claim fields, in order.
CLAIM_FIELDS: tuple[str, ...] = tuple(Claim.model_fields)

#: The ``schema`` gate's codes, with what they mean (from :data:`verity.core.codes.CATALOGUE`).
SCHEMA_CODES: dict[str, str] = row_codes("schema")


class ParsedClaim(NamedTuple):
    """One claim as read: the claim, or the schema errors that rejected it.

    Its ``index`` field shadows ``tuple.index``, which nothing calls.
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


def _schema_error(
    name: str, expected: Any, actual: Any, variant: str | None = None, **fields: Any
) -> GateError:
    """The ``schema.NAME`` error, its message from the catalogue (``fields``: its template's)."""
    row = code_of(f"schema.{name}")
    return GateError(
        gate="schema",
        code=row.code,
        message=row.text(variant, **fields),
        expected=expected,
        actual=actual,
    )


def _path(base: str, loc: tuple[int | str, ...]) -> str:
    out = base
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _shown(name: object) -> str:
    """An unexpected field's name as reported: at most 64 characters."""
    return name if isinstance(name, str) and len(name) <= 64 else str(name)[:64] + "..."


def _mapped(err: ErrorDetails, base: str) -> tuple[tuple[int, int, str], GateError]:
    """A validation error of :class:`Claim` as a ``schema`` error, with its sort key:
    missing fields first (in field order), then unexpected ones (by name), then the
    rest in field order, list items in index order."""
    kind, loc, value = err["type"], err["loc"], err["input"]
    name = loc[0] if loc else ""
    field = CLAIM_FIELDS.index(name) if name in CLAIM_FIELDS else len(CLAIM_FIELDS)
    item = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else -1
    if kind == "missing":
        error = _schema_error("missing_field", name, None, path=_path(base, loc))
        return (0, field, ""), error
    if kind in ("extra_forbidden", "invalid_key"):
        shown = _shown(name)
        error = _schema_error("unexpected_field", list(CLAIM_FIELDS), shown, path=f"{base}.{shown}")
        return (1, 0, shown), error
    path = _path(base, loc)
    if kind in ("empty", "empty_text"):
        error = _schema_error(kind, "non-empty string", value, path=path)
    elif kind == "string_too_long":
        limit = err.get("ctx", {}).get("max_length")
        error = _schema_error("too_long", limit, len(value), path=path, limit=limit)
    elif kind == "too_long":
        limit = err.get("ctx", {}).get("max_length")
        error = _schema_error("too_long", limit, len(value), "items", path=path, limit=limit)
    elif kind == "list_type":
        error = _schema_error("wrong_type", "array", _type_name(value), "list", path=path)
    else:  # string_type, and anything else a field cannot be
        error = _schema_error("wrong_type", "string", _type_name(value), path=path)
    return (2, field * (MAX_LIST_ITEMS + 2) + item + 1, ""), error


def _schema_errors(exc: ValidationError, index: int) -> tuple[GateError, ...]:
    base = f"claims[{index}]"
    mapped = sorted((_mapped(err, base) for err in exc.errors()), key=lambda m: m[0])
    return tuple(error for _, error in mapped)


def _fallback(obj: Mapping[Any, Any], index: int) -> tuple[str, str | None, str | None]:
    """(id, type, text) a verdict names a rejected claim by, from what it holds."""
    raw_id, raw_type, raw_text = obj.get("id"), obj.get("type"), obj.get("text")
    claim_id = (
        raw_id
        if isinstance(raw_id, str) and raw_id.strip() and len(raw_id) <= _MAX_ID
        else f"#{index}"
    )
    claim_type = raw_type if isinstance(raw_type, str) and len(raw_type) <= _MAX_ID else None
    text = raw_text if isinstance(raw_text, str) else None
    return claim_id, claim_type, text


def _parse_claim(obj: Any, index: int) -> ParsedClaim:
    if not isinstance(obj, dict):
        err = _schema_error("not_an_object", "object", _type_name(obj), path=f"claims[{index}]")
        return ParsedClaim(index, f"#{index}", None, None, None, (err,))
    try:
        claim = Claim.model_validate(obj)
    except ValidationError as exc:
        return ParsedClaim(index, *_fallback(obj, index), None, _schema_errors(exc, index))
    return ParsedClaim(index, claim.id, claim.type, claim.text, claim, ())


def _unique_ids(claims: tuple[ParsedClaim, ...]) -> tuple[ParsedClaim, ...]:
    """The claims, each whose id an earlier claim already has rejected with
    ``schema.duplicate_id`` naming both (``actual``: the two claims' positions). A claim
    without a usable id goes by ``#INDEX``, which is unique unless a claim takes it."""
    first: dict[str, int] = {}
    out: list[ParsedClaim] = []
    for parsed in claims:
        earlier = first.setdefault(parsed.id, parsed.index)
        if earlier == parsed.index:
            out.append(parsed)
            continue
        err = _schema_error(
            "duplicate_id",
            "an id no other claim has",
            [f"claims[{earlier}]", f"claims[{parsed.index}]"],
            path=f"claims[{parsed.index}].id",
            id=parsed.id,
            earlier=earlier,
        )
        out.append(parsed._replace(claim=None, errors=(*parsed.errors, err)))
    return tuple(out)


_NARRATION_KEYS = ("format", "graph_id", "claims")


def parse_narration(source: Narration | Mapping[str, Any]) -> ParsedNarration:
    """Read a narration claim by claim.

    Raises :class:`InputError` when the narration as a whole is unusable (not an
    object, no ``claims`` array, wrong ``format``, unknown top-level keys).
    """
    if isinstance(source, Narration):
        items = tuple(
            _parse_claim(c.model_dump(mode="python"), i) for i, c in enumerate(source.claims)
        )
        return ParsedNarration(source.graph_id, _unique_ids(items))
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
    parsed = tuple(_parse_claim(obj, i) for i, obj in enumerate(claims))
    return ParsedNarration(graph_id, _unique_ids(parsed))
