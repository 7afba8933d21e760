"""Display strings for the numbers the card-rewards graphs state.

One display per kind of quantity, used in every statement and ``numbers`` list:

- money (spend, values, fees, caps, thresholds): ``$1,234.56``, always two decimals,
  comma thousands, rounded half away from zero; a negative amount is ``-$12.00``;
- earn rates (points per dollar): ``4x``, ``1.5x``;
- effective rates (value per dollar spent, rate times point value): ``5%``, ``3.75%``;
- point values: cents, ``1¢``, ``1.25¢``.

Rates, percentages and cents are written exactly, with as few decimals as their
value needs (they come from the catalog, never from a division).
"""

from __future__ import annotations

from decimal import Decimal

from verity.backends.card_rewards._alloc import cents

__all__ = ["join_words", "money", "multiplier", "percent", "point_value"]


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def money(amount: Decimal) -> str:
    """``$1,234.56``."""
    rounded = cents(amount)
    sign = "-" if rounded < 0 else ""
    return f"{sign}${abs(rounded):,.2f}"


def multiplier(rate: Decimal) -> str:
    """``4x``."""
    return _plain(rate) + "x"


def percent(value: Decimal) -> str:
    """``3.75%``."""
    return _plain(value) + "%"


def point_value(value_cents: Decimal) -> str:
    """``1.25¢``."""
    return _plain(value_cents) + "¢"


def join_words(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
