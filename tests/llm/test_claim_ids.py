"""renumber (the one claim-id numbering) and best_index (the one best-of choice)."""

from __future__ import annotations

import pytest

from verity.llm.claim_ids import best_index, renumber


def test_renumber_from_one_puts_the_id_first_and_drops_the_old_one() -> None:
    claims = [{"type": "X", "id": "mine"}, {"text": "t"}]
    out = renumber(claims)
    assert out == [{"id": "c1", "type": "X"}, {"id": "c2", "text": "t"}]
    assert list(out[0]) == ["id", "type"]
    assert claims[0]["id"] == "mine"  # the input is left alone


def test_renumber_continues_and_a_malformed_claim_uses_up_its_number() -> None:
    assert renumber([{"a": 1}, "junk", 7, {"b": 2}], start=7) == [
        {"id": "c7", "a": 1},
        "junk",
        7,
        {"id": "c10", "b": 2},
    ]
    assert renumber([]) == []


@pytest.mark.parametrize(
    ("verified", "index"),
    [([3], 0), ([1, 4, 2], 1), ([2, 2, 1], 0), ([0, 3, 3], 1), ([0, 0, 5], 2)],
)
def test_best_index_is_the_most_verified_and_the_earliest_on_a_tie(
    verified: list[int], index: int
) -> None:
    assert best_index(verified) == index


def test_best_index_needs_a_pass() -> None:
    with pytest.raises(ValueError):
        best_index([])
