"""Golden whole-narration cases: verdicts, summary, shipped claims, refusal; input errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import GOLDEN, expected_codes, graph_dict, load_json
from verity import REFUSAL, InputError, load_graph, verify
from verity.text.segment import join_sentences

NARRATIONS = sorted((GOLDEN / "narrations").glob("*.json"))


def _cases() -> list[Any]:
    return [
        pytest.param(p, profile, id=f"{p.stem}:{profile}")
        for p in NARRATIONS
        for profile in ("paper", "strict")
    ]


@pytest.mark.parametrize(("path", "profile"), _cases())
def test_golden_narration(path: Any, profile: str) -> None:
    doc = load_json(path)
    expected = doc["expected"][profile]
    report = verify(load_graph(graph_dict(doc["graph"])), doc["narration"], profile=profile)
    codes = [(v.id, sorted(e.code for e in v.errors)) for v in report.claims]
    assert codes == expected_codes(expected)
    assert report.summary.model_dump() == expected["summary"]
    assert [c.id for c in report.shipped] == expected["shipped"]
    assert report.refused is expected["refused"]
    if report.refused:
        assert report.answer == REFUSAL
    else:
        assert report.answer == join_sentences([c.text for c in report.shipped])
    assert [v.index for v in report.claims] == list(range(len(report.claims)))


INPUT_ERRORS = load_json(GOLDEN / "narration_input_errors.json")


@pytest.mark.parametrize("case", INPUT_ERRORS["cases"], ids=lambda c: c["name"])
def test_unusable_narration_is_an_input_error(case: dict[str, Any]) -> None:
    graph = load_graph(graph_dict(INPUT_ERRORS["graph"]))
    with pytest.raises(InputError) as info:
        verify(graph, case["narration"])
    assert case["error"] in str(info.value)
    assert "\n" not in str(info.value)
