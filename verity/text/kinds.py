"""The kinds of a template slot: what its value is to a reader.

A scope kind (:data:`SCOPE_KINDS`) says when, where, for which group or under what
condition a fact holds. A reader applies a scope a sentence states to every fact of that
sentence and of the sentences after it, until a scope of the same kind is stated; the
checker reads claims the same way (:func:`verity.text.variation.read_scopes`). ``set``
is a list whose member order and serial comma change nothing. The other kinds name the
role of a plain slot.
"""

from __future__ import annotations

__all__ = ["SCOPE_KINDS", "SLOT_KINDS"]

#: Every slot kind a template may give, in documentation order.
SLOT_KINDS: tuple[str, ...] = (
    "subject", "object", "amount", "rate", "set", "period", "place", "group", "condition"
)  # fmt: skip

#: The slot kinds that scope a fact.
SCOPE_KINDS: frozenset[str] = frozenset({"period", "place", "group", "condition"})
