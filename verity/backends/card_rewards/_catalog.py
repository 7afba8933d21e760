"""The card catalog: cards, their earn rates, caps, fees and point values.

A catalog file (``verity.card_catalog/1``) lists cards. Rates are points per dollar
(``4`` means 4x); a point is worth ``point_value_cents`` cents, so the effective rate
in percent is ``rate * point_value_cents``. A capped category earns its rate on the
first ``cap`` dollars of the year and ``rate_above`` after that. All amounts are
annual US dollars. Numbers are read as :class:`~decimal.Decimal`, never as floats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from verity.errors import InputError
from verity.formats import CATALOG_FORMAT

__all__ = [
    "CATALOG_FORMAT",
    "CATEGORIES",
    "Cap",
    "Card",
    "Catalog",
    "load_catalog",
    "parse_catalog",
    "read_package_json",
]


#: Spending categories, in the order every output lists them.
CATEGORIES: tuple[str, ...] = ("dining", "groceries", "travel", "gas", "online", "other_spend")

_ID_RE = re.compile(r"[a-z][a-z_]*[a-z]")


@dataclass(frozen=True, slots=True)
class Cap:
    """An annual cap: ``rate`` applies to the first ``limit`` dollars, ``rate_above`` after."""

    limit: Decimal
    rate_above: Decimal


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the catalog; ``rates`` covers every category in :data:`CATEGORIES`."""

    id: str
    name: str
    aliases: tuple[str, ...]
    annual_fee: Decimal
    point_value_cents: Decimal
    base_rate: Decimal
    rates: Mapping[str, Decimal]
    caps: Mapping[str, Cap]

    def effective_percent(self, rate: Decimal) -> Decimal:
        """Value earned per $100 at ``rate`` points per dollar (a percentage)."""
        return rate * self.point_value_cents

    def dollar_value(self, rate: Decimal) -> Decimal:
        """Dollars earned per dollar spent at ``rate`` points per dollar."""
        return rate * self.point_value_cents / 100


@dataclass(frozen=True, slots=True)
class Catalog:
    """The cards, in file order (the order that breaks every tie)."""

    cards: tuple[Card, ...]
    illustrative: bool

    def card(self, card_id: str) -> Card:
        """The card with ``card_id``."""
        for card in self.cards:
            if card.id == card_id:
                return card
        raise InputError(f"catalog has no card {card_id!r}")

    def rank(self, card_id: str) -> int:
        """Position of the card in the catalog."""
        return [c.id for c in self.cards].index(card_id)


def _decimal(value: Any, where: str, *, positive: bool = False) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise InputError(f"catalog: {where} must be a number, not {value!r}")
    number = Decimal(value)
    if number < 0 or (positive and number == 0):
        raise InputError(f"catalog: {where} must be {'positive' if positive else '>= 0'}")
    return number


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"catalog: {where} must be a non-empty string")
    return value


def _parse_caps(raw: Any, rates: Mapping[str, Decimal], where: str) -> dict[str, Cap]:
    if not isinstance(raw, dict):
        raise InputError(f"catalog: {where}.caps must be an object")
    caps: dict[str, Cap] = {}
    for category in CATEGORIES:
        if category not in raw:
            continue
        entry = raw[category]
        at = f"{where}.caps.{category}"
        if not isinstance(entry, dict) or set(entry) != {"cap", "rate_above"}:
            raise InputError(f"catalog: {at} must be an object with cap and rate_above")
        cap = Cap(
            _decimal(entry["cap"], f"{at}.cap", positive=True),
            _decimal(entry["rate_above"], f"{at}.rate_above"),
        )
        if cap.rate_above >= rates[category]:
            raise InputError(f"catalog: {at}.rate_above must be below the capped rate")
        caps[category] = cap
    unknown = sorted(set(raw) - set(CATEGORIES))
    if unknown:
        raise InputError(f"catalog: {where}.caps names unknown category {unknown[0]!r}")
    return caps


def _parse_card(raw: Any, index: int) -> Card:
    where = f"cards[{index}]"
    if not isinstance(raw, dict):
        raise InputError(f"catalog: {where} must be an object")
    card_id = _text(raw.get("id"), f"{where}.id")
    if _ID_RE.fullmatch(card_id) is None:
        raise InputError(f"catalog: {where}.id {card_id!r} must be snake_case ascii letters")
    name = _text(raw.get("name"), f"{where}.name")
    aliases_raw = raw.get("aliases", [name])
    if not isinstance(aliases_raw, list) or not aliases_raw:
        raise InputError(f"catalog: {where}.aliases must be a non-empty list")
    aliases = tuple(_text(a, f"{where}.aliases") for a in aliases_raw)
    base = _decimal(raw.get("base_rate"), f"{where}.base_rate")
    rates_raw = raw.get("rates", {})
    if not isinstance(rates_raw, dict):
        raise InputError(f"catalog: {where}.rates must be an object")
    unknown = sorted(set(rates_raw) - set(CATEGORIES))
    if unknown:
        raise InputError(f"catalog: {where}.rates names unknown category {unknown[0]!r}")
    rates = {
        c: _decimal(rates_raw[c], f"{where}.rates.{c}") if c in rates_raw else base
        for c in CATEGORIES
    }
    return Card(
        id=card_id,
        name=name,
        aliases=aliases,
        annual_fee=_decimal(raw.get("annual_fee"), f"{where}.annual_fee"),
        point_value_cents=_decimal(
            raw.get("point_value_cents"), f"{where}.point_value_cents", positive=True
        ),
        base_rate=base,
        rates=rates,
        caps=_parse_caps(raw.get("caps", {}), rates, where),
    )


def parse_catalog(data: Any) -> Catalog:
    """Validate catalog data (numbers already parsed as Decimal) into a :class:`Catalog`."""
    if not isinstance(data, dict) or data.get("format") != CATALOG_FORMAT:
        raise InputError(f"catalog: expected an object with format {CATALOG_FORMAT!r}")
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise InputError("catalog: cards must be a non-empty list")
    cards = tuple(_parse_card(raw, i) for i, raw in enumerate(raw_cards))
    ids = [c.id for c in cards]
    if len(set(ids)) != len(ids):
        raise InputError("catalog: card ids must be unique")
    return Catalog(cards=cards, illustrative=bool(data.get("illustrative", False)))


def _loads_decimal(text: str, what: str) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}") from None


def read_package_json(name: str) -> str:
    """Text of a data file shipped in ``verity/data/card_rewards``."""
    ref = resources.files("verity").joinpath("data", "card_rewards", name)
    return ref.read_text("utf-8")


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The shipped catalog, or the catalog file at ``path``."""
    if path is None:
        return parse_catalog(_loads_decimal(read_package_json("catalog.json"), "catalog"))
    try:
        text = Path(path).read_text("utf-8")
    except OSError as exc:
        raise InputError(f"catalog {path} cannot be read: {exc.strerror or exc}") from None
    return parse_catalog(_loads_decimal(text, f"catalog {path}"))
