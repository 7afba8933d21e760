"""Byte-identity of reports over a seeded workload (core branch check).

Hashes ``Report.model_dump_json()`` of 6000 generated narrations (benchmarks/perf/workload.py,
seed 0, 8 claims each) under ``paper`` and ``strict``, plus the same narrations with seeded
schema faults (wrong types, blank or overlong fields, missing and extra keys) so the
claim-field checks are covered too. Prints one sha256 per part and one over all::

    python benchmarks/perf/identity_core.py [--narrations 6000] [--expect HEX] [--plain]
        [--installed]

With ``--plain`` every report is also computed the plain way (inside
``verity.core.shortcuts.disabled()``: every gate on every claim, no per-node answers,
``json.loads``) and, for the same narration as JSON text, through ``verify_json``; the
three must be byte-identical, and the run exits 1 on the first part that differs.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# --installed: check the verity installed in this interpreter (a wheel), not the checkout's.
if "--installed" not in sys.argv:
    sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import workload  # noqa: E402

import verity  # noqa: E402
from verity import verify, verify_json  # noqa: E402
from verity._build import build_text  # noqa: E402
from verity.core import shortcuts  # noqa: E402
from verity.core.claims import Narration  # noqa: E402
from verity.errors import InputError  # noqa: E402

_FAULTS = (
    lambda c, r: c.update(text=""),
    lambda c, r: c.update(text="   "),
    lambda c, r: c.update(text="x" * 10_001),
    lambda c, r: c.update(id=""),
    lambda c, r: c.update(id="i" * 257),
    lambda c, r: c.update(type=7),
    lambda c, r: c.update(type=None),
    lambda c, r: c.update(entities="amex"),
    lambda c, r: c.update(numbers=[1, "", " ", "n" * 300]),
    lambda c, r: c.update(cited_evidence_ids=["e"] * 257),
    lambda c, r: c.pop("numbers", None),
    lambda c, r: c.pop("id", None),
    lambda c, r: c.update(extra=1, zz=True),
    lambda c, r: c.update({"k" * 80: 1}),
    lambda c, r: c.update(text=12.5, id=True),
)


def _faulty(narration: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(narration)
    claims = out["claims"]
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(claims))
        if rng.random() < 0.1:
            claims[i] = rng.choice([None, 3, "claim", [1, 2]])
        elif isinstance(claims[i], dict):
            rng.choice(_FAULTS)(claims[i], rng)
    return out


def _report_bytes(graph: Any, narration: Any, profile: str) -> bytes:
    try:
        return verify(graph, narration, profile).model_dump_json().encode()
    except InputError as exc:
        return f"InputError:{exc}".encode()


def _differences(graph: Any, narration: Any, profile: str, fast: bytes) -> list[str]:
    """Which other ways of computing ``fast`` disagree with it (empty: none)."""
    out = []
    with shortcuts.disabled():
        if _report_bytes(graph, narration, profile) != fast:
            out.append("plain")
    text = json.dumps(narration, ensure_ascii=False)
    try:
        from_text = verify_json(graph, text, profile).model_dump_json().encode()
    except InputError as exc:
        from_text = f"InputError:{exc}".encode()
    if from_text != fast:
        out.append("verify_json")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--narrations", type=int, default=6000)
    parser.add_argument("--claims", type=int, default=8)
    parser.add_argument("--expect", default=None)
    parser.add_argument("--plain", action="store_true", help="also compare with the plain path")
    parser.add_argument(
        "--installed", action="store_true", help="check the installed verity, not the checkout's"
    )
    args = parser.parse_args(argv)
    print(f"verity at {Path(verity.__file__).parent}: {build_text()}", file=sys.stderr)
    compared = differing = 0
    pools = workload.load_pools(workload.graph_paths())
    graphs = {p.graph.graph_id: p.graph for p in pools}
    narrations = [n for n, _ in workload.narrations(pools, args.narrations, args.claims, 0)]
    rng = random.Random(1)
    faulty = [_faulty(n, rng) for n in narrations[: args.narrations // 4]]
    total = hashlib.sha256()
    for part, items in (("workload", narrations), ("faulty", faulty)):
        for profile in ("paper", "strict"):
            h = hashlib.sha256()
            for n in items:
                graph = graphs[n["graph_id"]]
                fast = _report_bytes(graph, n, profile)
                h.update(fast)
                h.update(b"\n")
                if args.plain:
                    compared += 1
                    found = _differences(graph, n, profile, fast)
                    if found:
                        differing += 1
                        print(f"DIFFERS ({', '.join(found)}): {part} {profile}", file=sys.stderr)
            print(f"{part:<9}{profile:<7}{h.hexdigest()}")
            total.update(h.digest())
    # Narration objects go through the same checks as dicts.
    h = hashlib.sha256()
    for n in narrations[:500]:
        model = Narration.model_validate(n)
        h.update(verify(graphs[n["graph_id"]], model, "strict").model_dump_json().encode())
    print(f"{'model':<9}{'strict':<7}{h.hexdigest()}")
    total.update(h.digest())
    digest = total.hexdigest()
    print(f"all      {digest}")
    if args.plain:
        print(f"plain and verify_json: {compared - differing}/{compared} reports identical")
        if differing:
            return 1
    if args.expect is not None and args.expect != digest:
        print("MISMATCH", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
