"""A deterministic, seeded simulator of a narrator, with named error mixes.

It is labelled as simulated everywhere its results appear (``narrator`` is
``scripted:MIX (simulated)``, ``model`` is ``simulated``, ``simulated`` is true).
It is for fast tests and large-scale runs of the pipeline, never for headline results.

From the prompt's graph it builds one valid claim per listed node
(:func:`valid_claims`: the node's whole statement, with display names, under the first
rule the claim menu offers it), so the claim passes every strict gate. It then takes up
to ``max_claims`` of them round-robin over claim types and injects errors, each with the
mix's rate, drawn from ``random.Random`` seeded by the seed and the prompt hash:

- ``unknown_id``: a cited id is replaced by a made-up one (gate 1);
- ``unlisted_entity``: an entity id the graph lacks is declared (gate 2);
- ``reformatted_number``: a declared number is written in another format (gate 3);
- ``swapped_number``: a number of another node replaces one in text and declaration
  (passes ``paper``; strict number scope and polarity reject it);
- ``missing_required_type``: the second citation is dropped, or the claim is relabelled
  with a claim type whose requirement its citations miss (gate 4);
- ``dropped_negation``: a negation is removed from the text (strict polarity);
- ``duplicate``: the claim is repeated (``duplicate.repeated``).

On an extractive or choice prompt (one with a claim menu) the simulator picks menu items
instead: up to ``max_claims`` distinct facts, each from what the menu allows next
(:func:`verity.llm.menu.allowed_items`: a headline first on a graph that marks one, then
the plan), round-robin over claim types, in an order drawn from the seeded generator; the menu's
schema leaves no room for the mix's errors, and the claim-by-claim decode no room for
repeats, so these claims are all valid. On a choice prompt it answers with the items'
numbers, ``{"facts": [...]}``, as a model would.

On a constrained prompt a claim that the prompt's JSON Schema rejects is replaced by its
valid original, as constrained decoding would not have produced it; errors the schema
cannot express stay. Ungrounded prompts list no ids, so each cited id is a guess that is
right with rate ``ungrounded_id_hit``. On a repair prompt each failing claim is fixed
(replaced by the valid claim closest to it) with rate ``repair_fix``; otherwise it comes
back with new errors.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

from verity.core.graph import EvidenceGraph
from verity.errors import InputError
from verity.llm.menu import MenuItem, allowed_items, menu_items
from verity.llm.narrators.base import Attempt, Usage, output_attempt
from verity.llm.prompts import Prompt
from verity.llm.schema import CLAIM_OUTPUT_FIELDS
from verity.text.normalize import normalize

__all__ = ["DEFAULT_MIX", "MIXES", "ErrorMix", "ScriptedNarrator", "valid_claims"]


@dataclass(frozen=True)
class ErrorMix:
    """Per-claim error rates of a simulated narrator (each between 0 and 1).

    Named a mix, not a profile: ``--profile`` is the gate profile and ``--spend-profile``
    the card-rewards spending profile. ``scripted:NAME`` on the command line picks one.
    """

    name: str
    unknown_id: float = 0.0
    unlisted_entity: float = 0.0
    reformatted_number: float = 0.0
    swapped_number: float = 0.0
    missing_required_type: float = 0.0
    dropped_negation: float = 0.0
    duplicate: float = 0.0
    repair_fix: float = 1.0
    ungrounded_id_hit: float = 0.25
    max_claims: int = 6


MIXES: dict[str, ErrorMix] = {
    "clean": ErrorMix("clean"),
    "sloppy": ErrorMix(
        "sloppy",
        unknown_id=0.08,
        unlisted_entity=0.1,
        reformatted_number=0.12,
        swapped_number=0.08,
        missing_required_type=0.12,
        dropped_negation=0.5,
        duplicate=0.1,
        repair_fix=0.6,
    ),
    # Mostly gate-4 failures, few of gates 1-3, repair rarely fixes them: the mix the
    # published four-gate benchmark reports for its grounded variant.
    "paper-like": ErrorMix(
        "paper-like",
        unknown_id=0.01,
        unlisted_entity=0.04,
        reformatted_number=0.08,
        swapped_number=0.02,
        missing_required_type=0.7,
        duplicate=0.02,
        repair_fix=0.15,
    ),
}
DEFAULT_MIX = "sloppy"

_FAKE_ENTITIES = ("amex_gold", "platinum_card", "freedom_flex", "generic_bank")
_NEGATION = re.compile(r"\b(not|no|never|without|cannot)\s+", re.IGNORECASE)
_WORD = re.compile(r"\w+")


def valid_claims(
    graph: EvidenceGraph, node_ids: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One claim per listed node that passes every strict gate (ids not assigned), in
    node order: the node's whole statement under the first rule the menu offers it
    (:func:`verity.llm.menu.node_item`; a node the menu leaves off yields none)."""
    first: dict[str, MenuItem] = {}
    for item in menu_items(graph, node_ids, substatements=False):
        first.setdefault(item.node_id, item)
    return [first[n.id].claim() for n in graph.model.nodes if n.id in first]


