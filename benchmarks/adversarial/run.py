"""Adversarial benchmark of the answer-support predicates, side by side in one run.

Run from the repository root::

    .venv/bin/python benchmarks/adversarial/run.py [--json] [--verbose]
    .venv/bin/python benchmarks/adversarial/run.py --data benchmarks/adversarial/freetext.json

(``strict.py`` beside it measures whole narrations under the gate profiles.)

``attacks.json`` holds passages, *attacks* (answers that are false with respect to
their passage: role inversion, negation deletion, value swap, comparator inversion)
and *controls* (true answers in four shapes: verbatim, sub-span, punctuation and
case noise, interior-word compression within the gap budget). Each answer is one
claim, checked against its own passage.

For every checker the script reports how many attacks it accepts (lower is better)
and how many controls it falsely rejects (lower is better). Checkers:

* ``v1``: token-set containment (:func:`verity.text.align.is_supported_v1`);
* ``v2``: the pinned predicate (:func:`verity.text.align.is_supported_v2`);
* ``v4``: the free-text rule check-answer calls (:func:`verity.is_supported`): whole
  coordinate clauses of one passage sentence, nothing deleted inside;
* ``v2-no-guard``: ordered gap-bounded containment without the polarity guard;
* ``contiguous``: the claim's tokens must occur as one contiguous run (no gaps);
* ``embedding``: cosine similarity of all-MiniLM-L6-v2 embeddings >= 0.7
  (:mod:`verity.bench.embedding_checker`, the kind of check popular validators use). It
  needs the optional extra ``embed``; without it the column is skipped with a note.

Each checker is also timed over all attacks and controls (answers per second, one
call per answer and its passage, after one untimed warm-up pass; a checker's one-time
setup, such as loading the embedding model, is timed apart). The embedding checker
remembers passage embeddings and embeds every answer anew; torch uses its default
threads (both cores here), the other checkers one.

The two ablations are private helpers of this script; the public constants of
:mod:`verity.text.align` stay pinned. To add a checker, append one entry to
:data:`CHECKERS`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verity.bench import embedding_checker  # noqa: E402
from verity.text.align import align, is_supported_v1, is_supported_v2  # noqa: E402
from verity.text.tokens import tokenize  # noqa: E402
from verity.text.variation import is_supported  # noqa: E402

DATA = Path(__file__).resolve().parent / "attacks.json"

Predicate = Callable[[str, str], bool]


def _ready() -> str | None:
    return None


def _no_setup() -> None:
    return None


@dataclass(frozen=True)
class Checker:
    """A named support predicate: ``accepts(answer, passage) -> bool``.

    ``unavailable`` says why the checker cannot run here (None when it can);
    ``setup`` does its one-time work (timed apart); ``extra`` names the optional
    extra it needs, if any.
    """

    name: str
    accepts: Predicate
    description: str
    unavailable: Callable[[], str | None] = _ready
    setup: Callable[[], None] = _no_setup
    extra: str | None = None


def _v2_without_guard(claim: str, passage: str) -> bool:
    claim_tokens = tokenize(claim)
    return bool(claim_tokens) and align(claim_tokens, tokenize(passage)) is not None


def _contiguous(claim: str, passage: str) -> bool:
    needle, hay = tokenize(claim), tokenize(passage)
    if not needle:
        return False
    width = len(needle)
    return any(hay[i : i + width] == needle for i in range(len(hay) - width + 1))


_EMBEDDER: list[embedding_checker.EmbeddingChecker] = []


def _embedding_setup() -> None:
    if not _EMBEDDER:
        _EMBEDDER.append(embedding_checker.EmbeddingChecker())


def _embedding(claim: str, passage: str) -> bool:
    _embedding_setup()
    return _EMBEDDER[0].accepts(claim, passage)


CHECKERS: list[Checker] = [
    Checker("v1", is_supported_v1, "token-set containment"),
    Checker("v2", is_supported_v2, "ordered, gap-bounded (4, 8) + polarity guard"),
    Checker("v4", is_supported, "whole coordinate clauses, no deletion, reader view"),
    Checker("v2-no-guard", _v2_without_guard, "ordered, gap-bounded (4, 8), no guard"),
    Checker("contiguous", _contiguous, "contiguous token run, no gaps"),
    Checker(
        "embedding",
        _embedding,
        f"all-MiniLM-L6-v2 cosine >= {embedding_checker.THRESHOLD}",
        unavailable=embedding_checker.unavailable,
        setup=_embedding_setup,
        extra=embedding_checker.EXTRA,
    ),
]


def load(path: Path = DATA) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _warm(checker: Checker, data: dict[str, Any], passages: dict[str, str]) -> None:
    """One untimed pass, so that every checker is timed warm (caches filled, passages
    indexed), not only the ones that happen to run after another."""
    for item in data["attacks"] + data["controls"]:
        checker.accepts(item["answer"], passages[item["passage_id"]])


def skipped(checkers: Sequence[Checker]) -> dict[str, str]:
    """The checkers that cannot run here, with the reason."""
    return {c.name: reason for c in checkers if (reason := c.unavailable()) is not None}


def evaluate(data: dict[str, Any], checkers: Sequence[Checker] | None = None) -> dict[str, Any]:
    """Per checker: attacks accepted and controls rejected, overall and per kind/shape.

    ``checkers`` defaults to the checkers that need no optional extra; checkers that
    cannot run here are left out (see :func:`skipped`).
    """
    chosen = [c for c in CHECKERS if c.extra is None] if checkers is None else checkers
    passages = {p["id"]: p["text"] for p in data["passages"]}
    out: dict[str, Any] = {}
    for checker in chosen:
        if checker.unavailable() is not None:
            continue
        started = time.perf_counter()
        checker.setup()
        setup_s = time.perf_counter() - started
        _warm(checker, data, passages)
        started = time.perf_counter()
        accepted = [
            a for a in data["attacks"] if checker.accepts(a["answer"], passages[a["passage_id"]])
        ]
        rejected = [
            c
            for c in data["controls"]
            if not checker.accepts(c["answer"], passages[c["passage_id"]])
        ]
        seconds = time.perf_counter() - started
        answers = len(data["attacks"]) + len(data["controls"])
        out[checker.name] = {
            "setup_s": setup_s,
            "seconds": seconds,
            "answers_per_s": answers / seconds if seconds else float("inf"),
            "description": checker.description,
            "attacks": len(data["attacks"]),
            "attacks_accepted": len(accepted),
            "controls": len(data["controls"]),
            "controls_rejected": len(rejected),
            "false_rejection_rate": len(rejected) / len(data["controls"]),
            "accepted_by_kind": _tally(data["attacks"], accepted, "kind"),
            "rejected_by_shape": _tally(data["controls"], rejected, "shape"),
            "accepted_ids": [a["id"] for a in accepted],
            "rejected_ids": [c["id"] for c in rejected],
        }
    return out


def _tally(items: list[dict[str, Any]], hits: list[dict[str, Any]], key: str) -> dict[str, str]:
    groups: dict[str, list[int]] = {}
    hit_ids = {h["id"] for h in hits}
    for item in items:
        tally = groups.setdefault(item[key], [0, 0])
        tally[1] += 1
        tally[0] += item["id"] in hit_ids
    return {group: f"{n}/{total}" for group, (n, total) in groups.items()}


def render(
    data: dict[str, Any],
    results: dict[str, Any],
    verbose: bool,
    notes: dict[str, str] | None = None,
) -> str:
    domains = sorted({p["domain"] for p in data["passages"]})
    kinds = list(next(iter(results.values()))["accepted_by_kind"])
    shapes = list(next(iter(results.values()))["rejected_by_shape"])
    lines = [
        f"{len(data['attacks'])} attacks, {len(data['controls'])} controls, "
        f"{len(domains)} domains ({', '.join(domains)})",
        "",
        "attacks accepted (lower is better)",
        _row("checker", ["all", *kinds]),
    ]
    for name, r in results.items():
        all_cell = f"{r['attacks_accepted']}/{r['attacks']}"
        lines.append(_row(name, [all_cell, *r["accepted_by_kind"].values()]))
    lines += ["", "controls falsely rejected (lower is better)", _row("checker", ["all", *shapes])]
    for name, r in results.items():
        all_cell = f"{r['controls_rejected']}/{r['controls']} ({r['false_rejection_rate']:.1%})"
        lines.append(_row(name, [all_cell, *r["rejected_by_shape"].values()]))
    lines += ["", "throughput (answers per second, warm, one call each; setup timed apart)"]
    lines.append(_row("checker", ["answers/s", "setup s"]))
    for name, r in results.items():
        lines.append(_row(name, [f"{r['answers_per_s']:,.0f}", f"{r['setup_s']:.2f}"]))
    for name, reason in (notes or {}).items():
        lines.append(f"{name}: skipped: {reason}")
    if verbose:
        lines.append("")
        for name, r in results.items():
            lines.append(f"{name}: accepted {r['accepted_ids'] or '-'}")
            lines.append(f"{name}: rejected {r['rejected_ids'] or '-'}")
    return "\n".join(lines)


def timing(data: dict[str, Any], rounds: int = 200) -> dict[str, float]:
    """Microseconds per answer for split_sentences + tokenize + check_support.

    Passages are indexed once (as gate 5 indexes cached statements). ``cold`` clears
    the normalization cache before every round; ``warm`` keeps it.
    """
    from verity.text.align import PassageIndex, check_support
    from verity.text.normalize import _normalize_cached
    from verity.text.segment import split_sentences

    indexes = {p["id"]: PassageIndex.from_text(p["text"]) for p in data["passages"]}
    items = [(a["answer"], indexes[a["passage_id"]]) for a in data["attacks"] + data["controls"]]

    def one_round() -> float:
        started = time.perf_counter()
        for answer, index in items:
            for sentence in split_sentences(answer):
                check_support(tokenize(sentence), index)
        return time.perf_counter() - started

    cold, warm = [], []
    for _ in range(rounds):
        _normalize_cached.cache_clear()
        cold.append(one_round())
        warm.append(one_round())
    per = 1e6 / len(items)
    return {
        "answers": float(len(items)),
        "cold_median_us": statistics.median(cold) * per,
        "warm_median_us": statistics.median(warm) * per,
    }


def render_timing(result: dict[str, float]) -> str:
    return (
        f"{int(result['answers'])} answers, segment + tokenize + align per answer (median of"
        f" rounds): cold normalize cache {result['cold_median_us']:.1f} us,"
        f" warm {result['warm_median_us']:.1f} us"
    )


def _row(first: str, cells: list[str]) -> str:
    return f"{first:<12}" + "".join(f"{cell:>22}" for cell in cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--verbose", action="store_true", help="list accepted/rejected ids")
    parser.add_argument("--data", type=Path, default=DATA, help="attacks file (default: ours)")
    parser.add_argument(
        "--timing", action="store_true", help="also time segment + tokenize + align per claim"
    )
    args = parser.parse_args(argv)
    data = load(args.data)
    if args.timing:
        print(render_timing(timing(data)))
        return 0
    results = evaluate(data, CHECKERS)
    notes = skipped(CHECKERS)
    if args.json:
        print(json.dumps({**results, **({"skipped": notes} if notes else {})}, indent=2))
    else:
        print(render(data, results, args.verbose, notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
