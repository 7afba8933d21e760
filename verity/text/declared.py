"""What a node declares: its statement, the cuts of its optional spans and the renderings
of its template, compiled into token sequences (:func:`declare`, :class:`Declared`), with
the order of a set slot's members as the second universal equivalence. Part of the v4
predicate (:mod:`verity.text.variation`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from verity.text.aliases import AliasMatcher
from verity.text.kinds import SCOPE_KINDS
from verity.text.patterns import Pattern, PatternError, _Part, _Slot
from verity.text.scan import _key, _prepared, _scan, _Scanned, sentence_key
from verity.text.segment import split_sentences

__all__ = ["Declared", "compile_canonical", "declare"]

# --- what a node declares --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Run:
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[tuple[_Run | _Alt | _Set, ...], ...]


@dataclass(frozen=True, slots=True)
class _Set:
    """The members of a set slot's value, each as tokens: matched in any order."""

    members: tuple[tuple[str, ...], ...]


_Piece = _Run | _Alt | _Set


@lru_cache(maxsize=65536)
def _piece_tokens(text: str, matcher: AliasMatcher | None) -> tuple[str, ...]:
    """The tokens of one piece of a pattern (literal text or a slot value), once per text
    and matcher: the pieces of a template recur in every node that fills it."""
    return _scan(text, matcher).tokens


# --- the second universal equivalence: the order of a set ------------------------------------
#
# A slot of kind ``set`` (``TemplateModel.slot_kinds``) holds the members of one set written
# as a list, such as the cards of a plan: ``A, B and C``. A set has no order, so the list
# states the same fact in any order of its members, with or without the serial comma
# (``B, A, and C``): a reader takes away which members there are, and each is named once.
# Nothing else changes: every member is named exactly once (none dropped, repeated or
# added), the list keeps its shape (``,`` between members, ``and`` or ``, and`` before the
# last) and the words around it are the pattern's. A value is read as a list only when it
# reads one way: members split at ``,`` and one final ``and``, none empty, none holding
# ``and``, no two alike; otherwise (and for a member name with ``and`` inside that is no
# entity) it matches in its declared order only. Up to :data:`_MAX_SET` members are
# matched in any order: the matcher walks (position, members used) states, at most
# positions x 2**members, so the bound keeps a match cheap whatever the names; a longer
# list matches in its declared order only (no plan of the card catalogue holds more).
_MAX_SET = 8


def _set_members(tokens: tuple[str, ...]) -> tuple[tuple[str, ...], ...] | None:
    """The members of a list ``A``, ``A and B`` or ``A, B[,] and C``; None when the tokens
    are not such a list read one way (see above)."""
    pieces: list[tuple[str, ...]] = [()]
    for token in tokens:
        if token == ",":
            pieces.append(())
        else:
            pieces[-1] = (*pieces[-1], token)
    last = pieces.pop()
    if len(pieces) >= 1 and last[:1] == ("and",) and "and" not in last[1:]:
        members = [*pieces, last[1:]]  # the serial comma: ``A, B, and C``
    elif last.count("and") == 1:
        cut = last.index("and")
        members = [*pieces, last[:cut], last[cut + 1 :]]
    else:
        return None
    if any(not m or "and" in m for m in members) or len(set(members)) != len(members):
        return None
    return tuple(members)


def _set_ends(
    members: tuple[tuple[str, ...], ...], key: tuple[str, ...], starts: Iterable[int]
) -> set[int]:
    """Every position of ``key`` where a list of exactly ``members``, in any order, can end
    having started at one of ``starts``."""
    count = len(members)
    states = {(p, 0) for p in starts}
    for step in range(count):
        if step == 0:
            separators: tuple[tuple[str, ...], ...] = ((),)
        elif step < count - 1:
            separators = ((",",),)
        else:
            separators = (("and",), (",", "and")) if count > 2 else (("and",),)
        after: set[tuple[int, int]] = set()
        for pos, used in states:
            for sep in separators:
                at = pos + len(sep)
                if key[pos:at] != sep:
                    continue
                for n, member in enumerate(members):
                    if not used >> n & 1 and key[at : at + len(member)] == member:
                        after.add((at + len(member), used | 1 << n))
        states = after
        if not states:
            break
    return {pos for pos, _ in states}


def _compile(
    parts: Sequence[_Part],
    slots: Mapping[str, str],
    matcher: AliasMatcher | None,
    sets: frozenset[str] = frozenset(),
) -> tuple[_Piece, ...]:
    """A pattern with its slots filled, as runs of tokens and alternatives (each piece of
    literal text and each slot value tokenized on its own); a slot named in ``sets`` whose
    value reads as a list becomes a :class:`_Set` (its members in any order)."""
    out: list[_Piece] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            out.append(_Run(tuple(pending)))
            pending.clear()

    for part in parts:
        if isinstance(part, str):
            pending.extend(_piece_tokens(part, matcher))
        elif isinstance(part, _Slot):
            tokens = _piece_tokens(slots[part.name], matcher)
            members = _set_members(tokens) if part.name in sets else None
            if members is None or not 1 < len(members) <= _MAX_SET:
                pending.extend(tokens)
            else:
                flush()
                out.append(_Set(members))
        else:
            flush()
            options = [_compile(o, slots, matcher, sets) for o in part.options]
            if part.optional:
                options.append(())
            out.append(_Alt(tuple(options)))
    flush()
    return tuple(out)


