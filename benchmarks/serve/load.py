"""A bounded load test of ``verity serve`` on loopback.

Run from the repository root (the ``serve`` extra installed)::

    .venv/bin/python benchmarks/serve/load.py [--requests 5000] [--clients 8]
        [--max-seconds 600] [--json benchmarks/serve/results/load.json]

Starts ``python -m verity serve --port 0 --graphs evidence_graphs/card_rewards`` as a
child on 127.0.0.1, then ``--clients`` threads, each with one keep-alive connection,
send ``POST /v1/verify`` requests (``{"graph": GRAPH_ID, "narration": ...}``, cycling
through seeded narrations of 8 claims from ``benchmarks/perf/workload.py``) until
``--requests`` have been sent or ``--max-seconds`` have passed (the connections set
TCP_NODELAY). It records the latency of every request (p50, p90, p99, max), requests per
second, errors (any status but 200, any broken connection), the server process's resident
memory and the proportional memory of it and its worker processes after start-up, after
a warm-up of ``--warmup-passes`` passes over the narrations (each worker process fills
its own caches) and after the load; then stops the server with SIGTERM and checks that
it exits 0. The clients run in this process, so their own Python time is part of each
latency.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "perf"))

import workload  # noqa: E402  (benchmarks/perf/workload.py)


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid`` (the server's worker processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def pss_mib(pid: int) -> float:
    """The proportional set size of ``pid`` and its children: pages shared copy-on-write
    between the server and its forked workers are counted once."""
    total = 0.0
    for one in [pid, *children(pid)]:
        try:
            with open(f"/proc/{one}/smaps_rollup", encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def start_server(graphs: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """``verity serve --port 0 --graphs GRAPHS EXTRA`` on 127.0.0.1; (child, port)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "verity", "serve", "--port", "0", "--graphs", str(graphs), *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert child.stderr is not None
    line = child.stderr.readline().decode()
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if found is None:
        child.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return child, int(found.group(1))


def bodies(graphs: Path, count: int, seed: int) -> list[bytes]:
    pools = workload.load_pools(workload.graph_paths(graphs))
    out = []
    for line in workload.jsonl_lines(pools, count, 8, seed):
        narration = json.loads(line)
        out.append(json.dumps({"graph": narration["graph_id"], "narration": narration}).encode())
    return out


def connect(port: int) -> http.client.HTTPConnection:
    """A keep-alive connection with Nagle's algorithm off, as HTTP clients set it
    (http.client sends headers and body in two writes; with Nagle on, each request then
    waits for the server's delayed ACK, about 40 ms on Linux)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.connect()
    assert conn.sock is not None
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def one(conn: http.client.HTTPConnection, body: bytes) -> bool:
    conn.request("POST", "/v1/verify", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    return response.status == 200 and data.startswith(b'{"format":"verity.report/1"')


def load(
    port: int, payloads: list[bytes], requests: int, clients: int, max_seconds: float
) -> dict[str, Any]:
    tickets = itertools.count()
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + max_seconds

    def client() -> None:
        conn = connect(port)
        mine: list[float] = []
        try:
            while time.perf_counter() < deadline:
                with lock:
                    n = next(tickets)
                if n >= requests:
                    break
                started = time.perf_counter()
                failure = None
                try:
                    if not one(conn, payloads[n % len(payloads)]):
                        failure = "bad response"
                except (OSError, http.client.HTTPException) as exc:
                    failure = type(exc).__name__
                    conn.close()
                    conn = connect(port)
                mine.append(time.perf_counter() - started)
                if failure is not None:
                    with lock:
                        errors.append(failure)
        finally:
            conn.close()
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    ms = sorted(x * 1000 for x in latencies)
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {
        "requests": len(ms),
        "errors": len(errors),
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(ms) / wall, 1),
        "p50_ms": round(cuts[49], 2),
        "p90_ms": round(cuts[89], 2),
        "p99_ms": round(cuts[98], 2),
        "max_ms": round(ms[-1], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--narrations", type=int, default=500, help="distinct request bodies")
    parser.add_argument("--warmup-passes", type=int, default=3)
    parser.add_argument("--graphs", type=Path, default=ROOT / "evidence_graphs" / "card_rewards")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    payloads = bodies(args.graphs, args.narrations, args.seed)
    child, port = start_server(args.graphs)
    try:
        rss_start, pss_start = rss_mib(child.pid), pss_mib(child.pid)
        passes = args.warmup_passes * len(payloads)
        warm = load(port, payloads, passes, args.clients, args.max_seconds)
        rss_warm, pss_warm = rss_mib(child.pid), pss_mib(child.pid)
        result = load(port, payloads, args.requests, args.clients, args.max_seconds)
        rss_after, pss_after = rss_mib(child.pid), pss_mib(child.pid)
        workers = len(children(child.pid))
    finally:
        child.send_signal(signal.SIGTERM)
        status = child.wait(timeout=60)
    result.update(
        clients=args.clients,
        claims_per_request=8,
        body_kib_mean=round(sum(map(len, payloads)) / len(payloads) / 1024, 1),
        warmup_requests=warm["requests"],
        warmup_errors=warm["errors"],
        server_rss_mib={
            "after_start": round(rss_start, 1),
            "after_warmup": round(rss_warm, 1),
            "after_load": round(rss_after, 1),
        },
        server_and_workers_pss_mib={
            "after_start": round(pss_start, 1),
            "after_warmup": round(pss_warm, 1),
            "after_load": round(pss_after, 1),
        },
        server_children=workers,
        server_exit_status=status,
        cpus=os.cpu_count(),
    )
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["errors"] == 0 and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
