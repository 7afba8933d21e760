"""Scoring a sentence splitter against segmentation fixtures: case and boundary error
rates (``benchmarks/segmentation/measure.py`` prints them; a test holds the figure).

A fixture file holds ``language`` and ``cases`` of ``id``, ``text`` and the expected
``sentences`` (each an exact, stripped substring of ``text``, in order). A *boundary* is
the character offset in ``text`` where a piece other than the first begins (located left
to right with ``str.find``). The **case error rate** is the share of cases whose predicted
boundary set differs from the expected one; the **boundary error rate** is (missed +
spurious boundaries) / expected boundaries, over all cases. The naive baseline splits on
runs of ``.``, ``!``, ``?`` and newline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["Splitter", "boundaries", "load_cases", "naive_split", "score"]

_NAIVE = re.compile(r"[.!?\n]+")

Splitter = Callable[[str], list[str]]


def naive_split(text: str) -> list[str]:
    """The naive baseline: split on runs of . ! ? and newline."""
    return [piece.strip() for piece in _NAIVE.split(text) if piece.strip()]


def load_cases(directory: Path) -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            cases.append({**case, "language": data["language"]})
    return cases


def boundaries(text: str, pieces: Iterable[str]) -> set[int]:
    """Start offsets in ``text`` of every piece but the first."""
    starts: list[int] = []
    cursor = 0
    for piece in pieces:
        at = text.find(piece, cursor)
        if at < 0:
            raise ValueError(f"piece {piece!r} not found in order in {text!r}")
        starts.append(at)
        cursor = at + len(piece)
    return set(starts[1:])


def score(splitter: Splitter, cases: list[dict[str, object]]) -> dict[str, object]:
    wrong_cases: list[str] = []
    missed = spurious = expected_total = 0
    by_language: dict[str, list[int]] = {}
    for case in cases:
        text = str(case["text"])
        expected = boundaries(text, case["sentences"])  # type: ignore[arg-type]
        predicted = boundaries(text, splitter(text))
        miss, spur = len(expected - predicted), len(predicted - expected)
        missed += miss
        spurious += spur
        expected_total += len(expected)
        tally = by_language.setdefault(str(case["language"]), [0, 0])
        tally[1] += 1
        if miss or spur:
            wrong_cases.append(str(case["id"]))
            tally[0] += 1
    return {
        "cases": len(cases),
        "wrong_cases": len(wrong_cases),
        "case_error_rate": len(wrong_cases) / len(cases),
        "expected_boundaries": expected_total,
        "missed": missed,
        "spurious": spurious,
        "boundary_error_rate": (missed + spurious) / expected_total,
        "by_language": {lang: {"wrong": w, "cases": n} for lang, (w, n) in by_language.items()},
        "wrong_ids": wrong_cases,
    }
