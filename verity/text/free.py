"""Free text (no declared variation), what ``check-answer`` calls: an answer sentence must
equal a run of whole coordinate clauses of one passage sentence
(:func:`check_free_sentence`). Part of the v4 predicate (:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.reader import plain_text, reader_issue
from verity.text.scan import _OTHER, MARKERS, _key, _scan, sentence_key
from verity.text.segment import split_sentences
from verity.text.support import _deleted, _joins, _readable

__all__ = [
    "FreeReason",
    "FreeSentence",
    "FreeVerdict",
    "check_free_sentence",
    "free_sentences",
    "is_supported",
]

# --- free text (no declared variation) ---------------------------------------------------------

FreeReason = Literal[
    "supported",
    "unreadable",
    "empty_claim",
    "not_contained",
    "undeclared_deletion",
    "clause_cut",
    "marker_dropped",
]

#: How close a free-text failure came (higher is closer).
FREE_PROGRESS: Mapping[str, int] = {
    "unreadable": 0,
    "empty_claim": 0,
    "not_contained": 1,
    "undeclared_deletion": 2,
    "clause_cut": 3,
    "marker_dropped": 4,
    "supported": 5,
}


@dataclass(frozen=True, slots=True)
class FreeSentence:
    """One passage sentence prepared for free-text checks: tokens and clause bounds."""

    text: str
    tokens: tuple[str, ...]
    kinds: tuple[int, ...]
    #: Token positions where a coordinate clause starts, and where one ends (exclusive).
    starts: tuple[int, ...]
    ends: frozenset[int]

    @classmethod
    def of(cls, text: str, matcher: AliasMatcher | None = None) -> FreeSentence:
        scanned = _scan(text, matcher)
        tokens = _key(scanned.tokens)
        starts = [0]
        ends = {len(tokens)}
        for end, nxt in _joins(tokens):
            ends.add(end)
            starts.append(nxt)
        return cls(text, tokens, scanned.kinds[: len(tokens)], tuple(starts), frozenset(ends))


def free_sentences(text: str, matcher: AliasMatcher | None = None) -> tuple[FreeSentence, ...]:
    """A passage as free-text sentences (entity-aware segmenter)."""
    pieces = split_sentences(text, matcher) or ([text.strip()] if text.strip() else [])
    return tuple(FreeSentence.of(piece, matcher) for piece in pieces)


class FreeVerdict(NamedTuple):
    """The verdict of one answer sentence against one passage sentence."""

    supported: bool
    reason: FreeReason
    start: int = 0
    end: int = 0
    detail: str = ""


def _has_marker(tokens: Sequence[str]) -> str | None:
    return next((t for t in tokens if t in MARKERS), None)


def _free_at(key: tuple[str, ...], sentence: FreeSentence, start: int) -> FreeVerdict:
    """The verdict when ``key`` occurs in ``sentence`` at ``start``."""
    tokens = sentence.tokens
    end = start + len(key)
    if start not in sentence.starts or end not in sentence.ends:
        return FreeVerdict(False, "clause_cut", start, end, "does not run from clause to clause")
    head = tokens[:start]
    if start:
        clause = tokens[: start - (1 if tokens[start - 1] == ";" else 2)]
        if any(k == _OTHER for k in sentence.kinds[: len(clause)]):
            return FreeVerdict(
                False, "clause_cut", start, end, "drops a clause with a fronted phrase"
            )
    lost = _has_marker(head) or _has_marker(tokens[end:])
    if lost is not None:
        return FreeVerdict(False, "marker_dropped", start, end, f"drops a clause holding {lost!r}")
    return FreeVerdict(True, "supported", start, end)


def check_free_sentence(key: tuple[str, ...], sentence: FreeSentence) -> FreeVerdict:
    """One answer sentence (its :func:`sentence_key`) against one passage sentence."""
    if not key:
        return FreeVerdict(False, "empty_claim")
    tokens = sentence.tokens
    best: FreeVerdict | None = None
    size = len(key)
    for start in range(len(tokens) - size + 1):
        if tokens[start : start + size] == key:
            verdict = _free_at(key, sentence, start)
            if verdict.supported:
                return verdict
            if best is None or FREE_PROGRESS[verdict.reason] > FREE_PROGRESS[best.reason]:
                best = verdict
    if best is not None:
        return best
    skipped = _deleted(key, tokens)
    if skipped is not None:
        lost = [tokens[i] for i in skipped if tokens[i] in MARKERS]
        words = _readable(tokens[i] for i in skipped)
        if lost:
            return FreeVerdict(False, "marker_dropped", detail=f"drops {' '.join(lost)!r}")
        return FreeVerdict(False, "undeclared_deletion", detail=f"drops {words!r}")
    return FreeVerdict(False, "not_contained")


def is_supported(claim: str, passage: str, matcher: AliasMatcher | None = None) -> bool:
    """The v4 predicate on free text (what ``check-answer`` applies): every sentence of
    ``claim`` equals, after the universal equivalences (contractions, case, number
    formats), a run of whole coordinate clauses of one sentence of ``passage`` (split at
    ``;`` and ``, and``); nothing inside is deleted, no dropped clause holds a polarity or
    condition marker, and text a reader sees differently is refused (emphasis and a list
    bullet are read as the plain words: :func:`verity.text.reader.plain_text`)."""
    claim = plain_text(claim)
    if reader_issue(claim) is not None:
        return False
    prepared = free_sentences(passage, matcher)
    pieces = split_sentences(claim, matcher) or ([claim.strip()] if claim.strip() else [])
    if not pieces:
        return False
    for piece in pieces:
        key = sentence_key(piece, matcher)
        if not any(check_free_sentence(key, s).supported for s in prepared):
            return False
    return True
