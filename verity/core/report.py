"""Verification results as data: gate errors, per-claim verdicts, the report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from verity.core.claims import Claim
from verity.core.gate_error import GateError
from verity.formats import REPORT_FORMAT

__all__ = ["REPORT_FORMAT", "ClaimVerdict", "GateError", "Report", "ReportWarning", "Summary"]


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


class ReportWarning(BaseModel):
    """Something a reader of the report should know that fails no claim: ``code`` (stable,
    e.g. ``no_declared_variation``) and a one-line ``message``."""

    code: str
    message: str


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
    #: Warnings about the run (see :mod:`verity.core.paraphrase`); left out of
    #: :meth:`to_dict` when there are none, so a report without them reads as before.
    warnings: list[ReportWarning] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_empty_warnings(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Every dump (dict or JSON) leaves out an empty warnings list, so a report without
        # warnings is byte for byte what it was before the field existed.
        out = handler(self)
        if isinstance(out, dict) and not self.warnings:
            out.pop("warnings", None)
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = self.model_dump(mode="json")
        return out