def _ends(parts: Sequence[_Piece], key: tuple[str, ...], starts: frozenset[int]) -> set[int]:
    """Every position of ``key`` where ``parts`` can end, having started at one of ``starts``."""
    here: set[int] = set(starts)
    for part in parts:
        if not here:
            return here
        if isinstance(part, _Run):
            size = len(part.tokens)
            here = {p + size for p in here if key[p : p + size] == part.tokens}
        elif isinstance(part, _Set):
            here = _set_ends(part.members, key, here)
        else:
            frozen = frozenset(here)
            here = set().union(*(_ends(option, key, frozen) for option in part.options))
    return here


@dataclass(frozen=True, slots=True)
class _Compiled:
    """One template pattern with a node's slots filled in, ready to match token keys."""

    parts: tuple[_Piece, ...]

    def matches(self, key: tuple[str, ...]) -> bool:
        # The key has no closing full stop; the pattern may end with one.
        ends = _ends(self.parts, key, frozenset({0}))
        if len(key) in ends:
            return True
        dotted = (*key, ".")
        return len(dotted) in _ends(self.parts, dotted, frozenset({0}))


@dataclass(frozen=True, slots=True)
class Declared:
    """Every sentence one node declares, and what diagnostics need.

    The statement and its optional cuts are held as token keys; template variants as
    compiled patterns that a key is matched against.
    """

    #: The token keys of the statement (each sentence) and of its optional cuts.
    keys: frozenset[tuple[str, ...]]
    #: One text per key of :attr:`keys`, in declaration order.
    texts: Mapping[tuple[str, ...], str]
    #: The key of the statement itself.
    canonical: tuple[str, ...]
    #: Positions in :attr:`canonical` that lie in a required span.
    required: frozenset[int]
    template: str | None = None
    slots: Mapping[str, str] = field(default_factory=dict)
    variants: tuple[_Compiled, ...] = ()
    #: The template's slots over which nodes may be coordinated.
    coordinable: frozenset[str] = frozenset()
    #: The kind of each slot the template gives one (``period``, ``set``, ...).
    slot_kinds: Mapping[str, str] = field(default_factory=dict)
    #: The tokens of each scope value whose phrase may move (:func:`_movable`).
    movable: tuple[tuple[str, ...], ...] = ()

    def declares(self, key: tuple[str, ...]) -> bool:
        """True when ``key`` is the key of a sentence this node declares, or of one with
        a scope phrase moved to its front or end (:meth:`_moved`)."""
        return self._declared(key) or (bool(self.movable) and self._moved(key))

    def _declared(self, key: tuple[str, ...]) -> bool:
        return key in self.keys or any(v.matches(key) for v in self.variants)

    def _moved(self, key: tuple[str, ...]) -> bool:
        """True when ``key`` opens with a scope phrase and a comma (``In Q4, ...``), or
        ends with one (``... in Q4``), and puts back in its clause gives a declared
        sentence.

        A scope phrase is a plain word and a scope value. Where it stands in its clause
        changes no fact: ``Total revenue was $810 in Q4`` and ``In Q4, total revenue was
        $810`` say what ``Total revenue in Q4 was $810`` says. It only moves within the
        clause it ends or opens (up to a comma), so it never comes to govern another
        clause of the statement (``X at 5%, ahead of Y at 3% wins dining`` is refused).
        """
        for value in self.movable:
            n = len(value)
            if len(key) > n + 2 and key[0].isalpha() and key[1 : n + 1] == value:
                if key[n + 1] != ",":
                    continue
                phrase, rest = key[: n + 1], key[n + 2 :]
                stop = rest.index(",") if "," in rest else len(rest)
                positions = range(stop + 1)
            elif len(key) > n + 1 and key[-n:] == value and key[-n - 1].isalpha():
                phrase, rest = key[-n - 1 :], key[: -n - 1]
                start = len(rest) - rest[::-1].index(",") if "," in rest else 0
                positions = range(start, len(rest) + 1)
            else:
                continue
            for i in positions:
                moved = (*rest[:i], *phrase, *rest[i:])
                if moved != key and self._declared(moved):
                    return True
        return False

    @property
    def scope(self) -> dict[str, tuple[str, ...]]:
        """Scope kind -> the values of the node's slots of that kind, in slot order (a
        node whose template gives no slot a scope kind has no scope)."""
        out: dict[str, tuple[str, ...]] = {}
        for name, kind in self.slot_kinds.items():
            if kind in SCOPE_KINDS and name in self.slots:
                out[kind] = (*out.get(kind, ()), self.slots[name])
        return out

    def cuts(self) -> list[str]:
        """The declared optional cuts of the statement, in declaration order."""
        return [text for key, text in self.texts.items() if key != self.canonical]


