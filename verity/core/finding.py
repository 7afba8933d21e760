"""Finding: what a gate found wrong (the public type custom gates yield).

Kept apart from :mod:`verity.core.gates`, which the wheel compiles with mypyc, so that it
stays a Python class with its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Finding"]


@dataclass(frozen=True, slots=True, init=False)
class Finding:
    """What a gate found wrong, before the loop stamps the gate name on it."""

    code: str
    message: str
    expected: Any = None
    actual: Any = None
    #: The gate to report under when it is not the gate that found it (type binding is
    #: found by the polarity gate, which knows the supporting node, but is a claim_type rule).
    gate: str | None = None

    def __init__(
        self,
        code: str,
        message: str,
        expected: Any = None,
        actual: Any = None,
        gate: str | None = None,
    ) -> None:
        # The dataclass's own __init__ of a frozen class goes through object.__setattr__
        # field by field; the slots' descriptors set the same fields faster.
        _set_code(self, code)
        _set_message(self, message)
        _set_expected(self, expected)
        _set_actual(self, actual)
        _set_gate(self, gate)


_set_code = vars(Finding)["code"].__set__
_set_message = vars(Finding)["message"].__set__
_set_expected = vars(Finding)["expected"].__set__
_set_actual = vars(Finding)["actual"].__set__
_set_gate = vars(Finding)["gate"].__set__
