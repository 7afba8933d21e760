"""The text layer's fast paths give the same answers as the plain code they stand for."""

from __future__ import annotations

import re

import pytest
from hypothesis import given

from tests.robustness.strategies import CARD_SMALL, GRAPH_ALIASES, ROBUST, hostile_text
from verity.core.graph import load_graph
from verity.text import align_v3
from verity.text import tokens as text_module
from verity.text.aliases import AliasMatcher
from verity.text.align_v3 import ClaimV3, _scan
from verity.text.normalize import normalize
from verity.text.numbers import NUMBER_RE, NUMBER_START

GRAPH = load_graph(CARD_SMALL)


@ROBUST
@given(hostile_text)
def test_claim_tokens_equal_the_full_scan(text: str) -> None:
    for matcher in (None, GRAPH.matcher):
        full = _scan(normalize(text), matcher)
        claim = ClaimV3.of(text, matcher)
        assert (claim.tokens, claim.kinds) == (full.values, full.kinds)


def test_claim_tokens_of_every_kind_equal_the_full_scan() -> None:
    text = "Gold Dining earns 4x, not $1,250.00 (on dining); see <b> & ± — x ~ 5 %."
    full = _scan(normalize(text), GRAPH.matcher)
    assert set(full.kinds) == {0, 1, 2, 3, 4}
    claim = ClaimV3.of(text, GRAPH.matcher)
    assert (claim.tokens, claim.kinds) == (full.values, full.kinds)


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
        for scanner in (align_v3._scanner(matcher.regex.pattern), text_module._scanner(None)):
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
