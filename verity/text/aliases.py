"""Entity mentions in prose: one compiled matcher per graph.

An entity is mentioned by its id or by any of its aliases, compared after
:func:`verity.text.normalize.normalize` (so case and character width do not matter),
as whole words (``amex`` is not found inside ``amex_gold``), longest alias first.
Whitespace inside an alias matches any run of whitespace in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import partial
from typing import NamedTuple

from verity.text.normalize import normalize

__all__ = ["AliasMatcher", "EntityMention", "alias_key"]


class EntityMention(NamedTuple):
    """An entity mention in normalized text: its span, the matched text and the entity id.

    A named tuple: one is built per mention on the hot path of the text gates."""

    start: int
    end: int
    raw: str
    entity_id: str


#: ``EntityMention(start, end, raw, entity_id)`` without the keyword handling of its
#: ``__new__`` (one is built per mention on the hot path).
_new_mention = partial(tuple.__new__, EntityMention)


def alias_key(form: str) -> str:
    """The key two names of one entity compare by: normalized, whitespace runs collapsed."""
    return " ".join(normalize(form).split())


def _alias_pattern(alias: str) -> str:
    return r"\s+".join(re.escape(part) for part in alias.split())


def _first_chars(forms: Iterable[str]) -> str:
    """A lookahead for the first characters of ``forms``: every alias starts with one, so a
    position where none stands fails before the alternation is tried."""
    return "(?=[" + "".join(re.escape(c) for c in sorted({form[0] for form in forms})) + "])"


class AliasMatcher:
    """Finds entity mentions in normalized text.

    ``aliases`` maps every surface form (ids included) to its entity id; the forms
    are normalized here. Two forms that normalize alike must name the same entity:
    the graph loader rejects graphs where they do not.
    """

    __slots__ = ("_by_form", "_regex")

    def __init__(self, aliases: Mapping[str, str]) -> None:
        by_form: dict[str, str] = {}
        for form, entity_id in aliases.items():
            key = alias_key(form)
            if key:
                by_form[key] = entity_id
        self._by_form = by_form
        if by_form:
            ordered = sorted(by_form, key=lambda f: (-len(f), f))
            body = "|".join(_alias_pattern(f) for f in ordered)
            self._regex: re.Pattern[str] | None = re.compile(
                _first_chars(ordered) + r"(?<!\w)(?:" + body + r")(?!\w)"
            )
        else:
            self._regex = None

    @property
    def forms(self) -> Mapping[str, str]:
        """Normalized surface form -> entity id."""
        return self._by_form

    @property
    def regex(self) -> re.Pattern[str] | None:
        """The compiled alternation (longest form first), or None when there are no forms."""
        return self._regex

    def entity_of(self, matched: str) -> str:
        """Entity id of a matched surface form (whitespace runs collapsed)."""
        # A match written exactly as a form (single spaces) is its own collapsed form.
        found = self._by_form.get(matched)
        return found if found is not None else self._by_form[" ".join(matched.split())]

    def find(self, normalized: str) -> list[EntityMention]:
        """Every entity mention in ``normalized`` text, left to right, non-overlapping."""
        if self._regex is None:
            return []
        entity_of = self.entity_of
        out: list[EntityMention] = []
        for m in self._regex.finditer(normalized):
            raw = m.group()
            out.append(_new_mention((m.start(), m.end(), raw, entity_of(raw))))
        return out

    def mentions(self, text: str) -> list[EntityMention]:
        """Every entity mention in ``text`` (any text: it is normalized here); the spans
        index ``normalize(text)``."""
        return self.find(normalize(text))
