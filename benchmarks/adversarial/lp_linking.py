"""Linking and big-M rows of optimization models: false claims shipped, true claims refused.

Run from the repository root::

    .venv/bin/python benchmarks/adversarial/lp_linking.py [--verbose]

``tests/fixtures/lp/linking_attacks.json`` holds claims over two models of
``tests/fixtures/lp`` (``depots.lp``, a facility location with linking, minimum-if-open and
big-M rows; ``staffing.lp``, people switched on by a lead and customers by people): attacks
that read such a row as a limit of 0 or call the row of a closed site a binding limit, and
true controls in the backend's wording. Each claim declares the entities and numbers its
text mentions, as a careful attacker would, so only the text check decides. A cited node
the graph lacks (a graph built before linking rows were stated) is dropped from the
citation; a claim left with none is refused. Prints, per model and in all, the attacks
strict ships and the controls it refuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verity import EvidenceGraph, verify  # noqa: E402
from verity.backends.pulp import graph_from_file  # noqa: E402
from verity.core.graph import entity_scan  # noqa: E402
from verity.text.numbers import find_numbers, number_value  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "lp"
DATA = FIXTURES / "linking_attacks.json"


def graph_of(name: str) -> EvidenceGraph:
    return graph_from_file(FIXTURES / f"{name}.lp", FIXTURES / f"{name}.labels.json")


def claim_of(graph: EvidenceGraph, cite: list[str], text: str) -> dict[str, Any] | None:
    """The claim citing ``cite`` (the ids the graph has), declaring what ``text`` mentions."""
    cited = [c for c in cite if c in graph.nodes]
    if not cited:
        return None
    first = graph.nodes[cited[0]]
    rule = next(r for r in graph.model.rules if first.type in r.requires[0].any_of)
    mentioned = [m.entity_id for m in graph.matcher.mentions(text)]
    values = {number_value(n): n for c in cited for n in graph.nodes[c].numbers}
    numbers = [
        values[m.value]
        for m in find_numbers(entity_scan(text, graph.matcher)[1])
        if m.value in values
    ]
    return {
        "id": "c1",
        "type": rule.claim_type,
        "text": text,
        "cited_evidence_ids": cited,
        "entities": list(dict.fromkeys(mentioned)),
        "numbers": list(dict.fromkeys(numbers)),
    }


def ships(graph: EvidenceGraph, case: dict[str, Any]) -> bool:
    claim = claim_of(graph, case["cite"], case["text"])
    if claim is None:
        return False
    return verify(graph, {"claims": [claim]}, profile="strict").summary.all_claims_verified


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list each miss")
    args = parser.parse_args(argv)
    cases = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    graphs = {name: graph_of(name) for name in dict.fromkeys(c["graph"] for c in cases)}
    rows: dict[str, list[int]] = {}
    for case in cases:
        shipped = ships(graphs[case["graph"]], case)
        row = rows.setdefault(case["graph"], [0, 0, 0, 0])
        if case["expect"] == "refused":
            row[0] += 1
            row[1] += int(shipped)
            miss = shipped
        else:
            row[2] += 1
            row[3] += int(not shipped)
            miss = not shipped
        if args.verbose and miss:
            print(f"  {case['expect']:8} {case['graph']}: {case['text']}")
    total = [sum(r[i] for r in rows.values()) for i in range(4)]
    print("| model | attacks shipped | controls refused |")
    print("|---|---|---|")
    for name, (n_att, n_shipped, n_ctl, n_refused) in [*rows.items(), ("all", total)]:
        print(f"| {name} | {n_shipped} of {n_att} | {n_refused} of {n_ctl} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
