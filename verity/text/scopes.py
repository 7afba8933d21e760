"""The reader's scopes: a scope a sentence states applies to every fact of it and carries
into the sentences after it (:func:`read_scopes`). Part of the v4 predicate
(:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.declared import Declared
from verity.text.scan import sentence_key
from verity.text.support import (
    _MAX_JOINS,
    SentenceVerdict,
    _aggregate,
    _direct,
    _joins,
    _readable,
    _split_at,
)

__all__ = ["read_scopes"]

# --- the reader's scopes ------------------------------------------------------------------------
#
# A reader applies a scope a sentence states (``In Q4,``, ``for dining``, ``once X hits its
# cap``) to every fact of that sentence, and carries it into the sentences after it until a
# scope of the same kind is stated. The parts a sentence was taken apart into are facts; a
# part that states no scope of a kind the sentence or an earlier sentence states is read
# with that scope, so it needs a cited node stating it with that scope: one of its own
# supporters whose scope has that value, or a node declaring the part with the scope phrase
# put in front of it or after it (``In Q4, B had Y``). A node with no scope of the kind
# does not support the scoped fact: that is how an annual figure read as Q4's is refused.


class _Scope(NamedTuple):
    """A scope stated by one part: its values and the part that states it."""

    values: tuple[str, ...]
    part: tuple[str, ...]


def _stated(found: frozenset[str], by_id: Mapping[str, Declared]) -> dict[str, tuple[str, ...]]:
    """The scope every supporter of a part states alike (kind -> values)."""
    scopes = [by_id[node_id].scope for node_id in sorted(found)]
    if not scopes:
        return {}
    first = scopes[0]
    return {k: v for k, v in first.items() if all(s.get(k) == v for s in scopes[1:])}


def _needed(
    i: int,
    stated: Sequence[Mapping[str, tuple[str, ...]]],
    parts: Sequence[tuple[str, ...]],
    carried: Mapping[str, _Scope],
) -> dict[str, _Scope]:
    """The scopes part ``i`` is read with and does not state itself: per kind, the
    nearest part before it stating one, else the nearest after it (a trailing scope), else
    the one carried from an earlier sentence."""
    kinds = set(carried).union(*stated)
    out: dict[str, _Scope] = {}
    order = [*range(i - 1, -1, -1), *range(i + 1, len(parts))]
    for kind in sorted(kinds - set(stated[i])):
        source = next((j for j in order if kind in stated[j]), None)
        out[kind] = carried[kind] if source is None else _Scope(stated[source][kind], parts[source])
    return out


def _phrases(scope: _Scope, matcher: AliasMatcher | None) -> list[tuple[tuple[str, ...], bool]]:
    """The phrase that states ``scope`` in its part, as (tokens, fronted): the words
    before the part's first comma when a value lies there and they open with a plain word
    (``In Q4,``, ``Once X hits its cap,``; words opening with a name or a number are a
    clause with its subject, not a phrase), and the last words of the part from a word or
    three before a value that ends it (``... in Q4``)."""
    part = scope.part
    out: list[tuple[tuple[str, ...], bool]] = []
    spans = []
    for value in scope.values:
        tokens = sentence_key(value, matcher)
        size = len(tokens)
        spans += [
            (p, p + size) for p in range(len(part) - size + 1) if part[p : p + size] == tokens
        ]
    comma = part.index(",") if "," in part else -1
    if comma > 0 and part[0][:1] not in "@<" and any(end <= comma for _, end in spans):
        out.append((part[:comma], True))
    for start, end in spans:
        if end == len(part):
            out.extend((part[j:], False) for j in range(max(0, start - 3), start + 1))
    return out


def _scoped(
    key: tuple[str, ...], needed: Mapping[str, _Scope], matcher: AliasMatcher | None
) -> list[tuple[str, ...]]:
    """``key`` with the phrase of every needed scope put in front of it or after it."""
    readings = [key]
    for scope in needed.values():
        readings = [
            (*phrase, ",", *reading) if fronted else (*reading, *phrase)
            for reading in readings
            for phrase, fronted in _phrases(scope, matcher)
        ][:64]
    return readings if needed else []


def _in_scope(
    nodes: Iterable[str], needed: Mapping[str, _Scope], by_id: Mapping[str, Declared]
) -> frozenset[str]:
    return frozenset(
        n for n in nodes if all(by_id[n].scope.get(k) == s.values for k, s in needed.items())
    )


def _read_part(
    key: tuple[str, ...],
    found: frozenset[str],
    needed: Mapping[str, _Scope],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
) -> frozenset[str]:
    """The cited nodes that state part ``key`` with the scopes it is read with: its own
    supporters stating them, else the nodes declaring it with their phrases put in."""
    if not needed:
        return found
    by_id = dict(cited)
    own = _in_scope(found, needed, by_id)
    if own:
        return own
    for reading in _scoped(key, needed, matcher):
        scoped = _in_scope(_direct(reading, cited), needed, by_id)
        if scoped:
            return scoped
    return frozenset()


def _scope_failure(
    key: tuple[str, ...], found: frozenset[str], needed: Mapping[str, _Scope]
) -> SentenceVerdict:
    kinds = ", ".join(f"{k} {' / '.join(s.values)!r}" for k, s in sorted(needed.items()))
    source = next(iter(needed.values())).part
    return SentenceVerdict(
        (),
        "scope_carried",
        min(found) if found else None,
        f"a reader takes {_readable(key)!r} in the scope of {_readable(source)!r} ({kinds}), "
        "and no cited node states it with that scope",
    )


def _subsets(needed: Mapping[str, _Scope]) -> Iterator[dict[str, _Scope]]:
    """Every non-empty subset of ``needed``, smallest first."""
    kinds = sorted(needed)
    for mask in sorted(range(1, 1 << len(kinds)), key=int.bit_count):
        yield {k: needed[k] for n, k in enumerate(kinds) if mask >> n & 1}


def _in_some_scope(
    key: tuple[str, ...],
    needed: Mapping[str, _Scope],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
) -> frozenset[str]:
    """The cited nodes declaring ``key`` read in some of the ``needed`` scopes."""
    by_id = dict(cited)
    for subset in _subsets(needed):
        for reading in _scoped(key, subset, matcher):
            nodes = _in_scope(_direct(reading, cited), subset, by_id)
            if nodes:
                return nodes
    return frozenset()


def _in_context(
    key: tuple[str, ...],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
    carried: Mapping[str, _Scope],
) -> SentenceVerdict | None:
    """A reading of a sentence no cited node declares as it stands, once the scope a
    reader brings to it is put in: the whole sentence in a scope carried from an earlier
    sentence (``In Q4, A. B.``), or joined parts of which some are declared and the others
    are declared in the scope a declared part or an earlier sentence states (``In Q4, A,
    and B``)."""
    whole = _in_some_scope(key, carried, cited, matcher)
    if whole:
        return SentenceVerdict((whole,), "supported", parts=(key,))
    by_id = dict(cited)
    for subset in _subsets(carried):  # a coordination read in a carried scope
        for reading in _scoped(key, subset, matcher):
            aggregated, _ = _aggregate(reading, cited, matcher)
            if aggregated is not None and all(_in_scope(f, subset, by_id) for f in aggregated[0]):
                return SentenceVerdict(aggregated[0], "supported", parts=aggregated[1])
    joins = _joins(key, bare_and=True)
    if not joins or len(joins) > _MAX_JOINS:
        return None
    for mask in range(1, 1 << len(joins)):
        parts = _split_at(key, [j for n, j in enumerate(joins) if mask >> n & 1])
        found = [_direct(part, cited) for part in parts]
        if not any(found):
            continue
        stated = [_stated(f, by_id) for f in found]
        for i, part in enumerate(parts):
            if not found[i]:
                found[i] = _in_some_scope(part, _needed(i, stated, parts, carried), cited, matcher)
                if not found[i]:
                    break
        else:
            return SentenceVerdict(tuple(found), "supported", parts=tuple(parts))
    return None


def read_scopes(
    keys: Sequence[tuple[str, ...]],
    verdicts: Sequence[SentenceVerdict],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None = None,
) -> list[SentenceVerdict]:
    """The verdicts of the sentences of one claim or answer (their :func:`sentence_key`
    and :func:`support_sentence` verdicts), in order, read as a reader reads them.

    A sentence no cited node declares as it stands may be declared once the scope a
    reader brings to it is put in (:func:`_in_context`). A supported sentence whose parts
    hold in the scopes the sentence or an earlier one states keeps its verdict (its
    supporters narrowed to the nodes stating each part with those scopes); one with a
    part that does not is refused with ``scope_carried``."""
    by_id = dict(cited)
    carried: dict[str, _Scope] = {}
    out: list[SentenceVerdict] = []
    for key, verdict in zip(keys, verdicts, strict=True):
        if not verdict.supporters and key:
            verdict = _in_context(key, cited, matcher, carried) or verdict
        parts = verdict.parts or ()
        if not verdict.supporters or len(parts) != len(verdict.supporters):
            out.append(verdict)
            continue
        stated = [_stated(found, by_id) for found in verdict.supporters]
        read: list[frozenset[str]] = []
        failure: SentenceVerdict | None = None
        for i, (key, found) in enumerate(zip(parts, verdict.supporters, strict=True)):
            needed = _needed(i, stated, parts, carried)
            nodes = _read_part(key, found, needed, cited, matcher)
            if not nodes:
                failure = _scope_failure(key, found, needed)
                break
            read.append(nodes)
        if failure is not None:
            out.append(failure)
            continue
        out.append(verdict._replace(supporters=tuple(read)))
        # Every scope of a sentence governs its parts; into the next sentences a reader
        # carries a scope stated as a phrase of its own, fronted or trailing (``In Q4,``,
        # ``... in Q4.``), not one inside a clause (``Total revenue in Q4 was X.``).
        for i, scope in enumerate(stated):
            for kind, values in scope.items():
                phrased = _Scope(values, parts[i])
                if _phrases(phrased, matcher):
                    carried[kind] = phrased
    return out
