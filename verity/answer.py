"""Checking a free-text answer against passages or an evidence graph, one sentence at a time.

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

Against a graph (``check_answer(answer, graph=...)``) each sentence is checked as strict
checks a claim sentence, with every node of the graph cited
(:func:`verity.core.gates.sentence_support`: the v4 declared variation, required spans,
templates, aggregation and joins), and the entities and numbers the graph's matcher finds
in the sentence stand in for declared ones (:func:`verity.core.gates.prose_findings`):
every entity it mentions must be one a supporting node names and every number one a
supporting node states. A removed sentence names the closest node: the one strict's
diagnosis got furthest with, or, when no node holds the sentence even with words left
out, the node whose statement shares the most of its tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from verity.errors import InputError
from verity.formats import ANSWER_RESULT_FORMAT, REFUSAL
from verity.text.aliases import AliasMatcher
from verity.text.align import Span
from verity.text.free import (
    FREE_PROGRESS,
    FreeReason,
    FreeSentence,
    FreeVerdict,
    check_free_sentence,
    free_sentences,
)
from verity.text.reader import plain_text, reader_issue, states_nothing
from verity.text.scan import sentence_key
from verity.text.segment import join_sentences, split_sentences
from verity.text.support import SentenceVerdict

if TYPE_CHECKING:  # imported when a graph is checked: pydantic loads with it
    from verity.core.graph import EvidenceGraph

__all__ = [
    "ANSWER_RESULT_FORMAT",
    "AnswerReason",
    "AnswerResult",
    "ClaimCheck",
    "Passage",
    "check_answer",
    "coerce_passages",
]

#: Why a sentence was kept or removed: the free-text reasons (passages), and against a
#: graph strict's v4 reasons and the two mention barriers.
AnswerReason = (
    FreeReason
    | Literal[
        "variant_not_declared",
        "required_span_dropped",
        "aggregation_mismatch",
        "scope_carried",
        "entity_not_stated",
        "number_not_stated",
    ]
)


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

    Against a graph, ``node_ids`` names the nodes that support a kept sentence (empty for
    a removed one) and ``closest_node_id`` the closest node of a removed one; the passage
    fields are then unused and :meth:`to_dict` leaves them out. ``node_ids`` is None for
    a check against passages.
    """

    text: str
    supported: bool
    reason: AnswerReason
    passage_id: str | None = None
    span: Span | None = None
    closest_passage_id: str | None = None
    #: What failed, in words (the reader issue, the words or clause dropped).
    detail: str = ""
    passage_sentence: int | None = None
    node_ids: tuple[str, ...] | None = None
    closest_node_id: str | None = None
    #: Against a graph, for a removed sentence: the declared sentence nearest to it.
    expected: str = ""

    def to_dict(self) -> dict[str, object]:
        if self.node_ids is not None:
            return {
                "text": self.text,
                "supported": self.supported,
                "reason": self.reason,
                "node_ids": list(self.node_ids),
                "closest_node_id": self.closest_node_id,
                "detail": self.detail,
                "expected": self.expected,
            }
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
    """The checked answer: per-sentence verdicts and the answer that survives.

    ``graph_id`` names the graph the answer was checked against (None for passages).
    """

    claims: tuple[ClaimCheck, ...]
    unsupported_claims_removed: int
    all_claims_verified: bool
    answer: str
    refused: bool
    graph_id: str | None = None

    def to_dict(self) -> dict[str, object]:
        head: dict[str, object] = {"format": ANSWER_RESULT_FORMAT}
        if self.graph_id is not None:
            head["graph_id"] = self.graph_id
        return {
            **head,
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
    if states_nothing(sentence):
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
    passages: Sequence[Passage | Mapping[str, object]] | None = None,
    *,
    graph: EvidenceGraph | Mapping[str, Any] | str | Path | None = None,
    matcher: AliasMatcher | None = None,
) -> AnswerResult:
    """Check every atomic sentence of ``answer`` against ``passages`` (the v4 free-text
    rule) or against the evidence ``graph`` (strict's sentence check; a path, a dict or
    an :class:`~verity.core.graph.EvidenceGraph`). Give exactly one of the two.

    ``matcher`` optionally maps entity aliases to ids in both answer and passages (a
    graph brings its own).
    """
    if not isinstance(answer, str):
        raise InputError("the answer must be a string")
    if graph is not None:
        if passages is not None:
            raise InputError("check an answer against passages or against a graph, not both")
        if matcher is not None:
            raise InputError("a matcher applies to passages; a graph brings its own")
        return _check_against_graph(answer, graph)
    if passages is None:
        raise InputError("check an answer against passages or against a graph: give one")
    prepared = [(p, free_sentences(p.text, matcher)) for p in coerce_passages(passages)]
    sentences = split_sentences(plain_text(answer), matcher)
    claims = tuple(_check_sentence(s, prepared, matcher) for s in sentences)
    return _result(claims)


