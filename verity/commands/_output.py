"""Shared output helpers for the verification commands."""

from __future__ import annotations

import json
from typing import Any

from verity.display import one_line
from verity.report import Report

__all__ = ["exit_code", "print_json", "render_report"]


def exit_code(claims: int, passed: int) -> int:
    """0 every claim verified, 1 trimmed but something shipped, 3 refused."""
    if passed == 0:
        return 3
    return 0 if passed == claims else 1


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _short(text: str, limit: int = 100) -> str:
    return one_line(text, limit)


def render_report(report: Report) -> str:
    """A readable per-claim summary of a report."""
    s = report.summary
    lines = [
        f"graph {report.graph_id} | profile {report.profile} | "
        f"{s.claims} claims: {s.passed} passed, {s.removed} removed"
    ]
    for verdict in report.claims:
        mark = "PASS" if verdict.passed else "FAIL"
        kind = verdict.type or "?"
        text = verdict.text or ""
        lines.append(f"  {mark} {verdict.id} [{kind}] {_short(text)}".rstrip())
        for err in verdict.errors:
            lines.append(f"       {err.code}: {_short(err.message, 160)}")
    failing = ", ".join(f"{k} {v}" for k, v in s.failing_by_gate.items() if v)
    if failing:
        lines.append(f"failing claims by gate: {failing}")
    lines.append("answer: " + report.answer)
    return "\n".join(lines)
