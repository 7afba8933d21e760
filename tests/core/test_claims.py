"""The claim model is the one statement of the claim contract: every violation of a
field gives exactly one pinned schema error, by JSON or by the pydantic model alike."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.helpers import FIXTURES, card_small_claim, load_json
from verity import Claim, Narration
from verity.core.claims import CLAIM_FIELDS, SCHEMA_CODES, parse_narration

CASES = load_json(FIXTURES / "claims" / "field_violations.json")["fields"]
GOOD = card_small_claim("win_dining")
SCHEMA = Claim.model_json_schema()["properties"]


def _value(field: str, spec: Any) -> Any:
    """The fixture's shorthand made concrete for the field's limits in the model's schema."""
    prop = SCHEMA[field]
    if spec == "blank":
        return "   "
    if spec == "long":
        return "x" * (prop.get("items", prop)["maxLength"] + 1)
    if spec == "many":
        return ["a"] * (prop["maxItems"] + 1)
    if isinstance(spec, list):
        return [_value(field, s) for s in spec]
    return spec


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [(field, case) for field, cases in CASES.items() for case in cases]


def test_the_fixture_covers_every_field_and_code() -> None:
    assert list(CASES) == list(CLAIM_FIELDS) == list(Claim.model_fields)
    blank = {"text": "schema.empty_text"}
    for field in CLAIM_FIELDS:
        codes = {c["code"] for c in CASES[field]}
        assert {"schema.wrong_type", "schema.too_long", blank.get(field, "schema.empty")} <= codes
    seen = {c["code"] for cases in CASES.values() for c in cases}
    assert seen <= set(SCHEMA_CODES)


@pytest.mark.parametrize(("field", "case"), _cases())
def test_every_violation_gives_one_pinned_error(field: str, case: dict[str, Any]) -> None:
    claim = {**GOOD, field: _value(field, case["value"])}
    (parsed,) = parse_narration({"claims": [claim]}).claims
    assert parsed.claim is None
    assert [(e.gate, e.code, e.message) for e in parsed.errors] == [
        ("schema", case["code"], case["message"])
    ]
    # the model itself refuses it too, on that field
    with pytest.raises(ValidationError) as refused:
        Narration(claims=[Claim(**claim)])
    assert {err["loc"][0] for err in refused.value.errors()} == {field}


def test_a_blank_text_is_blank_however_long() -> None:
    claim = {**GOOD, "text": " " * 20_000}
    (parsed,) = parse_narration({"claims": [claim]}).claims
    assert [e.code for e in parsed.errors] == ["schema.empty_text"]


def test_errors_come_missing_first_then_unexpected_then_by_field() -> None:
    claim = {"zz": 1, "aa": 2, "text": 5, "cited_evidence_ids": [3, " "], "numbers": "x"}
    (parsed,) = parse_narration({"claims": [claim]}).claims
    assert [(e.code, e.message.split(":")[0]) for e in parsed.errors] == [
        ("schema.missing_field", "claims[0].id"),
        ("schema.missing_field", "claims[0].type"),
        ("schema.missing_field", "claims[0].entities"),
        ("schema.unexpected_field", "claims[0].aa"),
        ("schema.unexpected_field", "claims[0].zz"),
        ("schema.wrong_type", "claims[0].text"),
        ("schema.wrong_type", "claims[0].cited_evidence_ids[0]"),
        ("schema.empty", "claims[0].cited_evidence_ids[1]"),
        ("schema.wrong_type", "claims[0].numbers"),
    ]
    assert parsed.id == "#0" and parsed.type is None and parsed.text is None


def test_a_clean_claim_reads_alike_from_json_and_from_the_model() -> None:
    (parsed,) = parse_narration({"claims": [GOOD]}).claims
    (from_model,) = parse_narration(Narration(claims=[Claim(**GOOD)])).claims
    assert parsed.errors == from_model.errors == ()
    assert parsed.claim == from_model.claim == Claim(**GOOD)
