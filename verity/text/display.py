"""Text shaped for one line of human-readable output."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["one_line", "one_line_showing", "reason_terms"]

_CUT = "..."


def one_line(text: object, limit: int) -> str:
    """``text`` with its whitespace runs collapsed, cut to ``limit`` characters with "..."."""
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[: limit - 3] + _CUT


def _strings(values: Iterable[Any]) -> list[str]:
    """The non-empty strings among ``values`` and inside the lists they hold, in order."""
    out: list[str] = []
    for value in values:
        if isinstance(value, str):
            if value.strip():
                out.append(value)
        elif isinstance(value, list | tuple):
            out.extend(_strings(value))
    return out


def reason_terms(errors: Iterable[Any]) -> list[str]:
    """What gate errors name, in order: the strings of their ``actual`` values (the number,
    mention, entity id or sentence at fault), for :func:`one_line_showing` to keep in view."""
    return _strings(getattr(e, "actual", None) for e in errors)


def _span(one: str, keep: Sequence[str]) -> tuple[int, int] | None:
    """Where the first of ``keep`` found in ``one`` (case-insensitively) stands."""
    folded = one.casefold()
    for word in keep:
        part = " ".join(word.split()).casefold()
        at = folded.find(part) if part else -1
        if at >= 0:
            return at, at + len(part)
    return None


def one_line_showing(text: object, limit: int, keep: Sequence[str]) -> str:
    """:func:`one_line`, but when the cut would hide the first of ``keep`` that the text
    contains, the text is cut around it instead ("..." marks each cut), so it stays in view.
    """
    one = " ".join(str(text).split())
    span = _span(one, keep) if len(one) > limit else None
    if span is None or span[0] == 0 or span[1] <= limit - len(_CUT):
        return one_line(one, limit)
    start, end = span
    if len(one) - start <= limit - len(_CUT):
        return _CUT + one[len(one) - (limit - len(_CUT)) :].lstrip()
    room = limit - 2 * len(_CUT)
    first = start if end - start >= room else start - (room - (end - start)) // 2
    return _CUT + one[first : first + room].strip() + _CUT
