"""Number mentions: finding them in prose and comparing them by value and unit.

A *mention* is any run of digits that does not sit inside a word (``Q4`` and
``card_07`` hold no mention), with an optional sign, an optional currency symbol
before it and an optional unit after it (``%``, ``percent``, ``x``, ``×``, ``¢``,
``cents`` or any letters attached to the digits, such as ``rd`` or ``k``).

Mentions compare by their :class:`NumberValue`: the decimal value with thousands
separators and trailing zeros removed, and the unit. ``$6,250`` equals
``$6,250.00``, ``4x`` equals ``4.0x``, ``12%`` differs from ``12x``. A digit run
that is not a well-formed number (``1.000,50``, ``1,2345``) is still a mention, but
its value is ``None`` and it equals nothing, so prose that writes numbers in another
convention is rejected rather than silently read.

All functions take text already passed through :func:`verity.text.normalize.normalize`
unless they say otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from verity.text.normalize import normalize

__all__ = [
    "NUMBER_RE",
    "NUMBER_START",
    "NumberMention",
    "NumberValue",
    "find_numbers",
    "number_value",
    "value_of_match",
]

#: A character class of every character a :data:`NUMBER_RE` match can start with (sign,
#: currency symbol, digit, or the point of ``.5``). The pattern opens with a lookahead
#: for it, so that a position where no number can start fails at once.
NUMBER_START = r"[-−$€£¥.\d]"

NUMBER_RE = re.compile(
    r"(?="
    + NUMBER_START
    + r""")
    (?<!\w)(?<!\w[.,])
    (?P<sign>[-−])?
    (?P<cur>[$€£¥])?
    (?P<body>\d(?:[\d.,]*\d)?|\.\d+)
    (?P<suffix>%|¢|×|\ ?percent(?!\w)|\ ?cents?(?!\w)|[^\W\d_]+)?
    (?!\w)
    """,
    re.VERBOSE,
)

_WELL_FORMED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")

_UNIT_ALIASES = {
    "percent": "%",
    "cent": "¢",
    "cents": "¢",
    "×": "x",
}


@dataclass(frozen=True, slots=True)
class NumberValue:
    """Canonical value of a number mention: decimal string (or None) and unit."""

    value: str | None
    unit: str

    def matches(self, other: NumberValue) -> bool:
        """True when both are well-formed and equal in value and unit."""
        return self.value is not None and self.value == other.value and self.unit == other.unit

    @property
    def token(self) -> str:
        """One token that stands for this number in aligned text, e.g. ``<$6250>``."""
        if self.value is None:
            return "<?" + self.unit + ">"
        if self.unit[:1] in "$€£¥" and self.unit:
            return "<" + self.unit[:1] + self.value + self.unit[1:] + ">"
        return "<" + self.value + self.unit + ">"


@dataclass(frozen=True, slots=True)
class NumberMention:
    """A number found in normalized text: its span, raw text and canonical value."""

    start: int
    end: int
    raw: str
    value: NumberValue


def _canonical_decimal(body: str, negative: bool) -> str | None:
    if _WELL_FORMED.fullmatch(body) is None:
        return None
    try:
        dec = Decimal(body.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern above admits only decimals
        return None
    if negative:
        dec = -dec
    text = format(dec.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@lru_cache(maxsize=65536)
def _value_of_groups(
    sign: str | None, cur: str | None, body: str, suffix: str | None
) -> NumberValue:
    suffix = (suffix or "").strip()
    suffix = _UNIT_ALIASES.get(suffix, suffix)
    unit = (cur or "") + suffix
    value = _canonical_decimal(body, negative=sign is not None)
    if value is None:
        # Keep the raw digits in the unit slot so that two malformed mentions never
        # collapse into one token.
        return NumberValue(None, unit + ":" + body)
    return NumberValue(value, unit)


def value_of_match(match: re.Match[str]) -> NumberValue:
    """Canonical value of a :data:`NUMBER_RE` match (memoized on its groups)."""
    return _value_of_groups(*match.group("sign", "cur", "body", "suffix"))


def find_numbers(normalized: str) -> list[NumberMention]:
    """Every number mention in ``normalized`` text, left to right."""
    return [
        NumberMention(m.start(), m.end(), m.group(0), value_of_match(m))
        for m in NUMBER_RE.finditer(normalized)
    ]


@lru_cache(maxsize=65536)
def number_value(declared: str) -> NumberValue | None:
    """Canonical value of a declared number string such as ``"$6,250.00"``.

    The string is normalized first. It must hold exactly one mention covering all
    of it (surrounding spaces aside); otherwise it is not a number and ``None`` is
    returned.
    """
    text = normalize(declared).strip()
    match = NUMBER_RE.fullmatch(text)
    if match is None:
        return None
    return value_of_match(match)
