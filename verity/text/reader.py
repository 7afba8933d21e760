"""The reader view: text is checked as a reader sees it, or refused.

:func:`reader_issue` names the first thing in a text that would make a reader see
something other than what the v4 predicate compares. Such text is refused, never
cleaned: a line break (two statements can be spliced across one), a control, format or
non-space whitespace character, a striking or enclosing combining mark, a digit a reader
may misread (other scripts, superscripts, fractions), markup that hides or changes what
is shown (tags, comments, character references, ``~~``, Markdown links and escapes), and
a character the tokenizer would otherwise have to drop (private use, unassigned, a lone
surrogate, a combining mark with no letter to sit on).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal

__all__ = ["ReaderIssue", "reader_issue"]

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
_MARKUP_START = r"(?=[<&~\]!\\-])"
_MARKUP = re.compile(
    _MARKUP_START
    + r"(?:</?[A-Za-z][^<>]*>"  # an HTML/XML tag (``a < b`` is no tag: a space follows ``<``)
    r"|<!--|-->|<!\[|<\?"  # comments, CDATA, processing instructions
    r"|&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);"  # character references
    r"|~~"  # Markdown strike-through
    r"|\]\(|!\["  # Markdown links and images
    r"|\\[\\`*_{}\[\]()#+\-.!~|<>])"  # Markdown escapes (the backslash is not shown)
)


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
