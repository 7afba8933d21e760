"""Throughput of verify() and check_answer(), side by side with json.loads, on one core.

Run from the repository root (``benchmarks/perf/compare.py`` runs it on two checkouts in
turn, for figures before and after a change)::

    .venv/bin/python benchmarks/perf/run.py [--narrations 4000] [--claims 8] [--rounds 5]
        [--json benchmarks/perf/results/throughput.json] [--profile paper|strict|answer]
        [--gates]

The workload (:mod:`workload`) is N seeded narrations over the card-rewards graphs,
about half of the claims valid and half carrying one error each. Every round times,
one after the other on the same CPU (the process pins itself to CPU 0):

* ``json.loads``: parsing the narration lines, the floor any verifier pays;
* ``paper`` and ``strict``: ``verify_json(graph, line, profile)``, from raw JSON text to a
  :class:`verity.Report` (the text is decoded and the claims checked in one pass);
* ``paper/dict`` and ``strict/dict``: ``verify(graph, json.loads(line), profile)``,
  the same from a parsed object (parse included);
* ``check_answer``: each narration's claim texts joined into one answer, checked
  against the statements of the nodes it cites (one line per claim, so one sentence
  per claim; ``units`` counts sentences).

Times are CPU time of this process (``time.process_time``), so that other load on
the machine inflates them less than wall time. Each task runs the workload in slices
of 25 narrations, and ``json.loads`` of the same slice is timed right before each
slice; a round's ratio is the task's time over the floor times taken beside it, and
the median over ``--rounds`` is reported with its range (the best pass is shown too).
The graphs and the workload are built before timing and moved out of the garbage
collector's way with ``gc.freeze()``, as a long-running service would do.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import workload  # noqa: E402

import verity  # noqa: E402
from verity import check_answer, verify, verify_json  # noqa: E402
from verity.core.graph import EvidenceGraph  # noqa: E402

#: The floors, in claims per second on one core.
FLOORS = {"paper": 20_000, "strict": 5_000}
#: Passes of json.loads beside each slice (one pass is short; the mean of several is
#: steadier).
FLOOR_PASSES = 10
#: Narrations per slice: each task runs slice by slice, its floor timed beside each one.
SLICE = 25


def pin_to_one_core() -> str:
    """Pin this process to CPU 0 when the platform allows it."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
        return "cpu 0"
    return "not pinned"


def _answers(
    narrations: list[dict[str, Any]], graphs: dict[str, EvidenceGraph]
) -> list[tuple[str, list[dict[str, str]]]]:
    out = []
    for n in narrations:
        graph = graphs[n["graph_id"]]
        cited = dict.fromkeys(i for c in n["claims"] for i in c["cited_evidence_ids"])
        passages = [{"id": i, "text": graph.nodes[i].statement} for i in cited if i in graph.nodes]
        out.append(("\n".join(c["text"] for c in n["claims"]), passages))
    return out


