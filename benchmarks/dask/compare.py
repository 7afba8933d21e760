"""verify-stream with local worker processes against Dask workers, on the same input.

Run from the repository root (the ``dask`` extra installed)::

    .venv/bin/python benchmarks/dask/compare.py [--claims 1000000] [--jobs 2]
        [--dir /tmp/verity-perf] [--json benchmarks/dask/results/compare.json]

Reuses ``benchmarks/perf/stream.py``: the same seeded input (8 claims a line, written
once under ``--dir``) and the same measurement of one child command (wall and CPU time,
peak memory of the largest process and of the whole process tree). For each J of
``--jobs`` it runs ``verify-stream --jobs J`` (local) and ``verify-stream --engine dask
--jobs J`` (a ``distributed.LocalCluster`` of J worker processes started by the command,
counted in the wall time), writes each output to ``--dir`` and checks that they are the
same bytes (sha256).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "perf"))

import stream  # noqa: E402  (benchmarks/perf/stream.py)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[2])
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/verity-perf"))
    parser.add_argument("--graphs", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    graphs = stream.graph_dir(args.graphs)
    path = args.dir / f"narrations-{args.claims}.jsonl"
    lines = stream.write_input(path, args.claims, args.graphs, args.seed)
    claims = lines * stream.CLAIMS_PER
    print(
        f"{claims} claims ({lines} lines), graphs {graphs}, profile {args.profile}, "
        f"cpus {os.cpu_count()}"
    )
    print(
        f"{'engine':>7}{'jobs':>5}{'wall s':>8}{'cpu s':>8}{'claims/s':>10}"
        f"{'max RSS MiB':>13}{'tree RSS':>10}  same bytes"
    )
    rows: list[dict[str, Any]] = []
    for jobs in args.jobs:
        digests = {}
        for engine in ("local", "dask"):
            out = args.dir / f"reports-{args.claims}-{engine}-{jobs}.jsonl"
            extra = ["--engine", engine]
            row = stream.run_stream(graphs, path, jobs, args.profile, extra, out)
            digests[engine] = _sha256(out)
            out.unlink()
            row.update(engine=engine, claims=claims, lines=lines)
            row["claims_per_s"] = claims / row["wall_s"]
            row["same_bytes_as_local"] = digests[engine] == digests["local"]
            rows.append(row)
            print(
                f"{engine:>7}{jobs:>5}{row['wall_s']:>8.1f}{row['cpu_s']:>8.1f}"
                f"{row['claims_per_s']:>10,.0f}{row['peak_rss_mib']:>13.1f}"
                f"{row['peak_tree_rss_mib']:>10.1f}  {row['same_bytes_as_local']}"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0 if all(r["same_bytes_as_local"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
