"""The v3 predicate (verity.text.align_v3): conformance vectors, v3 => v2, the reader view,
claim readings, required spans and the ablations that show each rule is needed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.helpers import ROOT, load_json
from verity import is_supported_v2, is_supported_v3
from verity.text.aliases import AliasMatcher
from verity.text.align import POLARITY_MARKERS
from verity.text.align_v3 import (
    EXTRA_MARKERS,
    MARKERS_V3,
    ClaimV3,
    PassageV3,
    _ablated,
    check_support_v3,
    reader_issue,
    readings,
)

VECTORS = load_json(ROOT / "tests" / "conformance" / "predicates_v3.json")
MATCHER = AliasMatcher({"gold_dining": "gold_dining", "Gold Dining": "gold_dining",
                        "flat_two": "flat_two", "dining": "dining"})  # fmt: skip


def _id(case: dict[str, Any]) -> str:
    return (case["claim"] + " | " + case["passage"])[:80]


@pytest.mark.parametrize("case", VECTORS["cases"], ids=_id)
def test_v3_vectors(case: dict[str, Any]) -> None:
    matcher = MATCHER if case["aliases"] else None
    support = check_support_v3(
        case["claim"], case["passage"], matcher, required_spans=case["required_spans"]
    )
    assert support.supported is case["v3"]
    assert support.reason == case["reason"]
    assert is_supported_v2(case["claim"], case["passage"], matcher) is case["v2"]


def test_vectors_hold_cases_where_v3_is_narrower_and_none_where_it_is_wider() -> None:
    assert any(c["v2"] and not c["v3"] for c in VECTORS["cases"])
    assert not any(c["v3"] and not c["v2"] for c in VECTORS["cases"])


def test_marker_sets() -> None:
    assert POLARITY_MARKERS < MARKERS_V3
    assert MARKERS_V3 == POLARITY_MARKERS | EXTRA_MARKERS
    assert sorted(EXTRA_MARKERS) == VECTORS["extra_markers"]


# --- v3 accepts => v2 accepts ------------------------------------------------------------

_WORDS = ["the", "card", "fee", "is", "due", "paid", "gold_dining", "flat_two", "dining",
          "Gold Dining", "and", "but", "so", "not", "no", "unless", "except", "only", "may",
          "don't", "once", "$250.00", "$250", "4x", "2x", "12%", ",", ";", ".", "(", ")", "<",
          "~", "-", "within", "its", "cap"]  # fmt: skip
_texts = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14).map(" ".join)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    passage = draw(_texts)
    words = passage.split()
    if draw(st.booleans()):  # a claim made from the passage: sub-span with deletions
        lo = draw(st.integers(0, len(words) - 1))
        hi = draw(st.integers(lo + 1, len(words)))
        keep = [w for w in words[lo:hi] if draw(st.integers(0, 4))]
        claim = " ".join(keep) or words[lo]
    else:
        claim = draw(_texts)
    required = []
    if draw(st.booleans()) and len(words) > 1:
        a = draw(st.integers(0, len(words) - 1))
        required = [" ".join(words[a : a + draw(st.integers(1, 3))])]
    return claim, passage, required


@settings(max_examples=800, deadline=None)
@given(_pairs(), st.booleans())
def test_v3_accepts_only_what_v2_accepts(pair: tuple[str, str, list[str]], aliased: bool) -> None:
    claim, passage, required = pair
    matcher = MATCHER if aliased else None
    try:
        PassageV3.of(passage, matcher, required)
    except ValueError:  # not a usable required span (a graph loader refuses it)
        assume(False)
    if is_supported_v3(claim, passage, matcher, required):
        assert is_supported_v2(claim, passage, matcher)


@settings(max_examples=300, deadline=None)
@given(_texts)
def test_a_passage_supports_itself(text: str) -> None:
    """A verbatim sentence is always supported (reader-clean text, one sentence)."""
    passage = PassageV3.of(text, MATCHER)
    for sentence in passage.sentences:
        if sentence.tokens:
            claim = ClaimV3(sentence.tokens, tuple(0 for _ in sentence.tokens))
            assert any(s.tokens == sentence.tokens for s in passage.sentences)
            assert claim.tokens  # a non-empty claim
    has_words = any(k < 3 for k in ClaimV3.of(text, MATCHER).kinds)  # not only punctuation
    if len(passage.sentences) == 1 and reader_issue(text) is None and has_words:
        assert check_support_v3(text, passage, MATCHER).supported


# --- the reader view -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "issue"),
    [
        ("a\nb", "line_break"),
        ("a\u2028b", "line_break"),
        ("a\tb", "control_character"),
        ("a\u00a0b", "control_character"),
        ("a\u200bb", "control_character"),
        ("a\u202eb", "control_character"),
        ("n\u0336o\u0336t\u0336", "control_character"),
        ("\U000e0041", "control_character"),
        ("\u0664%", "foreign_digit"),
        ("5\u00b2", "foreign_digit"),
        ("\u00bd", "foreign_digit"),
        ("\u216b", "foreign_digit"),
        ("<b>x</b>", "markup"),
        ("x <!-- y -->", "markup"),
        ("&nbsp;", "markup"),
        ("~~x~~", "markup"),
        ("[x](y)", "markup"),
    ],
)
def test_reader_issues(text: str, issue: str) -> None:
    found = reader_issue(text)
    assert found is not None and found[0] == issue


@pytest.mark.parametrize(
    "text", ["a < b and c > d", "Price: $5 (net)", "\uff15%", "caf\u00e9", "x - y", "A & B"]
)
def test_plain_text_has_no_reader_issue(text: str) -> None:
    assert reader_issue(text) is None


# --- readings of a sentence joining two facts ------------------------------------------------


def test_shared_subject_reading() -> None:
    matcher = AliasMatcher(
        {"gold_dining": "gold_dining", "dining": "dining", "groceries": "groceries"}
    )
    claim = ClaimV3.of("gold_dining wins dining at 4x and groceries at 3x", matcher)
    parts = [tuple(" ".join(p.tokens) for p in r) for r in readings(claim)]
    assert ("gold_dining wins dining at <4x>", "gold_dining wins groceries at <3x>") in parts


def test_a_changed_verb_is_no_shared_subject() -> None:
    claim = ClaimV3.of("X wins dining at 4x and loses groceries at 3x", None)
    joined = [" ".join(p.tokens) for r in readings(claim) for p in r]
    assert "x wins loses groceries at <3x>" not in joined
    assert all(not j.startswith("x wins groceries") for j in joined)


def test_and_reading_never_supports_a_false_half() -> None:
    passage = "gold_dining wins dining at 4x, ahead of flat_two at 2x."
    result = check_support_v3("gold_dining wins dining at 4x and flat_two at 2x", passage, MATCHER)
    assert not result.supported


# --- required spans ------------------------------------------------------------------------


def test_a_required_span_must_occur() -> None:
    with pytest.raises(ValueError, match="does not occur"):
        PassageV3.of("The fee is due.", None, ["monthly"])


def test_a_required_span_may_not_cross_sentences() -> None:
    with pytest.raises(ValueError, match="crosses a sentence boundary"):
        PassageV3.of("The fee is due. It is paid monthly.", None, ["due. It"])


# --- each rule is needed: switching it off lets an attack through ----------------------------

ABLATION_WITNESSES: dict[str, tuple[str, str, list[str]]] = {
    "reader": ("Rent is \u0665%.", "Rent is 5%.", []),
    "symbols": ("Doses > 40 mg need approval.", "Doses 40 mg need approval.", []),
    "barriers": ("A wins ahead of B at 3%.", "A wins at 4% ahead of B at 3%.", []),
    "anchoring": (
        "Harbor Credit Union in 2019.",
        "Northwind Bank acquired Harbor Credit Union in 2019.",
        [],
    ),
    "required": (
        "X gets $15 on dining at 5x.",
        "X gets $15 on dining at 5x within its cap.",
        ["within its cap"],
    ),
    "clause_guard": ("Refunds are issued.", "Refunds are issued if the item is returned.", []),
    "object_cut": (
        "The policy covers cargo except cargo.",
        "The policy covers cargo except cargo declared hazardous.",
        [],
    ),
    "extra_markers": (
        "Side effects fade within a week.",
        "Side effects usually fade within a week.",
        [],
    ),
}


@pytest.mark.parametrize("rule", sorted(ABLATION_WITNESSES))
def test_each_rule_rejects_an_attack_the_others_let_through(rule: str) -> None:
    claim, passage, required = ABLATION_WITNESSES[rule]
    assert not is_supported_v3(claim, passage, None, required)
    with _ablated(**{rule: False}):
        assert is_supported_v3(claim, passage, None, required)
