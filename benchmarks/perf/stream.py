"""Memory and parallel speed-up of ``verity verify-stream``, run as a child process.

Run from the repository root::

    .venv/bin/python benchmarks/perf/stream.py [--claims 1000000 250000] [--jobs 1 2]
        [--rounds 3] [--dir /tmp/verity-perf] [--json benchmarks/perf/results/stream.json]

For each size it writes (once, then reuses) a JSON Lines file of seeded narrations of
8 claims each under ``--dir`` (outside the repository), then runs
``python -m verity verify-stream GRAPHS FILE --jobs J > /dev/null``:

* ``--rounds`` timed runs of each J, the order of the Js reversed every other round so
  that a slow stretch of the machine does not fall on one J only. Nothing else of this
  script runs meanwhile (it waits for the child): wall time, CPU time, the largest single
  process (``ru_maxrss`` from ``os.wait4``) and the CPU time the hypervisor gave to
  other guests while the run went on (``steal`` in /proc/stat, all CPUs);
* then one memory run of each J, in which the resident memory of the command with all
  its workers together is sampled from /proc every 50 ms, with the growth of the
  machine's shared memory (``Shmem`` in /proc/meminfo): the spool files through which
  chunks pass between the processes live in /dev/shm and belong to no process's PSS.
  The sampling reads every page table of the tree and takes CPU time from the command
  on a machine with no idle core, so these runs are not timed for the speed-up.

The speed-up is the wall time with the first J over the wall time with each J, of the
medians over the rounds (``speed_up``) and of the fastest runs (``speed_up_best``: the
quietest stretch this machine gave).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


def _kib(path: str, *keys: str) -> list[int]:
    """The values in KiB of ``keys`` ("Rss:", ...) in a /proc file of "Key: N kB" lines
    (0 for a key it lacks, and for all when it cannot be read)."""
    found = dict.fromkeys(keys, 0)
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                fields = line.split()
                if fields and fields[0] in found:
                    found[fields[0]] = int(fields[1])
    except (OSError, ValueError):
        pass
    return list(found.values())


def _memory_kib(pid: int) -> tuple[int, int]:
    """(Rss, Pss) of a process in KiB; Pss shares each shared page among its users."""
    rss, pss = _kib(f"/proc/{pid}/smaps_rollup", "Rss:", "Pss:")
    return rss, pss


def _shmem_kib() -> int:
    """The machine's shared memory in KiB (Linux /proc/meminfo): tmpfs files among it."""
    return _kib("/proc/meminfo", "Shmem:")[0]


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


