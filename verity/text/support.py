"""The sentence support rule: which cited nodes support one claim sentence
(:func:`support_sentence`): declared whole, aggregated over one template, gapped, or
whole declared sentences joined; and, when none does, the closest failure and its
diagnostics (:func:`likeness`, :func:`unread_words`). Part of the v4 predicate
(:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from difflib import SequenceMatcher
from itertools import combinations
from typing import Literal, NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.declared import Declared
from verity.text.scan import MARKERS, sentence_key

__all__ = ["SentenceVerdict", "likeness", "support_sentence"]

# --- checking one sentence against cited nodes ------------------------------------------------

Reason = Literal[
    "supported",
    "not_contained",
    "variant_not_declared",
    "undeclared_deletion",
    "marker_dropped",
    "required_span_dropped",
    "aggregation_mismatch",
    "scope_carried",
]

#: How close a failure came (higher is closer); the closest is reported.
PROGRESS: Mapping[str, int] = {
    "not_contained": 0,
    "variant_not_declared": 1,
    "undeclared_deletion": 2,
    "marker_dropped": 3,
    "required_span_dropped": 4,
    "aggregation_mismatch": 5,
    "scope_carried": 6,
    "supported": 7,
}


class SentenceVerdict(NamedTuple):
    """The support of one claim sentence by cited nodes.

    ``supporters`` holds, per declared sentence the claim sentence was taken apart into,
    the cited nodes that declare it (one part when the sentence is declared whole). When
    unsupported, ``reason``, ``node_id`` and ``detail`` describe the closest failure.
    """

    supporters: tuple[frozenset[str], ...]
    reason: Reason
    node_id: str | None = None
    detail: str = ""
    #: The token keys of the declared sentences the sentence was taken apart into, one
    #: per entry of ``supporters`` (what a reader takes as separate facts).
    parts: tuple[tuple[str, ...], ...] = ()
    #: When unsupported: the declared sentence closest to it (shown as ``expected``).
    expected: str = ""


def _deleted(key: tuple[str, ...], canonical: tuple[str, ...]) -> list[int] | None:
    """The positions of ``canonical`` a leftmost alignment of ``key`` in it skips, when
    ``key`` is a proper subsequence of it; None otherwise."""
    if len(key) >= len(canonical):
        return None
    skipped: list[int] = []
    i = 0
    for pos, token in enumerate(canonical):
        if i < len(key) and key[i] == token:
            i += 1
        else:
            skipped.append(pos)
    return skipped if i == len(key) else None


def _readable(tokens: Iterable[str]) -> str:
    """Tokens as words for a message: entity ids without their mark, numbers unbracketed."""
    return " ".join(t[1:] if t[:1] == "@" else t[1:-1] if t[:1] == "<" else t for t in tokens)


def likeness(key: Sequence[str], other: Sequence[str]) -> float:
    """How much of two token keys lines up (difflib's ratio, no junk heuristic)."""
    return SequenceMatcher(None, key, other, autojunk=False).ratio()


def unread_words(key: Sequence[str], nearest: Sequence[str]) -> tuple[str, str]:
    """(the words of ``key`` that ``nearest`` does not hold, the words of ``nearest``
    that ``key`` leaves out), each as readable text, from one alignment of the two."""
    matcher = SequenceMatcher(None, key, nearest, autojunk=False)
    extra: list[str] = []
    missing: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            extra.extend(key[i1:i2])
        if op in ("replace", "insert"):
            missing.extend(nearest[j1:j2])
    return _readable(extra), _readable(missing)


def _nearest_text(key: tuple[str, ...], declared: Declared) -> tuple[tuple[str, ...], str]:
    """The declared sentence (statement or cut) most like ``key``: its key and text."""
    return max(declared.texts.items(), key=lambda item: likeness(key, item[0]))


def _not_read(key: tuple[str, ...], node_id: str, declared: Declared) -> SentenceVerdict:
    """A sentence no declared sentence of the node reads: the words not read, and the
    nearest declared sentence as what was expected."""
    reason: Reason = "not_contained" if declared.template is None else "variant_not_declared"
    nearest, text = _nearest_text(key, declared)
    extra, missing = unread_words(key, nearest)
    said = []
    if extra:
        said.append(f"does not read {extra!r}")
    if missing:
        said.append(f"lacks {missing!r}")
    return SentenceVerdict((), reason, node_id, "; ".join(said), expected=text)


def _diagnose(key: tuple[str, ...], node_id: str, declared: Declared) -> SentenceVerdict:
    skipped = _deleted(key, declared.canonical)
    if skipped is None:
        return _not_read(key, node_id, declared)
    words = _readable(declared.canonical[i] for i in skipped)
    if declared.required.intersection(skipped):
        return SentenceVerdict((), "required_span_dropped", node_id, f"drops {words!r}")
    lost = [declared.canonical[i] for i in skipped if declared.canonical[i] in MARKERS]
    if lost:
        return SentenceVerdict((), "marker_dropped", node_id, f"drops {' '.join(lost)!r}")
    return SentenceVerdict((), "undeclared_deletion", node_id, f"drops {words!r}")


def _direct(key: tuple[str, ...], cited: Sequence[tuple[str, Declared]]) -> frozenset[str]:
    return frozenset(node_id for node_id, declared in cited if declared.declares(key))


#: Aggregation reads at most this many ``and`` per sentence and conjuncts this long.
_MAX_ANDS = 4
_MAX_CONJUNCT = 8


class _Coordination(NamedTuple):
    head: tuple[str, ...]
    conjuncts: tuple[tuple[str, ...], ...]
    tail: tuple[str, ...]


def _coordinations(key: tuple[str, ...]) -> Iterator[_Coordination]:
    """Every reading of ``key`` as ``head C1, C2 ... and Ck tail`` with conjuncts of one
    length (``, and`` before the last conjunct allowed)."""
    ands = [i for i, token in enumerate(key) if token == "and"]
    if len(ands) > _MAX_ANDS:
        return
    n = len(key)
    for a in ands:
        before = a - 1 if a > 0 and key[a - 1] == "," else a
        for size in range(1, _MAX_CONJUNCT + 1):
            if a + 1 + size > n or before - size < 0:
                break
            last = key[a + 1 : a + 1 + size]
            tail = key[a + 1 + size :]
            start = before - size
            conjuncts = [key[start:before], last]
            yield _Coordination(key[:start], tuple(conjuncts), tail)
            while start - 1 - size >= 0 and key[start - 1] == ",":
                start -= 1 + size
                conjuncts.insert(0, key[start : start + size])
                yield _Coordination(key[:start], tuple(conjuncts), tail)


def _contains(key: tuple[str, ...], part: tuple[str, ...]) -> bool:
    size = len(part)
    return size > 0 and any(key[i : i + size] == part for i in range(len(key) - size + 1))


def _one_slot_apart(
    nodes: Sequence[Declared], key: tuple[str, ...], matcher: AliasMatcher | None
) -> str | None:
    """Why ``nodes`` cannot be aggregated in ``key``, or None when they share a template and
    differ in exactly one of the slots the sentence mentions."""
    template = nodes[0].template
    if template is None or any(d.template != template for d in nodes):
        return "the coordinated nodes do not share a template"
    names = sorted(set().union(*(d.slots for d in nodes)))
    differing = [n for n in names if len({d.slots.get(n) for d in nodes}) > 1]
    mentioned = [
        n
        for n in differing
        if any(_contains(key, sentence_key(d.slots.get(n, ""), matcher)) for d in nodes)
    ]
    if len(mentioned) != 1:
        return (
            f"the coordinated nodes differ in {len(mentioned)} mentioned slots "
            f"({', '.join(mentioned) or 'none'}); aggregation allows exactly one"
        )
    if mentioned[0] not in nodes[0].coordinable:
        return (
            f"template {template!r} does not declare the slot {mentioned[0]!r} coordinable "
            "(a reader could take the coordination as one total)"
        )
    return None


_Reading = tuple[tuple[frozenset[str], ...], tuple[tuple[str, ...], ...]]


def _aggregate(
    key: tuple[str, ...],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
) -> tuple[_Reading | None, SentenceVerdict | None]:
    """((supporters per conjunct, the expanded conjuncts), None) for an aggregation of
    cited nodes; else (None, the closest aggregation failure or None when no coordination
    touches a cited node)."""
    templated = [(i, d) for i, d in cited if d.template is not None]
    if len(templated) < 2:
        return None, None
    failure: SentenceVerdict | None = None
    for reading in _coordinations(key):
        parts = [(*reading.head, *c, *reading.tail) for c in reading.conjuncts]
        found = [_direct(p, templated) for p in parts]
        if not any(found):
            continue
        chosen = _distinct(found)
        if chosen is None:
            failure = failure or SentenceVerdict(
                (),
                "aggregation_mismatch",
                next(iter(next(f for f in found if f))),
                "a conjunct is stated by no cited node of the template",
            )
            continue
        by_id = dict(templated)
        why = _one_slot_apart([by_id[i] for i in chosen], key, matcher)
        if why is not None:
            failure = failure or SentenceVerdict((), "aggregation_mismatch", chosen[0], why)
            continue
        return (tuple(frozenset({i}) for i in chosen), tuple(parts)), None
    return None, failure


def _distinct(found: Sequence[frozenset[str]]) -> list[str] | None:
    """One different node per conjunct, or None when no such choice exists."""

    def pick(i: int, used: tuple[str, ...]) -> list[str] | None:
        if i == len(found):
            return list(used)
        for node_id in sorted(found[i]):
            if node_id not in used:
                got = pick(i + 1, (*used, node_id))
                if got is not None:
                    return got
        return None

    return pick(0, ())


# A gapped coordination states the words its conjuncts share once, at the front: "X wins gas
# at 2% and online at 5%" is "X wins gas at 2%" and "X wins online at 5%". The reading puts
# the shared words back: the first conjunct is a sentence a cited node declares whole, and
# each later conjunct, with the first conjunct's opening words put in front of it, is one a
# different cited node declares whole. Nothing of one conjunct is read into another: every
# word the reader takes away is in a declared sentence, and a conjunct the opening cannot
# complete ("and Voyager Reserve online at 5%", a second subject) is not read this way.
# The conjuncts' nodes share a template and differ in two or more mentioned slots (one
# slot apart is the coordination ``coordinable`` grants, read below; across templates "at
# most 3,000 times A and B plus 1,000" may read as one bound on a sum). The shared words
# hold no number: "recorded 6 penguins of sex female and male" reads as 6 of both
# together, not as 6 of each.
_MAX_GAPPED = 4


def _is_number(token: str) -> bool:
    return token.startswith("<") and token.endswith(">")


def _gap_conjuncts(rest: tuple[str, ...]) -> list[tuple[str, ...]] | None:
    """The later conjuncts of a gapped coordination from what follows its first conjunct:
    ``and C``, ``, and C`` or ``, C2, C3[,] and Ck``; none holds a comma or an ``and``."""
    if rest[:1] == ("and",) or rest[:2] == (",", "and"):
        last = rest[1:] if rest[0] == "and" else rest[2:]
        return [last] if last and "," not in last and "and" not in last else None
    if rest[:1] != (",",) or "and" not in rest:
        return None
    a = len(rest) - 1 - rest[::-1].index("and")
    middle = rest[1 : a - 1] if rest[a - 1] == "," else rest[1:a]
    last = rest[a + 1 :]
    out: list[tuple[str, ...]] = []
    piece: list[str] = []
    for token in middle:
        if token == ",":
            out.append(tuple(piece))
            piece = []
        elif token == "and":
            return None
        else:
            piece.append(token)
    out += [tuple(piece), last]
    if len(out) > _MAX_GAPPED or not all(out) or any("," in c or "and" in c for c in out):
        return None
    return out


def _gapped(
    key: tuple[str, ...],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
) -> _Reading | None:
    """(supporters per conjunct, the conjuncts with the shared words put back) for a gapped
    coordination of sentences cited nodes declare, or None."""
    for end in range(len(key) - 1, 1, -1):
        if key[end] not in (",", "and"):
            continue
        conjuncts = _gap_conjuncts(key[end:])
        first = _direct(key[:end], cited) if conjuncts else frozenset()
        if not conjuncts or not first:
            continue
        for shared in range(1, end):
            if _is_number(key[shared - 1]):
                break
            parts = [key[:end], *((*key[:shared], *c) for c in conjuncts)]
            found = [first, *(_direct(part, cited) for part in parts[1:])]
            chosen = _distinct(found) if all(found) else None
            if chosen is not None and _apart(key, [dict(cited)[i] for i in chosen], matcher):
                return tuple(frozenset({i}) for i in chosen), tuple(parts)
    return None


def _apart(key: tuple[str, ...], nodes: Sequence[Declared], matcher: AliasMatcher | None) -> bool:
    """The gapped conjuncts' nodes share a template and each two differ in at least two of
    the slots the sentence mentions: one slot apart is a coordination of that slot, which
    only ``coordinable`` grants, and across templates a coordination may read as a sum
    ("at most 3,000 times A and B plus 1,000")."""
    template = nodes[0].template
    if template is None or any(d.template != template for d in nodes):
        return False
    for a, b in combinations(nodes, 2):
        differing = [
            n
            for n in set(a.slots) | set(b.slots)
            if a.slots.get(n) != b.slots.get(n)
            and any(_contains(key, sentence_key(d.slots.get(n, ""), matcher)) for d in (a, b))
        ]
        if len(differing) < 2:
            return False
    return True


def _joins(key: tuple[str, ...], bare_and: bool = False) -> list[tuple[int, int]]:
    """Clause joins of ``key``: (end of the clause before, start of the clause after) at
    every ``;`` and every ``, and`` (and, with ``bare_and``, every other ``and``)."""
    out: list[tuple[int, int]] = []
    for i, token in enumerate(key):
        if token == ";":
            out.append((i, i + 1))
        elif token == "," and i + 1 < len(key) and key[i + 1] == "and":
            out.append((i, i + 2))
        elif bare_and and token == "and" and i > 0 and key[i - 1] != ",":
            out.append((i, i + 1))
    return out


_MAX_JOINS = 4


def _split_at(key: tuple[str, ...], joins: Sequence[tuple[int, int]]) -> list[tuple[str, ...]]:
    parts: list[tuple[str, ...]] = []
    start = 0
    for end, nxt in joins:
        parts.append(key[start:end])
        start = nxt
    parts.append(key[start:])
    return parts


def support_sentence(
    key: tuple[str, ...],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None = None,
    allowed: Iterable[str] | None = None,
) -> SentenceVerdict:
    """Which cited nodes support one claim sentence (its :func:`sentence_key`).

    The sentence is declared whole by some cited node; or it aggregates cited nodes of
    one template; or it joins whole declared (or aggregated) sentences at ``;`` / ``, and``.
    ``allowed`` (node ids) narrows which supporters make the whole sentence count first;
    when no reading rests on them, a reading on any cited node is returned.
    """
    if not key:
        return SentenceVerdict((), "not_contained")
    wanted = None if allowed is None else frozenset(allowed)
    direct = _direct(key, cited)
    if direct and (wanted is None or direct & wanted):
        return SentenceVerdict((direct,), "supported", parts=(key,))
    readings: list[_Reading] = []
    aggregated, failure = _aggregate(key, cited, matcher)
    if aggregated is not None:
        readings.append(aggregated)
    gapped = _gapped(key, cited, matcher)
    if gapped is not None:
        readings.append(gapped)
    # Whole declared sentences may be joined by a bare ``and`` too: each side must be a
    # sentence a cited node declares on its own, so no word of one is read into the other.
    joins = _joins(key, bare_and=True)
    if joins and len(joins) <= _MAX_JOINS:
        for mask in range(1, 1 << len(joins)):
            chosen = [j for n, j in enumerate(joins) if mask >> n & 1]
            parts = _split_at(key, chosen)
            joined = _parts_support(parts, cited, matcher)
            if joined is not None:
                readings.append(joined)
    for found, keys in readings:
        if wanted is None or all(part & wanted for part in found):
            return SentenceVerdict(found, "supported", parts=keys)
    if direct:
        return SentenceVerdict((direct,), "supported", parts=(key,))
    if readings:
        return SentenceVerdict(readings[0][0], "supported", parts=readings[0][1])
    closest = failure
    unplaced: list[tuple[str, Declared]] = []
    for node_id, declared in cited:
        verdict = _diagnose(key, node_id, declared)
        if verdict.reason in ("not_contained", "variant_not_declared"):
            unplaced.append((node_id, declared))
        if closest is None or PROGRESS[verdict.reason] > PROGRESS[closest.reason]:
            closest = verdict
    if closest is not None and closest.reason in ("not_contained", "variant_not_declared"):
        # Nothing came closer than "not read": name the node whose declared sentence
        # lines up best with the sentence, not the first cited.
        node_id, declared = max(
            unplaced, key=lambda item: likeness(key, _nearest_text(key, item[1])[0])
        )
        closest = _not_read(key, node_id, declared)
    return closest or SentenceVerdict((), "not_contained")


def _parts_support(
    parts: Sequence[tuple[str, ...]],
    cited: Sequence[tuple[str, Declared]],
    matcher: AliasMatcher | None,
) -> _Reading | None:
    out: list[frozenset[str]] = []
    keys: list[tuple[str, ...]] = []
    for part in parts:
        direct = _direct(part, cited)
        if direct:
            out.append(direct)
            keys.append(part)
            continue
        aggregated = _aggregate(part, cited, matcher)[0] or _gapped(part, cited, matcher)
        if aggregated is None:
            return None
        out.extend(aggregated[0])
        keys.extend(aggregated[1])
    return tuple(out), tuple(keys)
