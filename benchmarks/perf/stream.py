"""Memory and parallel speed-up of ``verity verify-stream``, run as a child process.

Run from the repository root::

    .venv/bin/python benchmarks/perf/stream.py [--claims 1000000 250000] [--jobs 1 2]
        [--dir /tmp/verity-perf] [--json benchmarks/perf/results/stream.json]

For each size it writes (once, then reuses) a JSON Lines file of seeded narrations of
8 claims each under ``--dir`` (outside the repository), then runs
``python -m verity verify-stream GRAPHS FILE --jobs J > /dev/null`` for each J and
records wall time, CPU time, claims per second and peak resident memory: of the
largest single process (``ru_maxrss`` from ``os.wait4``) and of the command with all
its workers together (sampled from /proc every 50 ms). The speed-up is the wall time
with the first J over the wall time with each J.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import workload  # noqa: E402

CLAIMS_PER = 8


def write_input(path: Path, claims: int, graphs: Path | None, seed: int) -> int:
    """Write ``claims / 8`` narrations to ``path`` unless it exists; the number of lines."""
    count = claims // CLAIMS_PER
    if path.exists():
        return count
    pools = workload.load_pools(workload.graph_paths(graphs))
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for line in workload.jsonl_lines(pools, count, CLAIMS_PER, seed):
            out.write(line)
            out.write("\n")
    tmp.replace(path)
    return count


def graph_dir(graphs: Path | None) -> Path:
    paths = workload.graph_paths(graphs)
    return paths[0].parent if graphs is None else graphs


def _memory_kib(pid: int) -> tuple[int, int]:
    """(Rss, Pss) of a process in KiB; Pss shares each shared page among its users."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def _tree(pid: int) -> list[int]:
    """The process and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    todo.extend(int(x) for x in handle.read().split())
        except OSError:
            continue
    return out


def run_stream(
    graphs: Path,
    path: Path,
    jobs: int,
    profile: str,
    extra: Sequence[str] = (),
    out: Path | None = None,
) -> dict[str, Any]:
    """One run of the command in a child: wall and CPU time, peak memory.

    ``extra`` are more options of the command (``--engine dask``); ``out`` receives its
    standard output (default: discarded).

    ``peak_rss_mib`` is ``ru_maxrss`` from ``os.wait4`` (the largest single process of
    the child's tree); ``peak_tree_rss_mib`` and ``peak_tree_pss_mib`` are the largest
    sums of the resident (proportional) memory of the command and its workers,
    sampled every 50 ms from /proc.
    """
    cmd = [sys.executable, "-m", "verity", "verify-stream", str(graphs), str(path)]
    cmd += ["--jobs", str(jobs), "--profile", profile, *extra]
    started = time.perf_counter()
    sink = out.open("wb") if out is not None else subprocess.DEVNULL
    try:
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
    finally:
        if out is not None:
            sink.close()
    peak_tree = peak_pss = 0
    samples: list[tuple[float, int]] = []  # (seconds, tree RSS KiB)
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        sizes = [_memory_kib(p) for p in _tree(child.pid)]
        peak_tree = max(peak_tree, sum(r for r, _ in sizes))
        peak_pss = max(peak_pss, sum(p for _, p in sizes))
        samples.append((time.perf_counter() - started, sum(r for r, _ in sizes)))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    stderr = child.stderr.read() if child.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"verify-stream failed: {stderr[-500:]!r}")
    return {
        "jobs": jobs,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "peak_tree_rss_mib": peak_tree / 1024,
        "peak_tree_pss_mib": peak_pss / 1024,
        "tree_rss_mib_by_quarter": _quarters(samples, wall),
    }


def _quarters(samples: list[tuple[float, int]], wall: float) -> list[float]:
    """The largest tree RSS (MiB) seen in each quarter of the run: flat when bounded."""
    out = []
    for q in range(4):
        inside = [kib for t, kib in samples if q * wall / 4 <= t < (q + 1) * wall / 4]
        out.append(round(max(inside, default=0) / 1024, 1))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[250_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/verity-perf"))
    parser.add_argument("--graphs", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    graphs = graph_dir(args.graphs)
    rows = []
    print(f"graphs {graphs}, profile {args.profile}, cpus {os.cpu_count()}")
    print(
        f"{'claims':>9}{'lines':>8}{'MiB in':>8}{'jobs':>5}{'wall s':>8}{'cpu s':>8}"
        f"{'claims/s':>10}{'max RSS MiB':>13}{'tree RSS':>10}{'tree PSS':>10}{'speed-up':>10}"
        "  tree RSS by quarter of the run"
    )
    for claims in args.claims:
        path = args.dir / f"narrations-{claims}.jsonl"
        lines = write_input(path, claims, args.graphs, args.seed)
        size = path.stat().st_size / 2**20
        base = None
        for jobs in args.jobs:
            row = run_stream(graphs, path, jobs, args.profile)
            row.update(claims=lines * CLAIMS_PER, lines=lines, input_mib=size)
            base = base or row["wall_s"]
            row["speed_up"] = base / row["wall_s"]
            row["claims_per_s"] = row["claims"] / row["wall_s"]
            rows.append(row)
            print(
                f"{row['claims']:>9}{lines:>8}{size:>8.0f}{jobs:>5}{row['wall_s']:>8.1f}"
                f"{row['cpu_s']:>8.1f}{row['claims_per_s']:>10,.0f}{row['peak_rss_mib']:>13.1f}"
                f"{row['peak_tree_rss_mib']:>10.1f}{row['peak_tree_pss_mib']:>10.1f}"
                f"{row['speed_up']:>10.2f}  {row['tree_rss_mib_by_quarter']}"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
