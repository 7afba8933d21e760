"""The error-code catalogue: every code a report can carry, stated once.

Each :class:`Code` row is the code, the gate row that reports it, what it means, the
template of its message and (for the text gate) the reader issue or sentence reason of
:mod:`verity.text` it reports. The gates, the schema reader and verify build their
messages from these templates (:meth:`Code.text`); :data:`verity.core.gates.GATES` takes
each row's codes from here, so :data:`verity.core.gates.ERROR_CODES` is derived from it;
``docs/codes.md`` is generated from it (``python scripts/gen_codes_doc.py``; a test fails
when it drifts).

A template is a :meth:`str.format` string over the fields its caller passes (already
shortened where the caller shortens them); ``variants`` holds the other message forms
a code has, by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["CATALOGUE", "Code", "by_reason", "code_of", "render_doc", "row_codes"]


@dataclass(frozen=True, slots=True)
class Code:
    """One error code: its name, the gate-table row reporting it, its meaning, its message."""

    code: str
    #: The gate-table row that reports it (a row's name, ``number_scope`` for the second
    #: ``number`` row; ``internal`` for :data:`INTERNAL_ERROR`, which any row may raise).
    row: str
    #: What it means (published: ``verity.ERROR_CODES``).
    meaning: str
    #: The message template (:meth:`str.format` fields).
    message: str
    #: The reader issue (:data:`verity.text.reader.ReaderIssue`) or sentence reason
    #: (:data:`verity.text.variation.Reason`) the code reports, if any.
    reason: str | None = None
    #: Other message forms, by name.
    variants: Mapping[str, str] = field(default_factory=dict)
    #: What ``expected`` and ``actual`` hold, when worth saying (documentation only).
    note: str = ""

    @property
    def gate(self) -> str:
        """The gate the code is reported under (its prefix)."""
        return self.code.partition(".")[0]

    def text(self, variant: str | None = None, /, **fields: Any) -> str:
        """The message, from the template (or the named variant) filled with ``fields``."""
        template = self.message if variant is None else self.variants[variant]
        return template.format(**fields)


# The text gate's two message forms for a sentence that fails: what it is, then where
# it came closest (``closest`` names the nearest declared sentence or the closest cited
# statement).
_SENTENCE = "the sentence {sentence!r} "
_CLOSEST = "{detail}; {closest} ({node_id}): {nearest!r}"
_READER = "the claim text "
_FOUND = ": {found!r}"


def _sentence(code: str, reason: str, says: str, meaning: str, note: str = "") -> Code:
    return Code(code, "polarity", meaning, _SENTENCE + says + _CLOSEST, reason, note=note)


def _reader(code: str, issue: str, says: str, meaning: str) -> Code:
    return Code(code, "polarity", meaning, _READER + says + _FOUND, issue)


#: Every code, grouped by the gate it is reported under (gates in table order), in the
#: order of :data:`verity.ERROR_CODES` (``claim_type.text_not_narrated`` is found by the
#: text gate's row and reported under ``claim_type``).
CATALOGUE: tuple[Code, ...] = (
    # --- schema: reading the narration (verity.core.claims) ----------------------------
    Code(
        "schema.not_an_object",
        "schema",
        "the claim is not a JSON object",
        "{path}: a claim must be an object",
    ),
    Code(
        "schema.missing_field",
        "schema",
        "a required claim field is missing",
        "{path}: is required",
    ),
    Code(
        "schema.unexpected_field",
        "schema",
        "the claim has a field the format does not define",
        "{path}: is not a claim field",
    ),
    Code(
        "schema.wrong_type",
        "schema",
        "a claim field has the wrong JSON type",
        "{path}: must be a string",
        variants={"list": "{path}: must be an array of strings"},
    ),
    Code(
        "schema.empty",
        "schema",
        "an id, type or list item is an empty string",
        "{path}: must not be empty",
    ),
    Code(
        "schema.empty_text",
        "schema",
        "the claim text is empty or blank",
        "{path}: must not be empty",
    ),
    Code(
        "schema.too_long",
        "schema",
        "a text, id or list exceeds its size limit",
        "{path}: is longer than {limit} characters",
        variants={"items": "{path}: has more than {limit} items"},
        note="text over 10,000 characters, an id over 256, a list over 256 items",
    ),
    Code(
        "schema.duplicate_id",
        "schema",
        "the claim's id is the id of an earlier claim of the narration",
        "{path}: {id!r} is already the id of claims[{earlier}]; each claim needs its own id",
        note="`actual`: both claims' positions",
    ),
    # --- evidence ---------------------------------------------------------------------
    Code(
        "evidence.none_cited",
        "evidence",
        "the claim cites no evidence id",
        "the claim cites no evidence",
    ),
    Code(
        "evidence.unknown_id",
        "evidence",
        "a cited id is not a node of the graph",
        "cited evidence {node_id!r} is not a node of the graph",
        note="`expected`: nearest ids",
    ),
    # --- entity -----------------------------------------------------------------------
    Code(
        "entity.not_allowed",
        "entity",
        "a declared entity is not an allowed entity id",
        "entity {entity!r} is not an allowed entity id",
        note="`expected`: nearest ids",
    ),
    # --- number -----------------------------------------------------------------------
    Code(
        "number.not_allowed",
        "number",
        "a declared number is not an allowed number string",
        "number {number!r} is not an allowed number string",
        note="`expected`: allowed strings of the same value, else the nearest",
    ),
    Code(
        "number.out_of_scope",
        "number_scope",
        "(strict) a declared number is stated by no cited node",
        "number {number!r} is not stated by any cited evidence node",
        note="`expected`: the nodes stating it",
    ),
    # --- claim_type -------------------------------------------------------------------
    Code(
        "claim_type.unknown",
        "claim_type",
        "the claim type has no rule in the graph",
        "claim type {claim_type!r} has no rule in this graph",
    ),
    Code(
        "claim_type.missing_required",
        "claim_type",
        "the cited nodes lack a type the claim type's rule requires",
        "a {claim_type} claim must cite a node of type {need}",
    ),
    Code(
        "claim_type.text_not_narrated",
        "polarity",
        "(strict) the text rests on no cited node of a type the claim type narrates",
        "the sentence {sentence!r} rests only on cited nodes of types a "
        "{claim_type} claim does not narrate (it narrates {narrates})",
        variants={
            "no_sentence": "no sentence of this {claim_type} claim rests on a cited node of "
            "a type it narrates ({narrates})"
        },
    ),
    # --- prose ------------------------------------------------------------------------
    Code(
        "prose.undeclared_entity",
        "prose",
        "(strict) the text mentions an entity the claim does not declare",
        "the text mentions {raw!r} (entity {entity!r}) but does not declare it",
    ),
    Code(
        "prose.undeclared_number",
        "prose",
        "(strict) the text states a number no declared number matches",
        "the text states {raw!r}, which matches no declared number",
    ),
    # --- polarity: the text gate ------------------------------------------------------
    Code(
        "polarity.unsupported_sentence",
        "polarity",
        "(strict) a sentence is not a sentence any cited statement declares",
        _SENTENCE + "is not a sentence any cited statement declares" + _CLOSEST,
        reason="not_contained",
        variants={
            "no_cited_node": _SENTENCE + "is not supported by any cited statement; "
            "no cited node exists"
        },
    ),
    _sentence(
        "polarity.variant_not_declared",
        "variant_not_declared",
        "is not a variant any cited node declares",
        "(strict) a sentence is not a variant any cited node's template declares",
    ),
    _sentence(
        "polarity.undeclared_deletion",
        "undeclared_deletion",
        "drops words the closest cited statement does not declare optional",
        "(strict) a sentence drops words its statement does not declare optional",
    ),
    _sentence(
        "polarity.marker_dropped",
        "marker_dropped",
        "drops a negation or other marker of the statement",
        "(strict) the claim drops a negation or other polarity marker",
    ),
    _sentence(
        "polarity.required_span_dropped",
        "required_span_dropped",
        "drops a part the statement requires",
        "(strict) a sentence drops a span its statement requires",
        note="`actual`: the sentence",
    ),
    _sentence(
        "polarity.aggregation_mismatch",
        "aggregation_mismatch",
        "coordinates cited nodes that do not each state it",
        "(strict) a sentence coordinates cited nodes that do not each state it (one "
        "template, one differing slot)",
    ),
    _reader(
        "polarity.line_break",
        "line_break",
        "breaks a line inside the claim",
        "(strict) the claim text breaks a line",
    ),
    _reader(
        "polarity.control_character",
        "control_character",
        "holds an invisible, control or formatting character",
        "(strict) the claim text holds an invisible or control character",
    ),
    _reader(
        "polarity.foreign_digit",
        "foreign_digit",
        "writes a digit a reader may misread",
        "(strict) the claim text holds a digit outside ASCII",
    ),
    _reader(
        "polarity.markup",
        "markup",
        "holds markup that can hide or change what a reader sees",
        "(strict) the claim text holds markup",
    ),
    _reader(
        "polarity.dropped_character",
        "dropped_character",
        "holds a character that would be read as nothing",
        "(strict) the claim text holds a character that would be read as nothing",
    ),
    _sentence(
        "polarity.scope_carried",
        "scope_carried",
        "holds a fact a reader takes in a scope its cited node does not state",
        "(strict) a fact is read in a scope (period, place, group, condition) the sentence "
        "or an earlier one states, and no cited node states it with that scope",
    ),
    # --- duplicate: across the claims of a narration (verity.core.verify) ---------------
    Code(
        "duplicate.repeated",
        "duplicate",
        "the claim repeats an earlier claim's type, citations and text",
        "the claim repeats claim {first!r} (same type, citations and text)",
    ),
    # --- any gate -----------------------------------------------------------------------
    Code(
        "internal.error",
        "internal",
        "a gate failed unexpectedly; the claim is rejected (fail closed)",
        "the {gate} gate failed: {error}: {exc}",
        note="`actual`: the exception's type",
    ),
)

_BY_CODE: Mapping[str, Code] = MappingProxyType({c.code: c for c in CATALOGUE})


def code_of(name: str) -> Code:
    """The catalogue row of the code ``name`` (KeyError when there is none)."""
    return _BY_CODE[name]


def row_codes(row: str) -> dict[str, str]:
    """The codes the gate-table row ``row`` reports, with their meanings, in order."""
    return {c.code: c.meaning for c in CATALOGUE if c.row == row}


def by_reason(row: str) -> dict[str, Code]:
    """The codes of ``row`` that report a reader issue or sentence reason, by that reason."""
    return {c.reason: c for c in CATALOGUE if c.row == row and c.reason is not None}


_DOC_HEAD = """\
# Error codes

Every error in a report carries `gate`, `code`, `message`, `expected` and `actual`. The
codes are stable; `verity.ERROR_CODES` maps each to its meaning. A code is reported
under the gate its prefix names; codes marked "(strict)" come only from profile
`strict`. The message column is the message's template: a `{name}` is filled from the
claim (a sentence is shortened to 160 characters), and a code with a second form lists
it on the next line.

This page is generated from the catalogue in `verity/core/codes.py`
(`python scripts/gen_codes_doc.py`); a test fails when it drifts.

| code | gate | meaning | message |
|---|---|---|---|
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_doc() -> str:
    """``docs/codes.md``: the catalogue as a Markdown table."""
    rows = []
    for row in CATALOGUE:
        meaning = row.meaning + (f" ({row.note})" if row.note else "")
        messages = "<br>".join(f"`{m}`" for m in (row.message, *row.variants.values()))
        rows.append(f"| `{row.code}` | {row.gate} | {_cell(meaning)} | {_cell(messages)} |\n")
    return _DOC_HEAD + "".join(rows)
