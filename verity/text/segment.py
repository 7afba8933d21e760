"""Guarded sentence segmentation: text -> atomic sentences on deterministic boundaries.

One compiled pattern finds *candidate* boundaries; each candidate then passes a few
cheap guard checks. There is no per-character Python loop and the pattern cannot
backtrack badly: every repetition in it is possessive and a terminator run can only start
where the previous character is not itself a terminator.

Candidates and their rules:

* a line break (``\\n``, ``\\r\\n``, ``\\r``, U+2028, U+2029, ...): always a boundary;
* a *hard* terminator, ``。 ！ ？ ｡ ．`` (CJK), ``। ॥`` (Devanagari), ``؟ ۔`` (Arabic
  script), with any closing quotes or brackets after it: a boundary whether or not
  whitespace follows, except a full-width ``．`` between two digits (a decimal point)
  and a quote closed right before the Japanese quotative particle (``「…。」と``);
* ``. ! ? …`` between two Arabic-script or CJK letters with no space: a boundary;
* a *soft* terminator run of ``. ! ? …`` followed by optional closers and then
  whitespace or the end of the text: a boundary unless a guard says otherwise.

Soft guards: never before a lowercase letter (``e.g. the``, ``"Why?" she asked``),
unless an entity mention of the given :class:`~verity.text.aliases.AliasMatcher` starts
there (``... at 4x. flat_two takes ...``: ids are often lowercase).
A run containing ``!`` or ``?`` and an ellipsis are otherwise boundaries. A single
period is not a boundary after a known abbreviation (:data:`ABBREVIATIONS`), after
a word of :data:`ABBREVIATIONS_BEFORE_NUMBER` when a digit follows (``No. 5``), after
an initial or a dotted initialism (``J. Smith``, ``U.S. economy``; ``a.m.`` and
``p.m.`` excepted), after a list number at the start of a line (``1. Groceries``),
and after an ordinal number (``am 3. Oktober``: before a month name, or after a
German article or preposition). A company suffix (:data:`NAME_SUFFIXES`: ``Inc.``,
``Co.``, ``Ltd.``) ends a sentence before a capitalised sentence opener
(:data:`SENTENCE_OPENERS`: ``... Airlines Inc. The next ...``). A period inside a
token (``500.00``, ``e.g.``, ``example.com``) is never a candidate because no whitespace
follows it. With a matcher, a period inside an entity mention (``Acme Widgets Co.``,
``A. B. Carter Ltd``, any name or alias of the graph) is never a boundary either: the
mention is one token; the period that ends a mention (``Frontier Airlines Inc.``) is a
boundary before a capitalised sentence opener only, as after a company suffix.

The checker, the graph loader and the backends split statements and claims with this
one function, so a name with ``Inc.`` reads as one sentence everywhere or nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache

from verity.text.aliases import AliasMatcher
from verity.text.chartables import class_body, ranges
from verity.text.normalize import normalize

__all__ = [
    "ABBREVIATIONS",
    "ABBREVIATIONS_BEFORE_NUMBER",
    "NAME_SUFFIXES",
    "SENTENCE_OPENERS",
    "join_sentences",
    "split_sentences",
]

#: Words that end with a period but never end a sentence (compared case-folded, without
#: the final period). Titles, Latin abbreviations and their equivalents in de/fr/es/hi.
ABBREVIATIONS: frozenset[str] = frozenset(
    {
        # English
        "mr", "mrs", "ms", "dr", "prof", "sr", "st", "mt", "vs", "e.g", "i.e", "cf",
        "fig", "figs", "approx", "dept", "gen", "col", "lt", "sgt", "capt", "rev", "hon",
        "gov", "sen", "rep", "esp", "incl", "viz", "ca",
        # English, inside company names (``Corp.`` is left out: it ends sentences as often)
        "inc", "co", "ltd",
        # German
        "z.b", "d.h", "u.a", "bzw", "vgl", "ggf", "sog", "evtl", "hr", "fr", "nr",
        "inkl", "zzgl", "abs",
        # French
        "mme", "mlle", "mm", "env",
        # Spanish
        "sra", "srta", "dra", "ud", "uds", "avda", "av", "ee", "uu", "núm", "pág",
        # Hindi (Devanagari)
        "डॉ", "प्रो",
    }
)  # fmt: skip

#: Words that are abbreviations when a number follows them (``No. 5``, ``Jan. 15``).
ABBREVIATIONS_BEFORE_NUMBER: frozenset[str] = frozenset(
    {
        "no", "nos", "nr", "num", "núm", "art", "p", "pp", "pg", "pág", "vol", "ch", "sec",
        "sect", "par", "tel", "s", "bd", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
        "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip

#: Abbreviations that end a company name (:data:`ABBREVIATIONS`), so a noun phrase that can
#: end a sentence: before a word of :data:`SENTENCE_OPENERS` their period is a boundary.
NAME_SUFFIXES: frozenset[str] = frozenset({"inc", "co", "ltd"})

#: Capitalised words that start a sentence and never continue a company name: articles,
#: pronouns, determiners, conjunctions and prepositions (compared case-folded).
SENTENCE_OPENERS: frozenset[str] = frozenset(
    {
        "the", "a", "an", "this", "that", "these", "those", "it", "its", "they", "their",
        "there", "he", "she", "we", "our", "i", "you", "each", "every", "all", "both",
        "no", "none", "only", "most", "some", "many", "in", "on", "at", "by", "for",
        "from", "with", "after", "before", "during", "since", "but", "and", "or", "so",
        "yet", "however", "meanwhile", "overall", "also", "then", "if", "when", "while",
        "as", "because", "although", "though", "what", "which", "who", "where",
    }
)  # fmt: skip


def _opens_sentence(after: str) -> bool:
    """True when ``after`` starts with a capitalised word of :data:`SENTENCE_OPENERS`."""
    word = re.match(r"[^\W\d_]+", after)
    return (
        word is not None
        and word.group()[0].isupper()
        and word.group().casefold() in SENTENCE_OPENERS
    )


# Dotted initialisms that commonly end a sentence: a boundary before an uppercase word.
_SENTENCE_FINAL_INITIALISMS = frozenset({"a.m", "p.m"})

_MONTHS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december",
        "januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember",
        "janvier", "février", "mars", "avril", "juin", "juillet", "août", "septembre",
        "octobre", "novembre", "décembre",
    }
)  # fmt: skip

# German articles and prepositions after which "<number>." is an ordinal (der 2. Versuch).
_ORDINAL_CUES = frozenset(
    {"der", "die", "das", "den", "dem", "des", "am", "im", "vom", "zum", "zur", "beim", "bis"}
)

_CLOSERS = "\"'”’“‘»›)]}」』）】》〉"
_OPENERS = "\"'“‘„‚«‹([{¿¡「『（【《〈"
_HARD = "。！？｡．।॥؟۔"
_SOFT = ".!?…"
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_TIGHT_SCRIPTS = (
    "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff"  # Arabic script
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"  # CJK, Hangul
)

_CANDIDATE = re.compile(
    "(?P<nl>\r\n|[" + _LINE_BREAKS + "])"
    "|(?P<hard>[" + _HARD + "][" + _HARD + "!?]*+)(?P<hclose>[" + re.escape(_CLOSERS) + "]*+)"
    "|(?<=[" + _TIGHT_SCRIPTS + "])(?P<tight>[.!?]++)(?=[" + _TIGHT_SCRIPTS + "])"
    "|(?<![" + _SOFT + "])(?P<soft>[" + _SOFT + "]++)"
    "(?P<sclose>[" + re.escape(_CLOSERS) + "]*+(?:[ \u00a0\u202f]++[»›])?+)(?=\\s|\\Z)"
)

# Every candidate starts with one of these characters. Jumping to them first is much
# faster than letting ``finditer`` try the four alternatives at every position.
_FIRST = re.compile("[" + re.escape(_LINE_BREAKS + _HARD + _SOFT) + "]")


def _candidates(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_CANDIDATE.finditer(text)``, found by jumping to possible starts."""
    search = _FIRST.search
    match = _CANDIDATE.match
    pos = 0
    while (hit := search(text, pos)) is not None:
        found = match(text, hit.start())
        if found is None:
            pos = hit.start() + 1
        else:
            yield found
            pos = found.end()


