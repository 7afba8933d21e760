"""Entity mentions in prose: one compiled matcher per graph.

An entity is mentioned by its id or by any of its aliases, compared after
:func:`verity.text.normalize.normalize` (so case and character width do not matter),
as whole words (``amex`` is not found inside ``amex_gold``), longest alias first.
Whitespace inside an alias matches any run of whitespace in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from verity.text.normalize import normalize

__all__ = ["AliasMatcher", "EntityMention", "alias_key", "entity_scan"]


class EntityMention(NamedTuple):
    """An entity mention in normalized text: its span, the matched text and the entity id."""

    start: int
    end: int
    raw: str
    entity_id: str


def alias_key(form: str) -> str:
    """The key two names of one entity compare by: normalized, whitespace runs collapsed."""
    return " ".join(normalize(form).split())


_END = ""  # the key of a form's end in a trie node; units are never empty
_Node = dict[str, "_Node"]


def _units(form: str) -> list[str]:
    """A form's characters, with each whitespace run as one ``" "`` unit."""
    out: list[str] = []
    for i, part in enumerate(form.split()):
        if i:
            out.append(" ")
        out.extend(part)
    return out


def _trie(forms: Iterable[str]) -> str:
    """The forms as a prefix tree: at each point, one alternative per next character (or
    whitespace run), and the end of a form tried last.

    It matches what a longest-first alternation of the forms matches, followed by the
    same end check: at most one branch can match a given text (the units of a node
    differ, and a letter is never whitespace), so the search follows one path and,
    backtracking from its end, takes the longest form along it. The regex engine then
    tests a character per branch point instead of every form.
    """
    root: _Node = {}
    for form in forms:
        node = root
        for unit in _units(form):
            node = node.setdefault(unit, {})
        node[_END] = {}
    return _render(root)


def _render(node: _Node) -> str:
    branches = [
        (r"\s+" if unit == " " else re.escape(unit)) + _render(child)
        for unit, child in sorted(node.items())
        if unit != _END
    ]
    if _END in node:
        branches.append("")  # a form ends here: tried after every longer one
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _first_chars(forms: Iterable[str]) -> str:
    """A lookahead for the first characters of ``forms``: every alias starts with one, so a
    position where none stands fails before the alternation is tried."""
    return "(?=[" + "".join(re.escape(c) for c in sorted({form[0] for form in forms})) + "])"


#: A code that starts with a digit (``9E``, ``3M``) is no mention where it continues a
#: number: after a currency symbol, a sign, or a decimal or thousands separator (``$3M``,
#: ``-9E``, ``1.9E``): there the number reading stands.
_NOT_IN_NUMBER = r"(?!(?<=[$€£¥.,−-])\d)"


def _matcher_pattern(body: str, forms: Iterable[str]) -> str:
    """The matcher's regex around a body matching the forms: whole words only, and a
    digit-led form never inside a number (:data:`_NOT_IN_NUMBER`)."""
    return _first_chars(forms) + r"(?<!\w)" + _NOT_IN_NUMBER + body + r"(?!\w)"


class AliasMatcher:
    """Finds entity mentions in normalized text.

    ``aliases`` maps every surface form (ids included) to its entity id; the forms
    are normalized here. Two forms that normalize alike must name the same entity:
    the graph loader rejects graphs where they do not.
    """

    __slots__ = ("_aliases", "_by_form", "_regex")

    def __init__(self, aliases: Mapping[str, str]) -> None:
        self._aliases = aliases  # kept for pickling (a reference, not a copy)
        by_form: dict[str, str] = {}
        for form, entity_id in aliases.items():
            key = alias_key(form)
            if key:
                by_form[key] = entity_id
        self._by_form = by_form
        if by_form:
            pattern = _matcher_pattern(_trie(by_form), by_form)
            self._regex: re.Pattern[str] | None = re.compile(pattern)
        else:
            self._regex = None

    def __reduce__(self) -> tuple[type[AliasMatcher], tuple[dict[str, str]]]:
        """Pickled and copied as its aliases: the matcher is rebuilt from them."""
        return AliasMatcher, (dict(self._aliases),)

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
            out.append(EntityMention(m.start(), m.end(), raw, entity_of(raw)))
        return out

    def mentions(self, text: str) -> list[EntityMention]:
        """Every entity mention in ``text`` (any text: it is normalized here); the spans
        index ``normalize(text)``."""
        return self.find(normalize(text))


def entity_scan(text: str, matcher: AliasMatcher) -> tuple[list[EntityMention], str]:
    """The entity mentions of ``text`` and its normalized form with them blanked out.

    Numbers are read from the blanked text, so a digit inside an entity's name (``Gold
    2``) is never a number mention. The spans index the normalized text.
    """
    normalized = normalize(text)
    found = matcher.find(normalized)
    if not found:
        return found, normalized
    parts: list[str] = []
    last = 0
    for m in found:
        parts.append(normalized[last : m.start])
        parts.append(" " * (m.end - m.start))
        last = m.end
    parts.append(normalized[last:])
    return found, "".join(parts)
