"""Number canonicalization golden vectors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import GOLDEN, load_json
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers, number_value

VECTORS = load_json(GOLDEN / "numbers" / "values.json")


@pytest.mark.parametrize(("text", "value", "unit"), VECTORS["cases"], ids=lambda x: repr(x))
def test_number_value(text: str, value: str | None, unit: str | None) -> None:
    got = number_value(text)
    if unit is None:
        assert got is None
    else:
        assert got is not None
        assert (got.value, got.unit) == (value, unit)


@pytest.mark.parametrize(("a", "b"), VECTORS["equal"])
def test_equal_numbers(a: str, b: str) -> None:
    va, vb = number_value(a), number_value(b)
    assert va is not None and vb is not None and va.matches(vb) and vb.matches(va)


@pytest.mark.parametrize(("a", "b"), VECTORS["different"])
def test_different_numbers(a: str, b: str) -> None:
    va, vb = number_value(a), number_value(b)
    assert va is not None and vb is not None
    assert not va.matches(vb)


@pytest.mark.parametrize(("text", "raws"), VECTORS["mentions"])
def test_mentions(text: str, raws: list[Any]) -> None:
    assert [m.raw for m in find_numbers(normalize(text))] == raws
