"""The choice answer: one schema and one wording, the reader's rule, and the repair as a choice.

Cases come from ``tests/fixtures/narrators/choice_answers.json``: model answers (valid and
invalid) with what the reader makes of each, and answer sequences through
:func:`narrate_and_verify` with what ships.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.helpers import TESTS
from verity import EvidenceGraph, load_graph
from verity.llm.choice import ChoiceFault, ChoiceReading, choice_answer, read_choice
from verity.llm.narrators import Attempt
from verity.llm.narrators.base import PARSE_ERROR_CODES, Usage, output_attempt, parse_choice
from verity.llm.prompts import Prompt, build_prompt, build_repair_prompt
from verity.llm.repair import narrate_and_verify

FIXTURES = TESTS / "fixtures" / "narrators"
CASES = json.loads((FIXTURES / "choice_answers.json").read_text(encoding="utf-8"))
ANSWERS = [
    (group["offered"], group["most"], case) for group in CASES["groups"] for case in group["cases"]
]


@pytest.fixture(scope="module")
def small() -> EvidenceGraph:
    return load_graph(FIXTURES / "graph_small.json")


@pytest.fixture(scope="module")
def cards() -> EvidenceGraph:
    """A card-rewards graph: its choice list holds ten facts."""
    from verity.backends.card_rewards import optimize

    return load_graph(optimize(7, "max_value"))


def _schema_prompt(offered: list[int], most: int, graph: EvidenceGraph) -> Prompt:
    """The graph's choice prompt with the schema of ``offered`` and ``most``."""
    base = build_prompt(graph, "choice")
    assert len(base.listing) >= max(offered)
    schema, _ = choice_answer(offered, most)
    return Prompt(
        variant=base.variant,
        graph_id=base.graph_id,
        system=base.system,
        user=base.user,
        json_schema=schema,
        max_claims=most,
        graph=graph,
        menu=base.menu,
        listing=base.listing,
    )


@pytest.mark.parametrize(("offered", "most", "case"), ANSWERS, ids=[c["name"] for *_, c in ANSWERS])
def test_each_answer_is_read_as_the_fixture_says(
    offered: list[int], most: int, case: dict[str, Any], cards: EvidenceGraph
) -> None:
    prompt = _schema_prompt(offered, most, cards)
    attempt = output_attempt(
        prompt,
        narrator="n",
        model="m",
        raw_text=case["raw"],
        finish_reason="stop",
        usage=Usage(),
        latency_s=0.0,
    )
    if "error" in case:
        assert attempt.narration is None and attempt.parse_error is not None
        assert attempt.parse_error.code == case["error"] and case["error"] in PARSE_ERROR_CODES
        return
    assert attempt.parse_error is None, attempt.parse_error
    claims = [{k: v for k, v in c.items() if k != "id"} for c in attempt.claims]
    assert claims == [prompt.listing[n - 1].claim() for n in case["labels"]]
    assert len(attempt.notes) == case["notes"]
    # what is accepted is what the schema allows once the notes' spellings are undone
    Draft202012Validator(prompt.json_schema).validate({"facts": case["labels"]})


@pytest.mark.parametrize(("offered", "most", "case"), ANSWERS, ids=[c["name"] for *_, c in ANSWERS])
def test_the_schema_and_the_reader_agree(
    offered: list[int], most: int, case: dict[str, Any]
) -> None:
    """An answer the schema allows is read as it is, with no note; one it refuses is never
    read without a note."""
    try:
        data = json.loads(case["raw"])
    except ValueError:
        return
    schema, _ = choice_answer(offered, most)
    valid = Draft202012Validator(schema).is_valid(data)
    reading = read_choice(data, offered, most)
    if valid:
        assert isinstance(reading, ChoiceReading) and reading.notes == ()
        assert list(reading.labels) == data["facts"]
    else:
        assert isinstance(reading, ChoiceFault) or reading.notes or not isinstance(data, dict)


def test_a_fault_says_what_was_expected_and_what_came() -> None:
    fault = read_choice({"facts": [1, 11]}, range(1, 11), 5)
    assert isinstance(fault, ChoiceFault)
    assert fault.expected == "a list of 1 to 5 different numbers from 1-10"
    assert fault.actual == "[1, 11]" and "11 is not one of the numbers offered" in fault.message


@pytest.mark.parametrize(
    ("offered", "most", "words"),
    [
        (list(range(1, 11)), 5, "a list of 1 to 5 different numbers from 1-10"),
        ([2, 4, 5, 7], 2, "a list of 1 to 2 different numbers from 2, 4, 5, 7"),
        ([3], 4, "a list of exactly 1 number from 3"),
    ],
)
def test_one_function_words_the_schema_it_builds(offered: list[int], most: int, words: str) -> None:
    schema, wording = choice_answer(offered, most)
    facts = schema["properties"]["facts"]
    assert words in wording and '{"facts": [...]}' in wording
    assert facts["items"]["enum"] == offered and facts["minItems"] == 1
    assert facts["maxItems"] == min(most, len(offered)) and facts["uniqueItems"] is True


