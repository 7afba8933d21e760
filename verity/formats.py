"""Every file format's id, the pinned refusal, and the light limits the layers share.

A leaf module: it imports nothing, so any layer (and ``import verity.bench``) can read
these constants without loading a model client, numpy or a solver. Each format id is
spelled here once; the modules that read or write a format import it from here.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ANSWER_RESULT_FORMAT",
    "ATTEMPT_FORMAT",
    "BENCH_RECORD_FORMAT",
    "BENCH_SUMMARY_FORMAT",
    "BENCH_TIMING_FORMAT",
    "CATALOG_FORMAT",
    "GRAPH_FORMAT",
    "LP_LABELS_FORMAT",
    "MAX_REPAIRS",
    "NARRATION_FORMAT",
    "REFUSAL",
    "REPORT_FORMAT",
    "RULES_FORMAT",
    "SPEC_FORMAT",
    "SPEND_PROFILES_FORMAT",
]

#: The one string verity emits when no claim survives.
REFUSAL: Final = "I can't answer that from the available evidence."

#: An evidence graph (``verity.core.models.GraphModel``).
GRAPH_FORMAT: Final = "verity.evidence_graph/1"
#: A rule set (``verity.core.models.RuleSet``).
RULES_FORMAT: Final = "verity.rules/1"
#: A narration (``verity.core.claims.Narration``).
NARRATION_FORMAT: Final = "verity.narration/1"
#: A verification report (``verity.core.report.Report``).
REPORT_FORMAT: Final = "verity.report/1"
#: The result of ``check_answer`` (``verity.answer.AnswerResult``).
ANSWER_RESULT_FORMAT: Final = "verity.answer_result/1"
#: A SQL spec (``verity.backends.sql.spec.SqlSpec``).
SPEC_FORMAT: Final = "verity.sql_spec/1"
#: The labels of an optimization model (``verity.backends.pulp.Labels``).
LP_LABELS_FORMAT: Final = "verity.lp_labels/1"
#: The card-rewards catalog.
CATALOG_FORMAT: Final = "verity.card_catalog/1"
#: The card-rewards spending profiles.
SPEND_PROFILES_FORMAT: Final = "verity.spend_profiles/1"
#: One recorded narrator attempt (``verity.llm.narrators.replay``).
ATTEMPT_FORMAT: Final = "verity.attempt/1"
#: One line of a bench results file (``verity.bench.records.BenchRecord``).
BENCH_RECORD_FORMAT: Final = "verity.bench_record/1"
#: A bench summary (``verity.bench.report``).
BENCH_SUMMARY_FORMAT: Final = "verity.bench_summary/1"
#: A bench timing summary (``verity.bench.report``).
BENCH_TIMING_FORMAT: Final = "verity.bench_timing/1"

#: Most repair passes one narration may take.
MAX_REPAIRS: Final = 3
