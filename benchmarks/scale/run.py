"""Build time and node count of a transportation LP's graph against its size.

For each size N (origins = destinations = N), a random but seeded transportation model
(N origins with supplies, N destinations with demands, a cost per unit on every route;
total supply above total demand) is solved once with the chosen solver, then its graph
is built from the solved problem without labels and with labels (a group per kind of
name, an entity per origin and destination), each ``--repeats`` times; the table gives
the median build seconds of each, their ratio, and the node count of the graph at the
default detail and with every item kept (``detail=None``).

    .venv/bin/python benchmarks/scale/run.py [--sizes 10 50 100 200] [--repeats 3]
        [--solver highs] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from typing import Any

import pulp

from verity.backends._pulp_support import variable
from verity.backends.pulp import DEFAULT_DETAIL, graph_from_problem, solve_problem


def transportation(n: int, seed: int = 7) -> Any:
    """A seeded N x N transportation LP named ``ship_oI_dJ``, ``supply_oI``, ``demand_dJ``."""
    rng = random.Random(seed * 1000 + n)
    origins = [f"o{i}" for i in range(1, n + 1)]
    destinations = [f"d{j}" for j in range(1, n + 1)]
    demand = {d: rng.randint(20, 120) for d in destinations}
    total = sum(demand.values())
    weights = {o: rng.uniform(1.0, 2.0) for o in origins}
    scale = 1.3 * total / sum(weights.values())
    supply = {o: weights[o] * scale + rng.random() for o in origins}
    problem = pulp.LpProblem(f"transport_{n}", pulp.LpMinimize)
    ship = {
        (o, d): variable(problem, f"ship_{o}_{d}", 0, None, pulp.LpContinuous)
        for o in origins
        for d in destinations
    }
    problem += pulp.lpSum(
        round(rng.uniform(1.0, 9.0), 2) * ship[o, d] for o in origins for d in destinations
    )
    for o in origins:
        problem += pulp.lpSum(ship[o, d] for d in destinations) <= supply[o], f"supply_{o}"
    for d in destinations:
        problem += pulp.lpSum(ship[o, d] for o in origins) >= demand[d], f"demand_{d}"
    return problem


def labels(n: int) -> dict[str, Any]:
    """Labels of :func:`transportation`: groups and one entity per origin and destination."""
    entities = [{"id": f"o{i}", "kind": "origin", "name": f"plant {i}"} for i in range(1, n + 1)]
    entities += [
        {"id": f"d{j}", "kind": "destination", "name": f"store {j}"} for j in range(1, n + 1)
    ]
    return {
        "objective": {"name": "shipping cost", "format": "money", "decimals": 2},
        "entities": entities,
        "variables": {
            "ship[origin,destination]": {
                "name": "the shipment from {origin} to {destination}",
                "unit": "cases",
                "plural": "routes",
            }
        },
        "constraints": {
            "supply[origin]": {"name": "the supply of {origin}", "unit": "cases"},
            "demand[destination]": {"name": "the demand of {destination}", "unit": "cases"},
        },
    }


def _median_build(problem: Any, chosen: dict[str, Any] | None, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        graph_from_problem(problem, chosen)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(n: int, repeats: int, solver: str) -> dict[str, Any]:
    problem = solve_problem(transportation(n), solver)
    plain = _median_build(problem, None, repeats)
    named = _median_build(problem, labels(n), repeats)
    full = graph_from_problem(problem, labels(n), detail=None)
    kept = graph_from_problem(problem, labels(n))
    types: dict[str, int] = {}
    for node in full.model.nodes:
        types[node.type] = types.get(node.type, 0) + 1
    return {
        "n": n,
        "variables": n * n,
        "unlabelled": plain,
        "labelled": named,
        "ratio": named / plain,
        "nodes_full": len(full.model.nodes),
        "reduced_full": types.get("REDUCED_COST", 0),
        "nodes": len(kept.model.nodes),
    }


def table(rows: list[dict[str, Any]], detail: int) -> str:
    head = (
        "| N x N | variables | build, unlabelled (s) | build, labelled (s) | labelled / "
        f"unlabelled | nodes, every item | of them reduced costs | nodes, detail {detail} |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    return head + "".join(
        f"| {r['n']} x {r['n']} | {r['variables']:,} | {r['unlabelled']:.3f} | "
        f"{r['labelled']:.3f} | {r['ratio']:.2f} | {r['nodes_full']:,} | {r['reduced_full']:,} "
        f"| {r['nodes']:,} |\n"
        for r in rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 100, 200])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--markdown", metavar="FILE")
    args = parser.parse_args(argv)
    rows = [measure(n, args.repeats, args.solver) for n in args.sizes]
    text = table(rows, DEFAULT_DETAIL)
    text += (
        f"\nsolver {args.solver}, median of {args.repeats} builds; Python "
        f"{platform.python_version()}, pulp {pulp.__version__}\n"
    )
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
