"""Keep a large model's graph readable: reduced costs and slack rows beyond a bound are
counted in summary nodes.

A graph states at most ``detail`` reduced costs (``REDUCED_COST``) and at most ``detail``
constraints with slack (``CONSTRAINT_SLACK``); ``None`` keeps every one. The kept ones are
the most salient: reduced costs by their salience (the size of the reduced cost), slack
rows by how close they are to their limit (slack relative to the limit). The rest are
counted, per statement they would have made (the same template, direction and unit) and
per labels group, in one summary node each:

- ``REDUCED_COST_SUMMARY`` ``summary:reduced_cost:<n>``: *At the margin, each unit of any
  of 138 other routes forced into the plan raises shipping cost by at least $0.40.*
- ``SLACK_SUMMARY`` ``summary:slack:<n>``: *The plan keeps each of 12 other supply
  constraints at least 3.5 cases below its upper limit.*

The count is exact, and the least value is the smallest of the items counted, shown
rounded down so that "at least" stays true. A group of one item is stated as the item
itself, never summarised. Each summary's data lists the items it counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from verity.errors import InputError

__all__ = ["DEFAULT_DETAIL", "Pending", "Summarised", "SummaryKey", "check_detail", "summarise"]

#: Reduced costs and slack rows a graph states one by one, each kind, by default.
DEFAULT_DETAIL = 20

#: A node waiting to be added: id, type, template, slots, the builder's keywords.
Pending = tuple[str, str, str, dict[str, str], dict[str, Any]]

#: Node type summarised -> (summary node type, id stem, what its data counts).
_KINDS: Mapping[str, tuple[str, str, str]] = {
    "REDUCED_COST": ("REDUCED_COST_SUMMARY", "reduced_cost", "variable"),
    "CONSTRAINT_SLACK": ("SLACK_SUMMARY", "slack", "constraint"),
}


@dataclass(frozen=True)
class SummaryKey:
    """What a summarised node shares with the others of its summary: its labels group
    (``None`` outside one), the plural noun that counts them and the number display of
    its values."""

    group: str | None
    things: str
    display: Callable[[float], str]
    style: tuple[str | None, int | None] = (None, None)  # the label's format and decimals
    #: the display of a least value that ``display`` rounds down to 0 (more decimals)
    finer: Callable[[float], str] | None = None


@dataclass(frozen=True)
class Summarised:
    """The nodes to add (kept ones, then the summaries) and the ids left out."""

    nodes: list[Pending]
    dropped: frozenset[str]


def check_detail(detail: object) -> int | None:
    """``detail`` as given, when it is ``None`` or a whole number 0 or more."""
    if detail is None or (isinstance(detail, int) and not isinstance(detail, bool) and detail >= 0):
        return detail
    raise InputError(f"detail must be a whole number 0 or more, or None (all), not {detail!r}")


#: Relative difference below which a shown value is the value (floating point noise).
_NOISE = "1e-9"


def _number(shown: str) -> Decimal:
    return Decimal(re.sub(r"[^0-9.]", "", shown) or "0")


def floor_shown(
    value: float, show: Callable[[float], str], finer: Callable[[float], str] | None = None
) -> str:
    """``show(value)``, one step lower when rounding raised it by more than float noise
    (``0.01`` less 2e-16 shows as ``0.01``): a least value stays true.
    One that comes to 0 while ``value`` is not is shown by ``finer`` instead, when given."""
    shown = show(value)
    number = _number(shown)
    if number - Decimal(repr(value)) > Decimal(_NOISE) * max(Decimal(1), abs(number)):
        places = len(shown.rsplit(".", 1)[1].rstrip("%")) if "." in shown else 0
        shown = show(float(number - Decimal(1).scaleb(-places)))
    if finer is not None and value > 0 and _number(shown) == 0:
        return floor_shown(value, finer)
    return shown


def _size(node: Pending) -> float:
    """How much a node matters: a reduced cost's salience; a slack row's closeness to its
    limit (a smaller relative slack first)."""
    _, node_type, _, _, kw = node
    if node_type == "REDUCED_COST":
        return float(kw.get("salience") or 0.0)
    data = kw["data"]
    return -abs(float(data["slack"])) / max(1.0, abs(float(data["rhs"])))


def _value(node: Pending) -> float:
    data = node[4]["data"]
    return abs(float(data["reduced_cost"] if node[1] == "REDUCED_COST" else data["slack"]))


def summarise(
    pending: Sequence[Pending],
    detail: int | None,
    keys: Mapping[str, SummaryKey],
    objective: str,
) -> Summarised:
    """Keep ``detail`` nodes of each summarised kind (all when None) and count the rest
    in summary nodes; ``keys`` gives each summarisable node its :class:`SummaryKey`."""
    if detail is None:
        return Summarised(list(pending), frozenset())
    dropped: set[str] = set()
    for kind in _KINDS:
        of_kind = [n for n in pending if n[1] == kind]
        if len(of_kind) > detail:
            ranked = sorted(range(len(of_kind)), key=lambda i: (-_size(of_kind[i]), i))
            dropped.update(of_kind[i][0] for i in ranked[detail:])
    buckets: dict[tuple[Any, ...], list[Pending]] = {}
    for node in pending:
        if node[0] in dropped:
            key = keys[node[0]]
            slots = node[3]
            bucket = (node[1], node[2], slots.get("move"), slots.get("unit"), key.group, key.style)
            buckets.setdefault(bucket, []).append(node)
    for members in buckets.values():
        if len(members) == 1:
            dropped.discard(members[0][0])
    kept = [n for n in pending if n[0] not in dropped]
    numbered: dict[str, int] = {}
    for (kind, *_), members in buckets.items():
        if len(members) > 1:
            index = numbered[kind] = numbered.get(kind, 0) + 1
            kept.append(_summary(kind, index, members, keys[members[0][0]], objective))
    return Summarised(kept, frozenset(dropped))


def _summary(
    kind: str, index: int, members: list[Pending], key: SummaryKey, objective: str
) -> Pending:
    node_type, stem, counted = _KINDS[kind]
    least = min(_value(n) for n in members)
    shown = floor_shown(least, key.display, key.finer)
    first = members[0]
    count = f"{len(members):,}"
    slots = {"count": count, "things": key.things, "least": shown}
    data: dict[str, Any] = {
        "summarises": kind,
        "count": len(members),
        "least": least,
        "group": key.group,
        "items": [n[4]["data"][counted] for n in members],
    }
    if kind == "REDUCED_COST":
        verb = first[2].removeprefix("reduced_")
        slots |= {"move": first[3]["move"], "objective": objective}
        required = ["At the margin", f"{count} other", f"{verb} {objective} by at least {shown}"]
        template = f"summary_reduced_{verb}"
    else:
        side = first[2].removeprefix("slack_")
        unit = first[3]["unit"]
        where = "below" if side == "upper" else "above"
        slots["unit"] = unit
        required = [f"{count} other", f"at least {shown}{unit} {where} its {side} limit"]
        template = f"summary_slack_{side}"
    return (
        f"summary:{stem}:{index}",
        node_type,
        template,
        slots,
        {"data": data, "required": required},
    )
