"""The public text predicates, as Python functions with their documentation.

:mod:`verity.text.align` (v1, v2) and :mod:`verity.text.variation` (v4) define them; the
wheel compiles :mod:`verity.text.align` with mypyc (``setup.py``), whose functions carry no
docstrings, so ``verity`` exports these.
"""

from __future__ import annotations

from verity.text import align, variation
from verity.text.aliases import AliasMatcher

__all__ = ["is_supported", "is_supported_v2"]


def is_supported_v2(claim: str, passage: str, matcher: AliasMatcher | None = None) -> bool:
    """The v2 predicate on raw text: the claim's tokens occur in the passage in order, with
    gaps of at most ``MAX_SINGLE_GAP`` tokens and ``MAX_TOTAL_GAP`` in all, and no polarity
    marker of the passage is lost inside the matched span."""
    return align.is_supported_v2(claim, passage, matcher)


def is_supported(claim: str, passage: str, matcher: AliasMatcher | None = None) -> bool:
    """The v4 predicate on free text (what ``check-answer`` applies): every sentence of
    ``claim`` equals, after the universal equivalences (contractions, case, number
    formats), a run of whole coordinate clauses of one sentence of ``passage`` (split at
    ``;`` and ``, and``); nothing inside is deleted, no dropped clause holds a polarity or
    condition marker, and text a reader sees differently is refused."""
    return variation.is_supported(claim, passage, matcher)