def _result(claims: tuple[ClaimCheck, ...], graph_id: str | None = None) -> AnswerResult:
    kept = [claim.text for claim in claims if claim.supported]
    return AnswerResult(
        claims=claims,
        unsupported_claims_removed=len(claims) - len(kept),
        all_claims_verified=bool(claims) and len(kept) == len(claims),
        answer=join_sentences(kept) if kept else REFUSAL,
        refused=not kept,
        graph_id=graph_id,
    )


# --- against an evidence graph -----------------------------------------------------------


def _check_against_graph(
    answer: str, source: EvidenceGraph | Mapping[str, Any] | str | Path
) -> AnswerResult:
    from verity.core.gates import read_sentences
    from verity.core.graph import load_graph

    graph = load_graph(source)
    node_ids = list(graph.nodes)
    sentences = split_sentences(plain_text(answer), graph.matcher)
    # The kept answer is read without the removed sentences, so a scope a removed one
    # states must not govern the sentences after it: read the rest again without it
    # until no sentence more is removed (each round removes one at least).
    checks: dict[int, ClaimCheck] = {}
    kept = list(range(len(sentences)))
    while True:
        verdicts = read_sentences([sentences[i] for i in kept], node_ids, graph)
        found = {
            i: _graph_sentence(sentences[i], v, graph) for i, v in zip(kept, verdicts, strict=True)
        }
        checks.update(found)
        removed = {i for i, check in found.items() if not check.supported}
        if not removed:
            break
        kept = [i for i in kept if i not in removed]
    return _result(tuple(checks[i] for i in range(len(sentences))), graph.graph_id)


def _graph_sentence(sentence: str, verdict: SentenceVerdict, graph: EvidenceGraph) -> ClaimCheck:
    """One answer sentence against every node of ``graph``, as strict checks a claim
    sentence citing them all (``verdict``, read with the answer's earlier sentences); then
    the mention barriers against its supporters."""
    issue = reader_issue(sentence)
    if issue is not None:
        detail = f"{issue[0]}: {issue[1]!r}"
        return ClaimCheck(sentence, False, "unreadable", detail=detail, node_ids=())
    if states_nothing(sentence):
        return ClaimCheck(sentence, False, "empty_claim", node_ids=())
    if not verdict.supporters:
        return _graph_failure(sentence, verdict, graph)
    supporters = tuple(
        dict.fromkeys(node_id for part in verdict.supporters for node_id in sorted(part))
    )
    barrier = _unstated(sentence, supporters, graph)
    if barrier is not None:
        reason, detail = barrier
        return ClaimCheck(
            sentence, False, reason, detail=detail, node_ids=(), closest_node_id=supporters[0]
        )
    return ClaimCheck(sentence, True, "supported", node_ids=supporters)


