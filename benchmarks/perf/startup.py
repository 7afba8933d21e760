"""Start-up cost of the command and the package, as ratios to ``python -c pass``.

Run from the repository root::

    .venv/bin/python benchmarks/perf/startup.py                  # 31 rounds, both modes
    .venv/bin/python benchmarks/perf/startup.py --rounds 61 --check

Each round runs every command once, in turn (interleaved, so that the load of a shared
machine falls on all of them alike), as a fresh process of this interpreter:

- ``pass``: ``python -c pass``, the floor every ratio is taken against;
- ``import verity``: ``python -c "import verity"``;
- ``verity --version``;
- ``check-answer``: ``verity check-answer PASSAGES ANSWER`` on a one-sentence answer and
  one passage (exit 0);
- ``check-answer --graph``: the same sentence kind against a card-rewards graph
  (``evidence_graphs/card_rewards/p05-max_value.json``), which loads the graph's loader
  (pydantic, the JSON Schema validator).

``verity`` is the console script next to the interpreter when there is one (what a user
runs), else ``python -m verity``. Two bytecode modes are measured: ``cached`` (the
modules' bytecode is cached, as after ``pip install``: a private
``PYTHONPYCACHEPREFIX``, filled by a first untimed round) and ``none``
(``PYTHONDONTWRITEBYTECODE=1`` with no cache: every verity module is compiled from source
on every start, as in an editable install that may not write ``__pycache__``). The
figures are medians of wall time; the ratios are medians over the same rounds.
``--check`` exits 1 when a ratio of the ``cached`` mode is over its limit
(:data:`LIMITS`: ``import verity`` 4x, ``verity --version`` 3x, one-sentence
``check-answer`` 6x). Results go to ``benchmarks/perf/results/startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "perf" / "results" / "startup.json"
GRAPH = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"
SENTENCE = "The tenant shall not sublet the flat without consent."
GRAPH_SENTENCE = "For dining, travel_select leads with 4.5%, ahead of dine_out_rewards at 3%."

#: Command -> the largest ratio to ``python -c pass`` it may take (cached bytecode).
LIMITS = {"import verity": 4.0, "verity --version": 3.0, "check-answer": 6.0}


def _verity() -> list[str]:
    script = Path(sys.executable).with_name("verity")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "verity"]


def _commands(tmp: Path, graph: bool = True) -> dict[str, list[str]]:
    passages = tmp / "passages.json"
    passages.write_text(json.dumps([{"id": "lease", "text": SENTENCE}]), "utf-8")
    answer = tmp / "answer.txt"
    answer.write_text(SENTENCE + "\n", "utf-8")
    graph_answer = tmp / "graph_answer.txt"
    graph_answer.write_text(GRAPH_SENTENCE + "\n", "utf-8")
    verity = _verity()
    commands = {
        "pass": [sys.executable, "-c", "pass"],
        "import verity": [sys.executable, "-c", "import verity"],
        "verity --version": [*verity, "--version"],
        "check-answer": [*verity, "check-answer", str(passages), str(answer)],
        "check-answer --graph": [*verity, "check-answer", "--graph", str(GRAPH), str(graph_answer)],
    }
    if not graph:  # a checkout from before the graph mode
        del commands["check-answer --graph"]
    return commands


def _env(mode: str, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX",)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if mode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run_once(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-300:]!r}")
    return elapsed, done.returncode


def measure(mode: str, rounds: int, tmp: Path, graph: bool = True) -> dict[str, Any]:
    cache = tmp / "pycache"
    env = _env(mode, cache)
    commands = _commands(tmp, graph)
    for argv in commands.values():  # untimed: fills the bytecode cache of the cached mode
        _run_once(argv, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    ratios: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        this_round = {name: _run_once(argv, env)[0] for name, argv in commands.items()}
        for name, seconds in this_round.items():
            times[name].append(seconds)
            ratios[name].append(seconds / this_round["pass"])
    return {
        name: {
            "median_ms": round(statistics.median(times[name]) * 1000, 1),
            "ratio": round(statistics.median(ratios[name]), 2),
            "limit": LIMITS.get(name),
        }
        for name in commands
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--modes", default="cached,none", help="cached, none or both")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 over a limit (cached)")
    parser.add_argument("--no-graph", action="store_true", help="leave out check-answer --graph")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rounds": args.rounds,
        "verity": "python -m verity" if _verity()[0] == sys.executable else "console script",
        "modes": {},
    }
    with tempfile.TemporaryDirectory(prefix="verity-startup-") as tmp:
        for mode in modes:
            results["modes"][mode] = measure(mode, args.rounds, Path(tmp), not args.no_graph)
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    over = [
        name
        for name, row in results["modes"].get("cached", {}).items()
        if row["limit"] is not None and row["ratio"] > row["limit"]
    ]
    results["over_limit"] = over
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    print(f"{'command':<24} {'mode':<7} {'median ms':>10} {'x pass':>7} {'limit':>6}")
    for mode, rows in results["modes"].items():
        for name, row in rows.items():
            limit = "" if row["limit"] is None else f"{row['limit']:.0f}x"
            print(f"{name:<24} {mode:<7} {row['median_ms']:>10.1f} {row['ratio']:>7.2f} {limit:>6}")
    print(f"wrote {args.out}")
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
