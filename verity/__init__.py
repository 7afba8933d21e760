"""verity: verify LLM narrations of optimizer and database results against evidence.

A backend's result becomes a typed evidence graph; an LLM narrates it as
declared-ID claims; deterministic gates check every claim; only claims that pass
every gate ship, and when none does verity answers with :data:`REFUSAL`.

The public names below are imported on first use, so that ``import verity`` costs
almost nothing and a command loads only what it runs.
"""

from __future__ import annotations

# The public API is the table :data:`_API` (module -> the names it defines): ``__all__``
# and the lazy attributes are read from it. The block below is its static view for type
# checkers, never run (tests/test_public_api.py checks that the two agree).
#
# No import at run time: ``python -m verity`` and the ``verity`` command import this
# package before the command line can handle SIGINT, so the less it does, the shorter
# the moment a Ctrl-C meets no handler (the interpreter's own start-up aside).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from verity.answer import AnswerResult as AnswerResult
    from verity.answer import ClaimCheck as ClaimCheck
    from verity.answer import Passage as Passage
    from verity.answer import check_answer as check_answer
    from verity.backends.pulp.whatif import what_if as what_if
    from verity.core.builder import GraphBuilder as GraphBuilder
    from verity.core.builder import format_number as format_number
    from verity.core.claims import MAX_CLAIM_TEXT as MAX_CLAIM_TEXT
    from verity.core.claims import MAX_LIST_ITEMS as MAX_LIST_ITEMS
    from verity.core.claims import Claim as Claim
    from verity.core.claims import Narration as Narration
    from verity.core.gate_error import GateError as GateError
    from verity.core.gates import ERROR_CODES as ERROR_CODES
    from verity.core.gates import PROFILES as PROFILES
    from verity.core.gates import Finding as Finding
    from verity.core.graph import EvidenceGraph as EvidenceGraph
    from verity.core.graph import load_graph as load_graph
    from verity.core.graph import load_rules as load_rules
    from verity.core.models import Requirement as Requirement
    from verity.core.models import Rule as Rule
    from verity.core.models import RuleSet as RuleSet
    from verity.core.profiles import CustomGate as CustomGate
    from verity.core.profiles import OnFail as OnFail
    from verity.core.profiles import Profile as Profile
    from verity.core.profiles import VerificationFailed as VerificationFailed
    from verity.core.profiles import custom_gate as custom_gate
    from verity.core.profiles import extend as extend
    from verity.core.report import ClaimVerdict as ClaimVerdict
    from verity.core.report import Report as Report
    from verity.core.report import Summary as Summary
    from verity.core.verify import verify as verify
    from verity.core.verify import verify_json as verify_json
    from verity.errors import GraphError as GraphError
    from verity.errors import InputError as InputError
    from verity.errors import VerityError as VerityError
    from verity.examples import copy_examples as copy_examples
    from verity.examples import examples_dir as examples_dir
    from verity.formats import REFUSAL as REFUSAL
    from verity.llm.menu import MenuItem as MenuItem
    from verity.llm.menu import menu_items as menu_items
    from verity.llm.narrators import narrator_from_spec as narrator_from_spec
    from verity.llm.repair import NarrationResult as NarrationResult
    from verity.llm.repair import StopReason as StopReason
    from verity.pipeline import narrate as narrate
    from verity.text.free import is_supported as is_supported
    from verity.text.scan import MARKERS as MARKERS

__version__ = "0.1.0"

#: The public API: each module and the public names it defines.
_API: dict[str, tuple[str, ...]] = {
    "verity.answer": ("AnswerResult", "ClaimCheck", "Passage", "check_answer"),
    "verity.backends.pulp.whatif": ("what_if",),
    "verity.core.builder": ("GraphBuilder", "format_number"),
    "verity.core.claims": ("MAX_CLAIM_TEXT", "MAX_LIST_ITEMS", "Claim", "Narration"),
    "verity.core.gate_error": ("GateError",),
    "verity.core.gates": ("ERROR_CODES", "PROFILES", "Finding"),
    "verity.core.graph": ("EvidenceGraph", "load_graph", "load_rules"),
    "verity.core.models": ("Requirement", "Rule", "RuleSet"),
    "verity.core.profiles": (
        "CustomGate",
        "OnFail",
        "Profile",
        "VerificationFailed",
        "custom_gate",
        "extend",
    ),
    "verity.core.report": ("ClaimVerdict", "Report", "Summary"),
    "verity.core.verify": ("verify", "verify_json"),
    "verity.errors": ("GraphError", "InputError", "VerityError"),
    "verity.examples": ("copy_examples", "examples_dir"),
    "verity.formats": ("REFUSAL",),
    "verity.llm.menu": ("MenuItem", "menu_items"),
    "verity.llm.narrators": ("narrator_from_spec",),
    "verity.llm.repair": ("NarrationResult", "StopReason"),
    "verity.pipeline": ("narrate",),
    "verity.text.free": ("is_supported",),
    "verity.text.scan": ("MARKERS",),
}

#: Public name -> the module that defines it.
_HOME: dict[str, str] = {name: module for module, names in _API.items() for name in names}


def _order(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then everything else; each by name."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


__all__ = sorted([*_HOME, "__version__"], key=_order)


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
