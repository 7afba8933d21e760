"""verity: verify LLM narrations of optimizer and database results against evidence.

A backend's result becomes a typed evidence graph; an LLM narrates it as
declared-ID claims; deterministic gates check every claim; only claims that pass
every gate ship, and when none does verity answers with :data:`REFUSAL`.

The public names below are imported on first use, so that ``import verity`` costs
almost nothing and a command loads only what it runs.
"""

from __future__ import annotations

# No import at run time: ``python -m verity`` and the ``verity`` command import this
# package before the command line can handle SIGINT, so the less it does, the shorter
# the moment a Ctrl-C meets no handler (the interpreter's own start-up aside).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from verity.answer import AnswerResult, ClaimCheck, Passage, check_answer
    from verity.backends.pulp.whatif import what_if
    from verity.core.builder import GraphBuilder, format_number
    from verity.core.claims import MAX_CLAIM_TEXT, MAX_LIST_ITEMS, Claim, Narration
    from verity.core.gate_error import GateError
    from verity.core.gates import ERROR_CODES, PROFILES, Finding
    from verity.core.graph import EvidenceGraph, load_graph, load_rules
    from verity.core.models import Requirement, Rule, RuleSet
    from verity.core.profiles import (
        ON_FAIL,
        CustomGate,
        Profile,
        VerificationFailed,
        custom_gate,
        extend,
    )
    from verity.core.report import ClaimVerdict, Report, Summary
    from verity.core.verify import verify, verify_json
    from verity.errors import GraphError, InputError, VerityError
    from verity.examples import copy_examples, examples_dir
    from verity.formats import REFUSAL
    from verity.llm.menu import MenuItem, menu_items
    from verity.text.align import (
        MAX_SINGLE_GAP,
        MAX_TOTAL_GAP,
        POLARITY_LANGUAGES,
        POLARITY_MARKERS,
        is_supported_v2,
    )
    from verity.text.variation import MARKERS, is_supported

__version__ = "0.1.0"

__all__ = [
    "ERROR_CODES",
    "MARKERS",
    "MAX_CLAIM_TEXT",
    "MAX_LIST_ITEMS",
    "MAX_SINGLE_GAP",
    "MAX_TOTAL_GAP",
    "ON_FAIL",
    "POLARITY_LANGUAGES",
    "POLARITY_MARKERS",
    "PROFILES",
    "REFUSAL",
    "AnswerResult",
    "Claim",
    "ClaimCheck",
    "ClaimVerdict",
    "CustomGate",
    "EvidenceGraph",
    "Finding",
    "GateError",
    "GraphBuilder",
    "GraphError",
    "InputError",
    "MenuItem",
    "Narration",
    "Passage",
    "Profile",
    "Report",
    "Requirement",
    "Rule",
    "RuleSet",
    "Summary",
    "VerificationFailed",
    "VerityError",
    "__version__",
    "check_answer",
    "copy_examples",
    "custom_gate",
    "examples_dir",
    "extend",
    "format_number",
    "is_supported",
    "is_supported_v2",
    "load_graph",
    "load_rules",
    "menu_items",
    "verify",
    "verify_json",
    "what_if",
]

#: Public name -> the module that defines it.
_HOME: dict[str, str] = {
    **dict.fromkeys(("AnswerResult", "ClaimCheck", "Passage", "check_answer"), "verity.answer"),
    "what_if": "verity.backends.pulp.whatif",
    **dict.fromkeys(
        ("MAX_CLAIM_TEXT", "MAX_LIST_ITEMS", "Claim", "Narration"), "verity.core.claims"
    ),
    **dict.fromkeys(("GraphBuilder", "format_number"), "verity.core.builder"),
    "GateError": "verity.core.gate_error",
    **dict.fromkeys(("ERROR_CODES", "PROFILES", "Finding"), "verity.core.gates"),
    **dict.fromkeys(("EvidenceGraph", "load_graph", "load_rules"), "verity.core.graph"),
    **dict.fromkeys(("Requirement", "Rule", "RuleSet"), "verity.core.models"),
    **dict.fromkeys(
        ("ON_FAIL", "CustomGate", "Profile", "VerificationFailed", "custom_gate", "extend"),
        "verity.core.profiles",
    ),
    **dict.fromkeys(("ClaimVerdict", "Report", "Summary"), "verity.core.report"),
    **dict.fromkeys(("verify", "verify_json"), "verity.core.verify"),
    **dict.fromkeys(("GraphError", "InputError", "VerityError"), "verity.errors"),
    **dict.fromkeys(("copy_examples", "examples_dir"), "verity.examples"),
    "REFUSAL": "verity.formats",
    **dict.fromkeys(("MenuItem", "menu_items"), "verity.llm.menu"),
    **dict.fromkeys(
        (
            "MAX_SINGLE_GAP",
            "MAX_TOTAL_GAP",
            "POLARITY_LANGUAGES",
            "POLARITY_MARKERS",
            "is_supported_v2",
        ),
        "verity.text.align",
    ),
    **dict.fromkeys(("MARKERS", "is_supported"), "verity.text.variation"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'verity' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
