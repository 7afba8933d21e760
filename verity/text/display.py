"""Text shaped for one line of human-readable output."""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(text: object, limit: int) -> str:
    """``text`` with its whitespace runs collapsed, cut to ``limit`` characters with "..."."""
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[: limit - 3] + "..."
