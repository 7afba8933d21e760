"""Labels: what turns an optimization model's names into readable statements.

A labels document (``verity.lp_labels/1``, a dict or a small JSON file) gives, all of it
optional:

- ``graph_id``, ``domain`` and the ``objective``'s display (``name``: ``"profit"``,
  ``format``/``decimals`` of its value and of the shadow prices and reduced costs, which
  are in the objective's unit per unit);
- ``entities``: the index values of the model's groups, with display names and aliases
  (``{"id": "austin", "kind": "plant", "name": "the Austin plant"}``); an index value that
  no entity declares becomes one named by its id;
- ``variables`` and ``constraints``: by name, or by group ``"make[plant,product]"``
  (pulp's names ``make_austin_chairs``: the prefix, then one index value per kind, joined
  by ``_``), each with a ``name`` (a noun phrase; a group's may use its kinds as fields:
  ``"{product} made at {plant}"``), a ``unit`` (``"hours"``), and the ``format`` and
  ``decimals`` of its values; a group's ``plural`` (``"routes"``) counts its items where a
  large graph summarises them (:mod:`._summary`);
- ``variants``: template id -> variant patterns (``"The plan produces {value}{unit} of
  {name}."``), appended to the variants that template declares when the graph is built
  (:func:`._templates.add_templates`); the ids are those of :data:`._templates.TEMPLATES`
  (an unknown one is refused, naming the closest), each pattern must parse, and the graph
  loader checks them as any variant (no widening word, no slot the canonical lacks).
"""

from __future__ import annotations

import difflib
import functools
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from verity.backends.pulp._templates import TEMPLATES
from verity.errors import InputError
from verity.formats import LP_LABELS_FORMAT
from verity.jsonio import read_json
from verity.text.patterns import PatternError, parse_pattern

__all__ = [
    "LABELS_FORMAT",
    "EntityLabel",
    "GroupKey",
    "ItemLabel",
    "Labels",
    "ObjectiveLabel",
    "load_labels",
    "parse_group",
    "unknown_template",
]

LABELS_FORMAT = LP_LABELS_FORMAT

#: One line of text, not blank.
ONE_LINE = r"^[^\n\r]*\S[^\n\r]*$"
Phrase = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=ONE_LINE)]
Kind = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
GraphId = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=128)
]
#: A variant pattern: one line, not blank.
VariantText = Annotated[str, StringConstraints(min_length=1, max_length=1000, pattern=ONE_LINE)]
Format = Literal["money", "integer", "percent", "plain", "year"]

