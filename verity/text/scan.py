"""Sentence keys: the marker words, the universal equivalences and the token scanner.

A text is normalized (NFKC, case folding) and scanned left to right into the tokens
:func:`sentence_key` returns: an entity mention (id or alias, longest first, whole words)
is one token ``@id``; a number mention is one canonical token; a word is a run of letters,
digits and combining marks; any other character is a token of its own. The universal
equivalences (:data:`CONTRACTIONS` and the normalizations) are the only differences the
scanner forgives. Part of the v4 predicate (:mod:`verity.text.variation`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.align import POLARITY_MARKERS
from verity.text.normalize import normalize
from verity.text.tokens import NUMBER_PATTERN, WORD_PATTERN, _number_token

__all__ = [
    "CONTRACTIONS",
    "EXTRA_MARKERS",
    "MARKERS",
    "TokenSpan",
    "cannot_hold",
    "sentence_key",
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