def _required_positions(
    statement: str, scanned: _Scanned, required_spans: Sequence[str]
) -> frozenset[int]:
    out: set[int] = set()
    normalized = _prepared(statement)
    for span in required_spans:
        lo = normalized.find(_prepared(span))
        if lo < 0:
            continue
        hi = lo + len(_prepared(span))
        out.update(i for i, (a, b) in enumerate(scanned.spans) if a < hi and b > lo)
    return frozenset(out)


def _optional_cuts(statement: str, optional_spans: Sequence[str]) -> Iterator[str]:
    """The statement with every non-empty subset of its optional spans cut out."""
    spans = list(dict.fromkeys(optional_spans))
    for mask in range(1, 1 << len(spans)):
        text = statement
        for i, span in enumerate(spans):
            if mask >> i & 1:
                text = text.replace(span, " ", 1)
        yield " ".join(text.split())


def compile_canonical(
    pattern: Pattern, slots: Mapping[str, str], matcher: AliasMatcher | None
) -> tuple[str, ...]:
    """The tokens of a plain pattern rendered piece by piece (the loader holds them equal
    to the tokens of the whole statement, so that variants compare like statements)."""
    parts = _compile(pattern.parts, slots, matcher)
    return _key(tuple(t for part in parts for t in _run_tokens(part)))


def _run_tokens(part: _Piece) -> tuple[str, ...]:
    if not isinstance(part, _Run):  # pragma: no cover - a plain pattern has no alternatives
        raise PatternError("a plain pattern has no alternatives")
    return part.tokens


def declare(
    statement: str,
    matcher: AliasMatcher | None = None,
    *,
    optional_spans: Sequence[str] = (),
    required_spans: Sequence[str] = (),
    template: tuple[str, Sequence[Pattern]] | None = None,
    slots: Mapping[str, str] | None = None,
    coordinable: Iterable[str] = (),
    slot_kinds: Mapping[str, str] | None = None,
) -> Declared:
    """Everything a node declares: the statement (each of its sentences when it has several
    and no required span lies outside it), its optional cuts and its template's variants.
    """
    scanned = _scan(statement, matcher)
    texts: dict[tuple[str, ...], str] = {}
    sentences = split_sentences(statement, matcher) or [statement.strip()]
    if len(sentences) == 1:
        texts[_key(scanned.tokens)] = statement
    else:
        for sentence in sentences:
            if all(span in sentence for span in required_spans):
                texts.setdefault(sentence_key(sentence, matcher), sentence)
    for cut in _optional_cuts(statement, optional_spans):
        texts.setdefault(sentence_key(cut, matcher), _display(cut))
    variants: tuple[_Compiled, ...] = ()
    kinds = dict(slot_kinds or {})
    if template is not None and slots is not None:
        sets = frozenset(n for n, kind in (slot_kinds or {}).items() if kind == "set")
        variants = tuple(_Compiled(_compile(p.parts, slots, matcher, sets)) for p in template[1])
    return Declared(
        keys=frozenset(texts),
        texts=texts,
        canonical=_key(scanned.tokens),
        required=_required_positions(statement, scanned, required_spans),
        template=None if template is None else template[0],
        slots=dict(slots or {}),
        variants=variants,
        coordinable=frozenset(coordinable),
        slot_kinds=kinds,
        movable=_movable(kinds, slots or {}, matcher),
    )


#: Scope kinds whose phrase may stand at the front or the end of its clause. A condition
#: is a clause of its own (``once X reaches Y``), not a phrase that moves.
_MOVABLE_KINDS = frozenset({"period", "place", "group"})


def _movable(
    kinds: Mapping[str, str], slots: Mapping[str, str], matcher: AliasMatcher | None
) -> tuple[tuple[str, ...], ...]:
    """The tokens of each scope value that may move: a movable kind held by one slot
    alone (``from Q3 to Q4`` holds two periods, and moving one changes which is which)."""
    count: dict[str, int] = {}
    for kind in kinds.values():
        count[kind] = count.get(kind, 0) + 1
    out = []
    for name, kind in kinds.items():
        if kind in _MOVABLE_KINDS and count[kind] == 1 and name in slots:
            tokens = sentence_key(slots[name], matcher)
            if tokens:
                out.append(tokens)
    return tuple(out)


_SPACE_BEFORE = re.compile(r"\s+([,.;:!?%)\]])")
_SPACE_AFTER = re.compile(r"([(\[])\s+")


def _display(text: str) -> str:
    """A rendering as a person reads it: no space before closing punctuation."""
    return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", " ".join(text.split())))
