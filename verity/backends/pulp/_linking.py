"""Linking rows: constraints with decision variables on both sides of the comparison.

A row whose terms, all moved to the left, carry coefficients of both signs relates one
set of decisions to another: ``ship_south - 3000 open_south <= 0`` says that shipping
from the South depot is at most 3,000 times the opening of the South depot (0 when the
depot is closed, 3,000 when it is open), a big-M row ``x - 100000 y <= 0`` the same with
a large factor, ``x - 500 y >= 0`` a minimum that holds only when ``y`` is on, and
``a - b <= 1000`` that ``a`` is at most ``b`` plus 1,000. Read as a plain limit, such a
row says "an upper limit of 0" that "binds", which no reader may take away: its limit
is the other side's value in the plan, and a row that is tight only because both sides
are 0 (a closed site) limits nothing a reader would call binding.

:func:`linking` tells such a row and splits it into a :class:`Link`: the *subject* (the
side stated first), the *other* side (both with positive coefficients) and the
constant, so that the row reads ``subject <sense> other + constant``. The subject is
the side with the positive coefficients, unless only the other side holds a decision
that is not a binary: the switch (an ``open`` binary) is stated as the condition, the
quantity it switches as the subject.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verity.backends.pulp._solution import ConstraintFact

__all__ = ["FLIPPED", "Link", "Terms", "linking"]

#: The sense of a row read from its other side.
FLIPPED = {"<=": ">=", ">=": "<=", "=": "="}

#: (variable name, coefficient) pairs.
Terms = tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Link:
    """A linking row read as ``subject <sense> other + constant``."""

    subject: Terms  # (variable, coefficient > 0)
    other: Terms  # (variable, coefficient > 0)
    sense: str  # "<=", ">=" or "="
    constant: float

    def side_value(self, terms: Terms, values: dict[str, float]) -> float:
        return sum(k * values.get(name, 0.0) for name, k in terms)

    def limit(self, values: dict[str, float]) -> float:
        """The value the subject is compared with in the plan: the other side plus the
        constant."""
        return self.side_value(self.other, values) + self.constant


def linking(row: ConstraintFact, binary: Callable[[str], bool]) -> Link | None:
    """The row as a :class:`Link` when decisions sit on both of its sides, else None."""
    # each side in the order of the variables' names: a model read from MPS or LP, or
    # built in Python, states one row the same way
    plus = tuple(sorted((name, k) for name, k in row.terms if k > 0))
    minus = tuple(sorted((name, -k) for name, k in row.terms if k < 0))
    if not plus or not minus:
        return None
    # plus - minus <sense> rhs  <=>  plus <sense> minus + rhs
    if all(binary(n) for n, _ in plus) and not all(binary(n) for n, _ in minus):
        # minus - plus <flipped> -rhs  <=>  minus <flipped> plus - rhs
        return Link(minus, plus, FLIPPED[row.sense], -row.rhs)
    return Link(plus, minus, row.sense, row.rhs)
