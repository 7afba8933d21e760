"""Template patterns: literal text, ``{slot}``, alternatives ``(a|b)`` and optional parts
``[a]``, parsed (:func:`parse_pattern`) and rendered (:class:`Pattern`). Part of the v4
predicate (:mod:`verity.text.variation`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

__all__ = ["Pattern", "PatternError", "optional_parts", "parse_pattern"]

# --- templates -------------------------------------------------------------------------------


class PatternError(ValueError):
    """A template pattern that cannot be parsed or rendered."""


@dataclass(frozen=True, slots=True)
class _Slot:
    name: str


@dataclass(frozen=True, slots=True)
class _Choice:
    """Alternatives; an optional part is a choice between its body and nothing."""

    options: tuple[tuple[_Part, ...], ...]
    optional: bool


_Part = str | _Slot | _Choice


@dataclass(frozen=True, slots=True)
class Pattern:
    """A parsed template pattern: literal text, ``{slot}``, alternatives ``(a|b)`` and
    optional parts ``[a]`` (or optional alternatives ``[a|b]``).

    ``\\`` escapes the next character, so ``\\(4x\\)`` is literal text.
    """

    source: str
    parts: tuple[_Part, ...]

    @property
    def slots(self) -> frozenset[str]:
        """Every slot name the pattern uses."""
        return frozenset(_slots_of(self.parts))

    @property
    def plain(self) -> bool:
        """True when the pattern has no alternatives or optional parts."""
        return all(not isinstance(part, _Choice) for part in self.parts)

    def renderings(self, slots: Mapping[str, str]) -> Iterator[str]:
        """Every rendering with ``slots`` filled in, whitespace runs collapsed."""
        for pieces in _expand(self.parts, slots):
            yield " ".join(_filled(pieces, slots).split())

    def compact(self, slots: Mapping[str, str] | None = None) -> str:
        """The pattern in one line for a person (or a prompt) to read: alternatives as
        ``(a|b)``, optional parts as ``[a]``, each slot as its value in ``slots`` or, when
        ``slots`` has none for it, as ``{name}``; literal text unescaped."""
        return " ".join(_compact(self.parts, slots or {}).split())

    def always_has(self, slot: str) -> bool:
        """True when every rendering states ``slot`` (outside optional parts, or in every
        option of a choice)."""
        return _always_has(self.parts, slot)

    def literals(self) -> tuple[str, ...]:
        """Every piece of literal text, in every option of every choice (no slot value)."""
        return tuple(_literals_of(self.parts))

    def optional_texts(self, slots: Mapping[str, str], *, every: bool = False) -> list[str]:
        """The rendered text of every option of every optional part (of every choice, with
        ``every``), each once, for load checks and tests (:func:`optional_parts`)."""
        return optional_parts((self,), slots, every=every)


def _compact(parts: Sequence[_Part], slots: Mapping[str, str]) -> str:
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, _Slot):
            out.append(slots.get(part.name, "{" + part.name + "}"))
        else:
            body = "|".join(_compact(option, slots) for option in part.options)
            out.append(f"[{body}]" if part.optional else f"({body})")
    return "".join(out)


def _always_has(parts: Sequence[_Part], slot: str) -> bool:
    for part in parts:
        if isinstance(part, _Slot) and part.name == slot:
            return True
        if (
            isinstance(part, _Choice)
            and not part.optional
            and all(_always_has(option, slot) for option in part.options)
        ):
            return True
    return False


def _slots_of(parts: Sequence[_Part]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, _Slot):
            yield part.name
        elif isinstance(part, _Choice):
            for option in part.options:
                yield from _slots_of(option)


def _literals_of(parts: Sequence[_Part]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, _Choice):
            for option in part.options:
                yield from _literals_of(option)


def _choices(parts: Sequence[_Part]) -> Iterator[_Choice]:
    for part in parts:
        if isinstance(part, _Choice):
            yield part
            for option in part.options:
                yield from _choices(option)


def _expand(
    parts: Sequence[_Part], slots: Mapping[str, str] | None
) -> Iterator[tuple[str | _Slot, ...]]:
    """Every combination of options of ``parts``, as pieces: literal text and each slot's
    value in ``slots`` (or, with ``slots`` None, the slot itself, for :func:`_filled`)."""
    choices: list[list[tuple[str | _Slot, ...]]] = []
    for part in parts:
        if isinstance(part, str):
            choices.append([(part,)])
        elif isinstance(part, _Slot):
            choices.append([(part if slots is None else slots[part.name],)])
        else:
            options = [pieces for o in part.options for pieces in _expand(o, slots)]
            if part.optional:
                options.append(())
            choices.append(options)
    for combination in product(*choices):
        yield tuple(piece for pieces in combination for piece in pieces)


def _filled(pieces: Iterable[str | _Slot], slots: Mapping[str, str]) -> str:
    """The text of expanded pieces, each slot given its value in ``slots``."""
    return "".join([p if isinstance(p, str) else slots[p.name] for p in pieces])


def optional_parts(
    patterns: Sequence[Pattern], slots: Mapping[str, str], *, every: bool = False
) -> list[str]:
    """The rendered text of every option of every optional part (of every choice, with
    ``every``) of ``patterns``, each text once, in order. The options are expanded once
    per tuple of patterns (:func:`_option_pieces`); only slot values are filled per call."""
    texts: dict[str, None] = {}
    for option in _option_pieces(tuple(p.source for p in patterns), every):
        text = option if isinstance(option, str) else " ".join(_filled(option, slots).split())
        if text:
            texts[text] = None
    return list(texts)


@lru_cache(maxsize=1024)
def _option_pieces(
    sources: tuple[str, ...], every: bool
) -> tuple[str | tuple[str | _Slot, ...], ...]:
    """Every option of every optional part of the patterns ``sources`` (of every choice,
    with ``every``) expanded, each once, in order: as its rendered text when it holds no
    slot, else as its pieces (adjacent literal text joined) with the slots left to fill.
    Keyed by the patterns' text, which is cheaper to hash than the parsed patterns."""
    out: dict[str | tuple[str | _Slot, ...], None] = {}
    for source in sources:
        for part in _choices(parse_pattern(source).parts):
            if not (part.optional or every):
                continue
            for option in part.options:
                for pieces in _expand(option, None):
                    joined = _joined(pieces)
                    if all(isinstance(p, str) for p in joined):
                        out[" ".join("".join(map(str, joined)).split())] = None
                    else:
                        out[joined] = None
    return tuple(out)


