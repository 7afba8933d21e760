"""Claim ids as verity assigns them (``c1``, ``c2``...) and the best-of choice of a pass.

Leaf helpers shared by the narrators (numbering parsed output), the repair loop
(numbering replacements after the kept claims) and the bench statistics (best-of).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["best_index", "renumber"]


def renumber(claims: Sequence[Any], start: int = 1) -> list[Any]:
    """``claims`` with ids ``c{start}``, ``c{start + 1}``... in order.

    A claim object gets its id first (any id it had is dropped); anything else (a
    malformed claim) is passed on as it is but still uses up its number.
    """
    return [
        {"id": f"c{start + j}", **{k: v for k, v in claim.items() if k != "id"}}
        if isinstance(claim, dict)
        else claim
        for j, claim in enumerate(claims)
    ]


def best_index(verified: Sequence[int]) -> int:
    """The best-of policy: the index of the most verified claims, the earliest on a tie."""
    if not verified:
        raise ValueError("best_index needs at least one pass")
    return max(range(len(verified)), key=lambda i: (verified[i], -i))
