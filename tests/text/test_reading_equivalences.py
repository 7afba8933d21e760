"""Equivalences of reading that change no fact (``fixtures/text/reading_equivalences.json``):
emphasis and list markup read as plain text, the members of a set in any order with or
without the serial comma, a value pair in parentheses where a template declares it. Every
attack (written first) is refused by strict and by check-answer; every control ships.

:func:`tally` counts both, for the before/after table (run it under another checkout's code
with ``python -m tests.text.test_reading_equivalences ROOT``)."""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity import check_answer
from verity.bench import adversarial as harness
from verity.text.declared import _set_members
from verity.text.reader import plain_text, reader_issue
from verity.text.variation import sentence_key

DATA = load_json(FIXTURES / "text" / "reading_equivalences.json")
PLAIN = load_json(FIXTURES / "text" / "plain_text.json")
R = str(ROOT)
_WORDS = re.compile(r"[^\W_]+")


@pytest.mark.parametrize("case", DATA["attacks"], ids=lambda c: c["id"])
def test_strict_refuses_every_attack(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="class")
    assert outcome.shipped == 0, outcome


@pytest.mark.parametrize("case", DATA["controls"], ids=lambda c: c["id"])
def test_strict_ships_every_control(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", R, group_key="class")
    assert outcome.all_shipped, outcome.codes


@pytest.mark.parametrize("case", DATA["answers"], ids=lambda c: c["id"])
def test_check_answer_against_the_graph(case: dict[str, Any]) -> None:
    result = check_answer(case["answer"], graph=harness.graph(case["graph"], R))
    kept = [c for c in result.claims if c.supported]
    assert len(kept) == case["kept"], [(c.text, c.reason, c.detail) for c in result.claims]
    # what is kept is the plain text a reader sees
    assert all("*" not in c.text and not c.text.startswith(("- ", "1. ")) for c in kept)


@pytest.mark.parametrize("case", DATA["free"], ids=lambda c: c["id"])
def test_check_answer_against_passages(case: dict[str, Any]) -> None:
    result = check_answer(case["answer"], [{"id": "p", "text": case["passage"]}])
    assert sum(c.supported for c in result.claims) == case["kept"], result.claims


@pytest.mark.parametrize("case", PLAIN["plain"], ids=lambda c: c["text"])
def test_plain_text_reads_emphasis_and_bullets(case: dict[str, Any]) -> None:
    plain = plain_text(case["text"])
    assert plain == case["plain"]
    issue = reader_issue(plain)
    assert (issue[0] if issue else None) == case["issue"]


@pytest.mark.parametrize("case", PLAIN["plain"], ids=lambda c: c["text"])
def test_no_word_is_lost(case: dict[str, Any]) -> None:
    """Only marks go: the words of the plain text are the words of the text as written."""
    words = _WORDS.findall(case["text"])
    plain = _WORDS.findall(plain_text(case["text"]))
    assert plain == words or (plain == words[1:] and words[0].isdigit())  # a list number


@pytest.mark.parametrize("case", PLAIN["sets"], ids=lambda c: c["value"])
def test_set_values_read_as_lists(case: dict[str, Any]) -> None:
    members = _set_members(sentence_key(case["value"]))
    expected = case["members"]
    got = None if members is None else [" ".join(m) for m in members]
    assert got == expected


def tally(root: str) -> dict[str, dict[str, int]]:
    """Per class: attacks shipped (of all), controls shipped whole (of all)."""
    out: dict[str, dict[str, int]] = {}
    for kind, cases in (("attacks", DATA["attacks"]), ("controls", DATA["controls"])):
        for case in cases:
            row = out.setdefault(
                case["class"],
                dict.fromkeys(("attacks", "attacks_shipped", "controls", "controls_shipped"), 0),
            )
            outcome = harness.judge(case, "strict", root, group_key="class")
            row[kind] += 1
            row[kind + "_shipped"] += (
                outcome.shipped > 0 if kind == "attacks" else outcome.all_shipped
            )
    return out


if __name__ == "__main__":  # pragma: no cover - the measurement
    for name, row in tally(sys.argv[1] if len(sys.argv) > 1 else R).items():
        print(name, row)
