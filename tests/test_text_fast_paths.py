"""The text layer's fast paths give the same answers as the plain code they stand for."""

from __future__ import annotations

from hypothesis import given

from tests.robustness.strategies import CARD_SMALL, ROBUST, hostile_text
from verity.align_v3 import ClaimV3, _scan
from verity.graph import load_graph
from verity.normalize import normalize

GRAPH = load_graph(CARD_SMALL)


@ROBUST
@given(hostile_text)
def test_claim_tokens_equal_the_full_scan(text: str) -> None:
    for matcher in (None, GRAPH.matcher):
        full = _scan(normalize(text), matcher)
        claim = ClaimV3.of(text, matcher)
        assert (claim.tokens, claim.kinds) == (full.values, full.kinds)


def test_claim_tokens_of_every_kind_equal_the_full_scan() -> None:
    text = "Gold Dining earns 4x, not $1,250.00 (on dining); see <b> & ± — x ~ 5 %."
    full = _scan(normalize(text), GRAPH.matcher)
    assert set(full.kinds) == {0, 1, 2, 3, 4}
    claim = ClaimV3.of(text, GRAPH.matcher)
    assert (claim.tokens, claim.kinds) == (full.values, full.kinds)
