"""What a template and a node of it declare, checked: a template's patterns parse and agree
(:func:`checked_template`), a templated node fills its template and states its canonical
rendering without letting a claim drop a required span (:func:`templated_node_problem`),
no optional span holds a scope (:func:`scope_kept_problem`) and a coordinable template's
node states no share of a whole (:func:`share_problem`). Each check returns what is wrong,
or None; the graph loader (:mod:`verity.core.graph`) raises it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from verity.text.aliases import AliasMatcher
from verity.text.declarations import (
    coordinable_message,
    coordinable_problem,
    percent_of,
    variant_problem,
)
from verity.text.declared import compile_canonical
from verity.text.kinds import SCOPE_KINDS
from verity.text.patterns import Pattern, PatternError, optional_parts, parse_pattern
from verity.text.scan import cannot_hold, sentence_key

__all__ = [
    "TemplateKey",
    "checked_template",
    "scope_kept_problem",
    "share_problem",
    "template_patterns",
    "templated_node_problem",
]


#: A template as data (id, canonical, variants, coordinable, slot kinds): the key of
#: :func:`checked_template`, so that graphs sharing a template parse and check it once.
TemplateKey = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]


def template_patterns(key: TemplateKey) -> tuple[Pattern, ...]:
    """The parsed patterns (canonical first) of a template the graph loader checked."""
    found = checked_template(key)
    assert not isinstance(found, str)
    return found


@lru_cache(maxsize=1024)
def checked_template(key: TemplateKey) -> tuple[Pattern, ...] | str:
    """The parsed patterns of a template (canonical first), or what is wrong with it."""
    template_id, canonical_text, variants, coordinable, slot_kinds = key
    try:
        patterns = tuple(parse_pattern(p) for p in (canonical_text, *variants))
    except PatternError as exc:
        return f"template {template_id!r}: {exc}"
    canonical = patterns[0]
    if not canonical.plain:
        return (
            f"template {template_id!r}: the canonical pattern may hold slots only "
            "(alternatives and optional parts belong in variants)"
        )
    unknown = sorted(set(coordinable) - canonical.slots)
    if unknown:
        return (
            f"template {template_id!r} makes the slot {unknown[0]!r} coordinable, "
            "which the canonical pattern does not use"
        )
    unknown = sorted({name for name, _ in slot_kinds} - canonical.slots)
    if unknown:
        return (
            f"template {template_id!r} gives a kind to the slot {unknown[0]!r}, "
            "which the canonical pattern does not use"
        )
    scoped = [n for n, kind in slot_kinds if kind in SCOPE_KINDS]
    for variant in patterns[1:]:
        dropped = [n for n in scoped if not variant.always_has(n)]
        if dropped:
            return (
                f"template {template_id!r}: the variant {variant.source[:80]!r} can "
                f"leave out the scope slot {dropped[0]!r} (a scope is stated in every "
                "rendering, or the variant states a wider fact)"
            )
        extra = sorted(variant.slots - canonical.slots)
        if extra:
            return (
                f"template {template_id!r}: a variant uses the slot {extra[0]!r}, "
                "which the canonical pattern does not"
            )
        problem = variant_problem(canonical, variant)
        if problem is not None:
            return f"template {template_id!r}: {problem}"
    problem = coordinable_problem(canonical, coordinable)
    if problem is not None:
        return f"template {template_id!r} {problem}"
    return patterns


@lru_cache(maxsize=16384)
def templated_node_problem(
    matcher: AliasMatcher,
    template: TemplateKey,
    statement: str,
    slot_items: tuple[tuple[str, str], ...],
    required_spans: tuple[str, ...],
) -> str | None:
    """What is wrong with a node of a checked template, as the rest of a sentence that
    names the node, or None. A pure function of its arguments, so that graphs sharing
    nodes and entities check each node once (the graph loader shares their matcher)."""
    patterns = template_patterns(template)
    template_id, canonical, slots = template[0], patterns[0], dict(slot_items)
    if set(slots) != canonical.slots:
        missing = sorted(canonical.slots - set(slots))
        extra = sorted(set(slots) - canonical.slots)
        problem = f"lacks slot {missing[0]!r}" if missing else f"has unknown slot {extra[0]!r}"
        return f" {problem} of template {template_id!r}"
    rendered = next(canonical.renderings(slots))
    if rendered != statement:
        return (
            ": its statement is not the canonical rendering of "
            f"template {template_id!r} ({rendered[:120]!r})"
        )
    if compile_canonical(canonical, slots, matcher) != sentence_key(statement, matcher):
        return (
            f": template {template_id!r} reads differently piece by piece than its statement "
            "does (keep an entity name or a number inside one slot or one piece of text)"
        )
    if not required_spans:
        return None
    required_keys = [(r, sentence_key(r, matcher)) for r in required_spans]
    for part in optional_parts(patterns[1:], slots):
        part_key: tuple[str, ...] | None = None
        for required, required_key in required_keys:
            if cannot_hold(part, required_key):  # decided without tokenizing the part
                continue
            if part_key is None:
                part_key = sentence_key(part, matcher)
            if _holds(part_key, required_key):
                return (
                    f": template {template_id!r} lets a claim drop {part[:80]!r}, "
                    f"which holds the required span {required[:80]!r}"
                )
    return None


def _holds(kp: tuple[str, ...], kr: tuple[str, ...]) -> bool:
    """True when the tokens ``kp`` of an optional part hold the whole required span ``kr``."""
    return bool(kr) and any(kp[i : i + len(kr)] == kr for i in range(len(kp) - len(kr) + 1))


def share_problem(coordinable: Sequence[str], statement: str, matcher: AliasMatcher) -> str | None:
    """A node of a template with coordinable slots states no percentage of a whole: what is
    wrong (said of the template), or None."""
    if coordinable and percent_of(sentence_key(statement, matcher)):
        return coordinable_message(coordinable[0], "a percentage of a whole")
    return None


def scope_kept_problem(
    slot_kinds: Mapping[str, str], slots: Mapping[str, str], optional_spans: Sequence[str]
) -> str | None:
    """No optional span of a node holds the value of a scope slot: a cut without it would
    state the fact wider than its scope (``Total revenue was $810`` of Q4's revenue). What
    is wrong, as the rest of a sentence that names the node, or None."""
    for slot, kind in slot_kinds.items():
        value = slots.get(slot, "")
        for span in optional_spans:
            if kind in SCOPE_KINDS and value and value in span:
                return (
                    f": the optional span {span[:80]!r} holds the "
                    f"{kind} {value!r} of slot {slot!r} (a scope is never optional)"
                )
    return None