def test_the_choice_prompt_states_the_schema_it_sends(small: EvidenceGraph) -> None:
    prompt = build_prompt(small, "choice")
    n = len(prompt.listing)
    assert prompt.max_claims == min(5, n)
    _, wording = choice_answer(range(1, n + 1), prompt.max_claims)
    assert wording in prompt.user  # the very sentence the schema is built with
    assert prompt.json_schema == choice_answer(range(1, n + 1), prompt.max_claims)[0]
    assert "at most" not in prompt.system and "claims" not in prompt.system


class FakeChoiceNarrator:
    """A fake for our own repair loop: answers each pass with the next raw text."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[Prompt] = []

    @property
    def name(self) -> str:
        return "fake"

    def narrate(self, prompt: Prompt) -> Attempt:
        self.prompts.append(prompt)
        return output_attempt(
            prompt,
            narrator="fake",
            model="fake",
            raw_text=self.answers.pop(0),
            finish_reason="stop",
            usage=Usage(10, 2),
            latency_s=0.01,
        )


def _review(prompt: Prompt) -> dict[str, Any]:
    block = prompt.user.split("<<<REVIEW\n", 1)[1].removesuffix("\nREVIEW>>>")
    return dict(json.loads(block))


@pytest.mark.parametrize("case", CASES["repairs"], ids=[c["name"] for c in CASES["repairs"]])
def test_a_refused_answer_is_repaired_as_a_choice(
    case: dict[str, Any], small: EvidenceGraph
) -> None:
    fake = FakeChoiceNarrator(case["answers"])
    result = narrate_and_verify(small, fake, "choice", "strict", repairs=1)
    base = fake.prompts[0]
    number = {item.text: i for i, item in enumerate(base.listing, 1)}
    assert [number[c["text"]] for c in result.shipped] == case["shipped_labels"]
    assert result.stop_reason == case["stop_reason"]
    assert len(result.passes) == len(case["answers"])
    if case["problem"] is None:
        return
    first = result.passes[0].attempt
    assert first.parse_error is not None and first.parse_error.code == case["problem"]
    repair = fake.prompts[1]
    review = _review(repair)
    assert review["problem"]["code"] == case["problem"]
    assert review["problem"]["message"] == first.parse_error.message
    assert review["problem"]["expected"].startswith("a list of")
    assert review["kept"] == []
    # the menu offered again, by the same numbers, and the repair's rule worded from it
    assert review["facts"] == {str(i): item.text for i, item in enumerate(base.listing, 1)}
    offered = repair.json_schema["properties"]["facts"]["items"]["enum"]
    assert offered == list(range(1, len(base.listing) + 1))
    assert choice_answer(offered, repair.max_claims)[1] in repair.user
    assert "claims" not in repair.user.split("<<<REVIEW")[0]  # asked as a choice, not claims
    assert repair.history == (("user", base.user), ("assistant", case["answers"][0]))


def test_a_refused_fact_is_replaced_from_the_facts_not_told(small: EvidenceGraph) -> None:
    """A chosen fact the verifier refused is named in the repair by its number, the kept
    ones by theirs, and the repair offers only the facts not told yet."""
    fake = FakeChoiceNarrator(['{"facts": [1, 2]}'])
    result = narrate_and_verify(small, fake, "choice", "strict", repairs=1)
    assert result.stop_reason == "all_verified" and len(result.passes) == 1
    base = fake.prompts[0]
    kept = [{"type": c["type"], "text": c["text"]} for c in result.shipped[:1]]
    failing = [{"claim": base.listing[1].claim(), "errors": [{"code": "x", "message": "m"}]}]
    repair = build_repair_prompt(
        base,
        {"kept_claims": kept, "failing_claims": failing},
        previous_output='{"facts": [1, 2]}',
        pass_index=1,
        max_claims=1,
    )
    review = _review(repair)
    assert review["problem"] == {"code": "verify.refused", "refused_facts": {"2": ["m"]}}
    assert review["kept"] == [1]
    offered = repair.json_schema["properties"]["facts"]["items"]["enum"]
    assert offered == list(range(3, len(base.listing) + 1)) and repair.max_claims == 1
    assert set(review["facts"]) == {str(i) for i in offered}
    assert "exactly 1 number" in repair.user


def test_notes_and_fault_details_survive_the_record(small: EvidenceGraph) -> None:
    prompt = build_prompt(small, "choice")
    for raw in ('{"facts": ["2", 2]}', '{"facts": [99]}'):
        attempt = output_attempt(
            prompt,
            narrator="n",
            model="m",
            raw_text=raw,
            finish_reason="stop",
            usage=Usage(),
            latency_s=0.0,
        )
        assert Attempt.from_dict(json.loads(json.dumps(attempt.to_dict()))) == attempt
    narration, error = parse_choice('{"facts": [99]}', "stop", prompt)
    assert narration is None and error is not None and error.actual == "[99]"
