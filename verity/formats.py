"""The pinned refusal: the one string verity emits when no claim survives."""

from __future__ import annotations

__all__ = ["REFUSAL"]

REFUSAL = "I can't answer that from the available evidence."
