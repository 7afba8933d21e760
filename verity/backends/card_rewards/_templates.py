"""The statement templates of the card-rewards graphs: what a claim may say instead.

Each template's canonical pattern renders a node's statement byte for byte; its variants
are the sentences a capable writer uses for the same fact (other verbs, ``per year`` for
``a year``, a fronted category or condition, display names through the entity aliases),
with the parts that may be dropped in ``[...]``. A variant never drops a scope, a cap, a
tie, a condition, the verb of a threshold or the annual period: those stay in every
variant, or the variant does not exist. Nor does a variant add a quantifier, superlative,
exclusivity or scope word its canonical lacks (the loader refuses it,
:mod:`verity.text.declarations`): ``X wins dining`` ranks X among the cards held, so
``X is the best card for dining`` (among all cards) is no variant of it. Patterns:
``{slot}``, ``(a|b)``, ``[optional]``, ``\\`` escapes (:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verity.core.builder import GraphBuilder

__all__ = ["COORDINABLE", "SLOT_KINDS", "TEMPLATES", "add_templates"]

# "each year" and "every year" are not here: "a year" states a rate (what one year of this
# spending earns or costs), while "every year" says the amount recurs in every year, a claim
# about years the model never sees (spending and card terms change); a variant may not add
# the quantifier its canonical lacks (verity.text.declarations).
_YEAR = "(a year|per year|annually|yearly)"
_FEES = "(fees|annual fees)"
_WIN = "(wins|takes|leads|tops)"
_AT = "(at|with)"
_FOR = "(For|In|On)"
_NEXT_TO = "(go|move|flow|switch|spill over) to {target}"


def _plan(phrases: str) -> tuple[str, list[str]]:
    rest = (
        "[, earning {rewards} in rewards and paying {fees} in " + _FEES
        + "|, earning {rewards} in rewards while paying {fees} in " + _FEES
        + "|, earning {rewards} in rewards against {fees} in " + _FEES
        + "|, with {rewards} in rewards and {fees} in " + _FEES
        + "|: {rewards} in rewards minus {fees} in " + _FEES
        + "|, from {rewards} in rewards minus {fees} in " + _FEES + "]"
    )  # fmt: skip
    net = "(nets|earns a net|yields a net|makes a net|has a net value of|is worth a net)"
    first = phrases.split("|", 1)[0].lstrip("(")
    return (
        first + " nets {net} a year holding {cards}, earning {rewards} in rewards and "
        "paying {fees} in fees.",
        [
            f"{phrases} {net} {{net}} {_YEAR} (holding|with|using|by holding) {{cards}}{rest}.",
            f"{phrases} (holds|uses|combines) {{cards}} and {net} {{net}} {_YEAR}{rest}.",
            f"(Holding|With|Using) {{cards}}, {phrases} {net} {{net}} {_YEAR}{rest}.",
            f"(Holding|Using) {{cards}} {net} {{net}} {_YEAR}{rest}.",
        ],
    )


# A value pair may stand in parentheses (``at 5% (ahead of Y at 3%)``, ``(at 5%, against
# Y's 3%)``). Not a universal equivalence: a parenthesis right after a noun can read as
# said of that noun alone (``holding A, B and C (earning $X ...)`` may read as C earning
# $X, so the plans declare no such form), and after a list member it reads as an
# apposition (``A (B and C)``). So a template declares the parenthesized forms whose
# parenthesis can only attach to the winner's rate or to the whole win: the winners'
# runner-up and tie. A parenthesis holding any other words is refused.
_RUNNER = (
    "[(, ahead of|, beating|, over|, followed by| ahead of) {runner} (at|with) {runner_rate}"
    "|, while {runner} (earns|gets|offers) {runner_rate}"
    "|, with {runner} second at {runner_rate}"
    "| \\((ahead of|followed by) {runner} (at|with) {runner_rate}\\)]"
)
_TIE = (
    "(, (tied with|level with|tying with|tying) {runner} (at|with) {runner_rate}"
    "| \\((tied with|level with) {runner} (at|with) {runner_rate}\\))"
)
#: The winner's rate and the runner's in one parenthesis, for the ``winner_ahead`` and
#: ``winner_tied`` templates.
_AHEAD_PAIR = (
    "\\(((at|with) |){rate}(, ahead of {runner} (at|with) {runner_rate}"
    "|(,|) against {runner}'s {runner_rate}"
    "| (vs\\.|versus|against) {runner_rate} for {runner})\\)"
)
_TIED_PAIR = "\\(((at|with) |){rate}, (tied with|level with) {runner} (at|with) {runner_rate}\\)"
_WHERE = {
    "": "",
    "within": " (within|under|inside) its cap",
    "above": " (above|beyond|over|past) its cap",
}
_WORTH = (
    "[(, worth|, earning|, for|, which is worth|, yielding|, giving) {value}"
    "[ in rewards]| \\(worth {value}\\)]"
)
_GETS = "(gets|takes|handles|covers|receives|is used for)"
_SPEND = "[ (spend|spending|purchases)]"
#: A category where a template states what a card does with its spending (wins it, gets
#: an amount of it, caps it): ``groceries`` and ``grocery spending`` say one thing there.
#: Stated here once and put in place of every ``{category}`` of those templates
#: (:func:`_with_spending`); the entity forms stand for the category alone, so the spend
#: assumption keeps its own spending word (``grocery spending is $X a year``: the amount
#: is the spend, never a reward) and the thresholds keep :data:`_SPEND_ON`.
_CATEGORY = "{category}" + _SPEND
_START = (
    "would (start to pay|start paying|begin to pay|begin paying|start to pay off|pay off"
    "|become worthwhile|become worth it)"
)
_SPEND_ON = (
    "(spending on {category}|{category} spending|spend on {category}|{category} spend"
    "|annual spending on {category}|annual {category} spending)"
)
_UP = "(reaches|hits|rises to|climbs to|grows to)"
_DOWN = "(falls to|drops to|falls below|declines to|goes down to)"
_MOVES = {
    "add": ("Adding {card}", "Adding {card}[ to the plan]"),
    "drop": ("Dropping {card}", "(Dropping|Removing|Cancelling|Canceling) {card}[ from the plan]"),
    "swap": (
        "Swapping {out} for {into}",
        "(Swapping {out} for {into}|Swapping out {out} for {into}|Replacing {out} with {into}"
        "|Trading {out} for {into})",
    ),
}


def _segment(where: str) -> tuple[str, list[str]]:
    suffix = {"": "", "within": " within its cap", "above": " above its cap"}[where]
    w = _WHERE[where]
    return (
        "{card} gets {amount} on {category} at {rate}" + suffix + ", worth {value}.",
        [
            f"{{card}} {_GETS} {{amount}} (on|of|in) {{category}}{_SPEND} (at|earning) {{rate}}"
            f"{w}{_WORTH}.",
            f"{_FOR} {{category}}, {{card}} {_GETS} {{amount}} (at|earning) {{rate}}{w}{_WORTH}.",
            f"{{amount}} (of|in|on) {{category}}{_SPEND} (goes to|is placed on|is put on|is "
            f"charged to|is assigned to) {{card}} (at|earning) {{rate}}{w}{_WORTH}.",
            f"{{card}} (earns|gets) {{value}} (on|from) {{amount}} (of|in) {{category}}{_SPEND} "
            f"(at|earning) {{rate}}{w}.",
        ],
    )


def _threshold(move: str, up: bool) -> tuple[str, list[str]]:
    head, heads = _MOVES[move]
    verb, verbs = ("reaches", _UP) if up else ("falls to", _DOWN)
    return (
        head + " would start to pay once spending on {category} " + verb + " {level}.",
        [
            f"{heads} {_START} (once|when|if) {_SPEND_ON} {verbs} {{level}}.",
            f"(Once|When|If) {_SPEND_ON} {verbs} {{level}}, {heads} {_START}.",
        ],
    )


def _fee_pays() -> tuple[str, list[str]]:
    adds = (
        "[(, so|, and|;) (it|{card}) (adds|contributes|brings|adds a net) {net} (net of the fee"
        "|after the fee|after its fee|net of its fee|once the fee is paid)]"
    )
    when = (
        "(after {break_even} of (spend|spending)|once (spend|spending) on it reaches "
        "{break_even}|at {break_even} of (spend|spending))"
    )
    return (
        "{card} pays for itself after {break_even} of spend against its {fee} fee, so {card} "
        "adds {net} net of the fee.",
        [
            f"{{card}} (pays for itself|breaks even) {when} against its {{fee}} (fee|annual fee)"
            f"{adds}.",
            f"(With|Against) its {{fee}} (fee|annual fee), {{card}} (pays for itself|breaks even) "
            f"{when}{adds}.",
        ],
    )


def _fee_short() -> tuple[str, list[str]]:
    short = (
        "[(, so|, and|;) (it|{card}) (falls short of (the|its) fee by {short}|falls {short} short"
        " of (the|its) fee|misses (the|its) fee by {short}|falls short by {short})]"
    )
    costs = f"(costs|charges) {{fee}} {_YEAR}"
    earns = "(earns|adds) {gain} beyond the rest of the plan"
    return (
        "{card} costs {fee} a year and earns {gain} beyond the rest of the plan, so {card} "
        "falls short of the fee by {short}.",
        [f"{{card}} {costs} and {earns}{short}.", f"{{card}} {earns} but {costs}{short}."],
    )


def _winner_only() -> tuple[str, list[str]]:
    return (
        "{card} wins {category} at {rate} as the only card held.",
        [
            f"{{card}} {_WIN} {{category}} {_AT} {{rate}} as the only card held.",
            f"{_FOR} {{category}}, {{card}} {_WIN} {_AT} {{rate}} as the only card held.",
            f"As the only card held, {{card}} {_WIN} {{category}} {_AT} {{rate}}.",
        ],
    )


def _winner(tail: str, canonical_tail: str, pair: str) -> tuple[str, list[str]]:
    # "wins", "leads", "tops" rank the card among the cards held, as the canonical does;
    # "the best card for" would rank it among all cards, and is not declared.
    return (
        "{card} wins {category} at {rate}" + canonical_tail + ".",
        [
            f"{{card}} {_WIN} {{category}} {_AT} {{rate}}{tail}.",
            f"{_FOR} {{category}}, {{card}} {_WIN} {_AT} {{rate}}{tail}.",
            f"{{card}} {_WIN} {{category}} {pair}.",
            f"{_FOR} {{category}}, {{card}} {_WIN} {pair}.",
        ],
    )


def _spend() -> tuple[str, list[str]]:
    amounts = "(is|comes to|amounts to)"
    return (
        "Annual spending on {category} is {amount}.",
        [
            f"(Annual spending|Annual spend|Yearly spending|Yearly spend) on {{category}} "
            f"{amounts} {{amount}}.",
            f"(Spending|Spend) on {{category}} {amounts} {{amount}} {_YEAR}.",
            f"{{category}} (spending|spend) {amounts} {{amount}} {_YEAR}.",
            f"{{amount}} is spent on {{category}} {_YEAR}.",
        ],
    )


def _point_value() -> tuple[str, list[str]]:
    worth = "(worth|valued at)"
    return (
        "Each {card} point is worth {value}.",
        [
            f"(Each|One|A single|A) {{card}} point is {worth} {{value}}.",
            f"{{card}} points are {worth} {{value}}[ each| apiece| a point| per point].",
        ],
    )


def _basis() -> tuple[str, list[str]]:
    usd = "(US dollars|USD|U.S. dollars)"
    return (
        "Spend, rewards, fees and caps are annual amounts in US dollars.",
        [
            f"(Spend|Spending), rewards, fees and caps are (annual|yearly) amounts in {usd}.",
        ],
    )


def _catalog() -> tuple[str, list[str]]:
    return (
        "Card terms come from an illustrative catalog rather than live issuer offers.",
        [
            "(Card terms|The card terms) (come|are taken) from an illustrative catalog"
            "[( rather than|, rather than|, not| and not) (from |)live issuer offers].",
            "(Card terms|The card terms) are illustrative( rather than|, not) live issuer offers.",
        ],
    )


#: Per template, the slots a claim may coordinate: predicates that hold of each value apart
#: (a card wins each category; each card's point has a value). Amounts, spends and moves
#: are never coordinable: ``X gets $1,500.00 on gas and online`` reads as one total.
COORDINABLE: Mapping[str, tuple[str, ...]] = {
    "point_value": ("card",),
    "winner_only": ("category",),
    "winner_ahead": ("category",),
    "winner_tied": ("category",),
}

#: Per template, the kind of its slots that scope or gather a fact. A spending category is
#: a group: ``For dining, X gets $500 at 3%`` tells a reader about dining, and so does every
#: clause after it until another category is named. A cap reached and a spending level are
#: conditions (``Once X hits its $1,500 cap, ...``). The cards of a plan are a set.
_GROUP = {"category": "group"}
SLOT_KINDS: Mapping[str, Mapping[str, str]] = {
    "plan_max_value": {"cards": "set"},
    "plan_no_fee": {"cards": "set"},
    "plan_two_cards": {"cards": "set"},
    "spend": _GROUP,
    "winner_only": _GROUP,
    "winner_ahead": _GROUP,
    "winner_tied": _GROUP,
    "segment": _GROUP,
    "segment_within": _GROUP,
    "segment_above": _GROUP,
    "cap_hit": {"category": "group", "cap": "condition"},
    "cap_switch": {"category": "group", "cap": "condition"},
    "threshold_add": {"category": "group", "level": "condition"},
    "threshold_swap_up": {"category": "group", "level": "condition"},
    "threshold_drop": {"category": "group", "level": "condition"},
    "threshold_swap_down": {"category": "group", "level": "condition"},
}


def _with_spending(template: tuple[str, list[str]]) -> tuple[str, list[str]]:
    """A template whose variants read every ``{category}`` as :data:`_CATEGORY` (the
    canonical, which renders the statement, is kept as it is)."""
    canonical, variants = template
    return canonical, [
        v.replace(_CATEGORY, "{category}").replace("{category}", _CATEGORY) for v in variants
    ]


#: The templates whose category may be followed by a spending word (:data:`_CATEGORY`).
_SPENDING_WORD = (
    "winner_only", "winner_ahead", "winner_tied", "segment", "segment_within", "segment_above",
    "cap_hit", "cap_switch",
)  # fmt: skip


#: Template id -> (canonical pattern, variants), before :func:`_with_spending`.
_TABLE: Mapping[str, tuple[str, list[str]]] = {
    "plan_max_value": _plan(
        "(The best plan|The optimal plan|The recommended plan|The best card plan|The plan"
        "|The chosen plan|The best combination of cards)"
    ),
    "plan_no_fee": _plan(
        "(The best fee-free plan|The best no-fee plan|The optimal fee-free plan"
        "|The recommended fee-free plan|The best plan without annual fees"
        "|The best plan with no annual fees|The fee-free plan)"
    ),
    "plan_two_cards": _plan(
        "(The best two-card plan|The optimal two-card plan|The recommended two-card plan"
        "|The best plan with two cards|The best two-card combination|The two-card plan)"
    ),
    "basis": _basis(),
    "catalog": _catalog(),
    "spend": _spend(),
    "point_value": _point_value(),
    "winner_only": _winner_only(),
    "winner_ahead": _winner(_RUNNER, ", ahead of {runner} at {runner_rate}", _AHEAD_PAIR),
    "winner_tied": _winner(_TIE, ", tied with {runner} at {runner_rate}", _TIED_PAIR),
    "segment": _segment(""),
    "segment_within": _segment("within"),
    "segment_above": _segment("above"),
    "cap_hit": (
        "{card} hits its {cap} cap on {category}.",
        [
            "{card} (hits|reaches|fills|maxes out) its {cap} cap (on|for|in) {category}.",
            _FOR + " {category}, {card} (hits|reaches|fills|maxes out) its {cap} cap.",
        ],
    ),
    # Where the next dollars go is the switch this node states; how many and at what rate
    # is the next segment's fact, stated there (each fact once).
    "cap_switch": (
        "{card} hits its {cap} cap on {category}, so the next dollars go to {target}.",
        [
            "{card} (hits|reaches|fills|maxes out) its {cap} cap (on|for|in) {category}"
            "[(, so|;|, and|, after which) the next dollars " + _NEXT_TO + "].",
            "(Once|After|When) {card} (hits|reaches|fills|maxes out) its {cap} cap (on|for|in) "
            "{category}, the next dollars " + _NEXT_TO + ".",
            _FOR + " {category}, {card} (hits|reaches|fills|maxes out) its {cap} cap"
            "[(, so|;|, and|, after which) the next dollars " + _NEXT_TO + "].",
        ],
    ),
    "fee_pays": _fee_pays(),
    "fee_short": _fee_short(),
    "threshold_add": _threshold("add", up=True),
    "threshold_swap_up": _threshold("swap", up=True),
    "threshold_drop": _threshold("drop", up=False),
    "threshold_swap_down": _threshold("swap", up=False),
}


#: Template id -> (canonical pattern, variants), in the order graphs list them.
TEMPLATES: Mapping[str, tuple[str, list[str]]] = {
    tid: _with_spending(template) if tid in _SPENDING_WORD else template
    for tid, template in _TABLE.items()
}


def add_templates(builder: GraphBuilder, used: Sequence[str]) -> None:
    """Add to ``builder`` every template of :data:`TEMPLATES` some node uses, in table order."""
    wanted = set(used)
    for tid, (canonical, variants) in TEMPLATES.items():
        if tid in wanted:
            builder.template(
                tid,
                canonical,
                variants,
                coordinable=COORDINABLE.get(tid, ()),
                slot_kinds=SLOT_KINDS.get(tid),
            )
