"""Threads and the OpenMP wait policy of the embedded model, side by side in one run.

Run from the repository root::

    .venv/bin/python benchmarks/perf/threads.py                  # 3 rounds
    .venv/bin/python benchmarks/perf/threads.py --rounds 5 --threads 1,2,3

Each round runs every setting once, in turn (interleaved, so that the load of a shared
machine falls on all of them alike), each as a fresh process of this interpreter with
``LocalNarrator(n_threads=N)`` and ``OMP_WAIT_POLICY`` set to ``PASSIVE`` or left unset
(OpenMP's default: waiting threads spin for a while). A process narrates the demo graph
(spending profile 7, max_value, the ``choice`` variant, no repair) from a cold context, so
the whole prompt is evaluated, then the graph of spending profile 8 (the system message
and task are reused: only its data block is evaluated). The figures are the model's
seconds per narration (the attempt's latency) and the model's load time; medians over
the rounds go to ``benchmarks/results/threads.json`` with every round and the load
average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "threads.json"
POLICIES = ("PASSIVE", "unset")

CHILD = r"""
import json, sys, time
from verity.llm.narrators.local import LocalNarrator
from verity.llm.repair import narrate_and_verify
from verity.pipeline import demo_graph

threads = int(sys.argv[1])
narrator = LocalNarrator(n_threads=threads)
started = time.perf_counter()
narrator.load()
load_s = time.perf_counter() - started
out = {"load_s": load_s}
for name, profile in (("cold", 7), ("warm", 8)):
    result = narrate_and_verify(demo_graph(profile, "max_value"), narrator, "choice", repairs=0)
    attempt = result.passes[0].attempt
    out[name + "_s"] = attempt.latency_s
    out[name + "_prompt_tokens"] = attempt.usage.prompt_tokens
    out[name + "_verified"] = result.final.summary.passed
    out["settings"] = dict(attempt.settings)
print(json.dumps(out))
"""


def _run(threads: int, policy: str) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if policy != "unset":
        env["OMP_WAIT_POLICY"] = policy
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(threads)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"threads={threads} {policy}: {proc.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - started
    return result


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    settings = [(t, p) for t in counts for p in POLICIES]
    runs: dict[str, list[dict[str, Any]]] = {f"{t} thread(s), {p}": [] for t, p in settings}
    load_before = os.getloadavg()
    for round_ in range(args.rounds):
        for t, p in settings:
            run = _run(t, p)
            runs[f"{t} thread(s), {p}"].append(run)
            print(
                f"round {round_ + 1}: {t} thread(s), OMP_WAIT_POLICY {p}: "
                f"cold {run['cold_s']:.1f}s, warm {run['warm_s']:.1f}s, load {run['load_s']:.1f}s",
                file=sys.stderr,
                flush=True,
            )
    summary = [
        {
            "threads": t,
            "wait_policy": p,
            "cold_narration_s": _median(runs[f"{t} thread(s), {p}"], "cold_s"),
            "warm_narration_s": _median(runs[f"{t} thread(s), {p}"], "warm_s"),
            "load_s": _median(runs[f"{t} thread(s), {p}"], "load_s"),
            "process_wall_s": _median(runs[f"{t} thread(s), {p}"], "wall_s"),
        }
        for t, p in settings
    ]
    doc = {
        "command": "python benchmarks/perf/threads.py "
        + " ".join(f"--{k} {v}" for k, v in (("rounds", args.rounds), ("threads", args.threads))),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "what": "model seconds of one choice narration of the demo graph (cold: whole prompt "
        "evaluated; warm: a second graph, only its data block evaluated), medians over "
        "the rounds",
        "summary": summary,
        "rounds": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    for row in summary:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
