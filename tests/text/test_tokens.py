"""Tokens of the text predicates (verity.text)."""

from __future__ import annotations

import re
import time
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verity.text.aliases import AliasMatcher
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers
from verity.text.tokens import WORD_PATTERN, tokenize, tokenize_v1

MATCHER = AliasMatcher(
    {"amex_gold": "amex_gold", "Amex Gold": "amex_gold", "Gold": "gold_tier", "3M": "three_m"}
)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("It's a well-known fact.", ["it's", "a", "well-known", "fact"]),
        ("It’s fine", ["it’s", "fine"]),
        ("a - b -- c-", ["a", "b", "c"]),
        ("$6,250.00 and $6,250", ["<$6250>", "and", "<$6250>"]),
        ("4x 4.0X 4×", ["<4x>", "<4x>", "<4x>"]),
        ("12% 12 percent", ["<12%>", "<12%>"]),
        ("Q4 x2 card_07", ["q4", "x2", "card", "07"]),
        ("ＡＢＣ １２３", ["abc", "<123>"]),
        ("in\u200bvisible", ["invisible"]),
        ("हिन्दी", ["हिन्दी"]),
        ("مَرْحَبًا", ["مَرْحَبًا"]),
        ("😀 ✅ → •", []),
    ],
)
def test_tokenize_examples(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The Amex Gold card", ["the", "amex_gold", "card"]),
        ("the AMEX   GOLD card", ["the", "amex_gold", "card"]),  # case and whitespace
        ("amex_gold", ["amex_gold"]),
        ("Gold status", ["gold_tier", "status"]),  # longest alias first elsewhere
        ("3M sells tape", ["three_m", "sells", "tape"]),  # alias wins over the number
        ("Goldman", ["goldman"]),  # whole words only
        ("4x on Gold", ["<4x>", "on", "gold_tier"]),
    ],
)
def test_tokenize_with_aliases(text: str, tokens: list[str]) -> None:
    assert tokenize(text, MATCHER) == tokens


def test_matcher_without_forms_behaves_like_none() -> None:
    assert tokenize("The Amex Gold card", AliasMatcher({})) == tokenize("The Amex Gold card")


def test_combining_marks_stay_inside_words() -> None:
    # Python's \w alone would cut Devanagari words at every vowel sign.
    assert re.findall(r"\w+", "हिन्दी") != ["हिन्दी"]
    assert re.fullmatch(WORD_PATTERN, "हिन्दी") is not None


_TEXT = st.lists(
    st.sampled_from(list("ab xyz019.,;:!?-'$%\n\t") + ["not", "4x", "Ｘ", "é", "ि", "Amex Gold"]),
    max_size=40,
).map("".join)


@given(_TEXT)
def test_tokens_are_nonempty_and_have_no_whitespace(text: str) -> None:
    for token in tokenize(text, MATCHER):
        assert token
        assert not any(ch.isspace() for ch in token)


@given(_TEXT)
def test_v1_tokens_are_v2_tokens_without_aliases(text: str) -> None:
    assert tokenize_v1(text) == tokenize(text)


@given(_TEXT)
def test_number_tokens_are_number_mentions(text: str) -> None:
    # Every number token is a mention that verity.text.numbers finds too (a digit run inside
    # a hyphenated word, as in "covid-19", stays part of the word).
    numbers = [t for t in tokenize(text) if t.startswith("<")]
    mentions = [m.value.token for m in find_numbers(normalize(text))]
    assert not Counter(numbers) - Counter(mentions)


def test_hyphenated_word_keeps_its_digits() -> None:
    assert tokenize("COVID-19 and GPT-4") == ["covid-19", "and", "gpt-4"]


def test_tokenize_is_linear_on_long_input() -> None:
    text = "The card earns 4x points, not $6,250.00; " * 2000
    started = time.perf_counter()
    tokens = tokenize(text, MATCHER)
    assert len(tokens) == 14000
    assert time.perf_counter() - started < 1.0
