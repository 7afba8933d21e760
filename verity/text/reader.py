"""The reader view: text is checked as a reader sees it, or refused.

:func:`reader_issue` names the first thing in a text that would make a reader see
something other than what the v4 predicate compares. Such text is refused, never
cleaned: a line break (two statements can be spliced across one), a control, format or
non-space whitespace character, a striking or enclosing combining mark, a digit a reader
may misread (other scripts, superscripts, fractions), markup that hides or changes what
is shown (tags, comments, character references, ``~~``, Markdown links and escapes), and
a character the tokenizer would otherwise have to drop (private use, unassigned, a lone
surrogate, a combining mark with no letter to sit on).

:func:`plain_text` is the one place where markup is read rather than refused: Markdown
emphasis around whole words and one list bullet at the start of a line are shown by every
renderer as the plain words they mark, so the text is checked as those words. Every
reader of a claim or an answer (the entity and number gates, the sentence gate, the
duplicate rule, check-answer) gets the text through it once, where the text enters
checking (:func:`verity.core.verify` for a claim, :func:`verity.check_answer` for an
answer). Emphasis marks left over after it (unbalanced, inside a word, ``***``) and code
spans are markup, refused by :func:`reader_issue`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal

from verity.text.segment import split_sentences

__all__ = ["ReaderIssue", "plain_text", "reader_issue", "shown_as_checked", "states_nothing"]

ReaderIssue = Literal[
    "line_break", "control_character", "foreign_digit", "markup", "dropped_character"
]

_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Combining marks that strike, overlay or enclose what they sit on.
_STRIKE_MARKS = frozenset(
    [chr(c) for c in range(0x0334, 0x0339)] + [chr(c) for c in range(0x20D2, 0x20D4)]
    + [chr(c) for c in range(0x20E5, 0x20E7)]
)  # fmt: skip
# Every alternative below starts with one of these: a position where none stands fails
# before the alternatives are tried.
_MARKUP_START = r"(?=[<&~\]!\\`*_#-])"
_MARKUP = re.compile(
    _MARKUP_START
    + r"(?:</?[A-Za-z][^<>]*>"  # an HTML/XML tag (``a < b`` is no tag: a space follows ``<``)
    r"|<!--|-->|<!\[|<\?"  # comments, CDATA, processing instructions
    r"|&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);"  # character references
    r"|~~"  # Markdown strike-through
    r"|\]\(|!\["  # Markdown links and images
    r"|\\[\\`*_{}\[\]()#+\-.!~|<>]"  # Markdown escapes (the backslash is not shown)
    r"|`"  # a code span (its words are shown as code, not as prose)
    r"|(?<![^\n])\#{1,6}(?:[ \t]|$)"  # a heading at the start of a line
    # Emphasis marks :func:`plain_text` did not read: a ``*`` next to anything but a space
    # (unbalanced, inside a word, ``***``), an ``_`` at the edge of a word or doubled.
    r"|\*(?!\s|$)|(?<=\S)\*"
    r"|(?<![^\W_])_|_(?![^\W_]))"
)


# --- the plain text a reader sees ---------------------------------------------------------
#
# Two pieces of Markdown change nothing a reader takes away, and chat models write them
# unasked, so they are read as the words they mark instead of refused:
#
# - emphasis (``**bold**``, ``__bold__``, ``*italics*``, ``_italics_``) around whole words:
#   a renderer shows the same words in another weight, and so does a reader who sees the
#   marks raw. Only the marks go, never a word: ``**not**`` reads ``not``. A pair counts
#   when it opens before a non-space and closes after one, and neither mark touches a
#   letter or digit outside it (``un*believ*able``, ``5*3*2`` and ``snake_case`` are no
#   emphasis) or another mark of its kind (``***``). Pairs nest (``**_x_**``) up to
#   :data:`_MAX_NESTING` deep. Every mark that is not so paired stays, and
#   :func:`reader_issue` refuses it as markup: a renderer may show it as emphasis over
#   words other than the ones checked (an unbalanced mark pairs with one further on).
# - one list bullet at the start of a line (``- ``, ``* ``, ``• ``, ``1. ``): it marks where
#   an item starts and says nothing. A dash bullet before a number, a currency sign or a
#   decimal point stays (``- 5%`` reads as a minus sign), and so does a second bullet, a
#   bullet inside a line (``A. - B.`` is a dash a reader sees) and a list number longer
#   than three digits (the segmenter's list-number rule). Claims refuse line breaks, so a
#   claim has at most one bullet, at its start; an answer may have one per line.
#
# Strike-through, links, images, code spans, headings, HTML and escapes stay refused: they
# hide words, show other words or show words as something other than prose.
_BULLET = re.compile(r"(?m)^[ \t]*(?:[*•]|-(?![ \t]*[-+$€£¥.0-9])|[0-9]{1,3}\.)[ \t]+")
# A mark after a backslash is escaped (shown as is): it opens and closes nothing.
_STAR_EMPHASIS = re.compile(
    r"(?<![^\W_]|[*\\])(\*\*|\*)(?=[^\s*])([^\n]+?)(?<=[^\s*\\])\1(?![^\W_]|\*)"
)
_LINE_EMPHASIS = re.compile(r"(?<![\w\\])(__|_)(?=[^\s_])([^\n]+?)(?<=[^\s_\\])\1(?!\w)")
_MAX_NESTING = 3


def plain_text(text: str) -> str:
    """``text`` as a reader sees it rendered: emphasis marks around whole words and one
    list bullet at the start of each line removed, every word kept.

    Apply it once, where a text enters checking (a second pass would read a second
    bullet); :func:`reader_issue` then refuses any markup it left.
    """
    out = _BULLET.sub("", text)
    for _ in range(_MAX_NESTING):
        if "*" not in out and "_" not in out:
            break
        before = out
        out = _LINE_EMPHASIS.sub(r"\2", _STAR_EMPHASIS.sub(r"\2", out))
        if out == before:
            break
    return out


@lru_cache(maxsize=65536)
def _char_issue(char: str) -> ReaderIssue | None:
    if char == " ":
        return None
    if char in _LINE_BREAKS:
        return "line_break"
    category = unicodedata.category(char)
    if category in ("Co", "Cn", "Cs"):
        return "dropped_character"  # private use, unassigned, lone surrogates
    if category[0] in "CZ" or char in _STRIKE_MARKS or category == "Me":
        return "control_character"  # Cc Cf, Zs other than space, Zl, Zp
    if category in ("No", "Nl"):
        return "foreign_digit"  # superscripts, fractions, circled or Roman numerals
    return None


def _loose_mark(text: str) -> str | None:
    """A combining mark that, after NFKC, follows no letter or digit (so no word holds it)."""
    base = ""  # the last character that is not a combining mark
    for char in unicodedata.normalize("NFKC", text):
        if unicodedata.category(char)[0] != "M":
            base = char
        elif not base.isalnum():
            return char
    return None


def reader_issue(text: str) -> tuple[ReaderIssue, str] | None:
    """What makes ``text`` read differently from what would be checked, or None.

    Returns the issue and the offending character or markup (as written).
    """
    if text.isascii() and text.isprintable():
        found = _MARKUP.search(text)
        return None if found is None else ("markup", found.group(0))
    for char in text:
        issue = _char_issue(char)
        if issue is not None:
            return issue, char
    found = _MARKUP.search(text)
    if found is not None:
        return "markup", found.group(0)
    for char in unicodedata.normalize("NFKC", text):
        if char.isdigit() and not ("0" <= char <= "9"):
            return "foreign_digit", char
    mark = _loose_mark(text)
    if mark is not None:
        return "dropped_character", mark
    return None


def states_nothing(sentence: str) -> bool:
    """A sentence without a letter or digit: punctuation alone states nothing."""
    return not any(ch.isalnum() for ch in sentence)


def shown_as_checked(text: str) -> bool:
    """``text`` is read exactly as written: :func:`plain_text` leaves it as it is,
    :func:`reader_issue` finds nothing in it and each of its sentences states something.

    The rule for text offered as a claim (the claim menu): strict reads a claim through
    :func:`plain_text` and refuses what :func:`reader_issue` names, so text outside this
    rule would be offered and then rejected.
    """
    if plain_text(text) != text or reader_issue(text) is not None:
        return False
    return not any(map(states_nothing, split_sentences(text) or [""]))
