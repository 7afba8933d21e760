"""The text layer's fast paths give the same answers as the plain code they stand for."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.robustness.strategies import CARD_SMALL, GRAPH_ALIASES, ROBUST, hostile_text
from verity.core.graph import load_graph
from verity.text import reader, segment, variation
from verity.text import tokens as text_module
from verity.text.aliases import AliasMatcher
from verity.text.normalize import normalize
from verity.text.numbers import NUMBER_RE, NUMBER_START

GRAPH = load_graph(CARD_SMALL)


def _unguarded(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` without the first-character lookaheads of numbers and aliases."""
    for guard in (NUMBER_GUARD, ALIAS_GUARD.search(pattern)):
        if guard is not None:
            pattern = pattern.replace(guard if isinstance(guard, str) else guard.group(0), "")
    return re.compile(pattern, flags)


NUMBER_GUARD = "(?=" + NUMBER_START + ")"
ALIAS_GUARD = re.compile(r"\(\?=\[[^]]*(?:\\.[^]]*)*\]\)(?=\(\?<!)")
HOSTILE_MATCHER = AliasMatcher({form: "e" + str(i) for i, form in enumerate(GRAPH_ALIASES)})


def _same_number_matches(normalized: str) -> None:
    plain_numbers = _unguarded(NUMBER_RE.pattern, re.VERBOSE)
    assert plain_numbers.pattern != NUMBER_RE.pattern
    assert [m.groupdict() | {"": m.span()} for m in NUMBER_RE.finditer(normalized)] == [
        m.groupdict() | {"": m.span()} for m in plain_numbers.finditer(normalized)
    ]
    for piece in normalized.split():
        found = NUMBER_RE.fullmatch(piece)
        plain = plain_numbers.fullmatch(piece)
        assert (found is None) == (plain is None)
        assert found is None or plain is None or found.groups() == plain.groups()


def test_numbers_of_every_opening_match_with_the_guard() -> None:
    text = "-5 −2 -$3 $1,250.00 €5 £1 ¥9 .5x 4x 12% ٣ a.5 x-1 1.000,50 (7) [.25]"
    _same_number_matches(text)
    assert len(NUMBER_RE.findall(text)) == 15


@ROBUST
@given(hostile_text)
def test_first_character_guards_change_no_match(text: str) -> None:
    normalized = normalize(text)
    _same_number_matches(normalized)
    for matcher in (GRAPH.matcher, HOSTILE_MATCHER):
        assert matcher.regex is not None
        plain = _unguarded(matcher.regex.pattern)
        assert plain.pattern != matcher.regex.pattern
        assert [m.span() for m in matcher.regex.finditer(normalized)] == [
            m.span() for m in plain.finditer(normalized)
        ]
        for scanner in (variation._scanner(matcher.regex.pattern), text_module._scanner(None)):
            reference = _unguarded(scanner.pattern)
            assert NUMBER_GUARD not in reference.pattern
            assert [(m.span(), m.lastindex) for m in scanner.finditer(normalized)] == [
                (m.span(), m.lastindex) for m in reference.finditer(normalized)
            ]


def test_entity_of_collapses_whitespace_and_refuses_unknown_forms() -> None:
    matcher = AliasMatcher({"Gold Dining": "gold_dining", "flat_two": "flat_two"})
    assert matcher.entity_of("gold dining") == "gold_dining"
    assert matcher.entity_of("gold \t\n dining") == "gold_dining"
    assert matcher.entity_of("flat_two") == "flat_two"
    with pytest.raises(KeyError):
        matcher.entity_of("gold")


# --- the segmenter's shortcut for text with no inner candidate ---------------------------

_SEGMENT_PIECES = st.sampled_from(
    ["Gold earns 4x", ".", "!", "?", "…", " ", "\n", "。", "e.g.", "Dr", "3.5", "”", "(", ")"]
)


@ROBUST
@given(st.one_of(hostile_text, st.lists(_SEGMENT_PIECES, max_size=8).map("".join)))
def test_sentence_shortcut_equals_the_full_split(text: str) -> None:
    for matcher in (None, GRAPH.matcher):
        assert segment.split_sentences(text, matcher) == segment._split(text, matcher)


def test_sentence_shortcut_takes_only_text_without_an_inner_candidate() -> None:
    for text in ("Gold earns 4x.", "Gold earns 4x", "  Gold earns 4x!  \n", "", "   "):
        assert segment.split_sentences(text) == segment._split(text, None)
    # an inner candidate takes the full split, which cuts there
    assert segment.split_sentences("Gold earns 4x. Silver earns 2x.") == [
        "Gold earns 4x.",
        "Silver earns 2x.",
    ]


# --- the alias matcher's prefix tree against the longest-first alternation ---------------

_FORM_PARTS = st.sampled_from(
    ["gold", "gold card", "gold_dining", "go", "g", "dining", "ein", "é", "e\u0301", "4x", "a-b"]
)
_FORM_TEXT = st.lists(
    st.sampled_from(
        [
            "gold",
            " ",
            "  ",
            "\t",
            "_",
            "card",
            "dining",
            "-",
            ",",
            "go",
            "x",
            "é",
            "e\u0301",
            "4x",
            "ein",
            "a",
            "b",
        ]
    ),
    max_size=14,
).map("".join)


@ROBUST
@given(st.lists(_FORM_PARTS, min_size=1, max_size=6), st.one_of(_FORM_TEXT, hostile_text))
def test_alias_trie_matches_what_the_alternation_matches(forms: list[str], text: str) -> None:
    """Forms that share prefixes (``go``/``gold``/``gold card``/``gold_dining``), whitespace
    inside forms, combining marks: every match of the matcher's prefix tree equals the
    longest-first alternation's, span for span."""
    from verity.text import aliases

    matcher = AliasMatcher({form: f"e{i}" for i, form in enumerate(forms)})
    keys = list(matcher.forms)
    plain = re.compile(aliases._matcher_pattern(aliases._alternation(keys), keys))
    assert matcher.regex is not None
    normalized = normalize(text)
    assert [m.span() for m in matcher.regex.finditer(normalized)] == [
        m.span() for m in plain.finditer(normalized)
    ]


def test_alias_trie_takes_the_longest_form_that_ends_a_word() -> None:
    matcher = AliasMatcher({"gold": "g", "gold card": "gc", "gold_dining": "gd"})
    found = [(m.raw, m.entity_id) for m in matcher.find("gold card, gold_dining, gold cards, gold")]
    assert found == [("gold card", "gc"), ("gold_dining", "gd"), ("gold", "g"), ("gold", "g")]
    # any run of whitespace inside a form
    assert [m.raw for m in matcher.find("gold  card; gold\tcard")] == ["gold  card", "gold\tcard"]


@ROBUST
@given(
    st.one_of(
        hostile_text,
        st.lists(
            st.sampled_from(
                [
                    "<b>",
                    "&amp;",
                    "~",
                    "~~",
                    "](",
                    "![",
                    "\\*",
                    "<!--",
                    "-->",
                    "-",
                    "a",
                    " ",
                    "<",
                    "!",
                ]
            ),
            max_size=8,
        ).map("".join),
    )
)
def test_markup_guard_changes_no_match(text: str) -> None:
    """The reader's markup pattern finds the same markup with or without its
    first-character lookahead."""
    plain = re.compile(reader._MARKUP.pattern.replace(reader._MARKUP_START, "", 1))
    assert plain.pattern != reader._MARKUP.pattern
    assert [m.span() for m in reader._MARKUP.finditer(text)] == [
        m.span() for m in plain.finditer(text)
    ]
