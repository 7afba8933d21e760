"""Turn a :class:`~._model.Solution` into a ``verity.evidence_graph/1`` graph.

Node types and ids (every statement is one sentence that names entities by id and
states exactly the node's ``numbers``, displayed as :mod:`._format` describes):

- ``OBJECTIVE`` ``objective``: net value, rewards, fees and the cards held;
- ``ASSUMPTION`` ``assumption:annual_basis``, ``assumption:illustrative_catalog``,
  ``assumption:spend:<category>`` (the profile's annual spend, an input) and
  ``assumption:point_value:<card>`` for every card the graph names;
- ``WINNER_BY_CATEGORY`` ``winner:<category>``: the held card that takes the
  category's first dollar and the runner-up among held cards, with effective rates;
- ``ALLOCATION_SEGMENT`` ``segment:<card>:<category>:<within|above>``: spend placed
  on a card in a category within (or, for a capped category, above) its cap;
- ``CAP_HIT`` ``cap_hit:<card>:<category>``: a full cap, with edges to the segments
  the overflow goes to;
- ``FEE_BREAK_EVEN`` ``fee_break_even:<card>``: for a held card with a fee, the spend
  on it at which it pays for its fee (at its average incremental rate) and the net
  value it adds over the baseline (the other held cards, or, for a lone card, the
  best fee-free card);
- ``THRESHOLD`` ``threshold:<card>``: the spending in one category (others fixed) at
  which one move would start to pay: adding an unheld card, swapping one in at the
  card limit, or dropping (or, when alone, swapping out) a held card with a fee; the
  category needing the smallest change is reported, up to :data:`MAX_THRESHOLD_SPEND`
  (a move that would pay with any extra spend at all states no level and is left out).

Each node also lists its ``required_spans``: the parts of its statement that a claim
may not drop because the statement's truth depends on them (the plan's scope and its
cards, a cap, a tie, a fee condition, the move and condition of a threshold, the
annual period of a spend).

Statements are worded for the v2 predicate: a faithful claim can reuse their words
with small gaps, and two money amounts in one statement are separated by at least
four words, so that no claim can put one amount in the other's place by skipping
words (the predicate skips at most four tokens at a time).

Entities are the cards the graph names (catalog order) and the six categories, each with
its display name (a card's catalog name, a category's :data:`CATEGORY_NAMES`), which is
also an accepted mention; statements name entities by id, and what a person reads names
them by display name (:meth:`verity.core.graph.EvidenceGraph.named`).

What a person hears first is marked on the nodes (:data:`SALIENCE`): the objective is the
``headline`` (the plan, its net value and its fees) with salience 1; every other node has
a ``salience`` that starts at its part's weight and falls by :data:`SALIENCE_DECAY` per
rank within the part, so the best of each part comes before the second of any. The plan
comes first: allocation segments (which card takes which category), the largest segment
of each category by value before any category's second; then what limits it: cap hits by
overflow, fee break-evens by fee, thresholds by how little spend they need to change;
then winners by category spend, spend assumptions by spend, then the basis, catalog and
point-value assumptions. A cap hit states the cap alone: where the next dollars go is the
next segment's fact (each fact once).

Everything is built in a fixed order, so equal inputs give byte-identical JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from typing import Any

from verity.backends.card_rewards._alloc import (
    WITHIN,
    Piece,
    Segment,
    cents,
    crossing_down,
    crossing_up,
    earnings_over,
    kinks_over,
    segments,
    wallet_earnings,
)
from verity.backends.card_rewards._catalog import CATEGORIES, Card, Catalog
from verity.backends.card_rewards._format import (
    join_words,
    money,
    multiplier,
    percent,
    point_value,
)
from verity.backends.card_rewards._model import Solution, card_limit, eligible_cards
from verity.backends.card_rewards._templates import add_templates
from verity.core.builder import GraphBuilder
from verity.core.graph import load_graph
from verity.jsonio import dumps
from verity.text.aliases import alias_key

__all__ = [
    "CATEGORY_ALIASES",
    "CATEGORY_NAMES",
    "DOMAIN",
    "MAX_THRESHOLD_SPEND",
    "SALIENCE",
    "SALIENCE_DECAY",
    "build_graph",
    "card_forms",
    "graph_json",
]

DOMAIN = "card_rewards"
#: Thresholds beyond this annual spend in one category are not reported.
MAX_THRESHOLD_SPEND = Decimal(250_000)

#: The other forms of each category, declared once per category (every template reads
#: them): the singular and plural of a plural noun and the adjective a writer puts before
#: ``spending`` (``grocery spending``, ``restaurant spend``). Each form stands for the
#: category alone: none swallows a spending word, because the templates read a category
#: followed by an optional spending word themselves (``_templates._CATEGORY``) and the
#: spend assumption needs that word to say that its amount is the spend. A form that is
#: only part of a category (``flights``, ``hotels``), another group (``others``) or a word
#: a card's name starts with (``travel`` is the category, never ``Travel Select``) is not
#: one (tests/fixtures/forms/).
CATEGORY_ALIASES: Mapping[str, tuple[str, ...]] = {
    "dining": ("restaurants", "restaurant", "eating out", "dining out"),
    "groceries": ("grocery", "supermarkets", "supermarket", "grocery stores", "grocery store"),
    "travel": ("flights and hotels", "trips"),
    "gas": ("gas stations", "gas station", "fuel", "gasoline"),
    "online": ("online shopping", "e-commerce"),
    # The catch-all category is "general purchases": "everything else" and "other spending"
    # read as quantifier phrases (every category but those a claim names), which the loader
    # refuses as names (verity.text.declarations).
    "other_spend": ("general purchases", "general spending"),
}
#: The name a person reads for each category (one of its aliases, or the id itself).
CATEGORY_NAMES: Mapping[str, str] = {
    "dining": "dining",
    "groceries": "groceries",
    "travel": "travel",
    "gas": "gas",
    "online": "online shopping",
    "other_spend": "general purchases",
}
#: The salience of the first node of each part of the result (the objective is the headline).
#: The plan (which card takes which category) comes first, then what limits it: caps,
#: fee break-evens and thresholds.
SALIENCE: Mapping[str, float] = {
    "OBJECTIVE": 1.0,
    "ALLOCATION_SEGMENT": 0.9,
    "CAP_HIT": 0.85,
    "FEE_BREAK_EVEN": 0.8,
    "THRESHOLD": 0.65,
    "WINNER_BY_CATEGORY": 0.3,
    "ASSUMPTION:spend": 0.1,
    "ASSUMPTION:basis": 0.05,
    "ASSUMPTION:catalog": 0.05,
    "ASSUMPTION:point_value": 0.02,
}
#: Each further node of one part has this share of the salience of the one before it.
SALIENCE_DECAY = Decimal("0.8")

_PLAN_PHRASE = {
    "max_value": "The best plan",
    "no_fee": "The best fee-free plan",
    "two_cards": "The best two-card plan",
}


@dataclass(frozen=True, slots=True)
class Node:
    """One node of a card-rewards graph, as :meth:`GraphBuilder.node` takes it."""

    id: str
    type: str
    statement: str
    entities: list[str]
    numbers: list[str]
    data: dict[str, Any]
    required: list[str]
    optional: list[str]
    template: str
    slots: dict[str, str]


#: A navigation edge: (source, target, relation).
Edge = tuple[str, str, str]


def _node(
    node_id: str,
    node_type: str,
    statement: str,
    entities: Sequence[str],
    numbers: Sequence[str],
    data: Mapping[str, Any],
    required: Sequence[str],
    template: tuple[str, Mapping[str, str]],
    optional: Sequence[str] = (),
) -> Node:
    return Node(
        node_id,
        node_type,
        statement,
        list(entities),
        list(numbers),
        dict(data),
        list(required),
        list(optional),
        template[0],
        dict(template[1]),
    )


def _edge(source: str, target: str, relation: str) -> Edge:
    return (source, target, relation)


def _dollars(amount: Decimal) -> float:
    return float(cents(amount))


def _segment_id(piece: Piece) -> str:
    seg = piece.segment
    return f"segment:{seg.card.id}:{seg.category}:{seg.kind}"


def _fees(cards: Sequence[Card]) -> Decimal:
    return sum((c.annual_fee for c in cards), Decimal(0))


@dataclass(frozen=True, slots=True)
class _Ctx:
    """One plan being turned into its graph.

    The threshold search asks for the same earnings curves many times over (every move
    shares the held wallet; a move's own wallet is read for each category), so the
    ordered segments of a wallet in a category and the earnings at a spend level are
    kept by value for the one build: a wallet by its card ids (cards of one catalog), a
    spend level by its exact text (``Decimal("100")`` and ``Decimal("100.00")`` are
    equal but print differently).
    """

    catalog: Catalog
    solution: Solution
    _orders: dict[tuple[tuple[str, ...], str], list[Segment]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _earned: dict[tuple[tuple[str, ...], str, str], Decimal] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def held(self) -> tuple[Card, ...]:
        return self.solution.held

    @property
    def spend(self) -> Mapping[str, Decimal]:
        return self.solution.profile.spend

    def pieces_of(self, category: str) -> list[Piece]:
        return [p for p in self.solution.pieces if p.segment.category == category]

    def wallet(self, cards: Sequence[Card]) -> tuple[Card, ...]:
        ids = {c.id for c in cards}
        return tuple(c for c in self.catalog.cards if c.id in ids)

    def ordered(self, cards: Sequence[Card], category: str) -> list[Segment]:
        """:func:`segments` of ``cards`` in ``category``, computed once per build."""
        key = (tuple(c.id for c in cards), category)
        found = self._orders.get(key)
        if found is None:
            found = self._orders[key] = segments(cards, category)
        return found

    def earnings(self, cards: Sequence[Card], category: str, amount: Decimal) -> Decimal:
        """``category_earnings(cards, category, amount)``, computed once per build."""
        key = (tuple(c.id for c in cards), category, str(amount))
        found = self._earned.get(key)
        if found is None:
            found = self._earned[key] = earnings_over(self.ordered(cards, category), amount)
        return found


# ----------------------------------------------------------------------------- nodes


def _objective(ctx: _Ctx) -> Node:
    sol = ctx.solution
    net, rewards, fees = money(sol.net), money(sol.rewards), money(sol.fees)
    held = [c.id for c in sol.held]
    scope, holding = _PLAN_PHRASE[sol.goal], f"nets {net} a year holding {join_words(held)}"
    earning = f", earning {rewards} in rewards and paying {fees} in fees"
    statement = f"{scope} {holding}{earning}."
    profile = sol.profile
    data = {
        "goal": sol.goal,
        "profile": profile.id,
        "profile_index": profile.index,
        "archetype": profile.archetype,
        "spend": {c: _dollars(profile.spend[c]) for c in CATEGORIES},
        "total_spend": _dollars(profile.total),
        "held": held,
        "rewards": _dollars(sol.rewards),
        "fees": _dollars(sol.fees),
        "net": _dollars(sol.net),
        "illustrative_catalog": ctx.catalog.illustrative,
    }
    slots = {"net": net, "cards": join_words(held), "rewards": rewards, "fees": fees}
    return _node(
        "objective",
        "OBJECTIVE",
        statement,
        held,
        [net, rewards, fees],
        data,
        [scope, holding],
        ("plan_" + sol.goal, slots),
        [earning],
    )


def _cap_phrase(seg: Segment) -> str:
    if seg.cap is None:
        return ""
    return " within its cap" if seg.kind == WITHIN else " above its cap"


def _segment(piece: Piece) -> Node:
    seg = piece.segment
    amount, rate, value = money(piece.amount), multiplier(seg.rate), money(piece.value)
    numbers = [amount, rate, value]
    where = _cap_phrase(seg)
    placed = f"gets {amount} on {seg.category}"
    worth = f", worth {value}"
    statement = f"{seg.card.id} {placed} at {rate}{where}{worth}."
    data = {
        "card": seg.card.id,
        "category": seg.category,
        "segment": seg.kind,
        "spend": _dollars(piece.amount),
        "rate": float(seg.rate),
        "effective_percent": float(seg.card.effective_percent(seg.rate)),
        "cap": None if seg.cap is None else _dollars(seg.cap),
        "value": _dollars(piece.value),
    }
    slots = {
        "card": seg.card.id,
        "amount": amount,
        "category": seg.category,
        "rate": rate,
        "value": value,
    }
    template = "segment" if seg.cap is None else f"segment_{seg.kind}"
    return _node(
        _segment_id(piece),
        "ALLOCATION_SEGMENT",
        statement,
        [seg.card.id, seg.category],
        numbers,
        data,
        [placed, where.strip()] if where else [placed],
        (template, slots),
        [worth],
    )


def _winner(ctx: _Ctx, category: str) -> tuple[Node, list[Edge]]:
    ranked: list[Card] = []
    for seg in segments(ctx.held, category):
        if seg.kind == WITHIN and seg.card not in ranked:
            ranked.append(seg.card)
    winner = ranked[0]
    win_pct = winner.effective_percent(winner.rates[category])
    win_text = percent(win_pct)
    data: dict[str, Any] = {
        "category": category,
        "winner": winner.id,
        "winner_rate": float(winner.rates[category]),
        "winner_percent": float(win_pct),
        "runner_up": None,
        "runner_up_rate": None,
        "runner_up_percent": None,
        "tied": False,
        "spend": _dollars(ctx.spend[category]),
    }
    slots = {"card": winner.id, "category": category, "rate": win_text}
    optional: list[str] = []
    if len(ranked) == 1:
        statement = f"{winner.id} wins {category} at {win_text} as the only card held."
        entities, numbers = [winner.id, category], [win_text]
        required = [f"wins {category}", "as the only card held"]
        template = "winner_only"
    else:
        runner = ranked[1]
        run_pct = runner.effective_percent(runner.rates[category])
        run_text = percent(run_pct)
        relation = "tied with" if run_pct == win_pct else "ahead of"
        runner_up = f", {relation} {runner.id} at {run_text}"
        statement = f"{winner.id} wins {category} at {win_text}{runner_up}."
        entities, numbers = [winner.id, category, runner.id], [win_text, run_text]
        required = [f"wins {category}"]
        if run_pct == win_pct:  # a tie qualifies the win: it may not be dropped
            required.append(f"{relation} {runner.id} at {run_text}")
        template = "winner_tied" if run_pct == win_pct else "winner_ahead"
        if run_pct != win_pct:  # a runner-up behind the winner is a further fact
            optional.append(runner_up)
        slots.update(runner=runner.id, runner_rate=run_text)
        data.update(
            runner_up=runner.id,
            runner_up_rate=float(runner.rates[category]),
            runner_up_percent=float(run_pct),
            tied=run_pct == win_pct,
        )
    node_id = f"winner:{category}"
    node = _node(
        node_id,
        "WINNER_BY_CATEGORY",
        statement,
        entities,
        numbers,
        data,
        required,
        (template, slots),
        optional,
    )
    pieces = ctx.pieces_of(category)
    edges = [_edge(node_id, _segment_id(pieces[0]), "first_dollar_to")] if pieces else []
    return node, edges


def _cap_hits(ctx: _Ctx, category: str) -> tuple[list[Node], list[Edge]]:
    nodes: list[Node] = []
    edges: list[Edge] = []
    pieces = ctx.pieces_of(category)
    for i, piece in enumerate(pieces):
        seg = piece.segment
        if seg.kind != WITHIN or seg.limit is None or piece.amount < seg.limit:
            continue
        overflow = pieces[i + 1 :]
        if not overflow:
            continue
        nxt = overflow[0]
        cap, target = money(seg.limit), nxt.segment.card.id
        hits = f"hits its {cap} cap on {category}"
        # the switch (which card the next dollars go to) is this node's fact; how many and
        # at what rate is the next segment's, stated there, so no fact is stated twice
        same = target == seg.card.id
        switch = "" if same else f", so the next dollars go to {target}"
        slots = {"card": seg.card.id, "cap": cap, "category": category}
        template = ("cap_hit", slots) if same else ("cap_switch", {**slots, "target": target})
        node_id = f"cap_hit:{seg.card.id}:{category}"
        data = {
            "card": seg.card.id,
            "category": category,
            "cap": _dollars(seg.limit),
            "overflow": _dollars(sum((p.amount for p in overflow), Decimal(0))),
            "overflow_segments": [_segment_id(p) for p in overflow],
            "overflow_to_same_card": same,
        }
        nodes.append(
            _node(
                node_id,
                "CAP_HIT",
                f"{seg.card.id} {hits}{switch}.",
                [seg.card.id, category, *([] if same else [target])],
                [cap],
                data,
                [hits],
                template,
            )
        )
        edges.append(_edge(node_id, _segment_id(piece), "caps"))
        edges.extend(_edge(node_id, _segment_id(p), "overflow_to") for p in overflow)
    return nodes, edges


def _best_fee_free(ctx: _Ctx, exclude: Card) -> Card | None:
    best: Card | None = None
    best_value = Decimal(0)
    for card in eligible_cards(ctx.catalog, ctx.solution.goal):
        if card.annual_fee != 0 or card.id == exclude.id:
            continue
        value = wallet_earnings([card], ctx.spend)
        if best is None or value > best_value:
            best, best_value = card, value
    return best


def _baseline(ctx: _Ctx, card: Card) -> tuple[Card, ...]:
    """The wallet a held card is measured against: the rest, or the best fee-free card."""
    rest = tuple(c for c in ctx.held if c.id != card.id)
    if rest:
        return rest
    alternative = _best_fee_free(ctx, card)
    return () if alternative is None else (alternative,)


def _fee_break_even(ctx: _Ctx, card: Card) -> tuple[Node, list[Edge]]:
    baseline = _baseline(ctx, card)
    gain = wallet_earnings(ctx.held, ctx.spend) - wallet_earnings(baseline, ctx.spend)
    net = gain - card.annual_fee
    own = [p for p in ctx.solution.pieces if p.segment.card.id == card.id]
    card_spend = sum((p.amount for p in own), Decimal(0))
    fee = money(card.annual_fee)
    break_even: Decimal | None = None
    if net >= 0 and gain > 0:
        break_even = card.annual_fee * card_spend / gain
        condition = f"pays for itself after {money(break_even)} of spend against its {fee} fee"
        result = f", so {card.id} adds {money(net)} net of the fee"
        statement = f"{card.id} {condition}{result}."
        numbers = [money(break_even), fee, money(net)]
        template = "fee_pays"
        slots = {"card": card.id, "break_even": money(break_even), "fee": fee, "net": money(net)}
    else:
        condition = f"costs {fee} a year and earns {money(gain)} beyond the rest of the plan"
        result = f", so {card.id} falls short of the fee by {money(-net)}"
        statement = f"{card.id} {condition}{result}."
        numbers = [fee, money(gain), money(-net)]
        template = "fee_short"
        slots = {"card": card.id, "fee": fee, "gain": money(gain), "short": money(-net)}
    node_id = f"fee_break_even:{card.id}"
    data = {
        "card": card.id,
        "annual_fee": _dollars(card.annual_fee),
        "card_spend": _dollars(card_spend),
        "gain_before_fee": _dollars(gain),
        "net_added": _dollars(net),
        "break_even_spend": None if break_even is None else _dollars(break_even),
        "baseline": [c.id for c in baseline],
    }
    node = _node(
        node_id,
        "FEE_BREAK_EVEN",
        statement,
        [card.id],
        numbers,
        data,
        [condition],
        (template, slots),
        [result],
    )
    return node, [_edge(node_id, _segment_id(p), "earned_on") for p in own]


@dataclass(frozen=True, slots=True)
class _Move:
    kind: str  # add | swap | drop
    subject: Card
    out: Card | None
    into: Card | None
    new_wallet: tuple[Card, ...]
    upward: bool

    @property
    def phrase(self) -> str:
        if self.out is not None and self.into is not None:
            return f"Swapping {self.out.id} for {self.into.id}"
        return f"{'Adding' if self.kind == 'add' else 'Dropping'} {self.subject.id}"


def _moves(ctx: _Ctx) -> list[_Move]:
    moves: list[_Move] = []
    held_ids = {c.id for c in ctx.held}
    for card in ctx.held:
        if card.annual_fee == 0:
            continue
        rest = tuple(c for c in ctx.held if c.id != card.id)
        if rest:
            moves.append(_Move("drop", card, card, None, rest, upward=False))
            continue
        alternative = _best_fee_free(ctx, card)
        if alternative is not None:
            moves.append(_Move("swap", card, card, alternative, (alternative,), upward=False))
    limit = card_limit(ctx.solution.goal)
    for card in eligible_cards(ctx.catalog, ctx.solution.goal):
        if card.id in held_ids:
            continue
        if limit is None or len(ctx.held) < limit:
            moves.append(_Move("add", card, None, card, ctx.wallet([*ctx.held, card]), upward=True))
            continue
        for out in ctx.held:
            wallet = ctx.wallet([*(c for c in ctx.held if c.id != out.id), card])
            moves.append(_Move("swap", card, out, card, wallet, upward=True))
    return moves


def _crossing(ctx: _Ctx, move: _Move, category: str) -> Decimal | None:
    new, old = move.new_wallet, ctx.held
    const = sum(
        (
            ctx.earnings(new, k, ctx.spend[k]) - ctx.earnings(old, k, ctx.spend[k])
            for k in CATEGORIES
            if k != category
        ),
        Decimal(0),
    ) - (_fees(new) - _fees(old))

    def gain(s: Decimal) -> Decimal:
        return ctx.earnings(new, category, s) - ctx.earnings(old, category, s) + const

    start = ctx.spend[category]
    kinks = [*kinks_over(ctx.ordered(new, category)), *kinks_over(ctx.ordered(old, category))]
    at_start = gain(start)
    found: Decimal | None
    if move.upward:
        found = None if at_start > 0 else crossing_up(gain, start, kinks)
        if found == start:  # pays with any extra spend at all: no level worth stating
            return None
    else:
        found = None if at_start >= 0 else crossing_down(gain, start, kinks)
    if found is None or found > MAX_THRESHOLD_SPEND:
        return None
    return found


def _threshold_condition(move: _Move, category: str, level: Decimal) -> str:
    verb = "reaches" if move.upward else "falls to"
    return f"once spending on {category} {verb} {money(level)}"


def _threshold_statement(move: _Move, category: str, level: Decimal) -> str:
    return f"{move.phrase} would start to pay {_threshold_condition(move, category, level)}."


def _threshold_template(move: _Move, category: str, level: Decimal) -> tuple[str, dict[str, str]]:
    slots = {"category": category, "level": money(level)}
    if move.out is not None and move.into is not None:
        slots.update(out=move.out.id, into=move.into.id)
        return ("threshold_swap_up" if move.upward else "threshold_swap_down"), slots
    slots["card"] = move.subject.id
    return ("threshold_add" if move.kind == "add" else "threshold_drop"), slots


def _thresholds(ctx: _Ctx) -> list[Node]:
    best: dict[str, tuple[Decimal, _Move, str, Decimal]] = {}
    order: list[str] = []
    for move in _moves(ctx):
        for category in CATEGORIES:
            level = _crossing(ctx, move, category)
            if level is None:
                continue
            distance = abs(level - ctx.spend[category])
            key = move.subject.id
            if key not in best:
                order.append(key)
            if key not in best or distance < best[key][0]:
                best[key] = (distance, move, category, level)
    nodes: list[Node] = []
    for key in sorted(order, key=lambda k: [c.id for c in ctx.catalog.cards].index(k)):
        _, move, category, level = best[key]
        start = ctx.spend[category]
        statement = _threshold_statement(move, category, level)
        cards = [c.id for c in (move.out, move.into) if c is not None] or [move.subject.id]
        data = {
            "move": move.kind,
            "card": move.subject.id,
            "out": None if move.out is None else move.out.id,
            "in": None if move.into is None else move.into.id,
            "category": category,
            "direction": "up" if move.upward else "down",
            "threshold_spend": _dollars(level),
            "current_spend": _dollars(start),
            "new_plan": [c.id for c in move.new_wallet],
        }
        nodes.append(
            _node(
                f"threshold:{key}",
                "THRESHOLD",
                statement,
                [*cards, category],
                [money(level)],
                data,
                [move.phrase, _threshold_condition(move, category, level)],
                _threshold_template(move, category, level),
            )
        )
    return nodes


def _basis_assumptions(catalog: Catalog) -> list[Node]:
    return [
        _node(
            "assumption:annual_basis",
            "ASSUMPTION",
            "Spend, rewards, fees and caps are annual amounts in US dollars.",
            [],
            [],
            {"kind": "basis", "basis": "annual", "currency": "USD"},
            ["annual amounts in US dollars"],
            ("basis", {}),
        ),
        _node(
            "assumption:illustrative_catalog",
            "ASSUMPTION",
            "Card terms come from an illustrative catalog rather than live issuer offers.",
            [],
            [],
            {"kind": "catalog", "illustrative": catalog.illustrative},
            (),
            ("catalog", {}),
            [" rather than live issuer offers"],
        ),
    ]


def _spend_assumptions(spend: Mapping[str, Decimal]) -> list[Node]:
    return [
        _node(
            f"assumption:spend:{category}",
            "ASSUMPTION",
            f"Annual spending on {category} is {money(spend[category])}.",
            [category],
            [money(spend[category])],
            {"kind": "spend", "category": category, "spend": _dollars(spend[category])},
            [f"Annual spending on {category}"],
            ("spend", {"category": category, "amount": money(spend[category])}),
        )
        for category in CATEGORIES
    ]


def _point_value_assumptions(card_ids: Sequence[str], catalog: Catalog) -> list[Node]:
    nodes: list[Node] = []
    for card_id in card_ids:
        card = catalog.card(card_id)
        pv = point_value(card.point_value_cents)
        nodes.append(
            _node(
                f"assumption:point_value:{card.id}",
                "ASSUMPTION",
                f"Each {card.id} point is worth {pv}.",
                [card.id],
                [pv],
                {
                    "kind": "point_value",
                    "card": card.id,
                    "point_value_cents": float(card.point_value_cents),
                },
                (),
                ("point_value", {"card": card.id, "value": pv}),
            )
        )
    return nodes


# ----------------------------------------------------------------------------- graph


def _rules() -> list[Any]:
    ref = resources.files("verity").joinpath("data", "rules", "card_rewards.json")
    rules: list[Any] = json.loads(ref.read_text("utf-8"))["rules"]
    return rules


def _other_forms(name: str, forms: Sequence[str]) -> list[str]:
    """``forms`` without the display name itself (a name is already a mention)."""
    return [f for f in forms if alias_key(f) != alias_key(name)]


def card_forms(card: Card) -> list[str]:
    """Every form of a card, declared once for every template: its name and catalog
    aliases, each also as ``<form> card`` and ``the <form> card`` (``the Grocery Max card
    wins groceries``), which name the card and nothing else."""
    names = list(dict.fromkeys((card.name, *card.aliases)))
    return [f for name in names for f in (name, f"{name} card", f"the {name} card")]


def _add_entities(builder: GraphBuilder, card_ids: Sequence[str], catalog: Catalog) -> None:
    """The cards the graph names (catalog order), then the six categories, each with its
    display name and its other forms (:func:`card_forms`, :data:`CATEGORY_ALIASES`)."""
    for card in catalog.cards:
        if card.id in card_ids:
            builder.entity(
                card.id, "card", name=card.name, aliases=_other_forms(card.name, card_forms(card))
            )
    for category in CATEGORIES:
        name = CATEGORY_NAMES[category]
        builder.entity(
            category,
            "category",
            name=name,
            aliases=_other_forms(name, CATEGORY_ALIASES[category]),
        )


def _part(node: Node) -> str:
    """The part of the result a node belongs to, as :data:`SALIENCE` names it."""
    return f"{node.type}:{node.data['kind']}" if node.type == "ASSUMPTION" else node.type


def _rank_key(node: Node) -> Decimal:
    """Within a part, the lower the key the earlier the node (ties keep file order)."""
    data = node.data
    if node.type == "FEE_BREAK_EVEN":
        return -Decimal(str(data["annual_fee"]))
    if node.type == "ALLOCATION_SEGMENT":
        return -Decimal(str(data["value"]))
    if node.type == "CAP_HIT":
        return -Decimal(str(data["overflow"]))
    if node.type == "THRESHOLD":
        return abs(Decimal(str(data["threshold_spend"])) - Decimal(str(data["current_spend"])))
    if node.type in ("WINNER_BY_CATEGORY", "ASSUMPTION") and "spend" in data:
        return -Decimal(str(data["spend"]))
    return Decimal(0)


def _salience(nodes: Sequence[Node]) -> dict[str, float]:
    """Node id -> salience: its part's weight times :data:`SALIENCE_DECAY` per rank."""
    parts: dict[str, list[Node]] = {}
    for node in nodes:
        parts.setdefault(_part(node), []).append(node)
    out: dict[str, float] = {}
    for part, members in parts.items():
        weight = Decimal(str(SALIENCE[part]))
        ranked = sorted(members, key=_rank_key)
        if part == "ALLOCATION_SEGMENT":  # each category's card first, then the rest
            firsts = {str(n.data["category"]): n.id for n in reversed(ranked)}.values()
            ranked = sorted(ranked, key=lambda n: n.id not in firsts)  # stable
        for rank, node in enumerate(ranked):
            out[node.id] = float(round(weight * SALIENCE_DECAY**rank, 4))
    return out


def _gathered(found: Iterable[tuple[list[Node], list[Edge]]]) -> tuple[list[Node], list[Edge]]:
    """The nodes and the edges of every ``(nodes, edges)`` pair, each in order."""
    nodes: list[Node] = []
    edges: list[Edge] = []
    for more_nodes, more_edges in found:
        nodes.extend(more_nodes)
        edges.extend(more_edges)
    return nodes, edges


def _winner_nodes(ctx: _Ctx) -> tuple[list[Node], list[Edge]]:
    """The winner node of each category, in category order, and their edges."""
    return _gathered(([node], edges) for node, edges in (_winner(ctx, c) for c in CATEGORIES))


def _cap_hit_nodes(ctx: _Ctx) -> tuple[list[Node], list[Edge]]:
    """Every category's cap-hit nodes, in category order, and their edges."""
    return _gathered(_cap_hits(ctx, c) for c in CATEGORIES)


def _fee_nodes(ctx: _Ctx) -> tuple[list[Node], list[Edge]]:
    """The fee break-even node of each held card with an annual fee, and their edges."""
    found = (_fee_break_even(ctx, card) for card in ctx.held if card.annual_fee > 0)
    return _gathered(([node], edges) for node, edges in found)


def _objective_edges(seg_nodes: Sequence[Node], fee_nodes: Sequence[Node]) -> list[Edge]:
    """The objective sums the segments and deducts the fees."""
    return [
        *(_edge("objective", n.id, "sums") for n in seg_nodes),
        *(_edge("objective", n.id, "deducts_fee") for n in fee_nodes),
    ]


def _assumption_edges(
    spends: Sequence[Node], point_values: Sequence[Node], seg_nodes: Sequence[Node]
) -> list[Edge]:
    """A category's spend splits into its segments; a card's point value values its segments."""
    edges: list[Edge] = []
    for node in spends:
        category = node.data["category"]
        edges.extend(
            _edge(node.id, s.id, "split_into") for s in seg_nodes if s.data["category"] == category
        )
    for node in point_values:
        card_id = node.data["card"]
        edges.extend(_edge(node.id, s.id, "values") for s in seg_nodes if s.data["card"] == card_id)
    return edges


def _threshold_edges(thresholds: Sequence[Node], fee_nodes: Sequence[Node]) -> list[Edge]:
    """A threshold is measured from its spend, compares in its category's winner, and
    revisits its card's fee break-even when there is one."""
    fee_ids = {n.id for n in fee_nodes}
    edges: list[Edge] = []
    for node in thresholds:
        category = node.data["category"]
        edges.append(_edge(node.id, f"assumption:spend:{category}", "measured_from"))
        edges.append(_edge(node.id, f"winner:{category}", "compares_in"))
        fee_id = f"fee_break_even:{node.data['card']}"
        if fee_id in fee_ids:
            edges.append(_edge(node.id, fee_id, "revisits"))
    return edges


def build_graph(catalog: Catalog, solution: Solution) -> dict[str, Any]:
    """The evidence graph of ``solution`` as a plain dict in file format."""
    ctx = _Ctx(catalog, solution)
    winners, winner_edges = _winner_nodes(ctx)
    seg_nodes = [_segment(p) for p in solution.pieces]
    cap_hits, cap_edges = _cap_hit_nodes(ctx)
    fee_nodes, fee_edges = _fee_nodes(ctx)
    thresholds = _thresholds(ctx)
    objective = _objective(ctx)
    body = [objective, *winners, *seg_nodes, *cap_hits, *fee_nodes, *thresholds]
    named = {e for n in body for e in n.entities}
    card_ids = [c.id for c in catalog.cards if c.id in named]
    spends = _spend_assumptions(solution.profile.spend)
    point_values = _point_value_assumptions(card_ids, catalog)
    edges = [
        *winner_edges,
        *cap_edges,
        *fee_edges,
        *_objective_edges(seg_nodes, fee_nodes),
        *_assumption_edges(spends, point_values, seg_nodes),
        *_threshold_edges(thresholds, fee_nodes),
    ]
    nodes = [
        objective,
        *_basis_assumptions(catalog),
        *spends,
        *point_values,
        *winners,
        *seg_nodes,
        *cap_hits,
        *fee_nodes,
        *thresholds,
    ]
    builder = GraphBuilder(f"{DOMAIN}-{solution.profile.id}-{solution.goal}", DOMAIN)
    _add_entities(builder, card_ids, catalog)
    salience = _salience(nodes)
    for node in nodes:
        builder.node(
            node.id,
            node.type,
            statement=node.statement,
            template=node.template,
            slots=node.slots,
            entities=node.entities,
            numbers=node.numbers,
            data=node.data,
            required=node.required,
            optional=node.optional,
            headline=node.type == "OBJECTIVE",
            salience=salience[node.id],
        )
    for source, target, relation in edges:
        builder.edge(source, target, relation)
    for rule in _rules():
        builder.rule(rule["claim_type"], rule["requires"], narrates=rule.get("narrates", ()))
    add_templates(builder, [n.template for n in nodes])
    graph = builder.to_dict()
    load_graph(graph)  # checked exactly as a graph file is
    return graph


def graph_json(graph: Mapping[str, Any]) -> str:
    """The canonical text of a graph (:func:`verity.jsonio.dumps`)."""
    return dumps(graph)
