"""verity: verify LLM narrations of optimizer and database results against evidence.

A backend's result becomes a typed evidence graph; an LLM narrates it as
declared-ID claims; deterministic gates check every claim; only claims that pass
every gate ship, and when none does verity answers with :data:`REFUSAL`.
"""

from verity import _build, _moved
from verity.answer import AnswerResult, ClaimCheck, Passage, check_answer
from verity.core.builder import GraphBuilder, format_number
from verity.core.claims import MAX_CLAIM_TEXT, MAX_LIST_ITEMS, Claim, Narration
from verity.core.gate_error import GateError
from verity.core.gates import ERROR_CODES, PROFILES, Finding
from verity.core.graph import EvidenceGraph, load_graph, load_rules
from verity.core.menu import MenuItem, menu_items
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
from verity.formats import REFUSAL
from verity.text.align import MAX_SINGLE_GAP, MAX_TOTAL_GAP, POLARITY_LANGUAGES, POLARITY_MARKERS
from verity.text.predicates import is_supported, is_supported_v2
from verity.text.variation import MARKERS

_moved.install()  # the flat layout's module names, for one release
_build.register_reducers()  # pickling for the classes of mypyc-compiled modules, if any

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
    "custom_gate",
    "extend",
    "format_number",
    "is_supported",
    "is_supported_v2",
    "load_graph",
    "load_rules",
    "menu_items",
    "verify",
    "verify_json",
]
