"""Golden conformance vectors: tokenization, segmentation, alignment and both predicates.

The JSON files under ``tests/conformance/`` are the contract a port must reproduce
byte for byte; ``tests/conformance/regen.py`` only drafts them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import TESTS, load_json
from verity.text.aliases import AliasMatcher
from verity.text.align import (
    MAX_SINGLE_GAP,
    MAX_TOTAL_GAP,
    POLARITY_LANGUAGES,
    POLARITY_MARKERS,
    check_support,
    is_supported_v1,
    is_supported_v2,
)
from verity.text.segment import split_sentences
from verity.text.tokens import tokenize, tokenize_v1

VECTORS = TESTS / "conformance"
TOKENS = load_json(VECTORS / "tokenize.json")
SEGMENTS = load_json(VECTORS / "segment.json")
ALIGN = load_json(VECTORS / "align.json")
PREDICATES = load_json(VECTORS / "predicates.json")
MATCHER = AliasMatcher(TOKENS["aliases"])
PRED_MATCHER = AliasMatcher(PREDICATES["aliases"])


def _id(case: dict[str, Any]) -> str:
    return repr(case.get("text", case.get("claim")))[:60]


@pytest.mark.parametrize("case", TOKENS["cases"], ids=_id)
def test_tokenize_vectors(case: dict[str, Any]) -> None:
    assert tokenize_v1(case["text"]) == case["v1"]
    assert tokenize(case["text"]) == case["v2"]
    assert tokenize(case["text"], MATCHER) == case["v2_aliases"]


@pytest.mark.parametrize("case", SEGMENTS["cases"], ids=_id)
def test_segment_vectors(case: dict[str, Any]) -> None:
    assert split_sentences(case["text"]) == case["sentences"]


@pytest.mark.parametrize("case", SEGMENTS["alias_cases"], ids=_id)
def test_segment_vectors_with_aliases(case: dict[str, Any]) -> None:
    matcher = AliasMatcher(SEGMENTS["aliases"])
    assert split_sentences(case["text"], matcher) == case["sentences"]


def test_pinned_constants() -> None:
    constants = ALIGN["constants"]
    assert constants["MAX_SINGLE_GAP"] == MAX_SINGLE_GAP == 4
    assert constants["MAX_TOTAL_GAP"] == MAX_TOTAL_GAP == 8
    assert constants["POLARITY_MARKERS"] == sorted(POLARITY_MARKERS)
    assert constants["POLARITY_LANGUAGES"] == list(POLARITY_LANGUAGES) == ["en"]


@pytest.mark.parametrize(
    "case", ALIGN["cases"], ids=lambda c: " ".join(c["claim"]) + " | " + " ".join(c["passage"])
)
def test_align_vectors(case: dict[str, Any]) -> None:
    support = check_support(case["claim"], case["passage"])
    span = None if support.span is None else [support.span.start, support.span.end]
    assert span == case["span"]
    assert support.supported is case["supported"]
    assert support.reason == case["reason"]
    dropped = [[loss.marker, loss.claim_count, loss.span_count] for loss in support.dropped]
    assert dropped == case["dropped"]


@pytest.mark.parametrize("case", PREDICATES["cases"], ids=_id)
def test_predicate_vectors(case: dict[str, Any]) -> None:
    assert is_supported_v1(case["claim"], case["passage"]) is case["v1"]
    assert is_supported_v2(case["claim"], case["passage"]) is case["v2"]
    reason = check_support(tokenize(case["claim"]), tokenize(case["passage"])).reason
    assert reason == case["reason"]


@pytest.mark.parametrize("case", PREDICATES["alias_cases"], ids=_id)
def test_predicate_vectors_with_aliases(case: dict[str, Any]) -> None:
    assert is_supported_v2(case["claim"], case["passage"], PRED_MATCHER) is case["v2"]
    claim, passage = tokenize(case["claim"], PRED_MATCHER), tokenize(case["passage"], PRED_MATCHER)
    assert check_support(claim, passage).reason == case["reason"]


def test_vectors_are_up_to_date_with_regen() -> None:
    from tests.conformance import regen

    assert regen.main(["--check"]) == 0
