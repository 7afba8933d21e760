"""The JSON Schemas that shape a narrator's output, for constrained decoding.

Every variant's output is ``{"claims": [...]}``, each claim holding, in this order, the
fields of :data:`CLAIM_OUTPUT_FIELDS`. :func:`plain_schema` gives the claim shape with
no value constraints; :func:`constrained_schema` builds a schema from the graph, with
node ids, entity ids and number strings as enums and one branch per claim type the
listed nodes can support (the extractive variant's menu schema is
:func:`verity.llm.menu.menu_schema`). The prompt text is in :mod:`verity.llm.prompts`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from verity.core.graph import EvidenceGraph
from verity.core.models import NodeModel, Rule
from verity.errors import InputError
from verity.llm.menu import effective_requirements

__all__ = [
    "CITE_EXTRA",
    "CLAIM_OUTPUT_FIELDS",
    "MAX_PROMPT_CLAIMS",
    "constrained_schema",
    "plain_schema",
    "usable_rules",
    "with_max_claims",
]

#: Field order of a claim in the model's output; the order matters for small models.
CLAIM_OUTPUT_FIELDS: tuple[str, ...] = ("type", "cited_evidence_ids", "text", "entities", "numbers")
MAX_PROMPT_CLAIMS = 5
#: Extra ids a constrained claim may cite after one id per requirement of its rule.
CITE_EXTRA = 1
_LIST_CAP = 8
_ID_CAP = 64
_TEXT_MIN_CAP = 160
_TEXT_MAX_CAP = 400


def usable_rules(
    graph: EvidenceGraph, nodes: Sequence[NodeModel]
) -> list[tuple[Rule, list[list[str]]]]:
    """Each rule the ``nodes`` can support, with its requirements over their types."""
    types = frozenset(n.type for n in nodes)
    usable: list[tuple[Rule, list[list[str]]]] = []
    for rule in graph.model.rules:
        reqs = effective_requirements(rule, types)
        if reqs is not None:
            usable.append((rule, reqs))
    if not usable:
        raise InputError(f"graph {graph.graph_id!r} has no claim type that its nodes can support")
    return usable


def _text_cap(nodes: Sequence[NodeModel]) -> int:
    longest = max((len(n.statement) for n in nodes), default=0)
    return max(_TEXT_MIN_CAP, min(_TEXT_MAX_CAP, longest + 40))


def _string_array(values: Sequence[str], cap: int) -> dict[str, Any]:
    if not values:
        return {"const": []}
    return {"type": "array", "items": {"enum": list(values)}, "maxItems": min(cap, len(values))}


def _cite_schema(reqs: list[list[str]], nodes: Sequence[NodeModel]) -> dict[str, Any]:
    all_ids = [n.id for n in nodes]
    if not reqs:
        return {
            "type": "array",
            "items": {"enum": all_ids},
            "minItems": 1,
            "maxItems": min(1 + CITE_EXTRA, len(all_ids)),
        }
    prefix = [{"enum": [n.id for n in nodes if n.type in req]} for req in reqs]
    tuples = [
        {
            "type": "array",
            "prefixItems": prefix + [{"enum": all_ids}] * extra,
            "minItems": len(prefix) + extra,
            "maxItems": len(prefix) + extra,
        }
        for extra in range(CITE_EXTRA + 1)
    ]
    return tuples[0] if len(tuples) == 1 else {"anyOf": tuples}


def _claim_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(CLAIM_OUTPUT_FIELDS),
        "additionalProperties": False,
    }


def _output_object(claim_schema: dict[str, Any], max_claims: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "items": claim_schema,
                "minItems": 1,
                "maxItems": max_claims,
            }
        },
        "required": ["claims"],
        "additionalProperties": False,
    }


def plain_schema(max_claims: int = MAX_PROMPT_CLAIMS) -> dict[str, Any]:
    """The graph-independent output schema: the claim shape, no value constraints."""
    strings = {
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": _ID_CAP},
        "maxItems": _LIST_CAP,
    }
    claim = _claim_object(
        {
            "type": {"type": "string", "minLength": 1, "maxLength": _ID_CAP},
            "cited_evidence_ids": strings,
            "text": {"type": "string", "minLength": 1, "maxLength": _TEXT_MAX_CAP},
            "entities": strings,
            "numbers": strings,
        }
    )
    return _output_object(claim, max_claims)


def constrained_schema(
    graph: EvidenceGraph,
    *,
    node_ids: Sequence[str] | None = None,
    max_claims: int = MAX_PROMPT_CLAIMS,
) -> dict[str, Any]:
    """The output schema of the constrained variant, built from the graph.

    Node ids, entity ids and number strings are enums. Each claim type whose rule the
    listed nodes can satisfy is one ``anyOf`` branch (``type`` is a ``const``); its
    ``cited_evidence_ids`` starts with one id per requirement, restricted to nodes of the
    required types, in rule order (``prefixItems``), followed by at most
    :data:`CITE_EXTRA` other listed ids. "At least one of each" is written this way,
    not with ``contains``, because grammar converters (llama.cpp's) and structured-output
    APIs ignore ``contains``; tuples of fixed length are the portable subset. So the
    schema is narrower than gate 4: a valid claim citing its required nodes later in the
    list is rejected. It cannot say that a number must be stated by a cited node, that
    the text names its entities, or that claims must differ.
    """
    listed = set(node_ids) if node_ids is not None else None
    nodes = [n for n in graph.model.nodes if listed is None or n.id in listed]
    if not nodes:
        raise InputError(f"graph {graph.graph_id!r} lists no node to narrate")
    usable = usable_rules(graph, nodes)
    entities = [e.id for e in graph.model.entities]
    numbers = list(dict.fromkeys(x for n in nodes for x in n.numbers))
    text = {"type": "string", "minLength": 1, "maxLength": _text_cap(nodes)}
    branches = [
        _claim_object(
            {
                "type": {"const": rule.claim_type},
                "cited_evidence_ids": _cite_schema(reqs, nodes),
                "text": text,
                "entities": _string_array(entities, _LIST_CAP),
                "numbers": _string_array(numbers, _LIST_CAP),
            }
        )
        for rule, reqs in usable
    ]
    claim = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return _output_object(claim, max_claims)


def with_max_claims(schema: Mapping[str, Any], n: int) -> dict[str, Any]:
    """A deep copy of an output ``schema`` allowing at most ``n`` claims."""
    out = json.loads(json.dumps(schema))
    out["properties"]["claims"]["maxItems"] = n
    return dict(out)
