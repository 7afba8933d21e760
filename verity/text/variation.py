"""The v4 predicate: a claim sentence may differ from its evidence only by declared variation.

There are no free gaps. A claim sentence is supported by an evidence node when its
tokens equal, one for one, the tokens of a sentence the node *declares*:

- the node's statement;
- the statement with any of its ``optional_spans`` cut out whole;
- a rendering of the node's statement template: its canonical form (which is the
  statement) or one of its variants, each a pattern with slots, alternatives
  ``(wins|leads)`` and optional parts ``[, ahead of {runner} at {runner_rate}]``.

Two compositions of declared sentences are accepted, each checked by taking it apart
into declared sentences:

- **aggregation**: ``X wins dining and groceries at 5%`` coordinates cited nodes of one
  template that differ in exactly one of the slots the sentence mentions; it is expanded
  into one sentence per conjunct (``X wins dining at 5%``, ``X wins groceries at 5%``),
  and each expansion must be a declared sentence of its own node;
- **clause joins**: two or more whole declared sentences joined by ``;`` or ``, and``.

Tokens (:func:`sentence_key`). The text is normalized (NFKC, case folding) and scanned
left to right; every character is part of a token or plain whitespace (the reader view,
:mod:`verity.text.reader`, refuses everything else before this runs):

- an entity mention (id or alias, longest first, whole words) is one token ``@id``;
- a number mention is one canonical token (``$6,250`` and ``$6,250.00`` are one value);
  a dash of any kind right before a number is read as its sign;
- a word is a run of letters, digits and combining marks with single interior hyphens or
  apostrophes;
- any other character (punctuation, symbols) is a token of its own.

The universal equivalences (:data:`CONTRACTIONS` and the normalizations above) are the
only differences the tokenizer forgives; each is argued in a comment where it is stated.
Anything whose meaning depends on context belongs in a template's variants.

Free text (:func:`check_free_sentence`, what ``check-answer`` calls) has no declared
variation: an answer sentence must equal a run of whole coordinate clauses of one
passage sentence (split at ``;`` and ``, and``); nothing inside may be deleted, and a
dropped clause may hold no polarity or condition marker (:data:`MARKERS`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import combinations, product
from typing import Literal, NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.align import POLARITY_MARKERS
from verity.text.kinds import SCOPE_KINDS
from verity.text.normalize import normalize
from verity.text.reader import plain_text, reader_issue
from verity.text.segment import split_sentences
from verity.text.tokens import NUMBER_PATTERN, WORD_PATTERN, _number_token

__all__ = [
    "CONTRACTIONS",
    "EXTRA_MARKERS",
    "MARKERS",
    "Declared",
    "FreeReason",
    "FreeSentence",
    "FreeVerdict",
    "Pattern",
    "PatternError",
    "SentenceVerdict",
    "TokenSpan",
    "cannot_hold",
    "check_free_sentence",
    "compile_canonical",
    "declare",
    "free_sentences",
    "is_supported",
    "likeness",
    "optional_parts",
    "parse_pattern",
    "read_scopes",
    "sentence_key",
    "support_sentence",
    "token_spans",
]

#: Words beyond the frozen 20 whose loss can flip or widen a statement: negative adverbs
#: and verbs, conditions, limiters, hedges and modals. The free-text check refuses an
#: answer that drops a clause holding one, and diagnostics name a deleted one.
EXTRA_MARKERS: frozenset[str] = frozenset(
    {
        "about", "almost", "approximately", "barely", "barring", "could", "excluded",
        "exempt", "generally", "hardly", "if", "instead", "lack", "lacking", "lacks",
        "least", "may", "might", "most", "mostly", "nearly", "nowhere", "often", "once",
        "only", "provided", "rarely", "refused", "rejected", "roughly", "scarcely",
        "seldom", "sometimes", "typically", "unable", "unlike", "until", "up", "usually",
        "whether", "would",
    }
)  # fmt: skip

#: Every marker word: the frozen 20 polarity markers and :data:`EXTRA_MARKERS`.
MARKERS: frozenset[str] = POLARITY_MARKERS | EXTRA_MARKERS

# --- the universal equivalences ------------------------------------------------------------
#
# Each entry maps a contracted word to the words it always stands for. Only contractions
# with one reading in every context are listed:
# - ``n't`` after these auxiliaries is always ``not`` (``don't`` = ``do not``); ``won't`` and
#   ``shan't`` change their stem; ``can't`` is ``cannot``, which stays one word because
#   ``can not`` differs in ``can not only ... but``; ``ain't`` (am/is/are/has/have not) is
#   left out;
# - ``'re`` is always ``are``, ``'m`` always ``am``, ``'ve`` always ``have``, ``'ll`` always
#   ``will``; ``'s`` (is, has, possessive) and ``'d`` (had, would) are ambiguous and left out.
_NOT_STEMS = (
    "are", "could", "did", "do", "does", "had", "has", "have", "is", "might", "must",
    "need", "should", "was", "were", "would",
)  # fmt: skip
_PRONOUNS = ("i", "you", "we", "they", "he", "she", "it", "that", "there", "who")

CONTRACTIONS: Mapping[str, tuple[str, ...]] = {
    **{f"{stem}n't": (stem, "not") for stem in _NOT_STEMS},
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
    "can't": ("cannot",),
    **{f"{p}'re": (p, "are") for p in ("you", "we", "they", "who", "there")},
    "i'm": ("i", "am"),
    **{f"{p}'ve": (p, "have") for p in (*_PRONOUNS, "could", "would", "should", "might")},
    **{f"{p}'ll": (p, "will") for p in _PRONOUNS},
}

# Apostrophes and quotation marks that read alike are one token (a closing quote is an
# apostrophe inside a word in every font); the dashes are read as a sign before a number.
_SAME_CHAR = str.maketrans({"’": "'", "‘": "'", "‛": "'", "“": '"', "”": '"', "„": '"'})
_SIGN_DASH = re.compile("[\u2010\u2012\u2013\u2014\u2015\u2212](?=[$€£¥]?\\.?[0-9])")

_WORD, _ENTITY, _NUMBER, _OTHER = range(4)


@lru_cache(maxsize=256)
def _scanner(alias_pattern: str | None) -> re.Pattern[str]:
    """The token scanner: at each point an alias, else a word or a number, else one
    other character. Where a digit stands, a number is read before a word; anywhere
    else a word before a number. (The word pattern, with its large character class,
    appears once: compiling it is most of the cost of a scanner, one per alias table.)"""
    alternatives = []
    if alias_pattern is not None:
        alternatives.append("(?P<alias>" + alias_pattern + ")")
    alternatives.append(r"(?P<number>(?=\d)" + NUMBER_PATTERN + ")")
    alternatives.append("(?P<word>" + WORD_PATTERN + ")")
    alternatives.append("(?P<number2>" + NUMBER_PATTERN + ")")
    alternatives.append(r"(?P<other>\S)")
    return re.compile("|".join(alternatives))


class _Scanned(NamedTuple):
    """The tokens of a text, with the kind and the normalized-text span of each."""

    tokens: tuple[str, ...]
    kinds: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]


def _prepared(text: str) -> str:
    if text.isascii():  # the same text: every character _SAME_CHAR or _SIGN_DASH reads is not
        return text.lower()  # ASCII, and ASCII normalizes to its lower case
    return _SIGN_DASH.sub("-", normalize(text).translate(_SAME_CHAR))


def _scan(text: str, matcher: AliasMatcher | None) -> _Scanned:
    normalized = _prepared(text)
    regex = matcher.regex if matcher is not None else None
    scanner = _scanner(regex.pattern if regex is not None else None)
    tokens: list[str] = []
    kinds: list[int] = []
    spans: list[tuple[int, int]] = []
    token_of, kind_of, span_of = tokens.append, kinds.append, spans.append
    for match in scanner.finditer(normalized):
        group = match.lastgroup
        raw = match.group()
        if group == "word":
            words = CONTRACTIONS.get(raw)
            if words is not None:  # a contraction: its words, each with its span
                span = match.span()
                for word in words:
                    token_of(word)
                    kind_of(_WORD)
                    span_of(span)
                continue
            token, kind = raw, _WORD
        elif group == "alias" and matcher is not None:
            token, kind = "@" + matcher.entity_of(raw), _ENTITY
        elif group == "number" or group == "number2":
            token, kind = _number_token(raw), _NUMBER
        else:
            token, kind = raw, _OTHER
        token_of(token)
        kind_of(kind)
        span_of(match.span())
    return _Scanned(tuple(tokens), tuple(kinds), tuple(spans))


class TokenSpan(NamedTuple):
    """One token of a text as :func:`token_spans` reads it."""

    token: str
    #: ``word``, ``entity`` (an id or alias: ``@id``), ``number`` (canonical) or ``other``.
    kind: str
    #: The span of the characters it was read from, in the prepared text.
    start: int
    end: int


_KIND_NAMES = ("word", "entity", "number", "other")


def token_spans(
    text: str, matcher: AliasMatcher | None = None
) -> tuple[str, tuple[TokenSpan, ...]]:
    """The text as the text check prepares it (normalized; the same length as ``text``
    when normalizing changed no character's length) and its tokens, each with its kind and
    span (a contraction's words share its span)."""
    scanned = _scan(text, matcher)
    spans = tuple(
        TokenSpan(token, _KIND_NAMES[kind], start, end)
        for token, kind, (start, end) in zip(
            scanned.tokens, scanned.kinds, scanned.spans, strict=True
        )
    )
    return _prepared(text), spans


def _key(tokens: tuple[str, ...]) -> tuple[str, ...]:
    # A sentence's closing full stop is no part of what it says: ``X wins dining`` and
    # ``X wins dining.`` state one thing (``!`` and ``?`` are kept: they change the mood).
    return tokens[:-1] if tokens and tokens[-1] == "." else tokens


@lru_cache(maxsize=65536)
def sentence_key(text: str, matcher: AliasMatcher | None = None) -> tuple[str, ...]:
    """The v4 tokens of one sentence, without its closing full stop."""
    return _key(_scan(text, matcher).tokens)


#: Every word a contraction stands for (``not`` of ``don't``): the one way a word token
#: can come from text that does not hold it.
_EXPANSION_WORDS = frozenset(word for words in CONTRACTIONS.values() for word in words)


@lru_cache(maxsize=4096)
def _read_as_written(key: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens of ``key`` that :func:`_scan` only ever reads as the very characters of
    the prepared text: words of letters no contraction stands for (an entity token is
    ``@id``, a number token ``<...>``, neither all letters)."""
    return tuple(dict.fromkeys(t for t in key if t.isalpha() and t not in _EXPANSION_WORDS))


def cannot_hold(text: str, key: tuple[str, ...]) -> bool:
    """True when the tokens of ``text`` cannot hold the tokens ``key`` (its prepared text
    lacks a word of ``key`` that is read only as written): a cheap sufficient condition
    that spares tokenizing ``text``. False decides nothing; compare the tokens then."""
    words = _read_as_written(key)
    if not words:
        return False
    prepared = _prepared(text)
    return any(word not in prepared for word in words)


# --- templates -------------------------------------------------------------------------------


class PatternError(ValueError):
    """A template pattern that cannot be parsed or rendered."""


@dataclass(frozen=True, slots=True)
class _Slot:
    name: str


@dataclass(frozen=True, slots=True)
class _Choice:
    """Alternatives; an optional part is a choice between its body and nothing."""

    options: tuple[tuple[_Part, ...], ...]
    optional: bool


_Part = str | _Slot | _Choice


@dataclass(frozen=True, slots=True)
class Pattern:
    """A parsed template pattern: literal text, ``{slot}``, alternatives ``(a|b)`` and
    optional parts ``[a]`` (or optional alternatives ``[a|b]``).

    ``\\`` escapes the next character, so ``\\(4x\\)`` is literal text.
    """

    source: str
    parts: tuple[_Part, ...]

    @property
    def slots(self) -> frozenset[str]:
        """Every slot name the pattern uses."""
        return frozenset(_slots_of(self.parts))

    @property
    def plain(self) -> bool:
        """True when the pattern has no alternatives or optional parts."""
        return all(not isinstance(part, _Choice) for part in self.parts)

    def renderings(self, slots: Mapping[str, str]) -> Iterator[str]:
        """Every rendering with ``slots`` filled in, whitespace runs collapsed."""
        for pieces in _expand(self.parts, slots):
            yield " ".join(_filled(pieces, slots).split())

    def compact(self, slots: Mapping[str, str] | None = None) -> str:
        """The pattern in one line for a person (or a prompt) to read: alternatives as
        ``(a|b)``, optional parts as ``[a]``, each slot as its value in ``slots`` or, when
        ``slots`` has none for it, as ``{name}``; literal text unescaped."""
        return " ".join(_compact(self.parts, slots or {}).split())

    def always_has(self, slot: str) -> bool:
        """True when every rendering states ``slot`` (outside optional parts, or in every
        option of a choice)."""
        return _always_has(self.parts, slot)

    def literals(self) -> tuple[str, ...]:
        """Every piece of literal text, in every option of every choice (no slot value)."""
        return tuple(_literals_of(self.parts))

    def optional_texts(self, slots: Mapping[str, str], *, every: bool = False) -> list[str]:
        """The rendered text of every option of every optional part (of every choice, with
        ``every``), each once, for load checks and tests (:func:`optional_parts`)."""
        return optional_parts((self,), slots, every=every)


def _compact(parts: Sequence[_Part], slots: Mapping[str, str]) -> str:
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, _Slot):
            out.append(slots.get(part.name, "{" + part.name + "}"))
        else:
            body = "|".join(_compact(option, slots) for option in part.options)
            out.append(f"[{body}]" if part.optional else f"({body})")
    return "".join(out)


def _always_has(parts: Sequence[_Part], slot: str) -> bool:
    for part in parts:
        if isinstance(part, _Slot) and part.name == slot:
            return True
        if (
            isinstance(part, _Choice)
            and not part.optional
            and all(_always_has(option, slot) for option in part.options)
        ):
            return True
    return False


def _slots_of(parts: Sequence[_Part]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, _Slot):
            yield part.name
        elif isinstance(part, _Choice):
            for option in part.options:
                yield from _slots_of(option)


def _literals_of(parts: Sequence[_Part]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, _Choice):
            for option in part.options:
                yield from _literals_of(option)


def _choices(parts: Sequence[_Part]) -> Iterator[_Choice]:
    for part in parts:
        if isinstance(part, _Choice):
            yield part
            for option in part.options:
                yield from _choices(option)


def _expand(
    parts: Sequence[_Part], slots: Mapping[str, str] | None
) -> Iterator[tuple[str | _Slot, ...]]:
    """Every combination of options of ``parts``, as pieces: literal text and each slot's
    value in ``slots`` (or, with ``slots`` None, the slot itself, for :func:`_filled`)."""
    choices: list[list[tuple[str | _Slot, ...]]] = []
    for part in parts:
        if isinstance(part, str):
            choices.append([(part,)])
        elif isinstance(part, _Slot):
            choices.append([(part if slots is None else slots[part.name],)])
        else:
            options = [pieces for o in part.options for pieces in _expand(o, slots)]
            if part.optional:
                options.append(())
            choices.append(options)
    for combination in product(*choices):
        yield tuple(piece for pieces in combination for piece in pieces)


def _filled(pieces: Iterable[str | _Slot], slots: Mapping[str, str]) -> str:
    """The text of expanded pieces, each slot given its value in ``slots``."""
    return "".join([p if isinstance(p, str) else slots[p.name] for p in pieces])


def optional_parts(
    patterns: Sequence[Pattern], slots: Mapping[str, str], *, every: bool = False
) -> list[str]:
    """The rendered text of every option of every optional part (of every choice, with
    ``every``) of ``patterns``, each text once, in order. The options are expanded once
    per tuple of patterns (:func:`_option_pieces`); only slot values are filled per call."""
    texts: dict[str, None] = {}
    for option in _option_pieces(tuple(p.source for p in patterns), every):
        text = option if isinstance(option, str) else " ".join(_filled(option, slots).split())
        if text:
            texts[text] = None
    return list(texts)


@lru_cache(maxsize=1024)
def _option_pieces(
    sources: tuple[str, ...], every: bool
) -> tuple[str | tuple[str | _Slot, ...], ...]:
    """Every option of every optional part of the patterns ``sources`` (of every choice,
    with ``every``) expanded, each once, in order: as its rendered text when it holds no
    slot, else as its pieces (adjacent literal text joined) with the slots left to fill.
    Keyed by the patterns' text, which is cheaper to hash than the parsed patterns."""
    out: dict[str | tuple[str | _Slot, ...], None] = {}
    for source in sources:
        for part in _choices(parse_pattern(source).parts):
            if not (part.optional or every):
                continue
            for option in part.options:
                for pieces in _expand(option, None):
                    joined = _joined(pieces)
                    if all(isinstance(p, str) for p in joined):
                        out[" ".join("".join(map(str, joined)).split())] = None
                    else:
                        out[joined] = None
    return tuple(out)


def _joined(pieces: Sequence[str | _Slot]) -> tuple[str | _Slot, ...]:
    """``pieces`` with each run of literal text joined into one string."""
    out: list[str | _Slot] = []
    for piece in pieces:
        if isinstance(piece, str) and out and isinstance(out[-1], str):
            out[-1] += piece
        else:
            out.append(piece)
    return tuple(out)


_SLOT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_pattern(source: str) -> Pattern:
    """Parse a template pattern; :class:`PatternError` names what is wrong and where."""
    parts, end, closer = _parse_seq(source, 0, "")
    if closer:  # pragma: no cover - the top level stops only at the end
        raise PatternError(f"unexpected {closer!r} at {end} in {source!r}")
    return Pattern(source, tuple(parts))


def _parse_seq(source: str, pos: int, closers: str) -> tuple[list[_Part], int, str]:
    """Parts from ``pos`` up to one of ``closers`` (returned) or the end (``""``)."""
    parts: list[_Part] = []
    text: list[str] = []

    def flush() -> None:
        if text:
            parts.append("".join(text))
            text.clear()

    while pos < len(source):
        char = source[pos]
        if char == "\\":
            if pos + 1 >= len(source):
                raise PatternError(f"a pattern ends with a lone backslash: {source!r}")
            text.append(source[pos + 1])
            pos += 2
        elif char in closers:
            flush()
            return parts, pos + 1, char
        elif char in ")]|}":
            raise PatternError(f"unexpected {char!r} at {pos} in {source!r} (escape it: \\{char})")
        elif char == "{":
            end = source.find("}", pos)
            name = source[pos + 1 : end] if end > 0 else ""
            if not _SLOT_NAME.fullmatch(name):
                raise PatternError(f"bad slot at {pos} in {source!r}: write {{name}}")
            flush()
            parts.append(_Slot(name))
            pos = end + 1
        elif char in "[(":
            flush()
            close = "]" if char == "[" else ")"
            options: list[tuple[_Part, ...]] = []
            pos += 1
            while True:
                body, pos, closer = _parse_seq(source, pos, "|" + close)
                options.append(tuple(body))
                if closer == close:
                    break
                if closer != "|":
                    raise PatternError(f"a {char!r} opened in {source!r} is not closed")
            if char == "(" and len(options) < 2:
                raise PatternError(
                    f"a group in {source!r} has no alternatives: write (a|b), "
                    "or \\( for a parenthesis"
                )
            parts.append(_Choice(tuple(options), optional=char == "["))
        else:
            text.append(char)
            pos += 1
    flush()
    return parts, pos, ""


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
