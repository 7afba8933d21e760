"""Time the 150 card-rewards solves (50 profiles x 3 goals) with CBC and with HiGHS.

For each solver and repeat, every profile and goal is solved and turned into its
graph; the clock is split into the time inside the solver calls (pulp's ``solve``,
two per plan: the optimum, then the tie-break), the rest of the optimizer (building
the pulp model, the exact allocation), the graph builder and JSON serialization.
The table gives the median over repeats of each wall-clock total, the share of time
spent outside the solver, and the CPU time of the pass (this process plus the CBC
child processes), which a busy machine disturbs less than wall time. It also checks
that both solvers give byte-identical graphs.

    .venv/bin/python benchmarks/solve/run.py [--repeats 3] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from importlib import metadata

from verity.backends.card_rewards import (
    GOALS,
    SOLVERS,
    build_graph,
    graph_json,
    load_catalog,
    load_profiles,
    solve,
)


@dataclass
class Run:
    """Seconds spent in one pass over all plans with one solver."""

    solver_calls: float = 0.0
    optimizer_rest: float = 0.0
    graph_build: float = 0.0
    serialize: float = 0.0
    cpu: float = 0.0

    @property
    def total(self) -> float:
        return self.solver_calls + self.optimizer_rest + self.graph_build + self.serialize


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (CBC runs as a child)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def one_pass(solver: str) -> tuple[Run, list[str]]:
    """Solve and build every plan once; return the timings and the graph texts."""
    catalog, profiles = load_catalog(), load_profiles()
    run = Run()
    cpu_start = _cpu_seconds()
    texts: list[str] = []
    for profile in profiles:
        for goal in GOALS:
            t0 = time.perf_counter()
            solution = solve(catalog, profile, goal, solver)
            t1 = time.perf_counter()
            graph = build_graph(catalog, solution)
            t2 = time.perf_counter()
            texts.append(graph_json(graph))
            t3 = time.perf_counter()
            run.solver_calls += solution.solver_seconds
            run.optimizer_rest += (t1 - t0) - solution.solver_seconds
            run.graph_build += t2 - t1
            run.serialize += t3 - t2
    run.cpu = _cpu_seconds() - cpu_start
    return run, texts


def _median(runs: list[Run], field: str) -> float:
    return float(statistics.median(float(getattr(r, field)) for r in runs))


def _versions() -> str:
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return (
        f"Python {platform.python_version()}, pulp {version('pulp')}, "
        f"highspy {version('highspy')}, {os.cpu_count()} CPUs"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", metavar="FILE", help="also write the table here")
    args = parser.parse_args(argv)
    plans = len(load_profiles()) * len(GOALS)
    results: dict[str, list[Run]] = {}
    texts: dict[str, list[str]] = {}
    for solver in SOLVERS:
        solve(load_catalog(), load_profiles()[0], GOALS[0], solver)  # warm-up, not timed
        results[solver] = []
        for _ in range(args.repeats):
            run, texts[solver] = one_pass(solver)
            results[solver].append(run)
    same = sum(a == b for a, b in zip(texts["cbc"], texts["highs"], strict=True))
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on every platform
        load = float("nan")
    lines = [
        f"Card-rewards solve benchmark: {plans} plans per pass, median of {args.repeats} "
        f"passes ({_versions()}; 1-minute load average at the end {load:.2f}).",
        "",
        "| solver | total s | solver calls s | rest of optimizer s | graph build s "
        "| serialize s | ms per plan | outside solver | CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for solver, runs in results.items():
        total = _median(runs, "total")
        inside = _median(runs, "solver_calls")
        share = statistics.median((r.total - r.solver_calls) / r.total for r in runs)
        lines.append(
            f"| {solver} | {total:.2f} | {inside:.2f} | {_median(runs, 'optimizer_rest'):.2f} "
            f"| {_median(runs, 'graph_build'):.2f} | {_median(runs, 'serialize'):.3f} "
            f"| {1000 * total / plans:.1f} | {100 * share:.0f}% | {_median(runs, 'cpu'):.2f} |"
        )
    lines += ["", f"Byte-identical graphs, CBC vs HiGHS: {same} of {plans}."]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0 if same == plans else 1


if __name__ == "__main__":
    sys.exit(main())
