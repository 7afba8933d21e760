"""Narration benchmark: the local model (or any narrator) on evidence graphs, per variant.

For each graph and prompt variant it runs narrate -> verify -> one repair pass under the
``strict`` profile and again under ``paper`` (pass 0 is the same prompt, so it is narrated
once and shared), and reports per variant:

- claims produced by pass 0 and how many outputs could not be read;
- claim survival (passing / parsed claims) before repair and after it, strict and paper;
- verified claims shipped per graph before and after repair;
- seconds per narration (inside the model call) and the wall time per graph;
- the share of wall time spent outside the model call (prompt building, grammar,
  tokenizing, parsing, verification, repair bookkeeping).

Usage (from the repository root)::

    .venv/bin/python benchmarks/narrate/run.py                   # local model, 5 graphs
    .venv/bin/python benchmarks/narrate/run.py --narrator scripted:paper-like --graphs 20
    .venv/bin/python benchmarks/narrate/run.py --narrator replay:benchmarks/narrate/attempts.jsonl

Attempts are recorded to ``--record`` (default ``benchmarks/narrate/attempts.jsonl`` for a
live narrator) and results written to ``--out`` (JSON) with a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from verity.core.graph import EvidenceGraph, load_graph
from verity.llm.narrators import Attempt, RecordingNarrator, ReplayNarrator, narrator_from_spec
from verity.llm.narrators.base import Narrator
from verity.llm.prompts import VARIANTS, Prompt
from verity.llm.repair import NarrationResult, narrate_and_verify

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class Resume:
    """Serves attempts recorded by an earlier, interrupted run; narrates the rest live."""

    def __init__(self, recorded: ReplayNarrator, live: Narrator) -> None:
        self.recorded = recorded
        self.live = live

    @property
    def name(self) -> str:
        return self.live.name

    def narrate(self, prompt: Prompt) -> Attempt:
        attempt = self.recorded.narrate(prompt)
        if attempt.api_error is not None and attempt.api_error.code == "replay.missing":
            return self.live.narrate(prompt)
        return attempt


class SharedFirstPass:
    """Memoizes attempts by prompt hash, so pass 0 runs once for both profiles."""

    def __init__(self, inner: Narrator) -> None:
        self.inner = inner
        self.memo: dict[str, Attempt] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.prompt_hash not in self.memo:
            self.memo[prompt.prompt_hash] = self.inner.narrate(prompt)
        return self.memo[prompt.prompt_hash]


def _graphs(count: int, goal: str) -> list[EvidenceGraph]:
    folder = ROOT / "evidence_graphs" / "card_rewards"
    files = sorted(folder.glob(f"p*-{goal}.json"))[:count]
    if len(files) == count:
        return [load_graph(f) for f in files]
    from verity.backends.card_rewards import optimize

    return [load_graph(optimize(i, goal)) for i in range(count)]


def _pass_stats(result: NarrationResult, index: int) -> dict[str, Any]:
    p = result.passes[min(index, len(result.passes) - 1)]
    s = p.report.summary
    return {"claims": s.claims, "passed": s.passed, "shipped": len(p.report.shipped)}


def _row(
    graph: EvidenceGraph,
    variant: str,
    strict: NarrationResult,
    paper: NarrationResult,
    wall_s: float,
) -> dict[str, Any]:
    first = strict.passes[0].attempt
    model_calls = {id(p.attempt): p.attempt for r in (strict, paper) for p in r.passes}
    model_s = sum(a.latency_s for a in model_calls.values())
    return {
        "graph_id": graph.graph_id,
        "variant": variant,
        "nodes": len(graph.nodes),
        "claims_produced": len(first.claims),
        "parse_error": first.parse_error.code if first.parse_error else None,
        "api_error": first.api_error.code if first.api_error else None,
        "strict_before": _pass_stats(strict, 0),
        "strict_after": _pass_stats(strict, 1),
        "paper_before": _pass_stats(paper, 0),
        "paper_after": _pass_stats(paper, 1),
        "narrations": len(model_calls),
        "model_s": model_s,
        "wall_s": wall_s,
        "prompt_tokens": first.usage.prompt_tokens,
        "completion_tokens": first.usage.completion_tokens,
        "simulated": first.simulated,
    }


def _ratio(num: float, den: float) -> str:
    return f"{100 * num / den:.0f}%" if den else "n/a"


def _survival(rows: list[dict[str, Any]], key: str) -> str:
    passed = sum(r[key]["passed"] for r in rows)
    claims = sum(r[key]["claims"] for r in rows)
    return f"{_ratio(passed, claims)} ({passed}/{claims})"


def _wall(wall_s: float, model_s: float, n: int) -> str:
    """Wall time per graph; n/a when attempts were replayed (wall below recorded model time)."""
    return f"{wall_s / n:.1f}" if wall_s >= model_s else "n/a (replayed)"


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown table, one line per variant, summed over graphs."""
    head = (
        "| variant | graphs | claims produced (pass 0) | unreadable outputs | strict survival "
        "before -> after repair | paper survival before -> after | shipped/graph strict "
        "before -> after | s per narration | wall s per graph | time outside model |"
    )
    lines = [head, "|" + "---|" * 10]
    for variant in VARIANTS:
        rs = [r for r in rows if r["variant"] == variant]
        if not rs:
            continue
        n = len(rs)
        narrations = sum(r["narrations"] for r in rs)
        model_s = sum(r["model_s"] for r in rs)
        wall_s = sum(r["wall_s"] for r in rs)
        unreadable = sum(1 for r in rs if r["parse_error"] or r["api_error"])
        lines.append(
            f"| {variant} | {n} | {sum(r['claims_produced'] for r in rs)} | {unreadable} | "
            f"{_survival(rs, 'strict_before')} -> {_survival(rs, 'strict_after')} | "
            f"{_survival(rs, 'paper_before')} -> {_survival(rs, 'paper_after')} | "
            f"{sum(r['strict_before']['shipped'] for r in rs) / n:.2f} -> "
            f"{sum(r['strict_after']['shipped'] for r in rs) / n:.2f} | "
            f"{model_s / max(1, narrations):.1f} | {_wall(wall_s, model_s, n)} | "
            f"{_ratio(wall_s - model_s, wall_s) if wall_s >= model_s else 'n/a'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--narrator", default="local")
    parser.add_argument("--graphs", type=int, default=5)
    parser.add_argument("--goal", default="max_value")
    parser.add_argument("--repairs", type=int, default=1)
    parser.add_argument("--record", default=None)
    parser.add_argument("--out", default=str(HERE / "results.json"))
    parser.add_argument("--threads", type=int, default=None, help="n_threads of the local model")
    parser.add_argument(
        "--resume", default=None, help="JSONL of an interrupted run: its attempts are reused"
    )
    args = parser.parse_args(argv)

    options = {"n_threads": args.threads} if args.narrator == "local" else {}
    inner: Narrator = narrator_from_spec(args.narrator, **options)
    if args.resume:  # read before the recording below may truncate the same file
        inner = Resume(ReplayNarrator(args.resume), inner)
    live = not args.narrator.startswith("replay:")
    record = args.record or (str(HERE / "attempts.jsonl") if live else None)
    if record and live:
        Path(record).write_text("", encoding="utf-8")
        inner = RecordingNarrator(inner, record)
    graphs = _graphs(args.graphs, args.goal)
    rows: list[dict[str, Any]] = []
    for graph in graphs:
        for variant in VARIANTS:
            shared = SharedFirstPass(inner)
            started = time.perf_counter()
            strict = narrate_and_verify(graph, shared, variant, "strict", args.repairs)
            paper = narrate_and_verify(graph, shared, variant, "paper", args.repairs)
            row = _row(graph, variant, strict, paper, time.perf_counter() - started)
            rows.append(row)
            print(
                f"{graph.graph_id} {variant}: {row['claims_produced']} claims, "
                f"strict {row['strict_before']['passed']}->{row['strict_after']['passed']}, "
                f"paper {row['paper_before']['passed']}->{row['paper_after']['passed']}, "
                f"{row['wall_s']:.1f}s",
                file=sys.stderr,
                flush=True,
            )
    summary = {
        "narrator": inner.name,
        "graphs": [g.graph_id for g in graphs],
        "repairs": args.repairs,
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": __import__("os").cpu_count(),
        },
        "rows": rows,
        "table": table(rows),
    }
    Path(args.out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
