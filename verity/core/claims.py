"""Declared-ID claims and narrations (``verity.narration/1``).

A narration is read claim by claim: a malformed claim becomes ``schema`` errors
with the field path and is dropped, while the other claims are still verified. A
narration that is not an object with a ``claims`` list cannot be used at all and
raises :class:`verity.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from verity.core.gate_error import GateError
from verity.core.trusted import trusted
from verity.errors import InputError
from verity.formats import NARRATION_FORMAT

__all__ = [
    "CLAIM_FIELDS",
    "MAX_CLAIM_TEXT",
    "MAX_LIST_ITEMS",
    "NARRATION_FORMAT",
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
_FIELD_SET = frozenset(CLAIM_FIELDS)
_STRING_FIELDS = ("id", "type", "text")
_LIST_FIELDS = ("cited_evidence_ids", "entities", "numbers")


@dataclass(frozen=True, slots=True)
class ParsedClaim:
    """One claim as read: the claim, or the schema errors that rejected it."""

    index: int
    id: str
    type: str | None
    text: str | None
    claim: Claim | None
    errors: tuple[GateError, ...]


@dataclass(frozen=True, slots=True)
class ParsedNarration:
    graph_id: str | None
    claims: tuple[ParsedClaim, ...]


def _schema_error(code: str, path: str, message: str, expected: Any, actual: Any) -> GateError:
    return GateError(
        gate="schema",
        code=f"schema.{code}",
        message=f"{path}: {message}",
        expected=expected,
        actual=actual,
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


def _check_string(obj: Mapping[str, Any], name: str, path: str) -> list[GateError]:
    value = obj[name]
    if not isinstance(value, str):
        return [
            _schema_error(
                "wrong_type", f"{path}.{name}", "must be a string", "string", _type_name(value)
            )
        ]
    limit = MAX_CLAIM_TEXT if name == "text" else _MAX_ID
    if not value.strip():
        code = "empty_text" if name == "text" else "empty"
        return [
            _schema_error(code, f"{path}.{name}", "must not be empty", "non-empty string", value)
        ]
    if len(value) > limit:
        return [
            _schema_error(
                "too_long",
                f"{path}.{name}",
                f"is longer than {limit} characters",
                limit,
                len(value),
            )
        ]
    return []


def _check_list(obj: Mapping[str, Any], name: str, path: str) -> list[GateError]:
    value = obj[name]
    if not isinstance(value, list):
        return [
            _schema_error(
                "wrong_type",
                f"{path}.{name}",
                "must be an array of strings",
                "array",
                _type_name(value),
            )
        ]
    if len(value) > MAX_LIST_ITEMS:
        return [
            _schema_error(
                "too_long",
                f"{path}.{name}",
                f"has more than {MAX_LIST_ITEMS} items",
                MAX_LIST_ITEMS,
                len(value),
            )
        ]
    errors: list[GateError] = []
    for j, item in enumerate(value):
        item_path = f"{path}.{name}[{j}]"
        if not isinstance(item, str):
            errors.append(
                _schema_error(
                    "wrong_type", item_path, "must be a string", "string", _type_name(item)
                )
            )
        elif not item.strip():
            errors.append(
                _schema_error("empty", item_path, "must not be empty", "non-empty string", item)
            )
        elif len(item) > _MAX_ID:
            errors.append(
                _schema_error(
                    "too_long",
                    item_path,
                    f"is longer than {_MAX_ID} characters",
                    _MAX_ID,
                    len(item),
                )
            )
    return errors


def _short_ok(value: Any) -> bool:
    """An id, type or list item that raises no schema error."""
    return isinstance(value, str) and 0 < len(value) <= _MAX_ID and not value.isspace()


def _list_ok(value: Any) -> bool:
    """An id, entity or number list that raises no schema error."""
    if not isinstance(value, list) or len(value) > MAX_LIST_ITEMS:
        return False
    for item in value:
        if not isinstance(item, str) or not 0 < len(item) <= _MAX_ID or item.isspace():
            return False
    return True


def _well_formed(obj: dict[Any, Any]) -> bool:
    """True exactly when the checks of :func:`_parse_claim` find nothing wrong (fast path)."""
    if obj.keys() != _FIELD_SET:
        return False
    text = obj["text"]
    return (
        _short_ok(obj["id"])
        and _short_ok(obj["type"])
        and isinstance(text, str)
        and 0 < len(text) <= MAX_CLAIM_TEXT
        and not text.isspace()
        and _list_ok(obj["cited_evidence_ids"])
        and _list_ok(obj["entities"])
        and _list_ok(obj["numbers"])
    )


def _claim_of(obj: dict[Any, Any]) -> Claim:
    return trusted(
        Claim,
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
    if isinstance(obj, dict) and _well_formed(obj):
        return ParsedClaim(index, obj["id"], obj["type"], obj["text"], _claim_of(obj), ())
    path = f"claims[{index}]"
    fallback_id = f"#{index}"
    if not isinstance(obj, dict):
        err = _schema_error(
            "not_an_object", path, "a claim must be an object", "object", _type_name(obj)
        )
        return ParsedClaim(index, fallback_id, None, None, None, (err,))
    errors: list[GateError] = []
    for name in CLAIM_FIELDS:
        if name not in obj:
            errors.append(
                _schema_error("missing_field", f"{path}.{name}", "is required", name, None)
            )
    for name in sorted(k for k in obj if k not in CLAIM_FIELDS):
        shown = name if isinstance(name, str) and len(name) <= 64 else str(name)[:64] + "..."
        errors.append(
            _schema_error(
                "unexpected_field",
                f"{path}.{shown}",
                "is not a claim field",
                list(CLAIM_FIELDS),
                shown,
            )
        )
    for name in _STRING_FIELDS:
        if name in obj:
            errors.extend(_check_string(obj, name, path))
    for name in _LIST_FIELDS:
        if name in obj:
            errors.extend(_check_list(obj, name, path))
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


def claims_of(items: Sequence[ParsedClaim]) -> list[Claim]:
    """The well-formed claims of a parsed narration, in order."""
    return [p.claim for p in items if p.claim is not None]