def _stated(node_ids: Sequence[str], graph: EvidenceGraph) -> tuple[list[str], list[str]]:
    """(entity ids, number strings) the nodes state: the entities each lists or its
    statement mentions, and the numbers each lists (its statement's numbers)."""
    from verity.core.gates import text_mentions

    entities: list[str] = []
    numbers: list[str] = []
    for node_id in node_ids:
        node = graph.nodes[node_id]
        entities.extend(node.entities)
        entities.extend(e for e, _ in text_mentions(node.statement, graph).entities)
        numbers.extend(node.numbers)
    return list(dict.fromkeys(entities)), list(dict.fromkeys(numbers))


def _unstated(
    sentence: str, node_ids: Sequence[str], graph: EvidenceGraph
) -> tuple[AnswerReason, str] | None:
    """(reason, detail) when the sentence mentions an entity or a number that none of
    ``node_ids`` states (strict's prose rule, the mentions standing in for declared
    entities and numbers, the nodes' own for the allowed ones); None when it does not."""
    from verity.core.gates import prose_findings, text_mentions

    entities, numbers = _stated(node_ids, graph)
    finding = next(prose_findings(text_mentions(sentence, graph), entities, numbers), None)
    if finding is None:
        return None
    who, does = (node_ids[0], "does") if len(node_ids) == 1 else ("the supporting nodes", "do")
    if finding.code == "prose.undeclared_entity":
        return (
            "entity_not_stated",
            f"mentions entity {finding.actual!r}, which {who} {does} not name",
        )
    stating = _nodes_stating(str(finding.actual), graph)
    verb = "states" if len(stating) == 1 else "state"
    elsewhere = f" ({', '.join(stating)} {verb} it)" if stating else " (no node states it)"
    return "number_not_stated", f"states {finding.actual!r}, which {who} {does} not{elsewhere}"


def _nodes_stating(raw: str, graph: EvidenceGraph, limit: int = 3) -> list[str]:
    """Up to ``limit`` nodes, in file order, that state a number of ``raw``'s value."""
    from verity.text.numbers import number_value

    value = number_value(raw)
    if value is None:
        return []
    out: list[str] = []
    for node_id, node in graph.nodes.items():
        if any(v is not None and value.matches(v) for v in map(number_value, node.numbers)):
            out.append(node_id)
            if len(out) == limit:
                break
    return out


#: Reasons that say only that no node holds the sentence, even with words left out.
_UNPLACED = frozenset({"not_contained", "variant_not_declared"})


def _graph_failure(sentence: str, verdict: SentenceVerdict, graph: EvidenceGraph) -> ClaimCheck:
    """A removed sentence with the closest node and the declared sentence nearest to it:
    strict's diagnosis (the words it does not read, or what it drops); when no node
    comes closer than "not read", a mention the sentence changes is named instead."""
    closest, detail, why = verdict.node_id, verdict.detail, verdict.reason
    if why in _UNPLACED:
        if closest is None:
            closest = _nearest_node(sentence_key(sentence, graph.matcher), graph)
        templated = closest is not None and graph.nodes[closest].template is not None
        why = "variant_not_declared" if templated else "not_contained"
        barrier = None if closest is None else _unstated(sentence, [closest], graph)
        detail = barrier[1] if barrier is not None else detail
    expected = verdict.expected or ("" if closest is None else graph.nodes[closest].statement)
    return ClaimCheck(
        sentence,
        False,
        why,
        detail=detail,
        node_ids=(),
        closest_node_id=closest,
        expected=expected,
    )


def _nearest_node(key: tuple[str, ...], graph: EvidenceGraph) -> str | None:
    """The node whose statement holds the most of ``key``'s tokens (with multiplicity),
    first in file order on ties; None when none shares a token."""
    wanted = Counter(key)
    best: str | None = None
    best_score = 0
    for node_id in graph.nodes:
        have = Counter(graph.declared(node_id).canonical)
        score = sum(min(count, have[token]) for token, count in wanted.items())
        if score > best_score:
            best, best_score = node_id, score
    return best
