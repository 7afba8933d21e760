"""The long fuzz run: the hostile-input properties of tests/robustness with many examples.

Run from the repository root::

    .venv/bin/python benchmarks/fuzz/run.py [--examples 5000] [--seed 0] [-k EXPR]
        [--json benchmarks/fuzz/results.json]

It runs ``pytest tests/robustness`` with ``VERITY_FUZZ_EXAMPLES`` set (the properties
read it; CI uses a few hundred) and Hypothesis statistics on, then prints how many
examples each property ran (passing, failing, invalid) and the totals. The exit
status is pytest's: 0 when every property held.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_TEST = re.compile(r"^(tests/robustness/\S+::\S+):\s*$")
_COUNTS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


def parse_statistics(text: str) -> dict[str, dict[str, int]]:
    """Per property: examples passing, failing and invalid, summed over Hypothesis phases."""
    out: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        found = _TEST.match(line.strip())
        if found:
            current = found.group(1)
            out.setdefault(current, {"passing": 0, "failing": 0, "invalid": 0})
            continue
        counts = _COUNTS.search(line)
        if counts and current is not None:
            for key, value in zip(("passing", "failing", "invalid"), counts.groups(), strict=True):
                out[current][key] += int(value)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000, help="examples per property")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed")
    parser.add_argument("-k", dest="select", default=None, help="pytest -k expression")
    parser.add_argument("--json", type=Path, default=None, help="also write the counts here")
    args = parser.parse_args(argv)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "tests/robustness",
        "-q",
        "-p",
        "no:cacheprovider",
        "--hypothesis-show-statistics",
    ]
    if args.seed is not None:
        cmd.append(f"--hypothesis-seed={args.seed}")
    if args.select:
        cmd += ["-k", args.select]
    env = {**os.environ, "VERITY_FUZZ_EXAMPLES": str(args.examples)}
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    stats = parse_statistics(done.stdout)
    width = max((len(name) for name in stats), default=20)
    print(f"{'property':<{width}}  {'passing':>8}  {'failing':>8}  {'invalid':>8}")
    for name, row in stats.items():
        print(f"{name:<{width}}  {row['passing']:>8}  {row['failing']:>8}  {row['invalid']:>8}")
    total = {k: sum(row[k] for row in stats.values()) for k in ("passing", "failing", "invalid")}
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    print(
        f"\n{len(stats)} properties, {total['passing']} passing examples, {total['failing']} "
        f"failing, {total['invalid']} invalid, {args.examples} requested per property, "
        f"{seconds:.0f} s; pytest: {tail}"
    )
    if done.returncode != 0:
        print(done.stdout[-5000:], file=sys.stderr)
        print(done.stderr[-2000:], file=sys.stderr)
    if args.json:
        body: dict[str, Any] = {
            "examples_per_property": args.examples,
            "seed": args.seed,
            "seconds": seconds,
            "pytest": tail,
            "totals": total,
            "properties": stats,
        }
        args.json.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
