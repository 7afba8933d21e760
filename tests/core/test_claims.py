"""One constraint table (``CLAIM_RULES``) drives the pydantic model, the field checks and
the parser's fast path: each violation is refused by all three, with one error."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.helpers import FIXTURES, card_small_claim, load_json
from verity.core import claims as C
from verity.core.claims import CLAIM_RULES, Claim, FieldRule, Narration, parse_narration

CASES = load_json(FIXTURES / "claims" / "field_violations.json")["fields"]
GOOD = card_small_claim("win_dining")


def _value(rule: FieldRule, spec: Any) -> Any:
    """The fixture's shorthand made concrete for ``rule``'s limits."""
    if spec == "blank":
        return "   "
    if spec == "long":
        return "x" * ((rule.item_limit if rule.kind == "list" else rule.limit) + 1)
    if spec == "many":
        return ["a"] * (rule.limit + 1)
    if isinstance(spec, list):
        return [_value(rule, s) for s in spec]
    return spec


def _cases() -> list[tuple[FieldRule, dict[str, Any]]]:
    rules = {r.name: r for r in CLAIM_RULES}
    return [(rules[name], case) for name, cases in CASES.items() for case in cases]


def test_the_fixture_covers_every_rule_of_the_table() -> None:
    assert list(CASES) == [r.name for r in CLAIM_RULES] == list(C.CLAIM_FIELDS)
    for rule in CLAIM_RULES:
        codes = {c["code"] for c in CASES[rule.name]}
        assert {"schema.wrong_type", "schema.too_long", f"schema.{rule.blank_code}"} <= codes


def test_the_pydantic_model_agrees_with_the_table() -> None:
    assert C.model_disagreements() == []
    assert list(Claim.model_fields) == [r.name for r in CLAIM_RULES]


def test_a_model_that_drifts_from_the_table_is_reported() -> None:
    from typing import Annotated

    from pydantic import BaseModel, Field, StringConstraints

    short = Annotated[str, StringConstraints(min_length=1, max_length=256)]

    class Drifted(BaseModel):
        id: short
        type: short
        text: Annotated[str, StringConstraints(min_length=1, max_length=5_000)]
        cited_evidence_ids: Annotated[list[short], Field(max_length=256)]
        entities: Annotated[list[short], Field(max_length=256)]
        numbers: list[short]

    problems = C.model_disagreements(Drifted)
    assert [p.split(":")[0] for p in problems] == ["text", "numbers"]


@pytest.mark.parametrize(("rule", "case"), _cases(), ids=lambda x: getattr(x, "name", None))
def test_every_path_refuses_a_violation_alike(rule: FieldRule, case: dict[str, Any]) -> None:
    claim = {**GOOD, rule.name: _value(rule, case["value"])}
    # the fast path refuses it...
    assert C._well_formed(claim) is False
    # ...the checks give exactly the pinned error...
    (parsed,) = parse_narration({"claims": [claim]}).claims
    assert parsed.claim is None
    assert [(e.gate, e.code, e.message) for e in parsed.errors] == [
        ("schema", case["code"], case["message"])
    ]
    # ...and the pydantic model refuses it, or (a blank string, which it admits) the
    # parser refuses the model's claim with the same error.
    try:
        model = Narration(claims=[Claim(**claim)])
    except ValidationError as exc:
        assert {err["loc"][0] for err in exc.errors()} == {rule.name}
    else:
        assert "blank" in str(case["value"])
        (from_model,) = parse_narration(model).claims
        assert from_model.errors == parsed.errors


def test_a_clean_claim_passes_every_path_alike() -> None:
    assert C._well_formed(dict(GOOD)) is True
    (parsed,) = parse_narration({"claims": [GOOD]}).claims
    (from_model,) = parse_narration(Narration(claims=[Claim(**GOOD)])).claims
    assert parsed.errors == from_model.errors == ()
    assert parsed.claim == from_model.claim == Claim(**GOOD)


def test_the_fast_path_is_generated_from_the_table() -> None:
    tighter = tuple(
        FieldRule(r.name, r.kind, 5 if r.name == "text" else r.limit, r.blank_code, r.item_limit)
        for r in CLAIM_RULES
    )
    fast = C._compile_fast_path(tighter)
    assert fast({**GOOD, "text": "short"}) is True
    assert fast({**GOOD, "text": "longer"}) is False
    assert "len(v) > 5 " in C._fast_source(tighter)
