"""The ``choice`` variant's answer: one statement of it for the schema, the prompt and the reader.

A choice answer is ``{"facts": [...]}``: a list of 1 to ``most`` distinct whole numbers,
each one of the ``offered`` numbers of the prompt's listing. :func:`choice_answer` builds
both the JSON Schema sent for constrained decoding (``json_schema`` and ``json_object``
endpoints alike) and the sentence of the prompt that states the same rule, so the two
cannot disagree. The local narrator's chooser allows a subset of the same answers (its
numbers come from :func:`verity.llm.menu.allowed_items`, at most ``max_claims`` of them).

An endpoint may ignore the schema (OpenAI's ``json_object`` mode without a schema, a
server whose grammar converter drops ``uniqueItems``), so :func:`read_choice` reads what
a model actually wrote. What it accepts as it is, each with a note, is a different
spelling of an answer the schema allows, one that leaves no doubt which facts the model
chose and how many:

- a number written as a string of digits (``"3"``); ``2.0`` is 2 (as JSON Schema's
  ``enum`` reads it, so without a note);
- keys besides ``facts`` (ignored);
- a bare number, or ``{"facts": 3}``, read as a list of one;
- a number repeated: the repeat is dropped (the same fact is chosen once either way).

Everything else is refused with an error that says exactly what was wrong, and the repair
re-offers the list (:func:`verity.llm.prompts.build_choice_repair_prompt`):

- ``output.unknown_choice``: a number not offered. It is not dropped: a number with no
  fact behind it means the model misread the numbering (counted from 0, or used a number
  an earlier pass offered), and then its other numbers are suspect too; each of them names
  a true fact, but not necessarily the one the model meant;
- ``output.too_many_choices``: more than ``most`` distinct numbers. Which of them to keep
  is the model's choice, and the limit is the caller's claim budget;
- ``output.choice_not_number``: a value that is not a whole number (text, a fraction,
  ``true``, an object);
- ``output.wrong_shape`` / ``output.empty_claims``: no list of numbers, or an empty one.

Correctness does not rest on any of this: a claim is only ever filled in from the listed
item its number names, so no answer can ship a claim the list does not offer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CHOICE_KEY",
    "ChoiceFault",
    "ChoiceReading",
    "choice_answer",
    "offered_by",
    "read_choice",
]

#: The key of the answer object.
CHOICE_KEY = "facts"


def _numbers(offered: Sequence[int]) -> str:
    """``1-10`` for a run, else the numbers one by one: ``2, 4, 5``."""
    values = list(offered)
    if len(values) > 2 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}"
    return ", ".join(map(str, values))


def _count(most: int) -> str:
    return "exactly 1 number" if most == 1 else f"1 to {most} different numbers"


def choice_answer(offered: Sequence[int], most: int) -> tuple[dict[str, Any], str]:
    """The answer schema and the prompt's wording of it, for the numbers ``offered`` and at
    most ``most`` of them (``most`` is clamped to 1..len(offered))."""
    labels = list(offered)
    most = max(1, min(most, len(labels) or 1))
    schema = {
        "type": "object",
        "properties": {
            CHOICE_KEY: {
                "type": "array",
                "items": {"enum": labels},
                "minItems": 1,
                "maxItems": most,
                "uniqueItems": True,
            }
        },
        "required": [CHOICE_KEY],
        "additionalProperties": False,
    }
    wording = (
        f'Reply with one JSON object only, {{"{CHOICE_KEY}": [...]}}: a list of {_count(most)} '
        f"from {_numbers(labels)} (JSON numbers, not strings), each fact once, most "
        "important first."
    )
    return schema, wording


def offered_by(schema: Mapping[str, Any]) -> tuple[list[int], int]:
    """The numbers offered and the most allowed, read back from a :func:`choice_answer` schema."""
    facts = schema["properties"][CHOICE_KEY]
    return list(facts["items"]["enum"]), int(facts["maxItems"])


@dataclass(frozen=True, slots=True)
class ChoiceReading:
    """An accepted answer: the chosen numbers in order, and a note per thing read leniently."""

    labels: tuple[int, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChoiceFault:
    """A refused answer: a parse error code, a message, what was expected and what came."""

    code: str
    message: str
    expected: str
    actual: str


def _number(value: Any) -> int | None:
    """A whole number as JSON or as a string of digits; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's enum takes 2.0 for 2: so does the reader
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)[:120]


def read_choice(data: Any, offered: Sequence[int], most: int) -> ChoiceReading | ChoiceFault:
    """Read a parsed JSON answer ``data`` against the numbers ``offered`` and the limit
    ``most``: the numbers chosen (with notes), or the one fault that refuses it."""
    expected = f"a list of {_count(most)} from {_numbers(offered)}"
    notes: list[str] = []
    found = data.get(CHOICE_KEY) if isinstance(data, Mapping) else data
    if isinstance(data, Mapping) and CHOICE_KEY not in data:
        keys = ", ".join(map(str, list(data)[:4])) or "none"
        return ChoiceFault(
            "output.wrong_shape",
            f'expected {{"{CHOICE_KEY}": [...]}}, got an object with the keys {keys}',
            expected,
            _shown(data),
        )
    if isinstance(data, Mapping) and len(data) > 1:
        extra = ", ".join(str(k) for k in data if k != CHOICE_KEY)[:80]
        notes.append(f"the keys besides {CHOICE_KEY} ignored: {extra}")
    if not isinstance(found, list):
        if _number(found) is None:
            return ChoiceFault(
                "output.wrong_shape",
                f"expected a list of numbers, got {_shown(found)}",
                expected,
                _shown(found),
            )
        notes.append(f"a bare number {_shown(found)} read as a list of one")
        found = [found]
    if not found:
        return ChoiceFault("output.empty_claims", f"the {CHOICE_KEY} list is empty", expected, "[]")
    labels: list[int] = []
    allowed = set(offered)
    for value in found:
        number = _number(value)
        if number is None:
            return ChoiceFault(
                "output.choice_not_number",
                f"{_shown(value)} is not a whole number from the list",
                expected,
                _shown(found),
            )
        if number not in allowed:
            return ChoiceFault(
                "output.unknown_choice",
                f"{number} is not one of the numbers offered ({_numbers(offered)})",
                expected,
                _shown(found),
            )
        if isinstance(value, str):
            notes.append(f"the string {_shown(value)} read as the number {number}")
        if number in labels:
            notes.append(f"{number} chosen again: the repeat dropped")
            continue
        labels.append(number)
    if len(labels) > most:
        return ChoiceFault(
            "output.too_many_choices",
            f"{len(labels)} different numbers chosen, at most {most} allowed",
            expected,
            _shown(found),
        )
    return ChoiceReading(tuple(labels), tuple(notes))
