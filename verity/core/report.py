"""Verification results as data: gate errors, per-claim verdicts, the report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from verity.core.claims import Claim
from verity.core.gate_error import GateError
from verity.formats import REPORT_FORMAT

__all__ = ["REPORT_FORMAT", "ClaimVerdict", "GateError", "Report", "Summary"]


class ClaimVerdict(BaseModel):
    """The verdict on one claim of a narration."""

    index: int
    id: str
    type: str | None = None
    text: str | None = None
    passed: bool
    errors: list[GateError] = Field(default_factory=list)


class Summary(BaseModel):
    """Counts over a report. ``failing_by_gate`` counts distinct claims, once per gate."""

    claims: int
    passed: int
    removed: int
    all_claims_verified: bool
    failing_by_gate: dict[str, int]


class Report(BaseModel):
    """The result of :func:`verity.verify`: verdicts, what ships, the answer or the refusal."""

    format: Literal["verity.report/1"] = REPORT_FORMAT
    graph_id: str
    profile: str
    claims: list[ClaimVerdict]
    summary: Summary
    shipped: list[Claim]
    answer: str
    refused: bool

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
