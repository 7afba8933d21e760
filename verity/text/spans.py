"""What a node's statement lists and declares, checked against the statement: every listed
number is a mention of it and every mention is listed; every required span lies in one of
its sentences; every optional span occurs once, at token boundaries, apart from the
required spans. Each check returns what is wrong, as the rest of a sentence that names the
node, or None; the graph loader (:mod:`verity.core.graph`) raises it.
"""

from __future__ import annotations

from functools import lru_cache

from verity.text.aliases import AliasMatcher, entity_scan
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers, number_value
from verity.text.scan import sentence_key
from verity.text.segment import split_sentences

__all__ = ["statement_problem"]


@lru_cache(maxsize=16384)
def statement_problem(
    matcher: AliasMatcher,
    statement: str,
    numbers: tuple[str, ...],
    required_spans: tuple[str, ...],
    optional_spans: tuple[str, ...],
) -> str | None:
    """What is wrong with a node's statement and what it lists, as the rest of a sentence
    that names the node, or None (a pure function, checked once per process for nodes
    that graphs share)."""
    return (
        _numbers_problem(statement, numbers, matcher)
        or _required_problem(statement, required_spans, matcher)
        or _optional_problem(statement, optional_spans, required_spans, matcher)
    )


def _numbers_problem(statement: str, numbers: tuple[str, ...], matcher: AliasMatcher) -> str | None:
    """Every listed number is a mention of the statement and every mention is listed."""
    mentions = find_numbers(entity_scan(statement, matcher)[1])
    raw_mentions = {m.raw for m in mentions}
    for number in numbers:
        if normalize(number).strip() not in raw_mentions:
            return f" lists number {number!r} that its statement does not state"
    listed = [v for v in (number_value(n) for n in numbers) if v is not None]
    for found in mentions:
        if not any(found.value.matches(v) for v in listed):
            return f" states the number {found.raw!r} but does not list it in its numbers"
    return None


def _required_problem(
    statement: str, required_spans: tuple[str, ...], matcher: AliasMatcher
) -> str | None:
    """Every required span is a non-blank substring of one sentence of the statement."""
    sentences: list[str] | None = None
    for span in required_spans:
        if not span.strip() or span not in statement:
            return f" requires the span {span[:80]!r}, which its statement does not contain"
        if sentences is None:
            sentences = split_sentences(statement, matcher) or [statement]
        if not any(span in sentence for sentence in sentences):
            return f": required span {span[:80]!r} crosses a sentence boundary"
    return None


def _overlaps(statement: str, span: str, required: str) -> bool:
    """True when ``span`` and some occurrence of ``required`` share a character of the
    statement (``span`` occurs once)."""
    lo = statement.find(span)
    hi = lo + len(span)
    at = statement.find(required)
    while at >= 0:
        if at < hi and at + len(required) > lo:
            return True
        at = statement.find(required, at + 1)
    return False


def _optional_problem(
    statement: str,
    optional_spans: tuple[str, ...],
    required_spans: tuple[str, ...],
    matcher: AliasMatcher,
) -> str | None:
    """Each optional span occurs once in the statement, at token boundaries, and shares no
    token with a required span."""
    for span in optional_spans:
        where = statement.find(span)
        if not span.strip() or where < 0:
            return (
                f" declares the optional span {span[:80]!r}, which its statement does not contain"
            )
        if statement.find(span, where + 1) >= 0:
            return f": the optional span {span[:80]!r} occurs more than once in its statement"
        pieces = (statement[:where], span, statement[where + len(span) :])
        if sum((sentence_key(p, matcher) for p in pieces), ()) != sentence_key(statement, matcher):
            return f": the optional span {span[:80]!r} does not start and end at word boundaries"
        for required in required_spans:
            if _overlaps(statement, span, required):
                return (
                    f": the optional span {span[:80]!r} overlaps the required span "
                    f"{required[:80]!r}"
                )
    return None
