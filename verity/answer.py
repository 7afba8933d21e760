"""Checking a free-text answer against passages, one atomic sentence at a time.

:func:`check_answer` splits the answer with the guarded segmenter
(:func:`verity.text.segment.split_sentences`) and keeps a sentence when at least one
passage supports it under the v2 predicate (:mod:`verity.text.align`). Unsupported
sentences are removed (drop, not fail); when none survives the answer becomes the
pinned refusal. Support is the v3 predicate (:mod:`verity.text.align_v3`): each passage is
split into sentences and a sentence of the answer must be supported by one of them.
A sentence joining two facts with ``and`` is also read as its two facts
(:func:`verity.text.align_v3.readings`). The kept sentences are joined so that no sentence
forms across two of them (:func:`join_sentences`).

For a removed sentence the result names the closest passage: the passage whose verdict
got furthest (v3 reasons, in order: not contained, a gap across a barrier, not
anchored, a required span dropped, a marker dropped, a marker's object cut), the first
on ties; when no passage contains the sentence at all, the passage that holds the most
of the sentence's tokens (counted with multiplicity); ``None`` when no passage shares a
token with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verity.errors import InputError
from verity.formats import ANSWER_RESULT_FORMAT, REFUSAL
from verity.text.aliases import AliasMatcher
from verity.text.align import MarkerLoss, Span
from verity.text.align_v3 import (
    PROGRESS,
    ClaimV3,
    PassageV3,
    ReasonV3,
    SupportV3,
    _rules_now,
    check_claim_v3,
    reader_issue,
    readings,
)
from verity.text.segment import split_sentences

__all__ = [
    "ANSWER_RESULT_FORMAT",
    "AnswerResult",
    "ClaimCheck",
    "Passage",
    "check_answer",
    "coerce_passages",
    "join_sentences",
]


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage an answer may rest on: an id and its text."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """The verdict on one atomic sentence of the answer.

    ``passage_id`` names the supporting passage of a supported sentence,
    ``passage_sentence`` the index of the sentence of that passage that supports it and
    ``span`` the matched v3 token positions within that sentence; ``closest_passage_id``,
    ``dropped`` and ``detail`` explain a removed one (``span`` is then the span in the
    closest passage that got furthest, if any).
    """

    text: str
    supported: bool
    reason: ReasonV3
    passage_id: str | None = None
    span: Span | None = None
    closest_passage_id: str | None = None
    dropped: tuple[MarkerLoss, ...] = ()
    #: What failed, in words (the reader issue, the markers dropped, the span cut).
    detail: str = ""
    passage_sentence: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "supported": self.supported,
            "reason": self.reason,
            "passage_id": self.passage_id,
            "span": None if self.span is None else self.span.to_dict(),
            "closest_passage_id": self.closest_passage_id,
            "dropped": [loss.to_dict() for loss in self.dropped],
            "detail": self.detail,
            "passage_sentence": self.passage_sentence,
        }


@dataclass(frozen=True, slots=True)
class AnswerResult:
    """The checked answer: per-sentence verdicts and the answer that survives."""

    claims: tuple[ClaimCheck, ...]
    unsupported_claims_removed: int
    all_claims_verified: bool
    answer: str
    refused: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "format": ANSWER_RESULT_FORMAT,
            "claims": [claim.to_dict() for claim in self.claims],
            "unsupported_claims_removed": self.unsupported_claims_removed,
            "all_claims_verified": self.all_claims_verified,
            "answer": self.answer,
            "refused": self.refused,
        }


def coerce_passages(passages: Sequence[Passage | Mapping[str, object]]) -> list[Passage]:
    """Passages from :class:`Passage` objects or ``{"id", "text"}`` mappings.

    Ids must be non-empty strings (integers are accepted and turned into strings)
    and unique; texts must be strings. Anything else raises :class:`InputError`.
    """
    if isinstance(passages, (str, bytes)) or not isinstance(passages, Sequence):
        raise InputError('passages must be a list of {"id", "text"} objects')
    out: list[Passage] = []
    seen: set[str] = set()
    for n, item in enumerate(passages):
        passage = item if isinstance(item, Passage) else _passage_from_mapping(item, n)
        if passage.id in seen:
            raise InputError(f"passage {n}: duplicate id {passage.id!r}")
        seen.add(passage.id)
        out.append(passage)
    return out


def _passage_from_mapping(item: object, n: int) -> Passage:
    if not isinstance(item, Mapping):
        raise InputError(f'passage {n}: expected an object with "id" and "text"')
    unknown = sorted(str(key) for key in item if key not in ("id", "text"))
    if unknown:
        raise InputError(f"passage {n}: unknown field {unknown[0]!r}")
    raw_id, text = item.get("id"), item.get("text")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or raw_id == "":
        raise InputError(f'passage {n}: "id" must be a non-empty string')
    if not isinstance(text, str):
        raise InputError(f'passage {n}: "text" must be a string')
    return Passage(str(raw_id), text)


def _overlap(claim: Counter[str], passage: PassageV3) -> int:
    positions = passage.v2.positions
    return sum(min(count, len(positions.get(token, ()))) for token, count in claim.items())


def _supported_by(claim: ClaimV3, passage: PassageV3) -> SupportV3:
    """The v3 verdict of the sentence, or of one of its ``and`` readings (all parts)."""
    verdict = check_claim_v3(claim, passage)
    if verdict.supported:
        return verdict
    for parts in readings(claim):
        if all(check_claim_v3(part, passage).supported for part in parts):
            return SupportV3(True, "supported")
    return verdict


def _check_sentence(
    sentence: str,
    prepared: Sequence[tuple[Passage, PassageV3]],
    matcher: AliasMatcher | None,
) -> ClaimCheck:
    issue = reader_issue(sentence) if _rules_now().reader else None
    if issue is not None:
        return ClaimCheck(sentence, False, "unreadable", detail=f"{issue[0]}: {issue[1]!r}")
    claim = ClaimV3.of(sentence, matcher)
    if not claim.tokens:
        return ClaimCheck(sentence, False, "empty_claim")
    best: tuple[Passage, SupportV3] | None = None
    for passage, index in prepared:
        support = _supported_by(claim, index)
        if support.supported:
            span = None if support.span is None else Span(*support.span)
            return ClaimCheck(
                sentence, True, "supported", passage.id, span, passage_sentence=support.sentence
            )
        if best is None or PROGRESS[support.reason] > PROGRESS[best[1].reason]:
            best = (passage, support)
    if best is not None and best[1].reason != "not_contained":
        passage, support = best
        span = None if support.span is None else Span(*support.span)
        return ClaimCheck(
            sentence,
            False,
            support.reason,
            span=span,
            closest_passage_id=passage.id,
            dropped=support.dropped,
            detail=support.detail,
            passage_sentence=support.sentence,
        )
    wanted = Counter(claim.v2)
    best_id: str | None = None
    best_score = 0
    for passage, index in prepared:
        score = _overlap(wanted, index)
        if score > best_score:
            best_id, best_score = passage.id, score
    return ClaimCheck(sentence, False, "not_contained", closest_passage_id=best_id)


_TERMINAL = (".", "!", "?", "…", "。", "！", "？")


def join_sentences(texts: Sequence[str]) -> str:
    """Join shipped texts with one space, so that no sentence can form across two of them:
    a text that does not end with a sentence terminator gets a full stop."""
    parts = []
    for text in texts:
        text = text.strip()
        parts.append(text if text.endswith(_TERMINAL) else text + ".")
    return " ".join(parts)


def check_answer(
    answer: str,
    passages: Sequence[Passage | Mapping[str, object]],
    *,
    matcher: AliasMatcher | None = None,
) -> AnswerResult:
    """Check every atomic sentence of ``answer`` against ``passages`` (v3 predicate).

    ``matcher`` optionally maps entity aliases to ids in both answer and passages.
    """
    if not isinstance(answer, str):
        raise InputError("the answer must be a string")
    prepared = [(p, PassageV3.of(p.text, matcher)) for p in coerce_passages(passages)]
    claims = tuple(_check_sentence(s, prepared, matcher) for s in split_sentences(answer, matcher))
    kept = [claim.text for claim in claims if claim.supported]
    return AnswerResult(
        claims=claims,
        unsupported_claims_removed=len(claims) - len(kept),
        all_claims_verified=bool(claims) and len(kept) == len(claims),
        answer=join_sentences(kept) if kept else REFUSAL,
        refused=not kept,
    )
