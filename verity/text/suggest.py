"""Close-match suggestions for error messages, equal to :func:`difflib.get_close_matches`.

The gates suggest the nearest valid ids, entities or numbers when a claim names an
unknown one. ``difflib.get_close_matches`` scores every candidate with
``SequenceMatcher.ratio()``, which dominates the cost of a rejected claim. This module
returns the very same list, faster. ``ratio()`` is ``2 * M / T`` where ``M`` counts the
characters of its matching blocks; those blocks form a common subsequence, so the
longest common subsequence (computed bit-parallel, a few integer operations per
character) bounds ``M`` from above. Candidates are ranked by that bound and the exact
ratio is computed only while a candidate can still enter the top ``n``.
:meth:`Candidates.nearest` also remembers the last :data:`MEMO_SIZE` answers, since a
narrator tends to repeat the same wrong id or number.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

__all__ = ["Candidates", "close_matches"]


#: Answers remembered, over all candidate sets (a bounded LRU cache).
MEMO_SIZE = 4096


@dataclass(frozen=True, slots=True, eq=False)
class Candidates:
    """Candidate strings, sorted (the order ``get_close_matches`` is given them in).

    Compared and hashed by identity: one object per candidate set (one per graph and
    kind of name), which keys the remembered answers.
    """

    items: tuple[str, ...]

    @classmethod
    def of(cls, choices: Iterable[str]) -> Candidates:
        return cls(tuple(sorted(choices)))

    def nearest(self, word: str, n: int = 3, cutoff: float = 0.5) -> list[str]:
        """:func:`close_matches` of ``word``, remembered."""
        return list(_remembered(word, self, n, cutoff))


@lru_cache(maxsize=MEMO_SIZE)
def _remembered(word: str, candidates: Candidates, n: int, cutoff: float) -> tuple[str, ...]:
    return tuple(close_matches(word, candidates, n, cutoff))


def _ratio(matches: int, length: int) -> float:
    """``difflib._calculate_ratio``: the same float for the same integers."""
    return 2.0 * matches / length if length else 1.0


def _lcs_masks(word: str) -> dict[str, int]:
    masks: dict[str, int] = {}
    for i, char in enumerate(word):
        masks[char] = masks.get(char, 0) | (1 << i)
    return masks


def _lcs(masks: dict[str, int], size: int, x: str) -> int:
    """Length of the longest common subsequence of ``x`` and the word (Allison-Dix)."""
    full = (1 << size) - 1
    v = full
    for char in x:
        u = v & masks.get(char, 0)
        v = ((v + u) | (v - u)) & full
    return size - v.bit_count()


def _bounds(word: str, candidates: Candidates, cutoff: float) -> list[tuple[float, str]]:
    """(upper bound of ratio, candidate) for every candidate whose bound reaches ``cutoff``."""
    masks = _lcs_masks(word)
    size = len(word)
    out: list[tuple[float, str]] = []
    for x in candidates.items:
        length = len(x) + size
        if _ratio(min(len(x), size), length) < cutoff:
            continue  # difflib's real_quick_ratio
        bound = _ratio(_lcs(masks, size, x), length)
        if bound >= cutoff:
            out.append((bound, x))
    return out


def close_matches(word: str, candidates: Candidates, n: int = 3, cutoff: float = 0.5) -> list[str]:
    """The result of ``difflib.get_close_matches(word, candidates.items, n, cutoff)``."""
    bounds = _bounds(word, candidates, cutoff)
    bounds.sort(key=lambda item: item[0], reverse=True)
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # a min-heap of the n best (score, candidate)
    for bound, x in bounds:
        if len(best) == n and bound < best[0][0]:
            break  # every remaining ratio is at most its bound: none can enter the top n
        matcher.set_seq1(x)
        score = matcher.ratio()
        if score < cutoff:
            continue
        if len(best) < n:
            heapq.heappush(best, (score, x))
        elif (score, x) > best[0]:
            heapq.heapreplace(best, (score, x))
    return [x for _, x in sorted(best, reverse=True)]
