"""One SHA-256 over the reports of a seeded workload, to show a change keeps them byte-identical.

Run from the repository root, before and after a change::

    .venv/bin/python benchmarks/perf/identity_reports.py --narrations 6000 --seed 1

Every narration of :func:`workload.narrations` is verified under ``paper`` and then
``strict``; the hash covers each ``Report.model_dump_json()`` in that order. With
``--answers`` the ``check_answer`` result (``to_dict()`` as sorted JSON) of each
narration's claim texts (one per line, against the statements of the cited nodes, as in
``run.py``) is hashed too. The whole
workload is verified twice in the same process and both passes must give the same
digest, so a cache that changes an answer once it is warm is caught as well.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import workload  # noqa: E402

from verity import check_answer, verify  # noqa: E402
from verity.core.graph import EvidenceGraph  # noqa: E402


def _passages(narration: dict[str, Any], graph: EvidenceGraph) -> list[dict[str, str]]:
    cited = dict.fromkeys(i for c in narration["claims"] for i in c["cited_evidence_ids"])
    return [{"id": i, "text": graph.nodes[i].statement} for i in cited if i in graph.nodes]


def digest(
    narrations: list[dict[str, Any]], graphs: dict[str, EvidenceGraph], answers: bool
) -> str:
    """SHA-256 of every report (paper, then strict; then the answer check) in order."""
    sha = hashlib.sha256()
    for narration in narrations:
        graph = graphs[narration["graph_id"]]
        for profile in ("paper", "strict"):
            sha.update(verify(graph, narration, profile).model_dump_json().encode())
            sha.update(b"\n")
        if answers:
            text = "\n".join(c["text"] for c in narration["claims"])
            result = check_answer(text, _passages(narration, graph)).to_dict()
            sha.update(json.dumps(result, sort_keys=True, ensure_ascii=False).encode())
            sha.update(b"\n")
    return sha.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--narrations", type=int, default=6000)
    parser.add_argument("--claims", type=int, default=8, help="claims per narration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--answers", action="store_true", help="hash check_answer results too")
    args = parser.parse_args(argv)
    pools = workload.load_pools(workload.graph_paths())
    graphs = {p.graph.graph_id: p.graph for p in pools}
    narrations = [n for n, _ in workload.narrations(pools, args.narrations, args.claims, args.seed)]
    cold = digest(narrations, graphs, args.answers)
    warm = digest(narrations, graphs, args.answers)
    if cold != warm:
        print(f"first pass {cold} differs from second pass {warm}", file=sys.stderr)
        return 1
    print(cold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
