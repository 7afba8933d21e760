"""Seeded narration workloads for the performance benchmarks.

Valid claims come from :func:`verity.llm.narrators.scripted.valid_claims` (one claim per
node, its statement verbatim, declarations complete). Each generated claim is one of
:data:`KINDS`, drawn with the weights of :data:`MIX`:

* ``valid``: a valid claim unchanged (passes every gate);
* ``subspan``: the claim's text cut to a word span of its statement, with the entities
  and numbers that span mentions (passes ``paper``; ``strict`` only when the span is a
  sentence the node declares, such as one with an optional span cut out whole);
* ``unknown_id``: a cited id that is no node (gate 1);
* ``unlisted_entity``: an entity id the graph lacks is declared (gate 2);
* ``reformatted_number``: a declared number written in another format (gate 3);
* ``swapped_number``: a number of another node in text and declaration (strict only);
* ``wrong_type``: a claim type with no rule, or whose rule the citations miss (gate 4);
* ``negation``: a polarity marker dropped from, or ``not`` put into, the text (strict);
* ``duplicate``: a repeat of the narration's previous claim (``duplicate.repeated``).

Everything is drawn from one ``random.Random(seed)``: the same arguments give the
same lines, byte for byte.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verity.core.graph import EvidenceGraph, load_graph
from verity.llm.narrators.scripted import valid_claims
from verity.text.normalize import normalize

ROOT = Path(__file__).resolve().parents[2]
CARD_GRAPHS = ROOT / "evidence_graphs" / "card_rewards"
FALLBACK_GRAPHS = (ROOT / "tests" / "fixtures" / "graphs", ROOT / "tests" / "fixtures" / "sql")

KINDS = (
    "valid",
    "subspan",
    "unknown_id",
    "unlisted_entity",
    "reformatted_number",
    "swapped_number",
    "wrong_type",
    "negation",
    "duplicate",
)
#: Relative weights: about half the claims are correct, half carry one error.
MIX: Mapping[str, int] = {
    "valid": 6,
    "subspan": 4,
    "unknown_id": 1,
    "unlisted_entity": 1,
    "reformatted_number": 2,
    "swapped_number": 2,
    "wrong_type": 2,
    "negation": 1,
    "duplicate": 1,
}
_MARKER = re.compile(r"\b(not|no|never|without|cannot|except|unless)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class GraphPool:
    """A graph and its valid claims, prepared once."""

    graph: EvidenceGraph
    claims: tuple[dict[str, Any], ...]


def graph_paths(directory: Path | None = None) -> list[Path]:
    """The card-rewards graphs, or the test fixture graphs when those are missing."""
    if directory is not None:
        return sorted(directory.rglob("*.json"))
    found = sorted(CARD_GRAPHS.glob("*.json"))
    if found:
        return found
    return [p for d in FALLBACK_GRAPHS for p in sorted(d.glob("*graph*.json"))] + sorted(
        FALLBACK_GRAPHS[0].glob("*.json")
    )


def load_pools(paths: Sequence[Path]) -> list[GraphPool]:
    """Load graphs and their valid claims; graphs without any valid claim are skipped."""
    pools = []
    for path in paths:
        graph = load_graph(path)
        claims = tuple(valid_claims(graph))
        if claims:
            pools.append(GraphPool(graph, claims))
    return pools


def _copy(claim: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, list) else v for k, v in claim.items()}


def _subspan(pool: GraphPool, claim: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    words = claim["text"].split()
    if len(words) < 4:
        return claim
    size = rng.randrange(3, len(words))
    start = rng.randrange(0, len(words) - size + 1)
    text = " ".join(words[start : start + size]).rstrip(",;:")
    graph = pool.graph
    norm = normalize(text)
    claim["text"] = text
    claim["entities"] = list(dict.fromkeys(m.entity_id for m in graph.matcher.find(norm)))
    claim["numbers"] = [n for n in claim["numbers"] if n in text]
    return claim


def _reformat(number: str) -> str:
    if "," in number:
        return number.replace(",", "")
    if number.endswith(".00"):
        return number[:-3]
    if number.endswith("x"):
        return number[:-1] + ".0x"
    if number.endswith("%"):
        return number[:-1] + " percent"
    return number + ".0"


def _swap(pool: GraphPool, claim: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    cited = {x for i in claim["cited_evidence_ids"] for x in pool.graph.nodes[i].numbers}
    others = sorted(pool.graph.allowed_numbers - cited)
    present = [n for n in claim["numbers"] if n in claim["text"]]
    if not others or not present:
        claim["numbers"].append(rng.choice(sorted(pool.graph.allowed_numbers) or ["$1.00"]))
        return claim
    old, new = rng.choice(present), rng.choice(others)
    claim["text"] = claim["text"].replace(old, new, 1)
    claim["numbers"] = [new if n == old else n for n in claim["numbers"]]
    return claim


def _wrong_type(pool: GraphPool, claim: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    graph = pool.graph
    cited_types = {graph.nodes[i].type for i in claim["cited_evidence_ids"]}
    wrong = sorted(
        r.claim_type
        for r in graph.model.rules
        if r.requires and not any(set(q.any_of) & cited_types for q in r.requires)
    )
    claim["type"] = rng.choice(wrong) if wrong and rng.random() < 0.5 else "SUMMARY"
    return claim


def _negation(claim: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    text = claim["text"]
    if _MARKER.search(text):
        claim["text"] = _MARKER.sub("", text, count=1)
    else:
        words = text.split()
        at = rng.randrange(1, len(words)) if len(words) > 1 else 0
        claim["text"] = " ".join([*words[:at], "not", *words[at:]])
    return claim


def _corrupt(
    kind: str, pool: GraphPool, claim: dict[str, Any], rng: random.Random
) -> dict[str, Any]:
    if kind == "subspan":
        return _subspan(pool, claim, rng)
    if kind == "unknown_id":
        ids = claim["cited_evidence_ids"]
        ids[rng.randrange(len(ids))] += f"-{rng.randrange(2, 99)}"
    elif kind == "unlisted_entity":
        claim["entities"].append(rng.choice(["amex_gold", "platinum_card", "Golden_Fork"]))
    elif kind == "reformatted_number":
        if claim["numbers"]:
            i = rng.randrange(len(claim["numbers"]))
            claim["numbers"][i] = _reformat(claim["numbers"][i])
        else:
            claim["numbers"].append("4.0x")
    elif kind == "swapped_number":
        return _swap(pool, claim, rng)
    elif kind == "wrong_type":
        return _wrong_type(pool, claim, rng)
    elif kind == "negation":
        return _negation(claim, rng)
    return claim


def _claims(
    pool: GraphPool, count: int, rng: random.Random
) -> Iterator[tuple[str, dict[str, Any]]]:
    kinds = list(MIX)
    weights = list(MIX.values())
    previous: dict[str, Any] | None = None
    for _ in range(count):
        kind = rng.choices(kinds, weights)[0]
        if kind == "duplicate" and previous is not None:
            claim = _copy(previous)
        else:
            kind = "valid" if kind == "duplicate" else kind
            claim = _corrupt(kind, pool, _copy(rng.choice(pool.claims)), rng)
        previous = claim
        yield kind, claim


def narrations(
    pools: Sequence[GraphPool], count: int, claims_per: int, seed: int = 0
) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """``count`` narrations of ``claims_per`` claims each, with the kind of every claim."""
    rng = random.Random(seed)
    for _ in range(count):
        pool = pools[rng.randrange(len(pools))]
        claims = []
        kinds = []
        for i, (kind, claim) in enumerate(_claims(pool, claims_per, rng)):
            claims.append({"id": f"c{i + 1}", **claim})
            kinds.append(kind)
        narration = {
            "format": "verity.narration/1",
            "graph_id": pool.graph.graph_id,
            "claims": claims,
        }
        yield narration, kinds


def jsonl_lines(
    pools: Sequence[GraphPool], count: int, claims_per: int, seed: int = 0
) -> Iterator[str]:
    """The narrations as JSON Lines text (no trailing newline per item)."""
    for narration, _ in narrations(pools, count, claims_per, seed):
        yield json.dumps(narration, ensure_ascii=False, separators=(",", ":"))
