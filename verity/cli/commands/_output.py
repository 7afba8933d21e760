"""Shared output helpers of the commands: exit statuses, JSON and report rendering."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verity.files import check_file_target, write_file
from verity.interrupts import Stopped, stopped_by_signals
from verity.jsonio import dumps
from verity.text.display import one_line, one_line_showing, reason_terms

if TYPE_CHECKING:  # the report model loads pydantic: only the commands that verify need it
    from verity.core.report import Report

__all__ = [
    "EXIT_ALL_VERIFIED",
    "EXIT_INPUT",
    "EXIT_REFUSED",
    "EXIT_TRIMMED",
    "EXIT_UNREACHABLE",
    "UNREACHABLE_CODES",
    "check_output",
    "exit_code",
    "print_json",
    "render_report",
    "until_stopped",
    "write_or_print",
]

#: Every claim verified.
EXIT_ALL_VERIFIED = 0
#: Some claims removed, at least one shipped.
EXIT_TRIMMED = 1
#: Unusable input (one line on stderr, no traceback).
EXIT_INPUT = 2
#: Nothing shipped: the refusal.
EXIT_REFUSED = 3
#: The narrator could not be reached (connection failed or no answer in time), so there
#: was nothing to verify.
EXIT_UNREACHABLE = 4
#: Attempt error codes that mean the narrator could not be reached.
UNREACHABLE_CODES = frozenset({"api.connection", "api.timeout"})


def until_stopped(command: str, unchanged: str, body: Callable[[], int]) -> int:
    """Run ``body`` (a command that writes files) so that SIGINT or SIGTERM stops it with
    one line on stderr saying what was kept (``unchanged``) and the exit status
    128 + the signal's number."""
    try:
        with stopped_by_signals():
            return body()
    except Stopped as stop:
        kept = f"{stop.landed} was already written in full" if stop.landed else unchanged
        print(f"verity {command}: interrupted ({stop.name}); {kept}", file=sys.stderr)
        return stop.exit_status


def exit_code(claims: int, passed: int) -> int:
    """0 every claim verified, 1 trimmed but something shipped, 3 refused."""
    if passed == 0:
        return EXIT_REFUSED
    return EXIT_ALL_VERIFIED if passed == claims else EXIT_TRIMMED


def print_warnings(warnings: Sequence[Any]) -> None:
    """Each warning (``code``, ``message``) as one line on stderr."""
    for warning in warnings:
        print(f"verity: warning: {warning.message} [{warning.code}]", file=sys.stderr)


def print_json(data: Any) -> None:
    sys.stdout.write(dumps(data))


def check_output(out: str | None, option: str = "--out") -> None:
    """Refuse, before the run, an ``out`` that :func:`write_or_print` could not write at
    its end (:func:`verity.files.check_file_target`); None (standard output) is fine."""
    if out is not None:
        check_file_target(Path(out), option)


def write_or_print(text: str, out: str | None) -> None:
    """Write ``text`` to the file ``out``, or to standard output when it is None."""
    if out is None:
        sys.stdout.write(text)
    else:
        write_file(Path(out), text)


#: Error codes whose ``expected`` lists the nearest valid values.
SUGGESTING_CODES = frozenset({"evidence.unknown_id", "entity.not_allowed", "number.not_allowed"})


def _did_you_mean(err: Any) -> str:
    """`` (did you mean 'a' or 'b'?)`` for an error that carries suggestions, else ""."""
    expected = err.expected
    if err.code not in SUGGESTING_CODES or not isinstance(expected, list) or not expected:
        return ""
    shown = " or ".join(repr(one_line(str(x), 40)) for x in expected[:3])
    return f" (did you mean {shown}?)"


def render_report(report: Report, *, answer: bool = True) -> str:
    """A readable per-claim summary of a report, ending with its answer unless ``answer``
    is false (a pass of ``narrate``, whose answer is the final pass's, printed once)."""
    s = report.summary
    lines = [
        f"graph {report.graph_id} | profile {report.profile} | "
        f"{s.claims} claims: {s.passed} passed, {s.removed} removed"
    ]
    for verdict in report.claims:
        mark = "PASS" if verdict.passed else "FAIL"
        kind = verdict.type or "?"
        text = verdict.text or ""
        shown = one_line_showing(text, 100, reason_terms(verdict.errors))
        lines.append(f"  {mark} {verdict.id} [{kind}] {shown}".rstrip())
        for err in verdict.errors:
            lines.append(f"       {err.code}: {one_line(err.message, 160)}{_did_you_mean(err)}")
    failing = ", ".join(f"{k} {v}" for k, v in s.failing_by_gate.items() if v)
    if failing:
        lines.append(f"failing claims by gate: {failing}")
    if answer:
        lines.append("answer: " + report.answer)
    return "\n".join(lines)
