"""The v3 support predicate: v2 hardened against an adversarial narrator.

v3 accepts a claim sentence against a passage only when v2 accepts it *and* all of
the following hold, so anything v3 accepts v2 accepts (a property test holds this):

1. **Reader view.** The claim is checked as a reader sees it. It may hold no control
   or format character, no whitespace other than a plain space, no line break, no
   striking or enclosing combining mark, no digit outside ASCII (after NFKC; so
   superscripts, fractions and other scripts' digits are refused) and no markup
   (HTML/XML tags or comments, character references, ``~~`` strike-through, Markdown
   links). Such text is rejected, never silently cleaned.
2. **Tokens a reader sees.** Besides v2's words, entity ids and number tokens,
   clause punctuation (``, ; :``, dashes, brackets) and symbols (``< > = ~ ± + & ...``)
   are tokens. A claim's punctuation and symbols must match the passage's.
3. **One passage sentence.** The match lies inside one sentence of the passage
   (guarded segmenter, entity-aware).
4. **Barriers.** A gap (still at most :data:`~verity.text.align.MAX_SINGLE_GAP` tokens,
   :data:`~verity.text.align.MAX_TOTAL_GAP` in all) may skip only plain words: never an
   entity mention, a number, clause punctuation, a symbol, a conjunction
   (:data:`CONJUNCTIONS`), a polarity marker (:data:`MARKERS_V3`) or a token of a
   required span.
5. **Subject anchoring.** The match starts at the start of the passage sentence, or
   covers the sentence's first entity mention; a sentence without entity mentions
   may also be entered at the start of a coordinate unit (after ``, and``, ``; ``...).
6. **Required spans.** Every required span of the passage sentence (marked by the
   backend: scope, conditions, ties, caps, the verb of a threshold) lies inside the
   match, so none is dropped or cut.
7. **Clause guard.** For every marker of :data:`MARKERS_V3` (the frozen 20, any word
   ending in ``n't``, read as ``not``, and :data:`EXTRA_MARKERS`), the claim holds
   it at least as often as the *coordinate unit* of the passage around the match
   does (the sentence, split only before ``, and`` / ``, but`` / ``;`` ... clauses);
   and when that unit holds a marker, the match runs to the end of the clause of
   its last marker, so a marker's object is never cut (``except cargo``).

The gap budget is the pinned (4, 8); nothing here is configurable. The private
:class:`_Rules` switches exist for the ablation benchmark only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import compress
from typing import Literal, NamedTuple

from verity.text.aliases import AliasMatcher
from verity.text.align import (
    _WINDOW,
    MAX_SINGLE_GAP,
    MAX_TOTAL_GAP,
    POLARITY_MARKERS,
    MarkerLoss,
    PassageIndex,
    check_support,
)
from verity.text.normalize import normalize
from verity.text.segment import split_sentences
from verity.text.tokens import NUMBER_PATTERN, WORD_PATTERN, _number_token, tokenize

__all__ = [
    "CONJUNCTIONS",
    "EXTRA_MARKERS",
    "MARKERS_V3",
    "ClaimV3",
    "PassageV3",
    "ReaderIssue",
    "ReasonV3",
    "SentenceV3",
    "SupportV3",
    "check_claim_v3",
    "check_support_v3",
    "claim_tokens_v3",
    "is_supported_v3",
    "reader_issue",
    "readings",
]

ReasonV3 = Literal[
    "supported",
    "empty_claim",
    "unreadable",
    "not_contained",
    "marker_dropped",
    "crosses_barrier",
    "not_anchored",
    "required_span_dropped",
    "marker_object_cut",
]

#: How far a failed check got, for choosing which failure to report (higher = closer).
PROGRESS: dict[str, int] = {
    "empty_claim": 0,
    "unreadable": 0,
    "not_contained": 1,
    "crosses_barrier": 2,
    "not_anchored": 3,
    "required_span_dropped": 4,
    "marker_dropped": 5,
    "marker_object_cut": 6,
    "supported": 7,
}

#: Words beyond the frozen 20 whose deletion can flip or widen a statement: negative
#: adverbs and verbs, conditions, limiters, hedges and modals (``often`` reduced is not
#: reduced; ``may`` work is not works; ``up to`` 4 g is not 4 g). Measured in
#: benchmarks/adversarial.
EXTRA_MARKERS: frozenset[str] = frozenset(
    {
        "about", "almost", "approximately", "barely", "barring", "could", "excluded",
        "exempt", "generally", "hardly", "if", "instead", "lack", "lacking", "lacks",
        "least", "may", "might", "most", "mostly", "nearly", "nowhere", "often", "once",
        "only", "rarely", "refused", "rejected", "roughly", "scarcely", "seldom",
        "sometimes", "typically", "unable", "unlike", "until", "up", "usually", "whether",
    }
)  # fmt: skip

#: Every word the v3 guard counts (contractions in ``n't`` count as ``not``).
MARKERS_V3: frozenset[str] = POLARITY_MARKERS | EXTRA_MARKERS

#: Words that join clauses or terms: a gap never skips one.
CONJUNCTIONS: frozenset[str] = frozenset(
    {
        "although", "and", "because", "but", "either", "nor", "or", "plus", "so", "than",
        "then", "though", "versus", "vs", "whereas", "while", "yet",
    }
)  # fmt: skip

# Coordinating words that open an independent clause after clause punctuation.
_COORDINATORS = frozenset({"and", "but", "or", "so", "while", "whereas", "yet"})

# --- 1. the reader view ----------------------------------------------------------------

ReaderIssue = Literal["line_break", "control_character", "foreign_digit", "markup"]

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
    if category[0] in "CZ" or char in _STRIKE_MARKS or category == "Me":
        return "control_character"  # Cc Cf Co Cs Cn, Zs other than space, Zl, Zp
    if category in ("No", "Nl"):
        return "foreign_digit"  # superscripts, fractions, circled or Roman numerals
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
    return None


# --- 2. tokens ----------------------------------------------------------------------------

_WORD, _ENTITY, _NUMBER, _PUNCT, _SYMBOL = range(5)
_CLAUSE_PUNCT = ",;:–—‒―()[]{}"
# Clause punctuation that reads alike is one token: ``; unless`` matches ``, unless``.
_PUNCT_TOKEN = {";": ",", ":": ",", "—": "–", "‒": "–", "―": "–"}
# Characters dropped as in v2: sentence terminators, quotes, apostrophes, hyphens and
# underscores between tokens, and whitespace. Everything else that is not a word,
# number or clause punctuation is a symbol token.
_DROPPED = ".!?…'\"‘’‚‛“”„‟«»‹›`´_-‐‑·•/\\"


@lru_cache(maxsize=256)
def _scanner(alias_pattern: str | None) -> re.Pattern[str]:
    alternatives = []
    if alias_pattern is not None:
        alternatives.append("(?P<alias>" + alias_pattern + ")")
    alternatives.append(r"(?P<word>(?=\D)" + WORD_PATTERN + ")")
    alternatives.append("(?P<number>" + NUMBER_PATTERN + ")")
    alternatives.append("(?P<word2>" + WORD_PATTERN + ")")
    alternatives.append("(?P<punct>[" + re.escape(_CLAUSE_PUNCT) + "])")
    alternatives.append(r"(?P<symbol>[^\s" + re.escape(_DROPPED + _CLAUSE_PUNCT) + r"])")
    return re.compile("|".join(alternatives))


@dataclass(frozen=True, slots=True)
class _Tokens:
    """Tokens of one text: values, kinds, marker keys and character spans (normalized)."""

    values: tuple[str, ...]
    kinds: tuple[int, ...]
    markers: tuple[str | None, ...]
    spans: tuple[tuple[int, int], ...]
    raw_semicolon: tuple[bool, ...]


def _marker_key(word: str) -> str | None:
    if word in MARKERS_V3:
        return word
    if word.endswith(("n't", "n’t")):
        return "not"
    return None


def _scan(normalized: str, matcher: AliasMatcher | None) -> _Tokens:
    regex = matcher.regex if matcher is not None else None
    scanner = _scanner(regex.pattern if regex is not None else None)
    values: list[str] = []
    kinds: list[int] = []
    markers: list[str | None] = []
    spans: list[tuple[int, int]] = []
    semicolons: list[bool] = []
    for match in scanner.finditer(normalized):
        group = match.lastgroup
        raw = match.group(0)
        marker: str | None = None
        if group == "alias" and matcher is not None:
            value, kind = matcher.entity_of(raw), _ENTITY
        elif group == "number":
            value, kind = _number_token(raw), _NUMBER
        elif group in ("word", "word2"):
            value, kind = raw, _WORD
            marker = _marker_key(value)
        elif group == "punct":
            value, kind = _PUNCT_TOKEN.get(raw, raw), _PUNCT
        else:
            value, kind = raw, _SYMBOL
        values.append(value)
        kinds.append(kind)
        markers.append(marker)
        spans.append(match.span())
        semicolons.append(raw == ";")
    return _Tokens(tuple(values), tuple(kinds), tuple(markers), tuple(spans), tuple(semicolons))


def _scan_values(normalized: str, matcher: AliasMatcher | None) -> tuple[list[str], list[int]]:
    """The values and kinds of :func:`_scan` alone (no spans or markers), from ``findall``."""
    regex = matcher.regex if matcher is not None else None
    scanner = _scanner(regex.pattern if regex is not None else None)
    values: list[str] = []
    kinds: list[int] = []
    add_value, add_kind = values.append, kinds.append
    found: list[tuple[str, ...]] = scanner.findall(normalized)
    # Rows of alias, word, number, word2, punct, symbol. With an alias pattern (and
    # its own groups, if any) in front, the scanner's groups are alias, alias-internal
    # ..., word, number, word2, punct, symbol; without one there is no alias group.
    if regex is None:
        found = [("", *groups) for groups in found]
    elif regex.groups:
        found = [(groups[0], *groups[1 + regex.groups :]) for groups in found]
    entity_of = matcher.entity_of if matcher is not None else None
    for alias, word, number, word2, punct, symbol in found:
        if alias and entity_of is not None:
            add_value(entity_of(alias))
            add_kind(_ENTITY)
        elif word or word2:
            add_value(word or word2)
            add_kind(_WORD)
        elif number:
            add_value(_number_token(number))
            add_kind(_NUMBER)
        elif punct:
            add_value(_PUNCT_TOKEN.get(punct, punct))
            add_kind(_PUNCT)
        else:
            add_value(symbol)
            add_kind(_SYMBOL)
    return values, kinds


def claim_tokens_v3(text: str, matcher: AliasMatcher | None = None) -> tuple[str, ...]:
    """The v3 tokens of a claim sentence (words, entity ids, numbers, punctuation, symbols)."""
    return ClaimV3.of(text, matcher).tokens


# --- 3. passages --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SentenceV3:
    """One passage sentence prepared for v3: tokens, barriers, units and required ranges."""

    tokens: tuple[str, ...]
    markers: tuple[str | None, ...]
    barrier: tuple[bool, ...]
    first_entity: int | None
    #: Start of the coordinate unit of each token (a unit after ``, and`` starts at ``and``).
    unit_start: tuple[int, ...]
    #: End (exclusive) of the coordinate unit of each token.
    unit_end: tuple[int, ...]
    #: End (exclusive) of the comma-delimited clause of each token.
    clause_end: tuple[int, ...]
    required: tuple[tuple[int, int], ...]
    has_entities: bool
    #: Per token value, its positions as a bit set (bit i: token i).
    bits: dict[str, int]
    #: The positions of tokens that are no barrier, as a bit set.
    open_bits: int
    #: Some token is a marker of :data:`MARKERS_V3`.
    has_markers: bool

    @property
    def positions(self) -> dict[str, tuple[int, ...]]:
        """Per token value, its ascending positions (from :attr:`bits`)."""
        return {value: tuple(_set_bits(found)) for value, found in self.bits.items()}


def _set_bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _bit_sets(tokens: Sequence[str], barrier: Sequence[bool]) -> tuple[dict[str, int], int]:
    """(token value -> bit set of its positions, bit set of the non-barrier positions)."""
    bits: dict[str, int] = {}
    open_bits = 0
    for pos, value in enumerate(tokens):
        bits[value] = bits.get(value, 0) | (1 << pos)
        if not barrier[pos]:
            open_bits |= 1 << pos
    return bits, open_bits


def _units(tokens: _Tokens) -> tuple[list[int], list[int], list[int]]:
    """Per token: start and end of its coordinate unit, end of its clause.

    A coordinate unit ends before clause punctuation that a semicolon is, or that a
    coordinating conjunction follows; brackets end no clause.
    """
    n = len(tokens.values)
    values, kinds = tokens.values, tokens.kinds
    unit_breaks: list[int] = []  # a unit starts at each of these positions
    clause_breaks: list[int] = []  # a clause ends before each of these positions
    for i in range(n):
        if kinds[i] != _PUNCT or values[i] in "()[]{}":
            continue
        clause_breaks.append(i)
        nxt = values[i + 1] if i + 1 < n else None
        if tokens.raw_semicolon[i] or nxt in _COORDINATORS:
            unit_breaks.append(i + 1)
    unit_start = [0] * n
    unit_end = [n] * n
    starts = [0, *unit_breaks]
    ends = [*unit_breaks, n]
    for lo, hi in zip(starts, ends, strict=True):
        for i in range(lo, hi):
            unit_start[i], unit_end[i] = lo, hi
    clause_end = [n] * n
    pos = 0
    for brk in [*clause_breaks, n]:
        for i in range(pos, min(brk, n)):
            clause_end[i] = brk
        pos = brk
    return unit_start, unit_end, clause_end


def _required_ranges(
    raw_sentence: str, normalized: str, tokens: _Tokens, required: Sequence[str]
) -> list[tuple[int, int]]:
    """Token ranges of the required spans that occur in this sentence."""
    out: list[tuple[int, int]] = []
    for span in required:
        where = raw_sentence.find(span)
        if where < 0:
            continue
        lo = len(normalize(raw_sentence[:where]))
        hi = lo + len(normalize(span))
        inside = [i for i, (a, b) in enumerate(tokens.spans) if a < hi and b > lo]
        if not inside:  # only dropped characters: nothing a claim could drop
            continue
        out.append((inside[0], inside[-1] + 1))
    return out


def _sentence(raw: str, matcher: AliasMatcher | None, required: Sequence[str]) -> SentenceV3:
    normalized = normalize(raw)
    toks = _scan(normalized, matcher)
    ranges = _required_ranges(raw, normalized, toks, required)
    in_required = [False] * len(toks.values)
    for lo, hi in ranges:
        for i in range(lo, hi):
            in_required[i] = True
    barrier = tuple(
        kind != _WORD or marker is not None or value in CONJUNCTIONS or req
        for value, kind, marker, req in zip(
            toks.values, toks.kinds, toks.markers, in_required, strict=True
        )
    )
    entities = [i for i, kind in enumerate(toks.kinds) if kind == _ENTITY]
    unit_start, unit_end, clause_end = _units(toks)
    bits, open_bits = _bit_sets(toks.values, barrier)
    return SentenceV3(
        tokens=toks.values,
        markers=toks.markers,
        barrier=barrier,
        first_entity=entities[0] if entities else None,
        unit_start=tuple(unit_start),
        unit_end=tuple(unit_end),
        clause_end=tuple(clause_end),
        required=tuple(ranges),
        has_entities=bool(entities),
        bits=bits,
        open_bits=open_bits,
        has_markers=any(m is not None for m in toks.markers),
    )


@dataclass(frozen=True, slots=True)
class PassageV3:
    """A passage split into v3 sentences; build once per passage with :meth:`of`."""

    text: str
    sentences: tuple[SentenceV3, ...]
    #: The whole passage as v2 reads it (v3 accepts only what v2 accepts).
    v2: PassageIndex
    required_spans: tuple[str, ...] = field(default=())

    @classmethod
    def of(
        cls,
        text: str,
        matcher: AliasMatcher | None = None,
        required_spans: Sequence[str] = (),
    ) -> PassageV3:
        """Segment (entity-aware) and index ``text``; ``required_spans`` are substrings of it.

        Raises ValueError when a required span does not occur in the text or crosses a
        sentence boundary.
        """
        pieces = split_sentences(text, matcher) or ([text.strip()] if text.strip() else [])
        for span in required_spans:
            if not span.strip() or span not in text:
                raise ValueError(f"required span {span!r} does not occur in the passage")
            if not any(span in piece for piece in pieces):
                raise ValueError(f"required span {span!r} crosses a sentence boundary")
        sentences = tuple(_sentence(piece, matcher, required_spans) for piece in pieces)
        v2 = PassageIndex.of(tokenize(text, matcher))
        return cls(text, sentences, v2, tuple(required_spans))


# --- 4. the search --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rules:
    """Which v3 rules run. All on is v3; the ablation benchmark switches one off at a time."""

    reader: bool = True
    symbols: bool = True
    barriers: bool = True
    anchoring: bool = True
    required: bool = True
    clause_guard: bool = True
    object_cut: bool = True
    extra_markers: bool = True
    #: Gate and answer level: the supporting node must be of a narrated type; a sentence
    #: joining two facts with ``and`` may be read as the two facts.
    type_binding: bool = True
    and_readings: bool = True


_ALL = _Rules()
# The rules in force. Only the ablation benchmark and the tests that show each rule is
# needed change this, through :func:`_ablated`; nothing else may.
_ACTIVE: list[_Rules] = [_ALL]


def _rules_now() -> _Rules:
    return _ACTIVE[-1]


@contextmanager
def _ablated(**off: bool) -> Iterator[_Rules]:
    """Run with some rules switched off (``_ablated(anchoring=False)``): ablations only."""
    rules = replace(_ALL, **off)
    _ACTIVE.append(rules)
    try:
        yield rules
    finally:
        _ACTIVE.pop()


class SupportV3(NamedTuple):
    """The v3 verdict for one claim sentence against one passage.

    ``sentence`` is the index of the passage sentence the verdict rests on (the
    supporting one, or the one that got furthest), ``span`` its matched token range.
    ``detail`` names what failed: the reader issue, the dropped markers, the span.
    """

    supported: bool
    reason: ReasonV3
    sentence: int | None = None
    span: tuple[int, int] | None = None
    detail: str = ""
    #: For ``marker_dropped``: each marker the claim holds fewer times than the passage.
    dropped: tuple[MarkerLoss, ...] = ()


#: Sentences longer than this many tokens are aligned position by position
#: (:func:`_max_end_states`) rather than on bit sets, whose shifts grow with the length.
_BITS_LIMIT = 512


def _max_end(claim: Sequence[str], sent: SentenceV3, start: int, rules: _Rules) -> int | None:
    """Largest exclusive end of an alignment of ``claim`` starting at ``start``.

    Claim token j can only sit at position ``start + j + d``, d being the total gap
    used so far (0..MAX_TOTAL_GAP), so the alignments are a bit set over d, as in
    v2's :func:`~verity.text.align._min_end`. From token j-1 at offset d', token j
    sits at d' + g for a gap g of 0..MAX_SINGLE_GAP whose g skipped tokens are no
    barrier; the largest reachable offset of the last token gives the end. The gaps
    of 1 to 4 are written out (``MAX_SINGLE_GAP`` is pinned; see the check below).
    """
    if not rules.barriers or not rules.extra_markers or len(sent.tokens) > _BITS_LIMIT:
        return _max_end_states(claim, sent, start, rules)
    bits = sent.bits
    open_bits = sent.open_bits
    reach = 1  # token 0 at offset 0
    at = start  # position of the previous claim token's offset 0
    for token in claim[1:]:
        want = bits.get(token)
        if want is None:
            return None
        passable = open_bits >> at  # bit d: the position d past ``at`` may be skipped
        at += 1
        step = (reach << 1) & passable  # a gap of 1
        if step:
            reach |= step
            step = (step << 1) & passable  # 2
            if step:
                reach |= step
                step = (step << 1) & passable  # 3
                if step:
                    reach |= step | ((step << 1) & passable)  # 4
        reach &= (want >> at) & _WINDOW
        if not reach:
            return None
    return at + reach.bit_length()


if MAX_SINGLE_GAP != 4:  # pragma: no cover - the budget is pinned; _max_end spells out 4
    raise ImportError("_max_end spells out gaps of 1 to 4; MAX_SINGLE_GAP changed")


def _max_end_states(
    claim: Sequence[str], sent: SentenceV3, start: int, rules: _Rules
) -> int | None:
    """:func:`_max_end` position by position: for ablations and very long sentences."""
    tokens = sent.tokens
    n = len(tokens)
    barriers = rules.barriers
    barrier = sent.barrier
    if not rules.extra_markers:  # ablation: the extra markers are plain words again
        barrier = tuple(
            b and not (m in EXTRA_MARKERS and t not in CONJUNCTIONS)
            for b, m, t in zip(barrier, sent.markers, tokens, strict=True)
        )
    states: dict[int, int] = {start: 0}  # position of the last matched token -> total gap
    for j in range(1, len(claim)):
        want = claim[j]
        nxt: dict[int, int] = {}
        for pos, used in states.items():
            for q in range(pos + 1, min(n, pos + MAX_SINGLE_GAP + 2)):
                gap = q - pos - 1
                if used + gap > MAX_TOTAL_GAP:
                    break
                if tokens[q] == want and (q not in nxt or nxt[q] > used + gap):
                    nxt[q] = used + gap
                if barriers and barrier[q]:
                    break  # cannot skip q to reach a later position
        if not nxt:
            return None
        states = nxt
    return max(states) + 1


def _guard(
    claim_markers: dict[str, int], sent: SentenceV3, lo: int, hi: int, rules: _Rules
) -> tuple[MarkerLoss, ...]:
    """Markers of passage tokens ``lo .. hi`` that the claim holds fewer times."""
    region: dict[str, int] = {}
    for i in range(lo, hi):
        key = sent.markers[i]
        if key is not None and (rules.extra_markers or key in POLARITY_MARKERS):
            region[key] = region.get(key, 0) + 1
    return tuple(
        MarkerLoss(k, claim_markers.get(k, 0), count)
        for k, count in sorted(region.items())
        if claim_markers.get(k, 0) < count
    )


def _last_marker(sent: SentenceV3, lo: int, hi: int, rules: _Rules) -> int | None:
    for i in range(hi - 1, lo - 1, -1):
        key = sent.markers[i]
        if key is not None and (rules.extra_markers or key in POLARITY_MARKERS):
            return i
    return None


def _claim_marker_counts(claim: Sequence[str], rules: _Rules) -> dict[str, int]:
    counts: dict[str, int] = {}
    for token in claim:
        key = _marker_key(token)
        if key is not None and (rules.extra_markers or key in POLARITY_MARKERS):
            counts[key] = counts.get(key, 0) + 1
    return counts


def _check_sentence(
    claim: Sequence[str], sent: SentenceV3, rules: _Rules, index: int | None = None
) -> SupportV3:
    """The v3 verdict of a claim against one passage sentence, the ``index``-th."""
    bits = sent.bits
    if not all(map(bits.__contains__, claim)):
        return SupportV3(False, "not_contained", index)
    # The claim's markers only matter where the sentence holds one.
    claim_markers = _claim_marker_counts(claim, rules) if sent.has_markers else {}
    best = SupportV3(False, "crosses_barrier", index)
    for start in _set_bits(bits[claim[0]]):
        end = _max_end(claim, sent, start, rules)
        if end is None:
            continue
        verdict = _span_verdict(claim_markers, sent, start, end, rules, index)
        if verdict.supported:
            return verdict
        if PROGRESS[verdict.reason] > PROGRESS[best.reason]:
            best = verdict
    return best


def _span_verdict(
    claim_markers: dict[str, int],
    sent: SentenceV3,
    start: int,
    end: int,
    rules: _Rules,
    index: int | None = None,
) -> SupportV3:
    span = (start, end)
    if rules.anchoring and not _anchored(sent, start, end):
        detail = "the match starts neither at the sentence start nor at its subject"
        return SupportV3(False, "not_anchored", index, span, detail)
    if rules.required:
        for lo, hi in sent.required:
            if lo < start or hi > end:
                detail = "required: " + " ".join(sent.tokens[lo:hi])
                return SupportV3(False, "required_span_dropped", index, span, detail)
    if not sent.has_markers:  # no marker to drop or cut
        return SupportV3(True, "supported", index, span)
    lo, hi = (sent.unit_start[start], sent.unit_end[end - 1]) if rules.clause_guard else span
    lost = _guard(claim_markers, sent, lo, hi, rules)
    if lost:
        detail = ", ".join(
            f"{d.marker!r}: {d.span_count} in the passage, {d.claim_count} in the claim"
            for d in lost
        )
        return SupportV3(False, "marker_dropped", index, span, detail, lost)
    if rules.object_cut:
        last = _last_marker(sent, lo, hi, rules)
        if last is not None and end < sent.clause_end[last]:
            detail = f"the claim ends before the end of the clause of {sent.tokens[last]!r}"
            return SupportV3(False, "marker_object_cut", index, span, detail)
    return SupportV3(True, "supported", index, span)


def _anchored(sent: SentenceV3, start: int, end: int) -> bool:
    """The match starts at the sentence start or covers the sentence's first entity; in a
    sentence without entity mentions it may also start a coordinate unit or follow a
    coordinating conjunction (``..., while Jupiter has``, ``... and the child dose``)."""
    if start == 0:
        return True
    if sent.has_entities:
        first = sent.first_entity
        return first is not None and start <= first < end
    return sent.unit_start[start] == start or sent.tokens[start - 1] in _COORDINATORS


class ClaimV3(NamedTuple):
    """A claim sentence as v3 reads it: its v3 tokens, their kinds and its v2 tokens."""

    tokens: tuple[str, ...]
    kinds: tuple[int, ...]

    @classmethod
    def of(cls, text: str, matcher: AliasMatcher | None = None) -> ClaimV3:
        values, kinds = _scan_values(normalize(text), matcher)
        return cls(tuple(values), tuple(kinds))

    @property
    def v2(self) -> tuple[str, ...]:
        """The v2 tokens: the v3 tokens without punctuation and symbols."""
        return tuple(compress(self.tokens, map(_PUNCT.__gt__, self.kinds)))

    def without_symbols(self) -> ClaimV3:
        keep = [i for i, k in enumerate(self.kinds) if k < _PUNCT]
        return ClaimV3(tuple(self.tokens[i] for i in keep), tuple(self.kinds[i] for i in keep))


def check_claim_v3(
    claim: ClaimV3, passage: PassageV3, *, _rules: _Rules | None = None
) -> SupportV3:
    """The v3 verdict of an already tokenized claim sentence against a prepared passage.

    The caller has run :func:`reader_issue` on the claim's text. v2 must accept first.
    """
    if _rules is None:
        _rules = _rules_now()
    if not _rules.symbols:
        claim = claim.without_symbols()
    if not claim.tokens:
        return SupportV3(False, "empty_claim")
    v2 = check_support(claim.v2, passage.v2)
    if not v2.supported:
        if v2.reason == "marker_dropped":
            return SupportV3(False, "marker_dropped", dropped=v2.dropped)
        return SupportV3(False, "not_contained")
    best = SupportV3(False, "not_contained")
    for index, sent in enumerate(passage.sentences):
        if not _rules.symbols:
            sent = _without_symbols(sent)
        verdict = _check_sentence(claim.tokens, sent, _rules, index)
        if verdict.supported:
            return verdict
        if PROGRESS[verdict.reason] > PROGRESS[best.reason]:
            best = verdict
    return best


def check_support_v3(
    claim: str,
    passage: PassageV3 | str,
    matcher: AliasMatcher | None = None,
    *,
    required_spans: Sequence[str] = (),
    _rules: _Rules | None = None,
) -> SupportV3:
    """The v3 verdict for one claim sentence (raw text) against a passage."""
    if _rules is None:
        _rules = _rules_now()
    if _rules.reader:
        issue = reader_issue(claim)
        if issue is not None:
            return SupportV3(False, "unreadable", detail=f"{issue[0]}: {issue[1]!r}")
    prepared = (
        passage
        if isinstance(passage, PassageV3)
        else PassageV3.of(passage, matcher, required_spans)
    )
    return check_claim_v3(ClaimV3.of(claim, matcher), prepared, _rules=_rules)


def is_supported_v3(
    claim: str,
    passage: str,
    matcher: AliasMatcher | None = None,
    required_spans: Sequence[str] = (),
) -> bool:
    """The v3 predicate on raw text: one claim sentence against one passage."""
    return check_support_v3(claim, passage, matcher, required_spans=required_spans).supported


def _without_symbols(sent: SentenceV3) -> SentenceV3:
    """The sentence with punctuation and symbol tokens removed (the ``symbols`` ablation)."""
    keep = [i for i, t in enumerate(sent.tokens) if not _is_symbol(t)]
    index = {old: new for new, old in enumerate(keep)}

    def remap(end: int) -> int:
        return sum(1 for old in keep if old < end)

    tokens = tuple(sent.tokens[i] for i in keep)
    barrier = tuple(sent.barrier[i] for i in keep)
    bits, open_bits = _bit_sets(tokens, barrier)
    return replace(
        sent,
        tokens=tokens,
        markers=tuple(sent.markers[i] for i in keep),
        barrier=barrier,
        bits=bits,
        open_bits=open_bits,
        first_entity=None if sent.first_entity is None else index.get(sent.first_entity),
        unit_start=tuple(remap(sent.unit_start[i]) for i in keep),
        unit_end=tuple(remap(sent.unit_end[i]) for i in keep),
        clause_end=tuple(remap(sent.clause_end[i]) for i in keep),
        required=tuple((remap(lo), remap(hi)) for lo, hi in sent.required),
    )


def _is_symbol(token: str) -> bool:
    return len(token) == 1 and not token.isalnum()


def readings(claim: ClaimV3) -> list[tuple[ClaimV3, ...]]:
    """Atomic readings of a claim sentence that joins two facts with ``and``.

    For each ``and`` (optionally after a comma) the sentence ``P and Q`` reads as the
    two sentences ``P`` and ``Q``; when ``Q`` repeats the shape of the end of ``P`` with
    other entities or numbers (``X wins A at 5% and B at 4%``), also as ``P`` and
    ``head(P) Q`` (``X wins B at 4%``), the shared subject that a reader supplies. A
    reading holds when each of its sentences is supported on its own. This is claim
    segmentation, not part of the predicate.
    """
    out: list[tuple[ClaimV3, ...]] = []
    if not _rules_now().and_readings:
        return out
    toks, kinds = claim.tokens, claim.kinds
    for k, token in enumerate(toks):
        if token != "and" or kinds[k] != _WORD:
            continue
        left = k - 1 if k > 0 and toks[k - 1] == "," else k
        first = ClaimV3(toks[:left], kinds[:left])
        second = ClaimV3(toks[k + 1 :], kinds[k + 1 :])
        if not first.tokens or not second.tokens:
            continue
        out.append((first, second))
        size = len(second.tokens)
        if size >= len(first.tokens):
            continue
        tail, tail_kinds = first.tokens[-size:], first.kinds[-size:]
        parallel = tail_kinds == second.kinds and all(
            a == b
            for a, b, kind in zip(tail, second.tokens, second.kinds, strict=True)
            if kind not in (_ENTITY, _NUMBER)
        )
        if parallel and tail != second.tokens:
            out.append(
                (
                    first,
                    ClaimV3(
                        first.tokens[:-size] + second.tokens, first.kinds[:-size] + second.kinds
                    ),
                )
            )
    return out
