"""Our algorithms give the answers of the reference definitions they are written against.

Close-match suggestions against :func:`difflib.get_close_matches`, the segmenter's
candidate scan against ``finditer``, cached number values against fresh ones, and the
v2 alignment on block bit sets against an eager set-of-states search.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.robustness.strategies import (
    CARD_SMALL,
    ROBUST,
    hostile_text,
    short_text,
)
from verity.text import align as A
from verity.text import segment
from verity.text.numbers import NUMBER_RE, value_of_match
from verity.text.suggest import Candidates, close_matches

NODE_IDS = [n["id"] for n in CARD_SMALL["nodes"]]
id_like = st.one_of(
    st.sampled_from(NODE_IDS),
    st.sampled_from(NODE_IDS).map(lambda s: s + "-7"),
    st.sampled_from(NODE_IDS).map(str.upper),
    st.text(alphabet="abcdefg:-_ ", max_size=30),
    short_text,
)


@ROBUST
@given(id_like, st.lists(id_like, max_size=30, unique=True), st.integers(1, 4))
def test_close_matches_equal_difflib(word: str, choices: list[str], n: int) -> None:
    for cutoff in (0.0, 0.5, 0.8):
        expected = difflib.get_close_matches(word, sorted(choices), n=n, cutoff=cutoff)
        assert close_matches(word, Candidates.of(choices), n, cutoff) == expected


def test_close_matches_equal_difflib_on_long_words() -> None:
    # difflib treats popular characters of words of 200+ characters as junk.
    choices = ["a" * 150 + "b" * 60, "ab" * 110, "b" * 250, "a" * 199]
    for word in ("a" * 210, "ab" * 105, "b" * 201 + "a"):
        expected = difflib.get_close_matches(word, sorted(choices), n=3, cutoff=0.5)
        assert close_matches(word, Candidates.of(choices), 3, 0.5) == expected


def test_remembered_suggestions_are_copies() -> None:
    candidates = Candidates.of(["win-dining", "win-travel"])
    expected = difflib.get_close_matches("win-dinig", ["win-dining", "win-travel"], 3, 0.5)
    first = candidates.nearest("win-dinig")
    first.append("mutated")
    assert candidates.nearest("win-dinig") == expected == ["win-dining"]


@ROBUST
@given(hostile_text)
def test_segment_candidates_equal_finditer(text: str) -> None:
    expected = [(m.span(), m.lastgroup) for m in segment._CANDIDATE.finditer(text)]
    assert [(m.span(), m.lastgroup) for m in segment._candidates(text)] == expected


@ROBUST
@given(hostile_text)
def test_cached_number_values_equal_fresh_ones(text: str) -> None:
    from verity.text.numbers import _canonical_decimal, _value_of_groups

    for match in NUMBER_RE.finditer(text):
        sign, cur, body, suffix = match.group("sign", "cur", "body", "suffix")
        value = value_of_match(match)
        assert value == _value_of_groups.__wrapped__(sign, cur, body, suffix)
        if value.value is not None:
            assert value.value == _canonical_decimal(body, negative=sign is not None)


def _reference(claim: Sequence[str], passage: Sequence[str]) -> A.Span | None:
    """Eager search: the minimal end for every start by a plain set-of-states walk."""
    if not claim:
        return None
    spans = []
    for start, token in enumerate(passage):
        if token != claim[0]:
            continue
        states = {(start, 0)}  # (position of claim token j, total gap so far)
        for j in range(1, len(claim)):
            nxt = set()
            for pos, used in states:
                for gap in range(A.MAX_SINGLE_GAP + 1):
                    p = pos + 1 + gap
                    if (
                        used + gap <= A.MAX_TOTAL_GAP
                        and p < len(passage)
                        and passage[p] == claim[j]
                    ):
                        nxt.add((p, used + gap))
            states = nxt
            if not states:
                break
        if states:
            spans.append(A.Span(start, min(p for p, _ in states) + 1))
    markers = sum(t in A.POLARITY_MARKERS for t in claim)
    for span in spans:
        if sum(t in A.POLARITY_MARKERS for t in passage[span.start : span.end]) <= markers:
            return span
    return spans[0] if spans else None


_TOKENS = st.sampled_from(["a", "b", "c", "not", "no"])


@ROBUST
@given(
    st.lists(_TOKENS, min_size=1, max_size=10),
    st.lists(_TOKENS, max_size=60),
    st.integers(0, 2 * A.BLOCK_SIZE),
)
def test_align_equals_the_reference(claim: list[str], tail: list[str], pad: int) -> None:
    passage = ["z"] * pad + tail
    assert A.align(claim, A.PassageIndex.of(passage)) == _reference(claim, passage)


@pytest.mark.parametrize("claim_len", [50, 150, 400])
def test_long_claims_over_long_passages_equal_the_reference(claim_len: int) -> None:
    tokens = (["a"] * 99 + ["not"]) * 45 + ["b", "a", "a"]
    index = A.PassageIndex.of(tokens)
    for claim in (["a"] * claim_len, ["a"] * claim_len + ["b"], ["not", *["a"] * claim_len]):
        assert A.align(claim, index) == _reference(claim, tokens)


def test_block_sets_hold_every_position() -> None:
    tokens = [f"w{i % 7}" for i in range(5000)]
    blocks = A._block_sets({t: [i for i, x in enumerate(tokens) if x == t] for t in set(tokens)})
    for token, per_block in blocks.items():
        found = sorted(
            b * A.BLOCK_SIZE + bit
            for b, mask in per_block.items()
            for bit in range(A.BLOCK_SIZE)
            if mask >> bit & 1
        )
        assert found == [i for i, x in enumerate(tokens) if x == token]


def test_suggestions_in_reports_equal_difflib() -> None:
    from verity import load_graph, verify

    graph = load_graph(CARD_SMALL)
    claim = {"id": "c", "type": "COMPARISON", "text": "x", "cited_evidence_ids": ["win-dinning"],
             "entities": ["gold-dining"], "numbers": ["$6,25.00"]}  # fmt: skip
    errors = verify(graph, {"claims": [claim]}, "paper").claims[0].errors
    by_code = {e.code: e.expected for e in errors}
    assert by_code["evidence.unknown_id"] == difflib.get_close_matches(
        "win-dinning", sorted(graph.nodes), n=3, cutoff=0.5
    )
    assert by_code["entity.not_allowed"] == difflib.get_close_matches(
        "gold-dining", sorted(graph.allowed_entities), n=3, cutoff=0.5
    )
    assert by_code["number.not_allowed"] == difflib.get_close_matches(
        "$6,25.00", sorted(graph.allowed_numbers), n=3, cutoff=0.5
    )