def _round_robin(claims: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in claims:
        groups.setdefault(c["type"], []).append(c)
    picked: list[dict[str, Any]] = []
    depth = 0
    while len(picked) < min(limit, len(claims)):
        for group in groups.values():
            if depth < len(group) and len(picked) < limit:
                picked.append(group[depth])
        depth += 1
    return picked


def _reformat(number: str) -> str:
    if number.startswith("$") and "," in number:
        return number.replace(",", "")
    if number.endswith(".00"):
        return number[:-3]
    if number.endswith("x"):
        return number[:-1] + ".0x"
    if number.endswith("%"):
        return number[:-1] + " percent"
    return number + ".0"


class _Injector:
    """Applies the mix's errors to one claim, drawing from one seeded generator."""

    def __init__(self, graph: EvidenceGraph, mix: ErrorMix, rng: random.Random) -> None:
        self.g = graph
        self.p = mix
        self.rng = rng

    def hit(self, rate: float) -> bool:
        return self.rng.random() < rate

    def unknown_id(self, c: dict[str, Any]) -> None:
        i = self.rng.randrange(len(c["cited_evidence_ids"]))
        c["cited_evidence_ids"][i] = f"{c['cited_evidence_ids'][i]}-{self.rng.randrange(2, 9)}"

    def unlisted_entity(self, c: dict[str, Any]) -> None:
        fakes = [e for e in _FAKE_ENTITIES if e not in self.g.allowed_entities]
        c["entities"].append(self.rng.choice(fakes))

    def reformatted_number(self, c: dict[str, Any]) -> None:
        i = self.rng.randrange(len(c["numbers"]))
        c["numbers"][i] = _reformat(c["numbers"][i])

    def swapped_number(self, c: dict[str, Any]) -> None:
        cited = {
            x for i in c["cited_evidence_ids"] for x in getattr(self.g.nodes.get(i), "numbers", [])
        }
        others = sorted(x for x in self.g.allowed_numbers if x not in cited)
        if not others or not c["numbers"]:
            return
        i = self.rng.randrange(len(c["numbers"]))
        old, new = c["numbers"][i], self.rng.choice(others)
        if old in c["text"]:
            c["text"] = c["text"].replace(old, new, 1)
            c["numbers"][i] = new

    def missing_required_type(self, c: dict[str, Any]) -> None:
        if len(c["cited_evidence_ids"]) > 1:
            c["cited_evidence_ids"].pop()
            return
        cited_types = {self.g.nodes[i].type for i in c["cited_evidence_ids"] if i in self.g.nodes}
        wrong = [
            r.claim_type
            for r in self.g.model.rules
            if r.requires and not any(set(q.any_of) & cited_types for q in r.requires)
        ]
        if wrong:
            c["type"] = self.rng.choice(wrong)

    def dropped_negation(self, c: dict[str, Any]) -> None:
        c["text"] = _NEGATION.sub("", c["text"], count=1)

    def apply(self, claim: dict[str, Any], *, force: bool = False) -> list[dict[str, Any]]:
        c = json.loads(json.dumps(claim))
        applied = False
        steps = [
            (self.p.unknown_id, bool(c["cited_evidence_ids"]), self.unknown_id),
            (self.p.unlisted_entity, True, self.unlisted_entity),
            (self.p.reformatted_number, bool(c["numbers"]), self.reformatted_number),
            (self.p.swapped_number, bool(c["numbers"]), self.swapped_number),
            (self.p.missing_required_type, True, self.missing_required_type),
            (self.p.dropped_negation, bool(_NEGATION.search(c["text"])), self.dropped_negation),
        ]
        for rate, possible, step in steps:
            if possible and self.hit(rate):
                step(c)
                applied = True
        if force and not applied:
            if c["cited_evidence_ids"]:
                self.unknown_id(c)
            else:
                self.unlisted_entity(c)
        out = [c]
        if self.hit(self.p.duplicate):
            out.append(json.loads(json.dumps(c)))
        return out


def _fits(prompt: Prompt, claim: dict[str, Any]) -> bool:
    """Whether constrained decoding could have produced the claim (the prompt's schema holds)."""
    validator = _validator(json.dumps(prompt.json_schema, sort_keys=True))
    return bool(validator.is_valid({"claims": [claim]}))


@lru_cache(maxsize=32)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def _well_formed(claim: Any) -> bool:
    return (
        isinstance(claim, dict)
        and all(k in claim for k in CLAIM_OUTPUT_FIELDS)
        and all(isinstance(claim[k], list) for k in ("cited_evidence_ids", "entities", "numbers"))
        and isinstance(claim["text"], str)
    )


def _words(claim: Any) -> set[str]:
    if not isinstance(claim, dict):
        return set()
    text = claim.get("text") if isinstance(claim.get("text"), str) else ""
    cited = claim.get("cited_evidence_ids")
    ids = {str(x) for x in cited} if isinstance(cited, list) else set()
    return set(_WORD.findall(normalize(text or ""))) | ids


def _closest(failing: Any, candidates: list[dict[str, Any]]) -> dict[str, Any]:
    target = _words(failing)

    def score(c: dict[str, Any]) -> float:
        mine = _words(c)
        return len(mine & target) / max(1, len(mine | target))

    return max(candidates, key=score)


class ScriptedNarrator:
    """The simulator. ``mix`` is a name from :data:`MIXES` or an :class:`ErrorMix`."""

    def __init__(self, mix: str | ErrorMix = DEFAULT_MIX, *, seed: int = 0) -> None:
        if isinstance(mix, str):
            if mix not in MIXES:
                raise InputError(
                    f"unknown scripted profile {mix!r}; expected one of {', '.join(MIXES)}"
                )
            mix = MIXES[mix]
        self.mix = mix
        self.seed = seed

    @property
    def name(self) -> str:
        return f"scripted:{self.mix.name} (simulated)"

    def _claims(
        self, prompt: Prompt, graph: EvidenceGraph, rng: random.Random
    ) -> list[dict[str, Any]]:
        inject = _Injector(graph, self.mix, rng)
        candidates = valid_claims(graph, prompt.listed_node_ids or None)
        if not candidates:
            return []
        limit = min(self.mix.max_claims, prompt.max_claims)
        out: list[dict[str, Any]] = []
        if prompt.review:
            for item in prompt.review[:limit]:
                failing = item.get("claim")
                if inject.hit(self.mix.repair_fix):
                    out.append(json.loads(json.dumps(_closest(failing, candidates))))
                elif isinstance(failing, dict) and _well_formed(failing):
                    base = {k: failing[k] for k in CLAIM_OUTPUT_FIELDS}
                    out.extend(inject.apply(base, force=True)[:1])
                else:
                    out.extend(inject.apply(_closest(failing, candidates), force=True)[:1])
        else:
            for claim in _round_robin(candidates, limit):
                made = inject.apply(claim)
                if prompt.variant == "constrained":
                    made = [c if _fits(prompt, c) else claim for c in made]
                out.extend(made)
        if prompt.variant == "ungrounded" and not prompt.review:
            for c in out:
                c["cited_evidence_ids"] = [
                    x if inject.hit(self.mix.ungrounded_id_hit) else f"fact-{rng.randrange(1, 20)}"
                    for x in c["cited_evidence_ids"]
                ]
        return out[: max(1, prompt.max_claims)]

    def _menu_claims(self, prompt: Prompt, rng: random.Random) -> list[MenuItem]:
        """Distinct facts from the menu, round-robin over claim types in a seeded order."""
        limit = min(self.mix.max_claims, prompt.max_claims)
        items = list(prompt.menu)
        rng.shuffle(items)
        out: list[MenuItem] = []
        while len(out) < limit:
            allowed = set(allowed_items(prompt.menu, out))
            left = [item for item in items if item in allowed]
            if not left:
                break
            used = [c.claim_type for c in out]
            left.sort(key=lambda item: used.count(item.claim_type))  # stable: keeps the draw
            out.append(left[0])
        return out

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.graph is None:
            raise InputError(
                "the scripted narrator needs a prompt built by verity.llm.prompts (with its graph)"
            )
        started = time.perf_counter()
        rng = random.Random(f"{self.seed}|{self.mix.name}|{prompt.prompt_hash}")
        if prompt.listing:
            number = {item: i for i, item in enumerate(prompt.listing, 1)}
            raw = json.dumps({"facts": [number[i] for i in self._menu_claims(prompt, rng)]})
        elif prompt.menu:
            claims = [item.claim() for item in self._menu_claims(prompt, rng)]
            raw = json.dumps({"claims": claims}, ensure_ascii=False)
        else:
            claims = self._claims(prompt, prompt.graph, rng)
            raw = json.dumps({"claims": claims}, ensure_ascii=False)
        return output_attempt(
            prompt,
            narrator=self.name,
            model="simulated",
            raw_text=raw,
            finish_reason="stop",
            usage=Usage(0, 0),
            latency_s=time.perf_counter() - started,
            simulated=True,
        )
