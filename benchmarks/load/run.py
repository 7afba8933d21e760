"""Graph load and card-rewards graph build, this checkout beside another one.

Each figure is CPU time (a machine shared with other work disturbs it less than wall
time), taken in a fresh process (a child with the measured checkout first on
``PYTHONPATH``, this file as the harness), so that no cache filled by one pass speeds up
the next and every checkout starts alike:

* **load, first graph**: ``load_graph`` of one checked-in card-rewards graph file, the
  first graph the process loads (what ``verity verify --graph FILE`` pays);
* **load, per graph**: then every checked-in card-rewards graph file of that checkout, one
  after another, per graph;
* **build**: the 150 card-rewards plans (50 profiles x 3 goals) are solved with CBC (not
  timed), then each is turned into its graph (``build_graph``, the graph step of
  ``verity optimize --all``), one pass, in total and per graph;
* **optimize --all**: ``python -m verity optimize --all --out-dir DIR`` as a whole (solve,
  build, write), CPU time of the command and its CBC processes.

Rounds alternate the two checkouts; the table gives the median over rounds::

    .venv/bin/python benchmarks/load/run.py --compare LABEL=DIR [--compare ...] \\
        [--rounds 3] [--old-path DEPS] [--json FILE]

``--old-path`` puts DEPS on the other checkouts' path too (an older checkout's
dependencies that this environment no longer installs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
GRAPHS = Path("evidence_graphs") / "card_rewards"


def measure_load(root: Path) -> dict[str, float]:
    """Seconds to load the first graph file, then each graph file, of ``root``."""
    t0 = time.process_time()
    from verity.core.graph import load_graph

    imported = time.process_time() - t0
    paths = sorted((root / GRAPHS).glob("*.json"))
    t0 = time.process_time()
    load_graph(paths[0])
    first = time.process_time() - t0
    t0 = time.process_time()
    for path in paths[1:]:
        load_graph(path)
    rest = time.process_time() - t0
    return {"import_s": imported, "first_s": first, "per_graph_s": rest / (len(paths) - 1)}


def measure_build() -> dict[str, float]:
    """Seconds to build the 150 card-rewards graphs of plans solved beforehand."""
    from verity.backends.card_rewards import GOALS, build_graph, load_catalog, load_profiles, solve

    catalog = load_catalog()
    solutions = [solve(catalog, p, g) for p in load_profiles() for g in GOALS]
    t0 = time.process_time()
    for solution in solutions:
        build_graph(catalog, solution)
    total = time.process_time() - t0
    return {"build_s": total, "per_graph_s": total / len(solutions), "graphs": len(solutions)}


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def measure_optimize(code: Path, path: str) -> float:
    """CPU seconds of ``verity optimize --all`` run from ``code`` (the command and the
    CBC processes it runs)."""
    env = {**os.environ, "PYTHONPATH": path}
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "verity", "optimize", "--all", "--out-dir", tmp + "/g"]
        t0 = _children_cpu()
        subprocess.run(command, cwd=code, env=env, check=True, capture_output=True)
        return _children_cpu() - t0


def _child(code: Path, path: str, what: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": path}
    command = [sys.executable, str(HERE), "--child", what, "--root", str(code)]
    proc = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: measuring {code} failed: {proc.stderr.strip()[-400:]}")
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def _round(code: Path, path: str) -> dict[str, float]:
    load = _child(code, path, "load")
    build = _child(code, path, "build")
    return {
        "load_first_ms": 1000 * load["first_s"],
        "load_per_graph_ms": 1000 * load["per_graph_s"],
        "build_s": build["build_s"],
        "build_per_graph_ms": 1000 * build["per_graph_s"],
        "optimize_all_s": measure_optimize(code, path),
    }


ROWS = (
    ("load_first_ms", "load, first graph (ms)", 1),
    ("load_per_graph_ms", "load, per graph (ms)", 2),
    ("build_s", "build, 150 card graphs (s)", 3),
    ("build_per_graph_ms", "build, per graph (ms)", 2),
    ("optimize_all_s", "`verity optimize --all` (s)", 2),
)


def render(columns: dict[str, dict[str, float]]) -> str:
    """One column per checkout (the last is this one), and this one over each other."""
    names = list(columns)
    this = names[-1]
    head = "| | " + " | ".join(names) + " | " + " | ".join(f"{this} / {n}" for n in names[:-1])
    lines = [head + " |", "|---|" + "---:|" * (2 * len(names) - 1)]
    for key, name, digits in ROWS:
        cells = [f"{columns[n][key]:.{digits}f}" for n in names]
        cells += [f"{columns[this][key] / columns[n][key]:.2f}x" for n in names[:-1]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--compare", metavar="LABEL=DIR", action="append", default=[], help="another checkout"
    )
    parser.add_argument("--old-path", default="", help="also on the other checkouts' PYTHONPATH")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--label", default="this", help="this checkout's column")
    parser.add_argument("--json", metavar="FILE", help="also write every round here")
    parser.add_argument("--child", choices=("load", "build"), help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        root = Path(args.root)
        out = measure_load(root) if args.child == "load" else measure_build()
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    if not args.compare or any("=" not in c for c in args.compare):
        parser.error("give --compare LABEL=DIR")
    sides: dict[str, tuple[Path, str]] = {}
    for item in args.compare:
        label, code = item.split("=", 1)
        resolved = Path(code).resolve()
        sides[label] = (resolved, os.pathsep.join(p for p in (str(resolved), args.old_path) if p))
    sides[args.label] = (ROOT, str(ROOT))
    rounds: dict[str, list[dict[str, float]]] = {label: [] for label in sides}
    for _ in range(args.rounds):
        for label, (code, path) in sides.items():
            rounds[label].append(_round(code, path))
    medians = {
        label: {key: statistics.median(r[key] for r in runs) for key, _, _ in ROWS}
        for label, runs in rounds.items()
    }
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on every platform
        load = float("nan")
    head = (
        f"Median of {args.rounds} rounds, each figure in a fresh process (Python "
        f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, 1-minute load average at the end "
        f"{load:.2f}).\n\n"
    )
    sys.stdout.write(head + render(medians))
    if args.json:
        doc: dict[str, Any] = {"medians": medians, "rounds": rounds}
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
