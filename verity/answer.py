"""Checking a free-text answer against passages, one atomic sentence at a time.

:func:`check_answer` splits the answer with the guarded segmenter
(:func:`verity.text.segment.split_sentences`) and keeps a sentence when one sentence of
one passage supports it under the v4 free-text rule
(:func:`verity.text.variation.check_free_sentence`): after the universal equivalences the
answer sentence equals a run of whole coordinate clauses of the passage sentence (split at
``;`` and ``, and``), with nothing deleted inside, and no dropped clause holds a polarity
or condition marker. Text a reader sees differently (line breaks, control characters,
markup...) is refused. Unsupported sentences are removed (drop, not fail); when none
survives the answer becomes the pinned refusal. The kept sentences are joined so that no
sentence forms across two of them (:func:`verity.text.segment.join_sentences`).

For a removed sentence the result names the closest passage: the passage whose verdict
got furthest (in order: not contained, a deletion inside, a clause cut, a clause with a
marker dropped), the first on ties; when no passage contains the sentence at all, the
passage that holds the most of the sentence's tokens (counted with multiplicity);
``None`` when no passage shares a token with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verity.errors import InputError
from verity.formats import ANSWER_RESULT_FORMAT, REFUSAL
from verity.text.aliases import AliasMatcher
from verity.text.align import Span
from verity.text.reader import reader_issue
from verity.text.segment import join_sentences, split_sentences
from verity.text.variation import (
    FREE_PROGRESS,
    FreeReason,
    FreeSentence,
    FreeVerdict,
    check_free_sentence,
    free_sentences,
    sentence_key,
)

__all__ = [
    "ANSWER_RESULT_FORMAT",
    "AnswerResult",
    "ClaimCheck",
    "Passage",
    "check_answer",
    "coerce_passages",
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
    ``span`` the matched token positions within that sentence; ``closest_passage_id`` and
    ``detail`` explain a removed one (``span`` is then the span in the closest passage
    that got furthest, if any).
    """

    text: str
    supported: bool
    reason: FreeReason
    passage_id: str | None = None
    span: Span | None = None
    closest_passage_id: str | None = None
    #: What failed, in words (the reader issue, the words or clause dropped).
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


def _overlap(claim: Counter[str], passage: Sequence[FreeSentence]) -> int:
    have = Counter(t for sentence in passage for t in sentence.tokens)
    return sum(min(count, have[token]) for token, count in claim.items())


def _best_in(
    key: tuple[str, ...], sentences: Sequence[FreeSentence]
) -> tuple[int, FreeVerdict] | None:
    """(sentence index, verdict): the supporting sentence, else the closest failure."""
    best: tuple[int, FreeVerdict] | None = None
    for n, sentence in enumerate(sentences):
        verdict = check_free_sentence(key, sentence)
        if verdict.supported:
            return n, verdict
        if best is None or FREE_PROGRESS[verdict.reason] > FREE_PROGRESS[best[1].reason]:
            best = (n, verdict)
    return best


def _check_sentence(
    sentence: str,
    prepared: Sequence[tuple[Passage, tuple[FreeSentence, ...]]],
    matcher: AliasMatcher | None,
) -> ClaimCheck:
    issue = reader_issue(sentence)
    if issue is not None:
        return ClaimCheck(sentence, False, "unreadable", detail=f"{issue[0]}: {issue[1]!r}")
    key = sentence_key(sentence, matcher)
    if not any(ch.isalnum() for ch in sentence):  # punctuation alone states nothing
        return ClaimCheck(sentence, False, "empty_claim")
    best: tuple[Passage, int, FreeVerdict] | None = None
    for passage, sentences in prepared:
        found = _best_in(key, sentences)
        if found is None:
            continue
        n, verdict = found
        span = Span(verdict.start, verdict.end) if verdict.end else None
        if verdict.supported:
            return ClaimCheck(sentence, True, "supported", passage.id, span, passage_sentence=n)
        if best is None or FREE_PROGRESS[verdict.reason] > FREE_PROGRESS[best[2].reason]:
            best = (passage, n, verdict)
    if best is not None and best[2].reason != "not_contained":
        passage, n, verdict = best
        return ClaimCheck(
            sentence,
            False,
            verdict.reason,
            span=Span(verdict.start, verdict.end) if verdict.end else None,
            closest_passage_id=passage.id,
            detail=verdict.detail,
            passage_sentence=n,
        )
    wanted = Counter(key)
    best_id: str | None = None
    best_score = 0
    for passage, sentences in prepared:
        score = _overlap(wanted, sentences)
        if score > best_score:
            best_id, best_score = passage.id, score
    return ClaimCheck(sentence, False, "not_contained", closest_passage_id=best_id)


def check_answer(
    answer: str,
    passages: Sequence[Passage | Mapping[str, object]],
    *,
    matcher: AliasMatcher | None = None,
) -> AnswerResult:
    """Check every atomic sentence of ``answer`` against ``passages`` (v4 free-text rule).

    ``matcher`` optionally maps entity aliases to ids in both answer and passages.
    """
    if not isinstance(answer, str):
        raise InputError("the answer must be a string")
    prepared = [(p, free_sentences(p.text, matcher)) for p in coerce_passages(passages)]
    claims = tuple(_check_sentence(s, prepared, matcher) for s in split_sentences(answer, matcher))
    kept = [claim.text for claim in claims if claim.supported]
    return AnswerResult(
        claims=claims,
        unsupported_claims_removed=len(claims) - len(kept),
        all_claims_verified=bool(claims) and len(kept) == len(claims),
        answer=join_sentences(kept) if kept else REFUSAL,
        refused=not kept,
    )
