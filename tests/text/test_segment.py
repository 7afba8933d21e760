"""The guarded sentence segmenter (verity.text.segment)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import FIXTURES, load_json
from verity.bench import segmentation
from verity.text.segment import ABBREVIATIONS, NAME_SUFFIXES, SENTENCE_OPENERS, split_sentences

SEGMENTATION = FIXTURES / "segmentation"

# Cases the segmenter gets wrong today, with the reason. Strict: a fix must remove them.
KNOWN_FAILURES = {
    "en-030": "'Plan B.' reads as an initial, so no split follows it",
    "en-034": "'U.S.' before a capitalised word is kept as an initialism",
    "en-064": "no space after the period ('12.5%.Revenue'), so no candidate",
    "heldout-es-006": "'cap.' (capítulo) is in neither abbreviation list",
}


def _cases(directory: Path) -> list[Any]:
    params = []
    for path in sorted(directory.glob("*.json")):
        for case in load_json(path)["cases"]:
            marks = []
            if case["id"] in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[case["id"]], strict=True))
            params.append(pytest.param(case["text"], case["sentences"], id=case["id"], marks=marks))
    return params


@pytest.mark.parametrize(("text", "sentences"), _cases(SEGMENTATION))
def test_development_fixture(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(("text", "sentences"), _cases(SEGMENTATION / "heldout"))
def test_heldout_fixture(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_fixture_size_and_languages() -> None:
    cases = segmentation.load_cases(SEGMENTATION)
    assert len(cases) >= 150
    assert len({case["language"] for case in cases}) >= 6


@pytest.mark.parametrize("directory", [SEGMENTATION, SEGMENTATION / "heldout"], ids=str)
def test_error_rate_beats_the_published_figure(directory: Path) -> None:
    cases = segmentation.load_cases(directory)
    guarded = segmentation.score(split_sentences, cases)
    naive = segmentation.score(segmentation.naive_split, cases)
    assert guarded["case_error_rate"] < 0.074
    assert guarded["boundary_error_rate"] < 0.074
    assert naive["case_error_rate"] > 0.5


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Price: 500.00 units.", ["Price: 500.00 units."]),
        ("Pay $6,250.00 now. Then stop.", ["Pay $6,250.00 now.", "Then stop."]),
        ("Use e.g. cash. Or i.e. cards.", ["Use e.g. cash.", "Or i.e. cards."]),
        ("The U.S. economy grew.", ["The U.S. economy grew."]),
        ("See No. 5 now.", ["See No. 5 now."]),
        ("Ask J. Smith today.", ["Ask J. Smith today."]),
        ("Mr. Lee and Dr. Kim met. They agreed.", ["Mr. Lee and Dr. Kim met.", "They agreed."]),
        ("a\nb\r\nc\rd", ["a", "b", "c", "d"]),
        ("no terminator\n", ["no terminator"]),
        ("一。二！三？四", ["一。", "二！", "三？", "四"]),
        ("一．二", ["一．", "二"]),
        ("１．５", ["１．５"]),
        ("أ؟ب۔ ج", ["أ؟", "ب۔", "ج"]),
        ("अ।ब॥ क", ["अ।", "ब॥", "क"]),
        ('She said "yes." Then left.', ['She said "yes."', "Then left."]),
        ("(Maybe.) Later.", ["(Maybe.)", "Later."]),
        ("Hmm... fine. So... What?", ["Hmm... fine.", "So...", "What?"]),
        ('"Why?" he asked.', ['"Why?" he asked.']),
        ("", []),
        ("  \n \t ", []),
    ],
)
def test_required_behaviour(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Endeavor Air Inc. Flew the most.", ["Endeavor Air Inc. Flew the most."]),
        ("Southwest Airlines Co. Leads.", ["Southwest Airlines Co. Leads."]),
        ("Acme Ltd. Sells gear. It grew.", ["Acme Ltd. Sells gear.", "It grew."]),
        ("Dr. Ada Lovelace and St. Louis Inc. Won.", ["Dr. Ada Lovelace and St. Louis Inc. Won."]),
        ("J. R. Smith Ltd. had 5 staff.", ["J. R. Smith Ltd. had 5 staff."]),
        (
            "Filed by Acme Corp. The auditors agreed.",
            ["Filed by Acme Corp.", "The auditors agreed."],
        ),
    ],
)
def test_company_abbreviations(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize("suffix", sorted(NAME_SUFFIXES))
def test_a_company_suffix_ends_a_sentence_before_every_opener(suffix: str) -> None:
    from verity.text.aliases import AliasMatcher

    name = f"Frontier Airlines {suffix.capitalize()}."
    matcher = AliasMatcher({name: "f9", "Frontier": "f9"})
    for opener in sorted(SENTENCE_OPENERS):
        word = opener.capitalize()
        text = f"The cheapest was {name} {word} next one was late."
        expected = [f"The cheapest was {name}", f"{word} next one was late."]
        assert split_sentences(text) == expected, text
        assert split_sentences(text, matcher) == expected, text
        glued = f"The cheapest was {name} {opener} next one was late."  # lowercase: glued
        assert split_sentences(glued) == [glued]
        assert split_sentences(glued, matcher) == [glued]


@pytest.mark.parametrize("word", ["Flight", "Board", "Leads", "Holdings", "Frontier", "Delta"])
def test_a_company_suffix_before_any_other_capitalised_word_is_no_boundary(word: str) -> None:
    from verity.text.aliases import AliasMatcher

    matcher = AliasMatcher({"Frontier Airlines Inc.": "f9"})
    for suffix in sorted(NAME_SUFFIXES):
        text = f"Frontier Airlines {suffix.capitalize()}. {word} 12 was late."
        assert split_sentences(text) == [text]
    text = f"Frontier Airlines Inc. {word} 12 was late."
    assert split_sentences(text, matcher) == [text]


def test_other_abbreviations_stay_glued_before_an_opener() -> None:
    for abbreviation in sorted(ABBREVIATIONS - NAME_SUFFIXES):
        for opener in ("The", "It", "However"):
            text = f"See {abbreviation.capitalize()}. {opener} rest."
            assert split_sentences(text) == [text], text


def test_a_period_inside_an_entity_mention_is_no_boundary() -> None:
    from verity.text.aliases import AliasMatcher

    matcher = AliasMatcher({"Acme Widgets Corp.": "acme", "A.B. Carter Holdings": "abc"})
    text = "Revenue was highest at Acme Widgets Corp. Costs fell at A.B. Carter Holdings. Done."
    assert split_sentences(text) == [
        "Revenue was highest at Acme Widgets Corp.",
        "Costs fell at A.B. Carter Holdings.",
        "Done.",
    ]
    assert split_sentences(text, matcher) == [
        "Revenue was highest at Acme Widgets Corp. Costs fell at A.B. Carter Holdings.",
        "Done.",
    ]
    plain = "Revenue was highest at Acme Corp. Costs fell."
    assert split_sentences(plain, matcher) == ["Revenue was highest at Acme Corp.", "Costs fell."]
    far = "x " * 300 + "at Acme Widgets Corp. Costs fell."
    assert len(split_sentences(far, matcher)) == 1


_PIECES = st.sampled_from(
    list("ab .!?\n\r\t,\"')(") + ["Mr.", "J.", "e.g.", "5.00", "No. 5", "。", "؟", "।", "…", " A"]
)


@given(st.lists(_PIECES, max_size=50).map("".join))
def test_sentences_cover_the_text_in_order(text: str) -> None:
    sentences = split_sentences(text)
    for sentence in sentences:
        assert sentence and sentence == sentence.strip()
        assert "\n" not in sentence and "\r" not in sentence
    cursor = 0
    for sentence in sentences:
        found = text.find(sentence, cursor)
        assert found >= 0
        assert not text[cursor:found].strip()
        cursor = found + len(sentence)
    assert not text[cursor:].strip()


@pytest.mark.parametrize(
    "text",
    [
        "." * 200_000,
        "a. " * 70_000,
        "Mr. " * 50_000,
        "?" * 200_000 + "a",
        "。" * 200_000,
        "1." * 100_000,
        "x" * 200_000 + ". Y",
        ". »" * 60_000,
    ],
    ids=lambda t: repr(t[:8]),
)
def test_no_quadratic_blowup(text: str) -> None:
    started = time.perf_counter()
    split_sentences(text)
    assert time.perf_counter() - started < 2.0
