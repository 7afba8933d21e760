"""Reading a narration straight from its JSON text, with the claim checks done on the way.

:func:`decode_narration` decodes the text with msgspec into structs whose types and
size limits come from :data:`verity.core.claims.CLAIM_RULES`, so the JSON parser itself
refuses what those checks would refuse. It answers only for the plain case, a
narration whose every claim is well formed; for anything else (invalid JSON, a
malformed claim, an unknown key, a blank string, JSON that msgspec reads differently
from :func:`json.loads`, such as a lone surrogate) it returns None, and the caller
reads the text with :func:`json.loads` and :func:`verity.core.claims.parse_narration`,
which decide and report. Whatever it returns, the plain path returns too:
``tests/robustness/test_shortcuts.py`` checks that on hostile JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

import msgspec

from verity.core import shortcuts
from verity.core.claims import (
    CLAIM_RULES,
    Claim,
    FieldRule,
    ParsedClaim,
    ParsedNarration,
    parse_narration,
)
from verity.core.trusted import trusted_maker
from verity.errors import InputError
from verity.formats import NARRATION_FORMAT
from verity.jsonio import loads

__all__ = ["decode_narration", "read_narration_text"]


def _field_type(rule: FieldRule) -> Any:
    """The msgspec type of one claim field: the rule's JSON kind and size limits."""
    if rule.kind == "string":
        return Annotated[str, msgspec.Meta(min_length=1, max_length=rule.limit)]
    item = Annotated[str, msgspec.Meta(min_length=1, max_length=rule.item_limit)]
    return Annotated[list[item], msgspec.Meta(max_length=rule.limit)]


_WireClaim: Any = msgspec.defstruct(
    "_WireClaim",
    [(rule.name, _field_type(rule)) for rule in CLAIM_RULES],
    forbid_unknown_fields=True,
)


class _WireNarration(msgspec.Struct, forbid_unknown_fields=True):
    claims: list[_WireClaim]
    format: str = NARRATION_FORMAT
    graph_id: str | None = None


_DECODER = msgspec.json.Decoder(_WireNarration)


def _claims_source(rules: tuple[FieldRule, ...]) -> str:
    """Source of ``_claims``: every decoded claim to a :class:`ParsedClaim`, or None when a
    string or list item is all whitespace (which msgspec's length checks let through).

    One function with the fields of the table inlined; the claim is built by
    :func:`verity.core.trusted.trusted_maker`.
    """
    local = {rule.name: f"v{i}" for i, rule in enumerate(rules)}
    lines = [
        "def _claims(wires):",
        "    out = []",
        "    for index, w in enumerate(wires):",
    ]
    lines += [f"        {local[rule.name]} = w.{rule.name}" for rule in rules]
    # Every string and list item in one pass: (v0, v1, *v3, ...).
    strings = ", ".join(
        local[rule.name] if rule.kind == "string" else "*" + local[rule.name] for rule in rules
    )
    lines += [f"        if any(map(_isspace, ({strings},))):", "            return None"]
    values = ", ".join(f"{name!r}: {v}" for name, v in local.items())
    head = ", ".join(local[name] for name in ("id", "type", "text"))
    lines += [
        f"        out.append(_new_parsed((index, {head}, _new_claim({{{values}}}), ())))",
        "    return tuple(out)",
    ]
    return "\n".join(lines) + "\n"


_ClaimsFn = Callable[[list[Any]], tuple[ParsedClaim, ...] | None]


def _compile_claims(rules: tuple[FieldRule, ...]) -> _ClaimsFn:
    namespace: dict[str, Any] = {
        "_new_claim": trusted_maker(Claim),
        "_new_parsed": partial(tuple.__new__, ParsedClaim),
        "_isspace": str.isspace,
    }
    exec(compile(_claims_source(rules), "<verity wire claims>", "exec"), namespace)
    claims: _ClaimsFn = namespace["_claims"]
    return claims


#: The decoded claims, checked and built (generated from :data:`CLAIM_RULES`).
_claims = _compile_claims(CLAIM_RULES)


def decode_narration(text: str | bytes) -> ParsedNarration | None:
    """The narration of a JSON text when it and every claim are well formed, else None."""
    try:
        wire = _DECODER.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if wire.format != NARRATION_FORMAT:
        return None
    claims = _claims(wire.claims)
    return None if claims is None else ParsedNarration(wire.graph_id, claims)


def _text(source: str | bytes) -> str:
    if isinstance(source, str):
        return source
    try:
        return source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the narration is not valid UTF-8 (byte {exc.start})") from None


def read_narration_text(source: str | bytes) -> ParsedNarration:
    """Read a narration from its JSON text (``str`` or UTF-8 ``bytes``).

    The text is decoded by :func:`decode_narration` when it is well formed, else read
    with :func:`verity.jsonio.loads` and :func:`parse_narration`, which report what is
    wrong. Raises :class:`InputError` as :func:`parse_narration` does, and for text that
    is not JSON.
    """
    if shortcuts.enabled():
        decoded = decode_narration(source)
        if decoded is not None:
            return decoded
    return parse_narration(loads(_text(source), "the narration"))
