"""Ordered, gap-bounded containment with a polarity guard: the v2 support predicate.

A claim is *supported* by a passage when

1. its tokens appear in the passage's tokens in order, with multiplicity, as a
   subsequence in which every gap between two consecutive matched tokens skips at
   most :data:`MAX_SINGLE_GAP` passage tokens and all gaps together skip at most
   :data:`MAX_TOTAL_GAP`; and
2. on the matched span only (first to last matched passage token), every polarity
   marker of :data:`POLARITY_MARKERS` occurs in the claim at least as often as in
   the span. Since the claim's tokens are matched inside the span, this means no
   marker was skipped: deleting a ``not`` (or one of two) is caught.

The constants are pinned, not parameters: widening them silently weakens the
guarantee and would break the conformance vectors.

Search. For each start position of the claim's first token (left to right), an
integer dynamic programme over token indices finds the alignment with the smallest
end, which has the smallest span and so is the best one for the guard (marker counts
only grow with the span). :func:`align` returns the first such span that passes the
guard, else the first span that matches at all, else ``None``. The work per start is
bounded by the gap budget: the end lies at most ``len(claim) - 1 + MAX_TOTAL_GAP``
tokens after the start.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from verity.text.aliases import AliasMatcher
from verity.text.tokens import tokenize, tokenize_v1

__all__ = [
    "BLOCK_SIZE",
    "MAX_SINGLE_GAP",
    "MAX_TOTAL_GAP",
    "POLARITY_LANGUAGES",
    "POLARITY_MARKERS",
    "MarkerLoss",
    "PassageIndex",
    "Reason",
    "Span",
    "Support",
    "align",
    "check_support",
    "is_supported_v1",
    "is_supported_v2",
    "polarity_dropped",
]

MAX_SINGLE_GAP = 4
MAX_TOTAL_GAP = 8

POLARITY_MARKERS: frozenset[str] = frozenset(
    {
        "absent", "cannot", "denied", "except", "excluding", "failed", "fails", "forbidden",
        "neither", "never", "no", "nobody", "none", "nor", "not", "nothing", "other",
        "prohibited", "unless", "without",
    }
)  # fmt: skip
POLARITY_LANGUAGES: tuple[str, ...] = ("en",)

Reason = Literal["supported", "not_contained", "marker_dropped", "empty_claim"]

# Offsets 0..MAX_TOTAL_GAP of a claim token past its earliest possible position.
_WINDOW = (1 << (MAX_TOTAL_GAP + 1)) - 1


def _spread(mask: int) -> int:
    out = 0
    for step in range(MAX_SINGLE_GAP + 1):
        out |= mask << step
    return out & _WINDOW


# Offsets reachable by the next token from a set of offsets: each may skip 0..MAX_SINGLE_GAP.
_SPREAD: tuple[int, ...] = tuple(_spread(mask) for mask in range(_WINDOW + 1))


@dataclass(frozen=True, slots=True)
class Span:
    """Passage token positions ``start`` (inclusive) to ``end`` (exclusive) of an alignment."""

    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start

    def to_dict(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class MarkerLoss:
    """A polarity marker that occurs more often in the matched span than in the claim."""

    marker: str
    claim_count: int
    span_count: int

    def to_dict(self) -> dict[str, object]:
        return {
            "marker": self.marker,
            "claim_count": self.claim_count,
            "span_count": self.span_count,
        }


@dataclass(frozen=True, slots=True)
class Support:
    """Outcome of :func:`check_support`: the verdict, the span it rests on and why."""

    supported: bool
    reason: Reason
    span: Span | None = None
    dropped: tuple[MarkerLoss, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "supported": self.supported,
            "reason": self.reason,
            "span": None if self.span is None else self.span.to_dict(),
            "dropped": [loss.to_dict() for loss in self.dropped],
        }


#: Token positions are kept as bit sets per block of this many positions (a whole-passage
#: bit set of n positions would take O(n) memory per distinct token and O(n) time per shift).
BLOCK_SIZE = 1024
_BLOCK_SHIFT = BLOCK_SIZE.bit_length() - 1


def _block_sets(grouped: Mapping[str, list[int]]) -> dict[str, dict[int, int]]:
    """Per token: block number -> bit set of the token's positions within that block."""
    out: dict[str, dict[int, int]] = {}
    for token, found in grouped.items():
        blocks: dict[int, int] = {}
        for pos in found:
            block = pos >> _BLOCK_SHIFT
            blocks[block] = blocks.get(block, 0) | (1 << (pos - (block << _BLOCK_SHIFT)))
        out[token] = blocks
    return out


@dataclass(frozen=True, slots=True)
class PassageIndex:
    """A passage's tokens prepared for many :func:`align` calls.

    ``positions`` maps each token to its ascending positions, ``blocks`` to the same
    positions as bit sets cut into blocks of :data:`BLOCK_SIZE` positions;
    ``marker_positions`` lists the positions of polarity markers. Build it once per
    passage with :meth:`of` (or :meth:`from_text`) and reuse it for every claim.
    """

    tokens: tuple[str, ...]
    positions: Mapping[str, tuple[int, ...]] = field(repr=False)
    blocks: Mapping[str, Mapping[int, int]] = field(repr=False)
    marker_positions: tuple[int, ...] = field(repr=False)

    @classmethod
    def of(cls, tokens: Sequence[str]) -> PassageIndex:
        """Index already tokenized passage tokens."""
        grouped: dict[str, list[int]] = {}
        for pos, token in enumerate(tokens):
            grouped.setdefault(token, []).append(pos)
        markers = sorted(
            pos for token in POLARITY_MARKERS.intersection(grouped) for pos in grouped[token]
        )
        return cls(
            tokens=tuple(tokens),
            positions={token: tuple(found) for token, found in grouped.items()},
            blocks=_block_sets(grouped),
            marker_positions=tuple(markers),
        )

    @classmethod
    def from_text(cls, text: str, matcher: AliasMatcher | None = None) -> PassageIndex:
        """Tokenize ``text`` (v2 tokens) and index it."""
        return cls.of(tokenize(text, matcher))

    def markers_in(self, span: Span) -> int:
        """How many polarity markers lie in ``span`` (with multiplicity)."""
        found = self.marker_positions
        return bisect_left(found, span.end) - bisect_left(found, span.start)


