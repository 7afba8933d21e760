"""Checking a free-text answer against passages, one atomic sentence at a time.

:func:`check_answer` splits the answer with the guarded segmenter
(:func:`verity.segment.split_sentences`) and keeps a sentence when at least one
passage supports it under the v2 predicate (:mod:`verity.align`). Unsupported
sentences are removed (drop, not fail); when none survives the answer becomes the
pinned refusal.

For a removed sentence the result names the closest passage: the first passage
where the sentence aligned but lost a polarity marker, otherwise the passage that
holds the most of the sentence's tokens (counted with multiplicity), the first on
ties; ``None`` when no passage shares a token with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verity.aliases import AliasMatcher
from verity.align import MarkerLoss, PassageIndex, Reason, Span, Support, check_support
from verity.errors import InputError
from verity.refusal import REFUSAL
from verity.segment import split_sentences
from verity.text import tokenize

__all__ = [
    "ANSWER_RESULT_FORMAT",
    "AnswerResult",
    "ClaimCheck",
    "Passage",
    "check_answer",
    "coerce_passages",
]

ANSWER_RESULT_FORMAT = "verity.answer_result/1"


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage an answer may rest on: an id and its text."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """The verdict on one atomic sentence of the answer.

    ``passage_id`` names the supporting passage of a supported sentence and ``span``
    the matched passage token positions; ``closest_passage_id`` and ``dropped``
    explain a removed one (``span`` is then the span in the closest passage that lost
    a marker, if any).
    """

    text: str
    supported: bool
    reason: Reason
    passage_id: str | None = None
    span: Span | None = None
    closest_passage_id: str | None = None
    dropped: tuple[MarkerLoss, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "supported": self.supported,
            "reason": self.reason,
            "passage_id": self.passage_id,
            "span": None if self.span is None else self.span.to_dict(),
            "closest_passage_id": self.closest_passage_id,
            "dropped": [loss.to_dict() for loss in self.dropped],
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


def _overlap(claim: Counter[str], index: PassageIndex) -> int:
    return sum(min(count, len(index.positions.get(token, ()))) for token, count in claim.items())


def _check_sentence(
    sentence: str,
    prepared: Sequence[tuple[Passage, PassageIndex]],
    matcher: AliasMatcher | None,
) -> ClaimCheck:
    tokens = tokenize(sentence, matcher)
    if not tokens:
        return ClaimCheck(sentence, False, "empty_claim")
    first_dropped: tuple[Passage, Support] | None = None
    for passage, index in prepared:
        support = check_support(tokens, index)
        if support.supported:
            return ClaimCheck(sentence, True, "supported", passage.id, support.span)
        if support.reason == "marker_dropped" and first_dropped is None:
            first_dropped = (passage, support)
    if first_dropped is not None:
        passage, support = first_dropped
        return ClaimCheck(
            sentence,
            False,
            "marker_dropped",
            span=support.span,
            closest_passage_id=passage.id,
            dropped=support.dropped,
        )
    wanted = Counter(tokens)
    best_id: str | None = None
    best = 0
    for passage, index in prepared:
        score = _overlap(wanted, index)
        if score > best:
            best_id, best = passage.id, score
    return ClaimCheck(sentence, False, "not_contained", closest_passage_id=best_id)


def check_answer(
    answer: str,
    passages: Sequence[Passage | Mapping[str, object]],
    *,
    matcher: AliasMatcher | None = None,
) -> AnswerResult:
    """Check every atomic sentence of ``answer`` against ``passages`` (v2 predicate).

    ``matcher`` optionally maps entity aliases to ids in both answer and passages.
    """
    if not isinstance(answer, str):
        raise InputError("the answer must be a string")
    prepared = [(p, PassageIndex.from_text(p.text, matcher)) for p in coerce_passages(passages)]
    claims = tuple(_check_sentence(s, prepared, matcher) for s in split_sentences(answer))
    kept = [claim.text for claim in claims if claim.supported]
    return AnswerResult(
        claims=claims,
        unsupported_claims_removed=len(claims) - len(kept),
        all_claims_verified=bool(claims) and len(kept) == len(claims),
        answer=" ".join(kept) if kept else REFUSAL,
        refused=not kept,
    )
