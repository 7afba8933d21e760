"""Tokens for the text predicates (the v2 predicate of gate 5 and answer checking).

:func:`tokenize` reads text the way the v2 predicate compares it: the text is
passed through :func:`verity.text.normalize.normalize`, then scanned once, left to
right, by one compiled pattern whose alternatives are tried in this order:

1. an entity alias of the given :class:`~verity.text.aliases.AliasMatcher` (longest
   first, whole words): the entity id becomes one token;
2. a number mention (:data:`verity.text.numbers.NUMBER_RE`): its canonical token,
   such as ``<$6250>`` or ``<4x>``;
3. a word: a run of letters, digits and combining marks, with single interior
   hyphens or apostrophes (``well-known``, ``don't``).

Everything else (punctuation, symbols, underscores, whitespace) is dropped.

:func:`tokenize_v1` gives the tokens of the old set-containment predicate. It is
deliberately the same as ``tokenize(text)`` without aliases: v1 differs from v2 in
the rule (set containment), not in the tokens, so anything v2 accepts v1 accepts
too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from verity.text.aliases import AliasMatcher
from verity.text.chartables import class_body, compute, ranges
from verity.text.normalize import normalize
from verity.text.numbers import NUMBER_RE, value_of_match

__all__ = ["NUMBER_PATTERN", "WORD_PATTERN", "char_class", "tokenize", "tokenize_v1"]


def char_class(predicate: Callable[[str], bool], extra: Iterable[tuple[int, int]] = ()) -> str:
    """Body of a regex character class: every BMP character meeting ``predicate``, plus ``extra``.

    The class is spelled out as ranges so that ``re`` compiles it to a lookup table. (The
    classes the text layer uses are stored tables: :mod:`verity.text.chartables`.)
    """
    return class_body((*compute(predicate), *extra))


# Letters, digits and combining marks (the ``word`` table). Python's ``\w`` leaves out
# combining marks (Devanagari vowel signs, Arabic harakat), which belong inside words. Of
# the supplementary planes, two blocks count (historic scripts up to U+1F0FF, rare CJK);
# emoji and symbols do not.
_WORD_CHAR = "[" + class_body((*ranges("word"), (0x10000, 0x1F0FF), (0x20000, 0x3FFFF))) + "]"

#: A word: letters/digits/marks with single interior hyphens or apostrophes.
WORD_PATTERN = _WORD_CHAR + "+(?:['’-]" + _WORD_CHAR + "+)*"

# NUMBER_RE without its named groups (so that several scanners can embed it), in its
# own verbose scope.
_NUMBER = "(?x:" + re.sub(r"\(\?P<\w+>", "(?:", NUMBER_RE.pattern) + ")"
#: NUMBER_RE as an embeddable sub-pattern (no named groups), for other scanners.
NUMBER_PATTERN = _NUMBER


@lru_cache(maxsize=65536)
def _number_token(raw: str) -> str:
    """Canonical token of a number mention found by the scanner (same value as NUMBER_RE)."""
    match = NUMBER_RE.fullmatch(raw)
    if match is None:  # pragma: no cover - the scanner embeds NUMBER_RE itself
        raise ValueError(f"not a number mention: {raw!r}")
    return value_of_match(match).token


@lru_cache(maxsize=256)
def _scanner(alias_pattern: str | None) -> re.Pattern[str]:
    """One pattern: alias | letter-initial word | number | digit-initial word.

    Words that start with a letter cannot be numbers, so they are tried before the
    number alternative (which is slower); words that start with a digit are tried
    after it, so that ``4x`` and ``2024`` are numbers. Every group captures, in this
    order: alias (when there is an alias pattern), word, number, word.
    """
    alternatives = []
    if alias_pattern is not None:
        alternatives.append("(" + alias_pattern + ")")
    alternatives.append(r"((?=\D)" + WORD_PATTERN + ")")
    alternatives.append("(" + _NUMBER + ")")
    alternatives.append("(" + WORD_PATTERN + ")")
    return re.compile("|".join(alternatives))


def _tokens(normalized: str, matcher: AliasMatcher | None) -> list[str]:
    regex = matcher.regex if matcher is not None else None
    out: list[str] = []
    append = out.append
    if matcher is None or regex is None:
        for word, number, word2 in _scanner(None).findall(normalized):
            if word:
                append(word)
            elif number:
                append(_number_token(number))
            else:
                append(word2)
        return out
    inner = regex.groups  # capture groups inside the alias pattern, if any
    for groups in _scanner(regex.pattern).findall(normalized):
        if groups[0]:
            append(matcher.entity_of(groups[0]))
        elif groups[inner + 1]:
            append(groups[inner + 1])
        elif groups[inner + 2]:
            append(_number_token(groups[inner + 2]))
        else:
            append(groups[inner + 3])
    return out


def tokenize(text: str, matcher: AliasMatcher | None = None) -> list[str]:
    """The v2 tokens of ``text`` (raw text; it is normalized here)."""
    return _tokens(normalize(text), matcher)


def tokenize_v1(text: str) -> list[str]:
    """The tokens of the v1 predicate: the v2 tokens without entity aliases."""
    return _tokens(normalize(text), None)