def _cpu(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def build(args: argparse.Namespace) -> dict[str, Any]:
    pools = workload.load_pools(workload.graph_paths(args.graphs))
    graphs = {p.graph.graph_id: p.graph for p in pools}
    pairs = list(workload.narrations(pools, args.narrations, args.claims, args.seed))
    lines = [json.dumps(n, ensure_ascii=False, separators=(",", ":")) for n, _ in pairs]
    answers = _answers([n for n, _ in pairs], graphs)
    return {"graphs": graphs, "pairs": pairs, "lines": lines, "answers": answers}


#: A task over narrations ``lo .. hi`` of the workload.
Task = Callable[[int, int], object]


def tasks(work: dict[str, Any]) -> dict[str, Task]:
    graphs, lines, answers = work["graphs"], work["lines"], work["answers"]
    loads = json.loads

    def floor(lo: int, hi: int) -> None:
        for line in lines[lo:hi]:
            loads(line)

    ids = [json.loads(line)["graph_id"] for line in lines]

    def run(profile: str) -> Task:
        def go(lo: int, hi: int) -> None:
            for graph_id, line in zip(ids[lo:hi], lines[lo:hi], strict=True):
                verify_json(graphs[graph_id], line, profile)

        return go

    def run_dict(profile: str) -> Task:
        def go(lo: int, hi: int) -> None:
            for line in lines[lo:hi]:
                data = loads(line)
                verify(graphs[data["graph_id"]], data, profile)

        return go

    def answer(lo: int, hi: int) -> None:
        for text, passages in answers[lo:hi]:
            check_answer(text, passages)

    return {
        "json.loads": floor,
        "paper": run("paper"),
        "strict": run("strict"),
        "paper/dict": run_dict("paper"),
        "strict/dict": run_dict("strict"),
        "answer": answer,
    }


def verdict_mix(work: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per claim kind: how many pass under each profile (a sanity check of the workload)."""
    mix: dict[str, dict[str, str]] = {}
    for profile in ("paper", "strict"):
        passed: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for narration, kinds in work["pairs"]:
            report = verify(work["graphs"][narration["graph_id"]], narration, profile)
            for kind, verdict in zip(kinds, report.claims, strict=True):
                total[kind] += 1
                passed[kind] += verdict.passed
        for kind in workload.KINDS:
            mix.setdefault(kind, {})[profile] = f"{passed[kind]}/{total[kind]}"
    return mix


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def measure(work: dict[str, Any], rounds: int) -> dict[str, dict[str, float]]:
    """Per task: best CPU time of one pass, and its ratio to ``json.loads``.

    A pass of a task runs the workload in slices of :data:`SLICE` narrations; right
    before each slice, ``json.loads`` of the same slice is timed (the mean of
    :data:`FLOOR_PASSES` passes). A round's ratio of a task is the sum of its slice
    times over the sum of the floor times taken beside them, so that both sides of a
    ratio are measured within milliseconds of each other and a slow or fast spell of
    a loaded machine moves them alike. The median over rounds is reported, with its
    range; the floor's own row is its mean pass.
    """
    jobs = tasks(work)
    count = len(work["lines"])
    for fn in jobs.values():
        fn(0, count)  # warm caches (normalize, compiled patterns, per-graph indexes)
    floor = jobs["json.loads"]
    slices = [(lo, min(lo + SLICE, count)) for lo in range(0, count, SLICE)]
    cpu = time.process_time

    def paired(fn: Task) -> tuple[float, float, float]:
        """(task cpu s, floor cpu s, task wall s) of one pass, slice by slice."""
        spent = beside = wall = 0.0
        for lo, hi in slices:
            start = cpu()
            for _ in range(FLOOR_PASSES):
                floor(lo, hi)
            mid = cpu()
            clock = time.perf_counter()
            fn(lo, hi)
            wall += time.perf_counter() - clock
            spent += cpu() - mid
            beside += (mid - start) / FLOOR_PASSES
        return spent, beside, wall

    best: dict[str, tuple[float, float]] = {}
    ratios: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(rounds):
        floors: list[float] = []
        for name, fn in jobs.items():
            if name == "json.loads":
                continue
            spent, beside, wall = paired(fn)
            floors.append(beside)
            old = best.get(name)
            best[name] = (spent, wall) if old is None else (min(old[0], spent), min(old[1], wall))
            ratios[name].append(spent / beside)
        mean_floor = sum(floors) / len(floors)
        old = best.get("json.loads")
        best["json.loads"] = (
            (mean_floor, mean_floor)
            if old is None
            else (
                min(old[0], mean_floor),
                min(old[1], mean_floor),
            )
        )
        ratios["json.loads"].append(1.0)
    best = {name: best[name] for name in jobs}  # table order
    claims = sum(len(n["claims"]) for n, _ in work["pairs"])
    sentences = sum(len(check_answer(t, p).claims) for t, p in work["answers"])
    out: dict[str, dict[str, float]] = {}
    for name, (spent, wall) in best.items():
        units = sentences if name == "answer" else claims
        out[name] = {
            "units": units,
            "cpu_s": spent,
            "wall_s": wall,
            "per_s": units / spent,
            "us_per_unit": spent / units * 1e6,
            "ratio_to_json": _median(ratios[name]),
            "ratio_range": [min(ratios[name]), max(ratios[name])],
        }
    return out


def floor_check(work: dict[str, Any], rounds: int) -> list[dict[str, float]]:
    """Whether timing the floor beside task slices flatters a ratio: per round, CPU ms of
    one ``json.loads`` pass over the workload taken whole, slice by slice beside
    ``strict`` slices (as :func:`measure` does), and slice by slice alone."""
    jobs = tasks(work)
    count = len(work["lines"])
    floor, strict = jobs["json.loads"], jobs["strict"]
    for fn in (floor, strict):
        fn(0, count)
    cpu = time.process_time

    def sliced(beside: Task | None) -> float:
        spent = 0.0
        for lo in range(0, count, SLICE):
            hi = min(lo + SLICE, count)
            start = cpu()
            for _ in range(FLOOR_PASSES):
                floor(lo, hi)
            spent += (cpu() - start) / FLOOR_PASSES
            if beside is not None:
                beside(lo, hi)
        return spent * 1e3

    out = []
    for _ in range(rounds):
        start = cpu()
        for _ in range(FLOOR_PASSES):
            floor(0, count)
        whole = (cpu() - start) / FLOOR_PASSES * 1e3
        out.append({"whole": whole, "beside_strict": sliced(strict), "alone": sliced(None)})
    return out


def render(results: dict[str, dict[str, Any]], mix: dict[str, dict[str, str]]) -> str:
    lines = [
        f"{'measure':<12}{'units':>9}{'cpu s':>9}{'units/s':>11}{'us/unit':>9}"
        f"{'x json':>8}{'range':>13}{'floor/s':>9}  status",
    ]
    for name, r in results.items():
        floor = FLOORS.get(name)
        status = "" if floor is None else ("met" if r["per_s"] >= floor else "MISSED")
        shown = "" if floor is None else f"{floor:,}"
        low, high = r["ratio_range"]
        lines.append(
            f"{name:<12}{int(r['units']):>9}{r['cpu_s']:>9.3f}{r['per_s']:>11,.0f}"
            f"{r['us_per_unit']:>9.2f}{r['ratio_to_json']:>8.1f}{f'{low:.1f}-{high:.1f}':>13}"
            f"{shown:>9}  {status}"
        )
    lines += [
        "",
        "units: claims (answer: sentences); cpu s: best pass; x json: median over rounds of",
        "cpu time / json.loads cpu time in the same round (range: lowest-highest round)",
        "",
    ]
    lines.append(f"{'claim kind':<20}{'paper passed':>14}{'strict passed':>15}")
    for kind, row in mix.items():
        lines.append(f"{kind:<20}{row['paper']:>14}{row['strict']:>15}")
    return "\n".join(lines)


def gate_times(work: dict[str, Any], rounds: int) -> dict[str, float]:
    """CPU microseconds per claim of each strict gate alone (and the segmenter)."""
    from verity.core.claims import parse_narration
    from verity.core.gates import gates_for
    from verity.text.segment import split_sentences

    graphs = work["graphs"]
    pairs = [
        (item.claim, graphs[n["graph_id"]])
        for n, _ in work["pairs"]
        for item in parse_narration(n).claims
        if item.claim is not None
    ]

    def timed(fn: Callable[[], object]) -> float:
        fn()
        return min(_cpu(fn)[0] for _ in range(rounds)) / len(pairs) * 1e6

    def run_gate(check: Any) -> Callable[[], object]:
        return lambda: [list(check(c, g)) for c, g in pairs]

    out = {gate.check.__name__: timed(run_gate(gate.check)) for gate in gates_for("strict")}
    out["split_sentences"] = timed(lambda: [split_sentences(c.text) for c, _ in pairs])
    return out


def profile(work: dict[str, Any], which: str, top: int = 30) -> None:
    task = tasks(work)["answer" if which == "answer" else which]
    count = len(work["lines"])
    task(0, count)
    prof = cProfile.Profile()
    prof.runcall(task, 0, count)
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--narrations", type=int, default=4000)
    parser.add_argument("--claims", type=int, default=8, help="claims per narration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--graphs", type=Path, default=None, help="graph directory")
    parser.add_argument("--json", type=Path, default=None, help="also write results here")
    parser.add_argument("--profile", choices=["paper", "strict", "answer"], default=None)
    parser.add_argument("--no-freeze", action="store_true", help="leave the gc alone")
    parser.add_argument("--gates", action="store_true", help="time each gate alone instead")
    parser.add_argument(
        "--floor-check",
        action="store_true",
        help="compare json.loads timed whole, beside strict slices and in slices alone",
    )
    args = parser.parse_args(argv)
    pinned = pin_to_one_core()
    work = build(args)
    gc.collect()
    if not args.no_freeze:
        gc.freeze()
    if args.profile:
        profile(work, args.profile)
        return 0
    if args.floor_check:
        for row in floor_check(work, args.rounds):
            print("json.loads ms a pass: " + ", ".join(f"{k} {v:.2f}" for k, v in row.items()))
        return 0
    if args.gates:
        for name, us in gate_times(work, args.rounds).items():
            print(f"{name:<24}{us:>8.2f} us/claim")
        return 0
    results = measure(work, args.rounds)
    mix = verdict_mix(work)
    header = (
        f"{args.narrations} narrations x {args.claims} claims over {len(work['graphs'])} graphs, "
        f"seed {args.seed}, best of {args.rounds} rounds, {pinned}, "
        f"gc {'default' if args.no_freeze else 'frozen after setup'}, "
        f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, "
        f"verity {verity.__version__} ({Path(verity.__file__).parent})"
    )
    print(header)
    print(render(results, mix))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        body = {"setup": header, "results": results, "verdict_mix": mix}
        args.json.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
