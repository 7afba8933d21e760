"""How far each stated shadow price and reduced cost holds: HiGHS ranging.

For a linear program at a nondegenerate optimum (``sensitivity == "reported"``), the
model of the facts is given to ``highspy`` as it is (whichever solver solved it) and its
ranging read:

- ``SHADOW_RANGE`` ``range:<constraint>``, for each stated shadow price: the interval of
  the constraint's right-hand side over which its shadow price holds (the optimal basis
  stays optimal, so the objective moves by the shadow price per unit);
- ``COST_RANGE`` ``cost_range:<variable>``, for each stated reduced cost: the interval of
  the variable's objective coefficient over which the plan keeps it at its bound;
- ``TOP_LIMIT`` ``top_limit``: of the constraints with a stated shadow price, the one
  whose relaxation is worth most per unit of its own scale, 1% of its limit (its shadow
  price times its limit, over 100).

Ends are rounded inwards to two decimals, so every stated interval lies inside the true
one; an infinite end makes the statement one-sided. Ranging is stated only where HiGHS
finds the same plan (values within the tolerance) and the same shadow price: otherwise
nothing is stated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verity.backends.pulp._solution import TOLERANCE, SolutionFacts

#: The graph's context and item (``._graph``'s ``_Context``, ``_Item``) and its number
#: display (``_show(value, label)``): passed in by ``._graph``, which imports this module.
Context = Any
Item = Any
Show = Callable[[float, Any], str]

__all__ = ["Ranges", "add_ranges", "ranges_of", "zero"]

_INFINITE = 1e29


@dataclass(frozen=True)
class Ranges:
    """Per constraint its right-hand-side interval, per variable its cost interval
    (``None`` for an infinite end)."""

    rhs: Mapping[str, tuple[float | None, float | None]]
    cost: Mapping[str, tuple[float | None, float | None]]
    duals: Mapping[str, float]


def _end(value: float) -> float | None:
    return None if not math.isfinite(value) or abs(value) >= _INFINITE else float(value)


def _highs(facts: SolutionFacts) -> Any:
    """A quiet HiGHS instance holding the model of the facts."""
    import highspy
    import numpy as np

    from verity.backends._pulp_support import _silence_highs_banner

    _silence_highs_banner()
    make: Any = highspy.Highs
    h = make()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    index = {v.name: i for i, v in enumerate(facts.variables)}
    count = len(facts.variables)
    if count:
        lows = [-inf if v.low is None else v.low for v in facts.variables]
        ups = [inf if v.up is None else v.up for v in facts.variables]
        h.addVars(count, np.array(lows, dtype=np.float64), np.array(ups, dtype=np.float64))
        costs = np.array([v.cost for v in facts.variables], dtype=np.float64)
        h.changeColsCost(count, np.arange(count, dtype=np.int32), costs)
    if facts.sense == "max":
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    for c in facts.constraints:
        low = c.rhs if c.sense in (">=", "=") else -inf
        up = c.rhs if c.sense in ("<=", "=") else inf
        cols = np.array([index[n] for n, _ in c.terms], dtype=np.int32)
        values = np.array([a for _, a in c.terms], dtype=np.float64)
        h.addRow(low, up, len(c.terms), cols, values)
    return h


def _same_plan(facts: SolutionFacts, values: list[float]) -> bool:
    return all(
        abs(v.value - x) <= TOLERANCE * max(1.0, abs(v.value))
        for v, x in zip(facts.variables, values, strict=True)
    )


def ranges_of(facts: SolutionFacts) -> Ranges | None:
    """HiGHS's ranging of the facts' model, or ``None`` when HiGHS is missing, finds
    another plan or reports no ranging."""
    try:
        import highspy
    except ImportError:  # pragma: no cover - highspy is a declared extra
        return None
    h = _highs(facts)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    solution = h.getSolution()
    if not _same_plan(facts, list(solution.col_value)):
        return None
    status, ranging = h.getRanging()
    if status != highspy.HighsStatus.kOk:
        return None
    # each read of a highspy array copies it whole: read each once
    row_dn, row_up = list(ranging.row_bound_dn.value_), list(ranging.row_bound_up.value_)
    cost_dn, cost_up = list(ranging.col_cost_dn.value_), list(ranging.col_cost_up.value_)
    row_dual = list(solution.row_dual)
    rhs = {c.name: (_end(row_dn[i]), _end(row_up[i])) for i, c in enumerate(facts.constraints)}
    cost = {v.name: (_end(cost_dn[j]), _end(cost_up[j])) for j, v in enumerate(facts.variables)}
    duals = {c.name: float(row_dual[i]) for i, c in enumerate(facts.constraints)}
    return Ranges(rhs=rhs, cost=cost, duals=duals)


def _inward(value: float, *, low: bool) -> float:
    """``value`` rounded to two decimals towards the inside of its interval."""
    scaled = value * 100
    if abs(scaled - round(scaled)) <= 1e-7 * max(1.0, abs(scaled)):
        return round(scaled) / 100
    return (math.ceil(scaled) if low else math.floor(scaled)) / 100


def _ends(
    interval: tuple[float | None, float | None], show: Any
) -> tuple[str, dict[str, str]] | None:
    """(``between``/``above``/``below``, the slots of its ends), or None with no end."""
    low, high = interval
    slots: dict[str, str] = {}
    if low is not None:
        slots["low"] = show(_inward(low, low=True))
    if high is not None:
        slots["high"] = show(_inward(high, low=False))
    if not slots:
        return None
    end = "between" if len(slots) == 2 else "above" if "low" in slots else "below"
    return end, slots


def _exact(item: Item, show: Show) -> Callable[[float], str]:
    """A display of the item's values with up to two decimals (never fewer than needed)."""
    label = None if item.label is None else item.label.model_copy(update={"decimals": None})
    return lambda value: show(value, label)