_GROUP = re.compile(r"^(?P<prefix>[^\[\]]+)\[(?P<kinds>[a-z][a-z0-9_]*(?:,[a-z][a-z0-9_]*)*)\]$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectiveLabel(_Model):
    """The objective's display name and number display."""

    name: Phrase | None = None
    format: Format | None = None
    decimals: int | None = Field(default=None, ge=0, le=6)


class EntityLabel(_Model):
    """An index value of the model's groups: id (as the model's names spell it), kind,
    display name and aliases."""

    id: Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^\S+$")]
    kind: Kind
    name: Phrase | None = None
    aliases: list[Phrase] = Field(default_factory=list)


class ItemLabel(_Model):
    """A variable's or a constraint's display: a noun phrase, a unit, a number display,
    and for a group, the plural noun that counts its items in a summary (``routes``)."""

    name: Phrase | None = None
    plural: Phrase | None = None
    unit: Phrase | None = None
    format: Format | None = None
    decimals: int | None = Field(default=None, ge=0, le=6)


class GroupKey(_Model):
    """A parsed group key ``make[plant,product]``."""

    prefix: str
    kinds: tuple[str, ...]


@functools.lru_cache(maxsize=1024)
def parse_group(key: str) -> GroupKey | None:
    """The group of a labels key (``make[plant,product]``), or None for a plain name
    (cached: every name of a model is matched against every key)."""
    match = _GROUP.match(key)
    if match is None:
        return None
    return GroupKey(prefix=match.group("prefix"), kinds=tuple(match.group("kinds").split(",")))


def _fields(text: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]


class Labels(_Model):
    """A ``verity.lp_labels/1`` document."""

    format: Literal["verity.lp_labels/1"] = LP_LABELS_FORMAT
    graph_id: GraphId | None = None
    domain: Kind | None = None
    objective: ObjectiveLabel = Field(default_factory=ObjectiveLabel)
    entities: list[EntityLabel] = Field(default_factory=list)
    variables: dict[str, ItemLabel] = Field(default_factory=dict)
    constraints: dict[str, ItemLabel] = Field(default_factory=dict)
    variants: dict[str, list[VariantText]] = Field(
        default_factory=dict,
        description="template id -> variant patterns appended to that template's variants",
    )

    @field_validator("variants")
    @classmethod
    def _check_variants(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for template_id, patterns in value.items():
            if template_id not in TEMPLATES:
                raise ValueError(unknown_template(template_id))
            for pattern in patterns:
                try:
                    parse_pattern(pattern)
                except PatternError as exc:
                    raise ValueError(f"template {template_id!r}: {exc}") from None
        return value

    @model_validator(mode="after")
    def _check(self) -> Labels:
        ids = [e.id for e in self.entities]
        for entity_id in ids:
            if ids.count(entity_id) > 1:
                raise ValueError(f"entity {entity_id!r} is declared twice")
        for where, table in (("variables", self.variables), ("constraints", self.constraints)):
            for key, label in table.items():
                group = parse_group(key)
                if "[" in key and group is None:
                    raise ValueError(
                        f"{where} key {key!r} is not a group: write prefix[kind,kind] with "
                        "lower-case kinds"
                    )
                allowed = set(group.kinds) if group is not None else set()
                for text in (label.name, label.unit):
                    if text is None:
                        continue
                    try:
                        used = _fields(text)
                    except ValueError as exc:
                        raise ValueError(f"{where} {key!r}: {text!r} is malformed: {exc}") from None
                    extra = sorted(set(used) - allowed)
                    if extra:
                        raise ValueError(
                            f"{where} {key!r}: {{{extra[0]}}} is none of the group's kinds"
                        )
                if label.plural is not None and _fields(label.plural):
                    raise ValueError(f"{where} {key!r}: plural {label.plural!r} takes no fields")
                if label.format in ("integer", "year") and label.decimals not in (None, 0):
                    raise ValueError(f"{where} {key!r}: the {label.format} format has no decimals")
        return self


def unknown_template(template_id: str) -> str:
    """``no template 'bindng_upper'; closest: 'binding_upper'`` (difflib)."""
    close = difflib.get_close_matches(template_id, list(TEMPLATES), n=3, cutoff=0.6)
    hint = "; closest: " + ", ".join(repr(c) for c in close) if close else ""
    return f"{template_id!r} is no template of the optimization graphs{hint}"


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _fields_at(loc: tuple[int | str, ...]) -> list[str]:
    """The keys a labels document allows at the object holding ``loc``'s last key."""
    model: type[BaseModel] = Labels
    if len(loc) >= 2 and loc[0] == "objective":
        model = ObjectiveLabel
    elif len(loc) >= 3 and loc[0] == "entities":
        model = EntityLabel
    elif len(loc) >= 3 and loc[0] in ("variables", "constraints"):
        model = ItemLabel
    return list(model.model_fields)


def _unknown_key(loc: tuple[int | str, ...]) -> str:
    """``unknown key 'units'; closest: 'unit'`` (difflib), or the keys allowed there."""
    key = str(loc[-1])
    allowed = _fields_at(loc)
    close = difflib.get_close_matches(key, allowed, n=3, cutoff=0.6)
    if close:
        return f"unknown key {key!r}; closest: " + ", ".join(repr(c) for c in close)
    return f"unknown key {key!r}; allowed: " + ", ".join(allowed)


def load_labels(source: Labels | Mapping[str, Any] | str | Path | None) -> Labels:
    """Labels from a model, a dict or a JSON file (``None``: no labels).

    Raises :class:`~verity.errors.InputError` with one line when they cannot be used."""
    if source is None:
        return Labels()
    if isinstance(source, Labels):
        return source
    what = "labels"
    if isinstance(source, (str, Path)):
        what = f"labels {source}"
        source = read_json(source, "labels file")
    try:
        return Labels.model_validate(source)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = _unknown_key(tuple(first["loc"]))
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise InputError(
            f"{what} are invalid at {_location(tuple(first['loc']))}: {message}{more}"
        ) from None