def _as_index(passage: PassageIndex | Sequence[str]) -> PassageIndex:
    return passage if isinstance(passage, PassageIndex) else PassageIndex.of(passage)


def _window(blocks: Mapping[int, int], lo: int) -> int:
    """Positions ``lo .. lo + MAX_TOTAL_GAP`` of a token as a bit mask over offsets."""
    block = lo >> _BLOCK_SHIFT
    offset = lo - (block << _BLOCK_SHIFT)
    mask = blocks.get(block, 0) >> offset
    if offset > BLOCK_SIZE - 1 - MAX_TOTAL_GAP:
        mask |= blocks.get(block + 1, 0) << (BLOCK_SIZE - offset)
    return mask & _WINDOW


def _min_end(
    claim: Sequence[str], blocks: Mapping[str, Mapping[int, int]], start: int
) -> int | None:
    """Smallest exclusive end of an alignment whose first token sits at ``start``.

    State: claim token j sits at passage position ``start + j + d`` with d in
    0..MAX_TOTAL_GAP (d is the total gap used so far), kept as a bit mask over d.
    Going from token j-1 at offset d' to token j at offset d skips d - d' tokens,
    which must lie in 0..MAX_SINGLE_GAP.
    """
    reach = 1  # token 0 at offset 0
    for j in range(1, len(claim)):
        reach = _SPREAD[reach] & _window(blocks[claim[j]], start + j)
        if not reach:
            return None
    lowest = (reach & -reach).bit_length() - 1
    return start + len(claim) + lowest


def _starts(claim: Sequence[str], index: PassageIndex) -> Iterator[int]:
    """Positions of the claim's first token, in order, whose last token can be reached."""
    positions = index.positions
    if not all(map(positions.__contains__, claim)):
        return
    tail = len(claim) - 1
    last_blocks = index.blocks[claim[-1]]
    for start in positions[claim[0]]:
        # Cheap filter: the last token must occur where the budget allows it to.
        if _window(last_blocks, start + tail):
            yield start


def _claim_marker_count(claim: Sequence[str]) -> int:
    return sum(map(POLARITY_MARKERS.__contains__, claim))


def align(claim_tokens: Sequence[str], passage: PassageIndex | Sequence[str]) -> Span | None:
    """The span the claim aligns to: the first that passes the polarity guard, else the
    first that matches, else None. An empty claim aligns nowhere."""
    if not claim_tokens:
        return None
    index = _as_index(passage)
    markers = index.marker_positions
    # With no marker in the passage every span passes the guard: nothing to count.
    claim_markers = _claim_marker_count(claim_tokens) if markers else 0
    length = len(claim_tokens)
    first: Span | None = None
    for start in _starts(claim_tokens, index):
        # A span from ``start`` covers at least ``start .. start + length``: once a first
        # span is known, a start whose cover already holds more markers than the claim
        # cannot give a span that passes the guard, so its programme is skipped.
        if (
            first is not None
            and bisect_left(markers, start + length) - bisect_left(markers, start) > claim_markers
        ):
            continue
        end = _min_end(claim_tokens, index.blocks, start)
        if end is None:
            continue
        span = Span(start, end)
        if index.markers_in(span) <= claim_markers:
            return span
        if first is None:
            first = span
    return first


def polarity_dropped(
    claim_tokens: Sequence[str], passage: PassageIndex | Sequence[str], span: Span
) -> list[MarkerLoss]:
    """Markers that occur more often in ``span`` of the passage than in the claim."""
    tokens = _as_index(passage).tokens
    in_span = Counter(t for t in tokens[span.start : span.end] if t in POLARITY_MARKERS)
    in_claim = Counter(t for t in claim_tokens if t in POLARITY_MARKERS)
    return [
        MarkerLoss(marker, in_claim[marker], count)
        for marker, count in sorted(in_span.items())
        if count > in_claim[marker]
    ]


def check_support(claim_tokens: Sequence[str], passage: PassageIndex | Sequence[str]) -> Support:
    """The v2 verdict on token sequences, with the span and any dropped markers."""
    if not claim_tokens:
        return Support(False, "empty_claim")
    index = _as_index(passage)
    span = align(claim_tokens, index)
    if span is None:
        return Support(False, "not_contained")
    # No marker in the span: nothing can be dropped (skips counting on the common path).
    dropped = polarity_dropped(claim_tokens, index, span) if index.markers_in(span) else []
    if dropped:
        return Support(False, "marker_dropped", span, tuple(dropped))
    return Support(True, "supported", span)


def is_supported_v2(claim: str, passage: str, matcher: AliasMatcher | None = None) -> bool:
    """The v2 predicate on raw text: the claim's tokens occur in the passage in order, with
    gaps of at most ``MAX_SINGLE_GAP`` tokens and ``MAX_TOTAL_GAP`` in all, and no polarity
    marker of the passage is lost inside the matched span."""
    return check_support(tokenize(claim, matcher), tokenize(passage, matcher)).supported


def is_supported_v1(claim: str, passage: str) -> bool:
    """The old predicate, kept for comparison only: every claim token occurs in the passage."""
    return set(tokenize_v1(claim)) <= set(tokenize_v1(passage))