def _joined(pieces: Sequence[str | _Slot]) -> tuple[str | _Slot, ...]:
    """``pieces`` with each run of literal text joined into one string."""
    out: list[str | _Slot] = []
    for piece in pieces:
        if isinstance(piece, str) and out and isinstance(out[-1], str):
            out[-1] += piece
        else:
            out.append(piece)
    return tuple(out)


_SLOT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_pattern(source: str) -> Pattern:
    """Parse a template pattern; :class:`PatternError` names what is wrong and where."""
    parts, end, closer = _parse_seq(source, 0, "")
    if closer:  # pragma: no cover - the top level stops only at the end
        raise PatternError(f"unexpected {closer!r} at {end} in {source!r}")
    return Pattern(source, tuple(parts))


def _parse_seq(source: str, pos: int, closers: str) -> tuple[list[_Part], int, str]:
    """Parts from ``pos`` up to one of ``closers`` (returned) or the end (``""``)."""
    parts: list[_Part] = []
    text: list[str] = []

    def flush() -> None:
        if text:
            parts.append("".join(text))
            text.clear()

    while pos < len(source):
        char = source[pos]
        if char == "\\":
            if pos + 1 >= len(source):
                raise PatternError(f"a pattern ends with a lone backslash: {source!r}")
            text.append(source[pos + 1])
            pos += 2
        elif char in closers:
            flush()
            return parts, pos + 1, char
        elif char in ")]|}":
            raise PatternError(f"unexpected {char!r} at {pos} in {source!r} (escape it: \\{char})")
        elif char == "{":
            end = source.find("}", pos)
            name = source[pos + 1 : end] if end > 0 else ""
            if not _SLOT_NAME.fullmatch(name):
                raise PatternError(f"bad slot at {pos} in {source!r}: write {{name}}")
            flush()
            parts.append(_Slot(name))
            pos = end + 1
        elif char in "[(":
            flush()
            close = "]" if char == "[" else ")"
            options: list[tuple[_Part, ...]] = []
            pos += 1
            while True:
                body, pos, closer = _parse_seq(source, pos, "|" + close)
                options.append(tuple(body))
                if closer == close:
                    break
                if closer != "|":
                    raise PatternError(f"a {char!r} opened in {source!r} is not closed")
            if char == "(" and len(options) < 2:
                raise PatternError(
                    f"a group in {source!r} has no alternatives: write (a|b), "
                    "or \\( for a parenthesis"
                )
            parts.append(_Choice(tuple(options), optional=char == "["))
        else:
            text.append(char)
            pos += 1
    flush()
    return parts, pos, ""
