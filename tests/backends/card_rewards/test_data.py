"""Card-rewards data: the shipped catalog and profiles, parsing errors, display formats."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from decimal import Decimal
from itertools import pairwise
from typing import Any

import pytest

from tests.helpers import TESTS
from verity import InputError
from verity.backends.card_rewards import (
    CATEGORIES,
    _format,
    load_catalog,
    load_profiles,
    parse_catalog,
    parse_profiles,
)
from verity.backends.card_rewards._alloc import crossing_down, crossing_up
from verity.backends.card_rewards._catalog import read_package_json
from verity.backends.card_rewards.make_profiles import profiles_json

FIXTURES = TESTS / "fixtures" / "card_rewards"
BAD = json.loads((FIXTURES / "bad_catalogs.json").read_text("utf-8"))
FORMATS = json.loads((FIXTURES / "formats.json").read_text("utf-8"))["cases"]
FORMATTERS: dict[str, Callable[[Decimal], str]] = {
    "money": _format.money,
    "multiplier": _format.multiplier,
    "percent": _format.percent,
    "point_value": _format.point_value,
}


def test_catalog_is_illustrative_and_varied() -> None:
    raw = json.loads(read_package_json("catalog.json"))
    catalog = load_catalog()
    assert catalog.illustrative and raw["illustrative"] is True
    assert "illustrative" in raw["note"].lower()
    assert len(catalog.cards) >= 10
    fees = {c.annual_fee for c in catalog.cards}
    assert {Decimal(0), Decimal(95), Decimal(250), Decimal(550)} <= fees
    assert any(c.caps and c.annual_fee > 0 for c in catalog.cards)
    assert any(c.caps and c.annual_fee == 0 for c in catalog.cards)
    assert len({c.point_value_cents for c in catalog.cards}) >= 3
    flat_two = [c for c in catalog.cards if set(c.rates.values()) == {Decimal(2)}]
    assert flat_two and flat_two[0].annual_fee == 0


def test_catalog_names_carry_no_digits() -> None:
    for card in load_catalog().cards:
        assert re.fullmatch(r"[a-z][a-z_]*[a-z]", card.id)
        for alias in card.aliases:
            assert not re.search(r"\d", alias), alias


def test_profiles_span_light_to_heavy_spenders() -> None:
    profiles = load_profiles()
    assert [p.index for p in profiles] == list(range(50))
    assert [p.id for p in profiles] == [f"p{i:02d}" for i in range(50)]
    totals = sorted(p.total for p in profiles)
    assert totals[0] < 10_000 < 100_000 < totals[-1]
    for profile in profiles:
        assert set(profile.spend) == set(CATEGORIES)
        assert all(v >= 0 for v in profile.spend.values())


def test_profiles_script_reproduces_the_checked_in_file() -> None:
    assert profiles_json() == read_package_json("profiles.json")


def _bad_doc(case: dict[str, Any]) -> dict[str, Any]:
    if "doc" in case:
        doc: dict[str, Any] = case["doc"]
        return doc
    card = {**copy.deepcopy(BAD["base_card"]), **case.get("card", {})}
    return {"format": "verity.card_catalog/1", "cards": [card] * case.get("cards", 1)}


@pytest.mark.parametrize("case", BAD["cases"], ids=lambda c: c["name"])
def test_bad_catalog_is_refused(case: dict[str, Any]) -> None:
    with pytest.raises(InputError, match=re.escape(case["error"])):
        parse_catalog(_bad_doc(case))


def test_base_card_of_bad_catalogs_is_itself_valid() -> None:
    catalog = parse_catalog({"format": "verity.card_catalog/1", "cards": [BAD["base_card"]]})
    assert catalog.cards[0].rates == {c: Decimal(1) for c in CATEGORIES}


@pytest.mark.parametrize(
    ("spend", "error"),
    [
        ({"dining": 1}, "every category exactly once"),
        ({c: 0 for c in CATEGORIES}, "spends nothing"),
        ({**{c: 0 for c in CATEGORIES}, "gas": -5}, "whole dollars >= 0"),
        ({**{c: 0 for c in CATEGORIES}, "gas": Decimal("10.5")}, "whole dollars >= 0"),
        ({**{c: 0 for c in CATEGORIES}, "gas": "10"}, "must be a number"),
    ],
)
def test_bad_profile_is_refused(spend: dict[str, Any], error: str) -> None:
    doc = {"format": "verity.spend_profiles/1", "profiles": [{"index": 0, "spend": spend}]}
    with pytest.raises(InputError, match=re.escape(error)):
        parse_profiles(doc)


@pytest.mark.parametrize(("kind", "value", "expected"), FORMATS)
def test_display_formats(kind: str, value: str, expected: str) -> None:
    assert FORMATTERS[kind](Decimal(value)) == expected


def _fake_curve(points: list[tuple[int, int]]) -> Callable[[Decimal], Decimal]:
    """A fake piecewise-linear curve through ``points``, flat after the last one."""

    def f(s: Decimal) -> Decimal:
        for (x0, y0), (x1, y1) in pairwise(points):
            if s <= x1:
                return Decimal(y0) + (Decimal(y1) - y0) * (s - x0) / (x1 - x0)
        return Decimal(points[-1][1])

    return f


@pytest.mark.parametrize(
    ("points", "start", "expected"),
    [
        ([(0, -100), (1000, -60), (3000, 20)], 0, Decimal(2500)),
        ([(0, -100), (1000, 0), (2000, 0), (3000, 50)], 0, Decimal(2000)),
        ([(0, -100), (1000, -50), (5000, -50)], 0, None),
        ([(0, -10), (10, -5)], 0, None),
    ],
)
def test_crossing_up(points: list[tuple[int, int]], start: int, expected: Decimal | None) -> None:
    kinks = [Decimal(x) for x, _ in points]
    assert crossing_up(_fake_curve(points), Decimal(start), kinks) == expected


@pytest.mark.parametrize(
    ("points", "start", "expected"),
    [
        ([(0, 95), (6000, -145), (8000, -145)], 8000, Decimal(2375)),
        ([(0, -5), (4000, -20)], 4000, None),
        ([(0, 0), (4000, -20)], 4000, Decimal(0)),
    ],
)
def test_crossing_down(points: list[tuple[int, int]], start: int, expected: Decimal | None) -> None:
    kinks = [Decimal(x) for x, _ in points]
    assert crossing_down(_fake_curve(points), Decimal(start), kinks) == expected


def test_every_public_name_is_exported() -> None:
    import verity.backends.card_rewards as package

    for name in package.__all__:
        assert getattr(package, name) is not None, name
    public = {n for n in dir(package) if not n.startswith("_")} - {
        "annotations",
        "Any",
        "InputError",
    }
    assert public - set(package.__all__) <= {"make_profiles"}
