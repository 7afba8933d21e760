"""``run.py`` on two checkouts in turn, in one run of this script: claims per second of
each, side by side, with the ratio.

Run from the repository root::

    .venv/bin/python benchmarks/perf/compare.py OLD_CHECKOUT [NEW_CHECKOUT] [--turns 3]
        [--narrations 2000] [--rounds 3] [--json benchmarks/perf/results/compare.json]

Each turn runs each checkout's own ``benchmarks/perf/run.py`` once (from that checkout,
``PYTHONPATH`` set to it, the workload built from this checkout's graphs, so both verify
the same claims), alternating which goes first; the figures are the medians over the turns
of each task's claims per second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TASKS = ("json.loads", "paper", "strict", "answer")


def _one(checkout: Path, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        script = checkout / "benchmarks" / "perf" / "run.py"
        argv = [sys.executable, str(script), "--narrations", str(args.narrations)]
        argv += ["--rounds", str(args.rounds), "--json", str(out)]
        argv += ["--graphs", str(ROOT / "evidence_graphs" / "card_rewards")]
        env = dict(os.environ, PYTHONPATH=str(checkout))
        subprocess.run(argv, check=True, cwd=checkout, env=env, stdout=subprocess.DEVNULL)
        results: dict[str, Any] = json.loads(out.read_text("utf-8"))["results"]
        return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path, nargs="?", default=ROOT)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--narrations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for turn in range(args.turns):
        order = ("old", "new") if turn % 2 == 0 else ("new", "old")
        for name in order:
            runs[name].append(_one(getattr(args, name).resolve(), args))
            print(f"turn {turn + 1}/{args.turns}: {name} done", file=sys.stderr)
    table: dict[str, dict[str, float]] = {}
    for task in TASKS:
        old = statistics.median(r[task]["per_s"] for r in runs["old"])
        new = statistics.median(r[task]["per_s"] for r in runs["new"])
        table[task] = {"old_per_s": old, "new_per_s": new, "new_over_old": new / old}
    print(f"{'task':<12}{'old /s':>12}{'new /s':>12}{'new/old':>9}")
    for task, row in table.items():
        print(
            f"{task:<12}{row['old_per_s']:>12,.0f}{row['new_per_s']:>12,.0f}"
            f"{row['new_over_old']:>9.2f}"
        )
    if args.json:
        body = {"old": str(args.old), "new": str(args.new), "turns": args.turns, "table": table}
        args.json.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