_CJK_RUN = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\uffef]+")


@cache
def _initials() -> re.Pattern[str]:
    """An initial (one letter, with its combining marks) or dotted initials: J, U.S, J.-P,
    e.g. (the ``mark`` table: ``Mn`` and ``Mc``); compiled on first use."""
    marks = class_body(ranges("mark"))
    return re.compile(r"(?:[^\W\d_][" + marks + r"]*\.-?)*[^\W\d_][" + marks + "]*")


def split_sentences(text: str, matcher: AliasMatcher | None = None) -> list[str]:
    """Split ``text`` into sentences, each stripped of surrounding whitespace; no empty ones.

    With ``matcher``, a full stop before a lowercase word is a boundary when an entity
    mention starts at that word; without one the segmentation is exactly as before.
    """
    cuts: list[int] = []
    for match in _candidates(text):
        kind = match.lastgroup
        if kind == "nl" or kind == "tight":
            cuts.append(match.end())
        elif kind == "hclose" or kind == "hard":
            if _hard_boundary(text, match):
                cuts.append(match.end())
        elif _soft_boundary(text, match, matcher):
            cuts.append(match.end())
    sentences: list[str] = []
    start = 0
    for cut in (*cuts, len(text)):
        piece = text[start:cut].strip()
        if piece:
            sentences.append(piece)
        start = cut
    return sentences