def _steal_s() -> float:
    """CPU seconds the hypervisor has given to others, over all CPUs (Linux /proc/stat)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run_stream(
    graphs: Path,
    path: Path,
    jobs: int,
    profile: str,
    extra: Sequence[str] = (),
    out: Path | None = None,
    *,
    sample: bool = True,
) -> dict[str, Any]:
    """One run of the command in a child: wall and CPU time, peak memory.

    ``extra`` are more options of the command (``--engine dask``); ``out`` receives its
    standard output (default: discarded).

    ``peak_rss_mib`` is ``ru_maxrss`` from ``os.wait4`` (the largest single process of
    the child's tree); with ``sample``, ``peak_tree_rss_mib`` and ``peak_tree_pss_mib``
    are the largest sums of the resident (proportional) memory of the command and its
    workers, sampled every 50 ms from /proc. Without it this process only waits, so the
    times are the command's alone. ``steal_s`` is the CPU time other guests of the
    hypervisor took meanwhile.
    """
    cmd = [sys.executable, "-m", "verity", "verify-stream", str(graphs), str(path)]
    cmd += ["--jobs", str(jobs), "--profile", profile, *extra]
    load = os.getloadavg()[0]
    steal = _steal_s()
    started = time.perf_counter()
    if out is None:
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    else:
        with out.open("wb") as sink:
            child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
    peak_tree = peak_pss = peak_shmem = 0
    shmem = _shmem_kib()
    samples: list[tuple[float, int]] = []  # (seconds, tree RSS KiB)
    if sample:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            sizes = [_memory_kib(p) for p in _tree(child.pid)]
            peak_tree = max(peak_tree, sum(r for r, _ in sizes))
            peak_pss = max(peak_pss, sum(p for _, p in sizes))
            peak_shmem = max(peak_shmem, _shmem_kib() - shmem)
            samples.append((time.perf_counter() - started, sum(r for r, _ in sizes)))
            time.sleep(0.05)
        stderr = child.stderr.read() if child.stderr else b""
    else:
        stderr = child.stderr.read() if child.stderr else b""  # until the command ends
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"verify-stream failed: {stderr[-500:]!r}")
    row: dict[str, Any] = {
        "jobs": jobs,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "steal_s": _steal_s() - steal,
        "load_before": load,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }
    if sample:
        row.update(
            peak_tree_rss_mib=peak_tree / 1024,
            peak_tree_pss_mib=peak_pss / 1024,
            peak_shmem_mib=peak_shmem / 1024,
            tree_rss_mib_by_quarter=_quarters(samples, wall),
        )
    return row


def _quarters(samples: list[tuple[float, int]], wall: float) -> list[float]:
    """The largest tree RSS (MiB) seen in each quarter of the run: flat when bounded."""
    out = []
    for q in range(4):
        inside = [kib for t, kib in samples if q * wall / 4 <= t < (q + 1) * wall / 4]
        out.append(round(max(inside, default=0) / 1024, 1))
    return out


def _rounds(jobs: Sequence[int], rounds: int) -> list[int]:
    """The Js of the timed runs in order: each round once, reversed every other round."""
    order: list[int] = []
    for r in range(rounds):
        order.extend(jobs if r % 2 == 0 else list(reversed(jobs)))
    return order


def summarize(jobs: int, timed: Sequence[dict[str, Any]], memory: dict[str, Any]) -> dict[str, Any]:
    """One J's row: medians and the fastest of its timed runs, memory from its memory run."""
    walls = [r["wall_s"] for r in timed]
    return {
        "jobs": jobs,
        "rounds": len(timed),
        "wall_s": statistics.median(walls),
        "wall_best_s": min(walls),
        "walls_s": [round(w, 2) for w in walls],
        "cpu_s": statistics.median(r["cpu_s"] for r in timed),
        "steal_s": [round(r["steal_s"], 2) for r in timed],
        "load_before": [round(r["load_before"], 2) for r in timed],
        "peak_rss_mib": max(r["peak_rss_mib"] for r in [*timed, memory]),
        "peak_tree_rss_mib": memory["peak_tree_rss_mib"],
        "peak_tree_pss_mib": memory["peak_tree_pss_mib"],
        "peak_shmem_mib": memory["peak_shmem_mib"],
        "peak_pss_and_spool_mib": memory["peak_tree_pss_mib"] + memory["peak_shmem_mib"],
        "tree_rss_mib_by_quarter": memory["tree_rss_mib_by_quarter"],
        "memory_run_wall_s": memory["wall_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[250_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each J")
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/verity-perf"))
    parser.add_argument("--graphs", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.dir.mkdir(parents=True, exist_ok=True)
    graphs = graph_dir(args.graphs)
    rows = []
    print(f"graphs {graphs}, profile {args.profile}, cpus {os.cpu_count()}", flush=True)
    for claims in args.claims:
        path = args.dir / f"narrations-{claims}.jsonl"
        lines = write_input(path, claims, args.graphs, args.seed)
        size = path.stat().st_size / 2**20
        timed: dict[int, list[dict[str, Any]]] = {j: [] for j in args.jobs}
        for jobs in _rounds(args.jobs, args.rounds):
            run = run_stream(graphs, path, jobs, args.profile, sample=False)
            timed[jobs].append(run)
            print(
                f"  {lines * CLAIMS_PER} claims, jobs {jobs}: {run['wall_s']:.1f} s wall, "
                f"{run['cpu_s']:.1f} s CPU, {run['steal_s']:.1f} s stolen, "
                f"load {run['load_before']:.2f} before",
                flush=True,
            )
        memory = {}
        for jobs in args.jobs:
            memory[jobs] = run_stream(graphs, path, jobs, args.profile)
            print(
                f"  memory run, jobs {jobs}: {memory[jobs]['peak_tree_pss_mib']:.1f} MiB PSS, "
                f"shared memory (the spool) up by at most {memory[jobs]['peak_shmem_mib']:.1f} MiB",
                flush=True,
            )
        print(
            f"{'claims':>9}{'lines':>8}{'MiB in':>8}{'jobs':>5}{'wall s':>8}{'best s':>8}"
            f"{'cpu s':>8}{'claims/s':>10}{'max RSS MiB':>13}{'tree RSS':>10}{'tree PSS':>10}"
            f"{'speed-up':>10}{'best':>6}  tree RSS by quarter of the run"
        )
        base = best = None
        for jobs in args.jobs:
            row = summarize(jobs, timed[jobs], memory[jobs])
            row.update(claims=lines * CLAIMS_PER, lines=lines, input_mib=size)
            base = base or row["wall_s"]
            best = best or row["wall_best_s"]
            row["speed_up"] = base / row["wall_s"]
            row["speed_up_best"] = best / row["wall_best_s"]
            row["claims_per_s"] = row["claims"] / row["wall_s"]
            rows.append(row)
            print(
                f"{row['claims']:>9}{lines:>8}{size:>8.0f}{jobs:>5}{row['wall_s']:>8.1f}"
                f"{row['wall_best_s']:>8.1f}{row['cpu_s']:>8.1f}{row['claims_per_s']:>10,.0f}"
                f"{row['peak_rss_mib']:>13.1f}{row['peak_tree_rss_mib']:>10.1f}"
                f"{row['peak_tree_pss_mib']:>10.1f}{row['speed_up']:>10.2f}"
                f"{row['speed_up_best']:>6.2f}  {row['tree_rss_mib_by_quarter']}"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
