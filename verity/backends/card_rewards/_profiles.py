"""Spending profiles: annual spend per category for one household.

A profiles file (``verity.spend_profiles/1``) lists profiles numbered from 0; each
gives whole-dollar annual spend for every category of
:data:`~verity.backends.card_rewards._catalog.CATEGORIES`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from verity.backends.card_rewards._catalog import CATEGORIES, read_package_json
from verity.errors import InputError
from verity.formats import SPEND_PROFILES_FORMAT

__all__ = ["PROFILES_FORMAT", "Profile", "load_profiles", "parse_profiles"]

PROFILES_FORMAT = SPEND_PROFILES_FORMAT


@dataclass(frozen=True, slots=True)
class Profile:
    """One household: its index, a short id (``p07``), a label and annual spend."""

    index: int
    id: str
    archetype: str
    spend: Mapping[str, Decimal]

    @property
    def total(self) -> Decimal:
        """Annual spend over all categories."""
        return sum((self.spend[c] for c in CATEGORIES), Decimal(0))


def _parse_profile(raw: Any, position: int) -> Profile:
    where = f"profiles[{position}]"
    if not isinstance(raw, dict):
        raise InputError(f"profiles: {where} must be an object")
    if raw.get("index") != position:
        raise InputError(f"profiles: {where}.index must be {position}")
    spend_raw = raw.get("spend")
    if not isinstance(spend_raw, dict) or set(spend_raw) != set(CATEGORIES):
        raise InputError(f"profiles: {where}.spend must give every category exactly once")
    spend: dict[str, Decimal] = {}
    for category in CATEGORIES:
        value = spend_raw[category]
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise InputError(f"profiles: {where}.spend.{category} must be a number")
        amount = Decimal(value)
        if amount < 0 or amount != amount.to_integral_value():
            raise InputError(f"profiles: {where}.spend.{category} must be whole dollars >= 0")
        spend[category] = amount
    profile = Profile(
        index=position,
        id=str(raw.get("id", f"p{position:02d}")),
        archetype=str(raw.get("archetype", "")),
        spend=spend,
    )
    if profile.total <= 0:
        raise InputError(f"profiles: {where} spends nothing")
    return profile


def parse_profiles(data: Any) -> tuple[Profile, ...]:
    """Validate profiles data (numbers parsed as Decimal or int) into profiles."""
    if not isinstance(data, dict) or data.get("format") != PROFILES_FORMAT:
        raise InputError(f"profiles: expected an object with format {PROFILES_FORMAT!r}")
    raw = data.get("profiles")
    if not isinstance(raw, list) or not raw:
        raise InputError("profiles: profiles must be a non-empty list")
    return tuple(_parse_profile(p, i) for i, p in enumerate(raw))


def load_profiles(path: str | Path | None = None) -> tuple[Profile, ...]:
    """The shipped profiles, or the profiles file at ``path``."""
    if path is None:
        text = read_package_json("profiles.json")
        what = "profiles"
    else:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise InputError(f"profiles {path} cannot be read: {exc.strerror or exc}") from None
        what = f"profiles {path}"
    try:
        data = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(data, dict) and isinstance(data.get("profiles"), list):
        for entry in data["profiles"]:
            if isinstance(entry, dict) and isinstance(entry.get("index"), Decimal):
                entry["index"] = int(entry["index"])
    return parse_profiles(data)
