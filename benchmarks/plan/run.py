"""How many of a plan's decisions the default (choice) narration tells, per model.

Over the two worked examples (``verity/data/examples``) and four models of
``tests/fixtures/lp/plan`` (a transportation LP, a feed blend, a capital-budgeting MILP
with binaries, a four-quarter production and inventory LP), each solved with CBC, the
script builds the evidence graph and the ``choice`` prompt that ``verity narrate`` and
``verity demo`` use by default, then reports per model:

- ``plan``: the decisions in the plan (the graph's ``DECISION`` nodes);
- ``listed``: the decisions among the numbered items the choice narrator is offered
  (:func:`verity.llm.menu.choice_items`), out of all listed items;
- ``told``: the decisions among the claims of a narration that takes, at each step, the
  first listed item the selection allows (:func:`verity.llm.menu.allowed_items`), up to
  the prompt's claim budget (five), and the node types of those claims in order.

No model is called: the selection rule bounds what any model can choose, and the first
allowed item is what a model that follows the listing's order (most salient first)
picks. Run from the repository root::

    .venv/bin/python benchmarks/plan/run.py [--json FILE] [--solver cbc|highs]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from verity.backends.pulp import graph_from_file
from verity.llm.menu import allowed_items
from verity.llm.prompts import build_prompt

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "verity" / "data" / "examples"
PLAN = ROOT / "tests" / "fixtures" / "lp" / "plan"

#: name -> (model file, labels file)
MODELS: dict[str, tuple[Path, Path]] = {
    "production_plan": (EXAMPLES / "production_plan.lp", EXAMPLES / "production_plan.labels.json"),
    "staff_schedule": (EXAMPLES / "staff_schedule.mps", EXAMPLES / "staff_schedule.labels.json"),
    **{
        name: (PLAN / f"{name}.lp", PLAN / f"{name}.labels.json")
        for name in ("transport", "blend", "budget", "multiperiod")
    },
}


def told(prompt: Any) -> list[Any]:
    """The items a narration takes when it picks, at each step, the first listed item the
    selection allows."""
    items: list[Any] = []
    while len(items) < prompt.max_claims:
        allowed = allowed_items(prompt.menu, items)
        pick = next((i for i in prompt.listing if i in allowed), None)
        if pick is None:
            break
        items.append(pick)
    return items


def measure(name: str, solver: str) -> dict[str, Any]:
    """The figures of one model."""
    model, labels = MODELS[name]
    graph = graph_from_file(model, labels, solver_name=solver)
    prompt = build_prompt(graph, "choice")
    said = told(prompt)
    return {
        "model": name,
        "plan": sum(1 for n in graph.model.nodes if n.type == "DECISION"),
        "listed": sum(1 for i in prompt.listing if i.node_type == "DECISION"),
        "listing": len(prompt.listing),
        "told": sum(1 for i in said if i.node_type == "DECISION"),
        "claims": len(said),
        "order": [i.node_type for i in said],
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The figures as a Markdown table."""
    out = [
        "| model | decisions in the plan | listed (of items) | told (of claims) "
        "| claim types in order |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['model']} | {r['plan']} | {r['listed']} of {r['listing']} | "
            f"{r['told']} of {r['claims']} | {', '.join(r['order'])} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solver", default="cbc", choices=("cbc", "highs"))
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = parser.parse_args(argv)
    rows = [measure(name, args.solver) for name in MODELS]
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", "utf-8")
    short = [r["model"] for r in rows if r["told"] < min(3, r["plan"])]
    if short:
        print(f"fewer than 3 decisions (or all) told on: {', '.join(short)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
