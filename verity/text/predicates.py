"""The public text predicates, as Python functions with their documentation.

:mod:`verity.text.align` and :mod:`verity.text.align_v3` define them; the wheel compiles
those modules with mypyc (``setup.py``), whose functions carry no docstrings, so
``verity`` exports these.
"""

from __future__ import annotations

from collections.abc import Sequence

from verity.text import align, align_v3
from verity.text.aliases import AliasMatcher

__all__ = ["is_supported_v1", "is_supported_v2", "is_supported_v3"]


def is_supported_v1(claim: str, passage: str) -> bool:
    """The old predicate, kept for comparison only: every claim token occurs in the passage
    (a bag of words: it accepts role inversions, deleted negations and swapped values)."""
    return align.is_supported_v1(claim, passage)


def is_supported_v2(claim: str, passage: str, matcher: AliasMatcher | None = None) -> bool:
    """The v2 predicate on raw text: the claim's tokens occur in the passage in order, with
    gaps of at most ``MAX_SINGLE_GAP`` tokens and ``MAX_TOTAL_GAP`` in all, and no polarity
    marker of the passage is lost inside the matched span."""
    return align.is_supported_v2(claim, passage, matcher)


def is_supported_v3(
    claim: str,
    passage: str,
    matcher: AliasMatcher | None = None,
    required_spans: Sequence[str] = (),
) -> bool:
    """The v3 predicate on raw text: one claim sentence against one passage (ordered
    gap-bounded containment in one passage sentence, the v3 markers kept, the required
    spans of that sentence inside the match)."""
    return align_v3.is_supported_v3(claim, passage, matcher, required_spans)
