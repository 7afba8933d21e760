"""Memory and parallel speed-up of ``verity verify-stream``, run as a child process.

Run from the repository root::

    .venv/bin/python benchmarks/perf/stream.py [--claims 1000000 250000] [--jobs 1 2]
        [--rounds 3] [--trees NAME=PATH ...] [--dir /tmp/verity-perf]
        [--json benchmarks/perf/results/stream.json]

For each size it writes (once, then reuses) a JSON Lines file of seeded narrations of
8 claims each under ``--dir`` (outside the repository), then runs
``python -m verity verify-stream GRAPHS FILE --jobs J > /dev/null``, with the code of
each ``--trees`` checkout (``NAME=PATH``: the child runs with ``PYTHONPATH=PATH``; by
default this checkout alone), so that two versions are measured side by side:

* ``--rounds`` timed runs of each tree and J, the order of the (tree, J) pairs reversed
  every other round so that a slow stretch of the machine does not fall on one of them
  only. Nothing else of this script runs meanwhile (it waits for the child): wall time,
  CPU time, the largest single process (``ru_maxrss`` from ``os.wait4``) and the CPU time
  the hypervisor gave to other guests while the run went on (``steal`` in /proc/stat,
  all CPUs);
* then one memory run of each tree and J, in which the resident memory of the command
  with all its workers together is sampled from /proc every 50 ms. The sampling reads
  every page table of the tree of processes and takes CPU time from the command on a
  machine with no idle core, so these runs are not timed for the speed-up.

The speed-up is the wall time with the first J over the wall time with each J, of the
same tree, of the medians over the rounds (``speed_up``) and of the fastest runs
(``speed_up_best``: the quietest stretch this machine gave).
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
    tree: Path | None = None,
) -> dict[str, Any]:
    """One run of the command in a child: wall and CPU time, peak memory.

    ``extra`` are more options of the command (``--engine dask``); ``out`` receives its
    standard output (default: discarded); ``tree`` is the checkout whose code runs
    (default: the one ``python -m verity`` finds).

    ``peak_rss_mib`` is ``ru_maxrss`` from ``os.wait4`` (the largest single process of
    the child's tree); with ``sample``, ``peak_tree_rss_mib`` and ``peak_tree_pss_mib``
    are the largest sums of the resident (proportional) memory of the command and its
    workers, sampled every 50 ms from /proc. Without it this process only waits, so the
    times are the command's alone. ``steal_s`` is the CPU time other guests of the
    hypervisor took meanwhile.
    """
    cmd = [sys.executable, "-m", "verity", "verify-stream", str(graphs), str(path)]
    cmd += ["--jobs", str(jobs), "--profile", profile, *extra]
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    load = os.getloadavg()[0]
    steal = _steal_s()
    started = time.perf_counter()
    if out is None:
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    else:
        with out.open("wb") as sink:
            child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE, env=env)
    peak_tree = peak_pss = 0
    samples: list[tuple[float, int]] = []  # (seconds, tree RSS KiB)
    if sample:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            sizes = [_memory_kib(p) for p in _tree(child.pid)]
            peak_tree = max(peak_tree, sum(r for r, _ in sizes))
            peak_pss = max(peak_pss, sum(p for _, p in sizes))
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


def _rounds(pairs: Sequence[tuple[str, int]], rounds: int) -> list[tuple[str, int]]:
    """The (tree, J) pairs of the timed runs in order: each once a round, the order
    reversed every other round."""
    order: list[tuple[str, int]] = []
    for r in range(rounds):
        order.extend(pairs if r % 2 == 0 else list(reversed(pairs)))
    return order


def _trees(specs: Sequence[str]) -> dict[str, Path | None]:
    """``NAME=PATH`` specs by name (none: this checkout, as found by ``-m verity``)."""
    if not specs:
        return {"this": None}
    trees: dict[str, Path | None] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not (Path(path) / "verity").is_dir():
            raise SystemExit(f"--trees wants NAME=PATH of a checkout, not {spec!r}")
        trees[name] = Path(path).resolve()
    return trees


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
        "tree_rss_mib_by_quarter": memory["tree_rss_mib_by_quarter"],
        "memory_run_wall_s": memory["wall_s"],
    }


HEADER = (
    f"{'tree':>8}{'claims':>9}{'lines':>8}{'MiB in':>8}{'jobs':>5}{'wall s':>8}{'best s':>8}"
    f"{'cpu s':>8}{'claims/s':>10}{'max RSS MiB':>13}{'tree RSS':>10}{'tree PSS':>10}"
    f"{'speed-up':>10}{'best':>6}  tree RSS by quarter of the run"
)


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['tree']:>8}{row['claims']:>9}{row['lines']:>8}{row['input_mib']:>8.0f}"
        f"{row['jobs']:>5}{row['wall_s']:>8.1f}{row['wall_best_s']:>8.1f}{row['cpu_s']:>8.1f}"
        f"{row['claims_per_s']:>10,.0f}{row['peak_rss_mib']:>13.1f}"
        f"{row['peak_tree_rss_mib']:>10.1f}{row['peak_tree_pss_mib']:>10.1f}"
        f"{row['speed_up']:>10.2f}{row['speed_up_best']:>6.2f}  {row['tree_rss_mib_by_quarter']}"
    )


def measure(
    graphs: Path,
    path: Path,
    trees: dict[str, Path | None],
    jobs: Sequence[int],
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """The rows of one input: every tree and J, timed in alternating rounds, then memory."""
    pairs = [(name, j) for name in trees for j in jobs]
    timed: dict[tuple[str, int], list[dict[str, Any]]] = {pair: [] for pair in pairs}
    for name, j in _rounds(pairs, args.rounds):
        run = run_stream(graphs, path, j, args.profile, sample=False, tree=trees[name])
        timed[name, j].append(run)
        print(
            f"  {name}, jobs {j}: {run['wall_s']:.1f} s wall, {run['cpu_s']:.1f} s CPU, "
            f"{run['steal_s']:.1f} s stolen, load {run['load_before']:.2f} before",
            flush=True,
        )
    rows = []
    for name, j in pairs:
        memory = run_stream(graphs, path, j, args.profile, tree=trees[name])
        print(f"  memory run, {name}, jobs {j}: {memory['peak_tree_pss_mib']:.1f} MiB PSS")
        row = summarize(j, timed[name, j], memory)
        row.update(tree=name, pythonpath=str(trees[name] or ""))
        rows.append(row)
    return rows


def _speed_ups(rows: list[dict[str, Any]]) -> None:
    """Each row's speed-up over the first row of its tree (its first J)."""
    first: dict[str, dict[str, Any]] = {}
    for row in rows:
        base = first.setdefault(row["tree"], row)
        row["speed_up"] = base["wall_s"] / row["wall_s"]
        row["speed_up_best"] = base["wall_best_s"] / row["wall_best_s"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[250_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each tree and J")
    parser.add_argument("--trees", nargs="+", default=[], metavar="NAME=PATH")
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/verity-perf"))
    parser.add_argument("--graphs", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    trees = _trees(args.trees)
    args.dir.mkdir(parents=True, exist_ok=True)
    graphs = graph_dir(args.graphs)
    rows = []
    print(f"graphs {graphs}, profile {args.profile}, cpus {os.cpu_count()}", flush=True)
    for claims in args.claims:
        path = args.dir / f"narrations-{claims}.jsonl"
        lines = write_input(path, claims, args.graphs, args.seed)
        size = path.stat().st_size / 2**20
        measured = measure(graphs, path, trees, args.jobs, args)
        _speed_ups(measured)
        print(HEADER)
        for row in measured:
            row.update(claims=lines * CLAIMS_PER, lines=lines, input_mib=size)
            row["claims_per_s"] = row["claims"] / row["wall_s"]
            print(_line(row))
        rows.extend(measured)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