def _hard_boundary(text: str, match: re.Match[str]) -> bool:
    start, end = match.start(), match.end()
    if (
        match.group("hard") == "．"
        and start > 0
        and end < len(text)
        and text[start - 1].isdigit()
        and text[end].isdigit()
    ):
        return False  # full-width decimal point: １２３．５
    # A quote that closes right before the quotative particle continues the sentence.
    return not (match.group("hclose") and text[end : end + 1] in ("と", "っ"))


def _entity_starts(after: str, matcher: AliasMatcher | None) -> bool:
    """True when an entity mention of ``matcher`` starts ``after`` (raw text)."""
    if matcher is None or matcher.regex is None:
        return False
    return matcher.regex.match(normalize(after[:256])) is not None


def _soft_boundary(text: str, match: re.Match[str], matcher: AliasMatcher | None = None) -> bool:
    term = match.group("soft")
    end = match.end()
    after = text[end : end + 40].lstrip().lstrip(_OPENERS)
    if not after:
        return True  # end of text (or only openers): nothing to glue to
    first = after[0]
    if first.islower() and not (
        term == "." and _entity_starts(text[end:].lstrip().lstrip(_OPENERS), matcher)
    ):
        return False
    if term != ".":
        return True  # ! ? runs and ellipses
    place = _mention_place(text, match.start(), matcher)
    if place == "inside":
        return False
    if place == "end":
        return _opens_sentence(after)  # "... Frontier Airlines Inc. The next ..."
    before = text[max(0, match.start() - 40) : match.start()]
    if not before or before[-1].isspace():
        return True  # a lone period
    chunks = before.split()
    # In unspaced scripts the word is what follows the last CJK character: 彼女はJ -> J.
    word = _CJK_RUN.split(chunks[-1])[-1].lstrip(_OPENERS).rstrip(_CLOSERS)
    return _period_ends_sentence(text, match.start(), word, chunks, after)


#: How far around a period an entity mention is looked for (characters each side).
_MENTION_WINDOW = 256


def _mention_place(text: str, period: int, matcher: AliasMatcher | None) -> str:
    """Where the period at ``period`` lies in an entity mention of ``matcher``: ``"end"``
    when it is the mention's last character (``Frontier Airlines Inc.``), ``"inside"``
    when more of the mention follows it (``A. B. Carter Ltd``), ``""`` outside any."""
    if matcher is None or matcher.regex is None:
        return ""
    lo = max(0, period - _MENTION_WINDOW)
    if lo:  # start the window at a word boundary, so it cuts no name in two
        lo = max(text.rfind(" ", 0, lo) + 1, 0)
    at = len(normalize(text[lo:period]))
    window = normalize(text[lo : period + _MENTION_WINDOW])
    for m in matcher.find(window):
        if m.start <= at < m.end:
            return "end" if at == m.end - 1 else "inside"
    return ""


def _period_ends_sentence(text: str, period: int, word: str, chunks: list[str], after: str) -> bool:
    """True when the single period after ``word`` ends a sentence: it belongs to no
    abbreviation and no number."""
    key = word.casefold()
    elided = key.rsplit("'", 1)[-1].rsplit("’", 1)[-1]  # l'art. -> art
    if key in NAME_SUFFIXES and _opens_sentence(after):
        return True  # "... Frontier Airlines Inc. The next ..."
    if key in ABBREVIATIONS or elided in ABBREVIATIONS:
        return False
    next_is_digit = after[0].isdigit()
    if next_is_digit and (
        key in ABBREVIATIONS_BEFORE_NUMBER
        or elided in ABBREVIATIONS_BEFORE_NUMBER
        or key.endswith("str")  # German street names: Hauptstr. 5
    ):
        return False
    if _initials().fullmatch(word) is not None:
        return key in _SENTENCE_FINAL_INITIALISMS
    if word.isdigit() and len(word) <= 3:
        if _at_line_start(text, period - len(word)):
            return False  # a numbered list item: "1. Groceries"
        next_word = after.split(maxsplit=1)[0].rstrip(",.;:").casefold()
        if next_word in _MONTHS:
            return False
        if len(chunks) >= 2 and chunks[-2].casefold() in _ORDINAL_CUES:
            return False
    return True


def _at_line_start(text: str, pos: int) -> bool:
    """True when only spaces or tabs lie between ``pos`` and the start of its line."""
    head = text[max(0, pos - 16) : pos].rstrip(" \t\u00a0")
    if not head:
        return pos <= 16
    return head[-1] in _LINE_BREAKS


_TERMINAL = (".", "!", "?", "…", "。", "！", "？")


def join_sentences(texts: Sequence[str]) -> str:
    """Join shipped texts with one space, so that no sentence can form across two of them:
    a text that does not end with a sentence terminator gets a full stop."""
    parts = []
    for text in texts:
        text = text.strip()
        parts.append(text if text.endswith(_TERMINAL) else text + ".")
    return " ".join(parts)
