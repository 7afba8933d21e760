"""What the narrations of a benchmark run chose to say: selection figures per variant.

For each variant of a ``verity bench`` results file (JSON Lines, gzip when the name ends
in ``.gz``), over the first passes verified under ``strict``:

- parts told: distinct node types among the shipped claims (what they narrate: the
  first cited id), on average;
- covers the plan, an earner and a cap or threshold: the share of narrations whose
  shipped claims narrate the OBJECTIVE, an ALLOCATION_SEGMENT and a CAP_HIT or
  THRESHOLD, of those whose graph has all three kinds;
- mean salience: the mean ``salience`` of the narrated nodes of the shipped claims
  (absent counts as 0), and the share of shipped claims that narrate one of the ten most
  salient nodes of their graph;
- assumptions told: shipped claims narrating an ASSUMPTION node, per narration.

    python benchmarks/narrate/selection.py benchmarks/results/choice/results.jsonl.gz \\
        --graphs evidence_graphs/card_rewards
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from verity import load_graph
from verity.core.graph import EvidenceGraph


def _records(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def _graphs(directory: Path) -> dict[str, EvidenceGraph]:
    out: dict[str, EvidenceGraph] = {}
    for path in sorted(directory.glob("*.json")):
        graph = load_graph(path)
        out[graph.graph_id] = graph
    return out


def _narrated(record: dict[str, Any]) -> list[str]:
    """The narrated node of each claim that passed under strict, in shipped order."""
    passed = {v["id"] for v in record["verdicts"]["strict"] if v["passed"]}
    return [
        c["cited_evidence_ids"][0]
        for c in record["claims"]
        if isinstance(c, dict) and c.get("id") in passed and c.get("cited_evidence_ids")
    ]


def selection(records: list[dict[str, Any]], graphs: dict[str, EvidenceGraph]) -> list[str]:
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record["pass_index"] != 0 or "strict" not in record["verdicts"]:
            continue
        graph = graphs[record["graph_id"]]
        nodes = _narrated(record)
        if not nodes:
            continue
        row = rows[record["variant"]]
        types = [graph.nodes[n].type for n in nodes]
        row["parts"].append(len(set(types)))
        present = graph.node_types
        if {"OBJECTIVE", "ALLOCATION_SEGMENT"} <= present and present & {"CAP_HIT", "THRESHOLD"}:
            covers = {"OBJECTIVE", "ALLOCATION_SEGMENT"} <= set(types) and bool(
                set(types) & {"CAP_HIT", "THRESHOLD"}
            )
            row["covers"].append(float(covers))
        top = sorted(graph.model.nodes, key=lambda n: -(n.salience or 0.0))[:10]
        top_ids = {n.id for n in top}
        row["salience"].extend(graph.nodes[n].salience or 0.0 for n in nodes)
        row["top10"].extend(float(n in top_ids) for n in nodes)
        row["assumptions"].append(float(types.count("ASSUMPTION")))

    def mean(values: list[float]) -> str:
        return f"{sum(values) / len(values):.2f}" if values else "n/a"

    def share(values: list[float]) -> str:
        return f"{100 * sum(values) / len(values):.1f}%" if values else "n/a"

    out = [
        "| variant | narrations | parts told | covers plan, earner, cap or threshold "
        "| mean salience | claims among the 10 most salient | assumptions told |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant, row in rows.items():
        out.append(
            f"| {variant} | {len(row['parts'])} | {mean(row['parts'])} | "
            f"{share(row['covers'])} | {mean(row['salience'])} | {share(row['top10'])} | "
            f"{mean(row['assumptions'])} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--graphs", type=Path, default=Path("evidence_graphs/card_rewards"))
    args = parser.parse_args()
    print("\n".join(selection(_records(args.results), _graphs(args.graphs))))


if __name__ == "__main__":
    main()
