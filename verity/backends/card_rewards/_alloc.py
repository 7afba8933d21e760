"""Exact allocation of a profile's spend over a fixed set of held cards.

Once the held cards are fixed, the MILP falls apart into one small problem per
category: put each dollar where it earns the most. Sorting the card segments by
value per dollar (ties: catalog order, then the within-cap segment first) and
filling them in that order solves it exactly, in :class:`~decimal.Decimal`. The
solver chooses the cards; this module gives the allocation, its value and the
piecewise-linear earnings curves that thresholds are read from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise

from verity.backends.card_rewards._catalog import CATEGORIES, Card

__all__ = [
    "ABOVE",
    "WITHIN",
    "Piece",
    "Segment",
    "allocate",
    "breakpoints",
    "category_earnings",
    "cents",
    "crossing_down",
    "crossing_up",
    "earnings_over",
    "kinks_over",
    "segments",
    "wallet_earnings",
]

WITHIN = "within"
ABOVE = "above"
_CENT = Decimal("0.01")


def cents(amount: Decimal) -> Decimal:
    """``amount`` rounded to cents, halves away from zero."""
    return amount.quantize(_CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True, slots=True)
class Segment:
    """Spend of one category on one card at one rate; ``limit`` None means unlimited."""

    card: Card
    category: str
    kind: str
    rate: Decimal
    limit: Decimal | None

    @property
    def per_dollar(self) -> Decimal:
        """Dollars of value earned per dollar of spend."""
        return self.card.dollar_value(self.rate)

    @property
    def cap(self) -> Decimal | None:
        """The card's cap in this category, if it has one."""
        cap = self.card.caps.get(self.category)
        return None if cap is None else cap.limit


@dataclass(frozen=True, slots=True)
class Piece:
    """An amount of spend placed on a segment, with its exact and rounded value."""

    segment: Segment
    amount: Decimal

    @property
    def exact_value(self) -> Decimal:
        """Value in dollars, unrounded."""
        return self.amount * self.segment.per_dollar

    @property
    def value(self) -> Decimal:
        """Value in dollars, rounded to cents."""
        return cents(self.exact_value)


def _card_segments(card: Card, category: str) -> list[Segment]:
    rate = card.rates[category]
    cap = card.caps.get(category)
    if cap is None:
        return [Segment(card, category, WITHIN, rate, None)]
    return [
        Segment(card, category, WITHIN, rate, cap.limit),
        Segment(card, category, ABOVE, cap.rate_above, None),
    ]


def segments(cards: Sequence[Card], category: str) -> list[Segment]:
    """Segments of ``cards`` (catalog order) in ``category``, best value per dollar first."""
    indexed = [
        (i, j, seg)
        for i, card in enumerate(cards)
        for j, seg in enumerate(_card_segments(card, category))
    ]
    indexed.sort(key=lambda t: (-t[2].per_dollar, t[0], t[1]))
    return [seg for _, _, seg in indexed]


def _fill(ordered: Iterable[Segment], amount: Decimal) -> list[Piece]:
    pieces: list[Piece] = []
    left = amount
    for seg in ordered:
        if left <= 0:
            break
        take = left if seg.limit is None else min(left, seg.limit)
        pieces.append(Piece(seg, take))
        left -= take
    return pieces


def allocate(cards: Sequence[Card], spend: Mapping[str, Decimal]) -> list[Piece]:
    """The best allocation over ``cards``: pieces in category order, then fill order.

    Spend that no card can take (an empty wallet) is left unallocated.
    """
    return [p for category in CATEGORIES for p in _fill(segments(cards, category), spend[category])]


def earnings_over(ordered: Sequence[Segment], amount: Decimal) -> Decimal:
    """Exact value earned on ``amount`` filled into ``ordered`` (a :func:`segments` list)."""
    return sum((p.exact_value for p in _fill(ordered, amount)), Decimal(0))


def category_earnings(cards: Sequence[Card], category: str, amount: Decimal) -> Decimal:
    """Exact value earned on ``amount`` of ``category`` spend over ``cards``."""
    return earnings_over(segments(cards, category), amount)


def wallet_earnings(cards: Sequence[Card], spend: Mapping[str, Decimal]) -> Decimal:
    """Exact value earned on all of ``spend`` over ``cards`` (fees not deducted)."""
    return sum((category_earnings(cards, c, spend[c]) for c in CATEGORIES), Decimal(0))


def breakpoints(cards: Sequence[Card], category: str) -> list[Decimal]:
    """Spend levels where the earnings curve of ``category`` changes slope."""
    return kinks_over(segments(cards, category))


def kinks_over(ordered: Sequence[Segment]) -> list[Decimal]:
    """Spend levels where the earnings curve over ``ordered`` (a :func:`segments` list)
    changes slope."""
    points: list[Decimal] = []
    total = Decimal(0)
    for seg in ordered:
        if seg.limit is None:
            break
        total += seg.limit
        points.append(total)
    return points


Curve = Callable[[Decimal], Decimal]


def crossing_up(f: Curve, start: Decimal, kinks: Iterable[Decimal]) -> Decimal | None:
    """Least ``s >= start`` beyond which the piecewise-linear ``f`` turns positive.

    ``f`` is linear between consecutive ``kinks`` and after the last one; ``f(start)``
    is at most zero. None when ``f`` stays at or below zero for ever.
    """
    points = [start, *sorted(k for k in set(kinks) if k > start)]
    for a, b in pairwise(points):
        fa, fb = f(a), f(b)
        if fb > 0:
            return a if fa >= 0 else a + (-fa) * (b - a) / (fb - fa)
    last = points[-1]
    f_last = f(last)
    slope = f(last + 1) - f_last
    if slope <= 0:
        return None
    return last if f_last >= 0 else last + (-f_last) / slope


def crossing_down(f: Curve, start: Decimal, kinks: Iterable[Decimal]) -> Decimal | None:
    """Greatest ``s`` in ``[0, start)`` where ``f`` (negative at ``start``) reaches zero.

    ``f`` is linear between consecutive ``kinks``. None when ``f`` stays negative
    all the way down to zero spend.
    """
    points = [start, *sorted((k for k in set(kinks) if 0 < k < start), reverse=True)]
    if start > 0:
        points.append(Decimal(0))
    for a, b in pairwise(points):
        fa, fb = f(a), f(b)
        if fb >= 0:
            return b if fb == 0 else b + fb * (a - b) / (fb - fa)
    return None
