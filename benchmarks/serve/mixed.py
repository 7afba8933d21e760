"""Small requests of ``verity serve`` alone, then with large ones in flight (loopback).

Run from the repository root (the ``serve`` extra installed)::

    .venv/bin/python benchmarks/serve/mixed.py [--requests 2000] [--clients 2]
        [--large-clients 1] [--max-seconds 300] [--json benchmarks/results/serve_mixed.json]

Starts ``python -m verity serve --port 0 --graphs evidence_graphs/card_rewards
--max-body 4194304`` (plus ``--workers N`` when given) as a child on 127.0.0.1 and warms
it up with ``--warmup-passes`` passes over the small bodies from ``--warmup-clients``
clients (each worker process fills its own caches: with several workers, one pass is not
enough, and one client in turn could give each worker the same half of the bodies every
pass) and one large request. Then, twice, ``--clients``
threads with one keep-alive connection each send ``--requests`` small ``POST /v1/verify``
requests (narrations of 8 claims by ``graph_id``, as ``load.py`` sends them, about 2 kB):
first alone, then while ``--large-clients`` other threads send large requests one after
another without pause (3,875 claims and the example graph inline, 905 kB:
``serve_bodies.py``), from before the first small request to after the last. It reports
the small requests' p50/p99 in both runs, their ratio (the target: p99 with large requests
in flight within 5 times its value alone), and the large requests' count and latencies;
every answer must be 200. Each run stops at ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import load  # noqa: E402  (benchmarks/serve/load.py)
from serve_bodies import LARGE_REPEATS, large_body  # noqa: E402

#: The target: small-request p99 with large requests in flight / alone.
TARGET_RATIO = 5.0
_JSON = {"Content-Type": "application/json"}


def large_requests(
    port: int, body: bytes, stop: threading.Event, latencies: list[float], errors: list[str]
) -> None:
    """Send ``body`` again and again on one connection until ``stop`` is set."""
    conn = load.connect(port)
    try:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                conn.request("POST", "/v1/verify", body=body, headers=_JSON)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    errors.append(f"status {response.status}")
            except (OSError, http.client.HTTPException) as exc:
                errors.append(type(exc).__name__)
                conn.close()
                conn = load.connect(port)
            latencies.append(time.perf_counter() - started)
    finally:
        conn.close()


def with_large(
    port: int,
    payloads: list[bytes],
    args: argparse.Namespace,
    body: bytes,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The small load while ``args.large_clients`` threads send ``body``; (small, large)."""
    stop = threading.Event()
    latencies: list[float] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=large_requests, args=(port, body, stop, latencies, errors))
        for _ in range(args.large_clients)
    ]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # the first large bodies are sent and being verified
    try:
        small = load.load(port, payloads, args.requests, args.clients, args.max_seconds)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    ms = sorted(x * 1000 for x in latencies)
    large = {
        "requests": len(ms),
        "errors": len(errors),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "max_ms": round(ms[-1], 1) if ms else None,
    }
    return small, large


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="small requests a run")
    parser.add_argument("--clients", type=int, default=2, help="small-request clients")
    parser.add_argument("--large-clients", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None, help="verity serve --workers")
    parser.add_argument("--max-seconds", type=float, default=300, help="limit of each run")
    parser.add_argument("--narrations", type=int, default=500, help="distinct small bodies")
    parser.add_argument("--warmup-passes", type=int, default=3)
    parser.add_argument("--warmup-clients", type=int, default=4)
    parser.add_argument("--graphs", type=Path, default=ROOT / "evidence_graphs" / "card_rewards")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    payloads = load.bodies(args.graphs, args.narrations, args.seed)
    body = large_body(inline=True)
    extra = ["--max-body", str(4 * 1024 * 1024)]
    if args.workers is not None:
        extra += ["--workers", str(args.workers)]
    child, port = load.start_server(args.graphs, *extra)
    try:
        passes = args.warmup_passes * len(payloads)
        warm = load.load(port, payloads, passes, args.warmup_clients, args.max_seconds)
        warm_large: list[float] = []
        warm_errors: list[str] = []
        conn = load.connect(port)
        try:  # one large request, so the first one measured is not a cold one
            started = time.perf_counter()
            conn.request("POST", "/v1/verify", body=body, headers=_JSON)
            response = conn.getresponse()
            response.read()
            warm_large.append(time.perf_counter() - started)
            if response.status != 200:
                warm_errors.append(f"status {response.status}")
        finally:
            conn.close()
        alone = load.load(port, payloads, args.requests, args.clients, args.max_seconds)
        small, large = with_large(port, payloads, args, body)
    finally:
        child.send_signal(signal.SIGTERM)
        status = child.wait(timeout=60)
    keys = ("requests", "errors", "p50_ms", "p90_ms", "p99_ms", "max_ms", "requests_per_s")
    result = {
        "small_alone": {k: alone[k] for k in keys},
        "small_with_large": {k: small[k] for k in keys},
        "p99_ratio": round(small["p99_ms"] / alone["p99_ms"], 2),
        "p50_ratio": round(small["p50_ms"] / alone["p50_ms"], 2),
        "target_p99_ratio": TARGET_RATIO,
        "large": large,
        "large_alone_ms": round(warm_large[0] * 1000, 1),
        "large_claims": LARGE_REPEATS * 5,
        "large_body_kb": round(len(body) / 1000, 1),
        "small_body_kib_mean": round(sum(map(len, payloads)) / len(payloads) / 1024, 1),
        "clients": args.clients,
        "large_clients": args.large_clients,
        "workers": args.workers,
        "warmup_passes": args.warmup_passes,
        "warmup_clients": args.warmup_clients,
        "warmup_errors": warm["errors"] + len(warm_errors),
        "server_exit_status": status,
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    failed = alone["errors"] + small["errors"] + large["errors"] + result["warmup_errors"]
    return 0 if failed == 0 and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