def zero(shown: str) -> bool:
    """A displayed number that shows no non-zero digit."""
    return not re.sub(r"[^0-9]", "", shown).strip("0")


def add_ranges(ctx: Context, items: Mapping[str, Item], show: Show) -> None:
    """The ``SHADOW_RANGE``, ``COST_RANGE`` and ``TOP_LIMIT`` nodes of the stated shadow
    prices and reduced costs."""
    facts = ctx.facts
    priced = [c for c in facts.constraints if f"shadow_price:{c.name}" in ctx.ids]
    costed = [v for v in facts.variables if f"reduced_cost:{v.name}" in ctx.ids]
    if not priced and not costed:
        return
    ranges = ranges_of(facts)
    if ranges is None:
        return
    stated: list[Any] = []
    for c in priced:
        dual = c.dual or 0.0
        if abs(ranges.duals[c.name] - dual) > 1e-6 * max(1.0, abs(dual)):
            continue  # HiGHS prices the row otherwise: its ranging is not this price's
        item = items[c.name]
        found = _ends(ranges.rhs[c.name], _exact(item, show))
        if found is None:
            continue
        end, slots = found
        what = "level" if c.sense == "=" else "limit"
        slots |= {"dual": ctx.money(abs(dual)), "what": what, "name": item.phrase}
        slots["unit"] = item.unit
        ctx.node(
            f"range:{c.name}",
            "SHADOW_RANGE",
            f"range_{end}",
            slots,
            item,
            data={"constraint": c.name, "dual": dual, "rhs_range": list(ranges.rhs[c.name])},
            required=["by HiGHS ranging"],
        )
        ctx.builder.edge(f"range:{c.name}", f"shadow_price:{c.name}", "qualifies")
        stated.append(c)
    for v in costed:
        item = items[v.name]
        found = _ends(ranges.cost[v.name], ctx.money)
        if found is None:
            continue
        end, slots = found
        if v.at(v.up) and not v.at(v.low):
            move = "at its upper bound"
        else:
            move = "out of the plan" if v.low == 0 else "at its lower bound"
        slots |= {"name": item.phrase, "move": move, "objective": ctx.objective}
        ctx.node(
            f"cost_range:{v.name}",
            "COST_RANGE",
            f"cost_range_{end}",
            slots,
            item,
            data={"variable": v.name, "cost": v.cost, "cost_range": list(ranges.cost[v.name])},
            required=["by HiGHS ranging"],
        )
        ctx.builder.edge(f"cost_range:{v.name}", f"reduced_cost:{v.name}", "qualifies")
    _top_limit(ctx, items, stated, show)


def _top_limit(ctx: Context, items: Mapping[str, Item], priced: list[Any], show: Show) -> None:
    """The constraint whose 1% relaxation is worth most (shadow price times limit)."""
    scaled = [(abs((c.dual or 0.0) * c.rhs) / 100, c) for c in priced if c.rhs != 0]
    if not scaled:
        return
    amount, c = max(scaled, key=lambda pair: pair[0])
    shown = ctx.money(amount)
    if zero(shown):
        return
    gain = 1.0 if ctx.facts.sense == "max" else -1.0
    dual = c.dual or 0.0
    # relaxing: the direction of the limit (by 1% of its size) that improves the objective
    change = "raising" if gain * dual > 0 else "lowering"
    verb = "raises" if ctx.facts.sense == "max" else "lowers"
    item = items[c.name]
    slots = {
        "name": item.phrase,
        "objective": ctx.objective,
        "what": "level" if c.sense == "=" else "limit",
        "rhs": show(c.rhs, item.label),
        "unit": item.unit,
        "amount": shown,
    }
    ctx.node(
        "top_limit",
        "TOP_LIMIT",
        f"top_{change}_{verb}",
        slots,
        item,
        data={"constraint": c.name, "dual": dual, "rhs": c.rhs, "per_percent": amount},
        required=["the most", f"by 1% {verb}", "by its shadow price times its limit"],
    )
    ctx.builder.edge("top_limit", f"constraint:{c.name}", "ranks")
