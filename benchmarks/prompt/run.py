"""Prompt tokens the declared language adds to the grounded prompt.

For each graph (the shipped card-rewards graphs of one profile, the SQL sample and both
optimization examples) it builds the first grounded prompt twice, with the declared
language (``forms``, ``optional`` and the lines that explain them; the default) and
without it (``build_prompt(..., language=False)``: the statements only), and counts the
tokens of the system and user messages with the local model's tokenizer (SmolLM2, read
with ``vocab_only``), or, when ``llama_cpp`` or the model is not installed, with
:func:`verity.llm.prompts.approx_tokens` (3 characters a token; it says which). The
budget is the prompt's: ``--max-nodes`` nodes, the most salient first on a graph that
marks salience.

    .venv/bin/python benchmarks/prompt/run.py [--max-nodes 40] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from verity.core.graph import EvidenceGraph, load_graph
from verity.examples import examples_dir
from verity.llm.prompts import MAX_PROMPT_NODES, Prompt, approx_tokens, build_prompt

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CARD_GRAPHS = ("p00-max_value", "p00-no_fee", "p00-two_cards")


def graphs() -> Iterator[EvidenceGraph]:
    """The measured graphs: card rewards (one profile, three goals), the SQL sample,
    the LP and MPS examples."""
    from verity.backends.pulp import graph_from_file
    from verity.backends.sql import graph_from_sample

    for name in CARD_GRAPHS:
        yield load_graph(ROOT / "evidence_graphs" / "card_rewards" / f"{name}.json")
    yield graph_from_sample()
    ex = examples_dir()
    yield graph_from_file(ex / "production_plan.lp", ex / "production_plan.labels.json")
    yield graph_from_file(ex / "staff_schedule.mps", ex / "staff_schedule.labels.json")


def counter() -> tuple[str, Callable[[Prompt], int]]:
    """(what counts, a function giving a prompt's tokens)."""
    try:
        from llama_cpp import Llama

        from verity.llm.narrators.local import MODEL_NAME, model_path

        vocab = Llama(model_path(), vocab_only=True, verbose=False)
    except Exception:  # no llama_cpp or no model: the documented estimate
        return "approx_tokens (3 characters a token)", approx_tokens

    def count(prompt: Prompt) -> int:
        text = prompt.system + "\n" + prompt.user
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False))

    return f"{MODEL_NAME} tokenizer", count


def measure(max_nodes: int) -> dict[str, Any]:
    """One row per graph: nodes listed, tokens without and with the declared language."""
    what, count = counter()
    rows = []
    for graph in graphs():
        before = build_prompt(graph, "grounded", max_nodes=max_nodes, language=False)
        after = build_prompt(graph, "grounded", max_nodes=max_nodes)
        rows.append(
            {
                "graph_id": graph.graph_id,
                "nodes": len(graph.model.nodes),
                "listed": len(after.listed_node_ids),
                "tokens_before": count(before),
                "tokens_after": count(after),
            }
        )
    return {"tokenizer": what, "max_nodes": max_nodes, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Grounded prompt tokens ({result['tokenizer']}, --max-nodes {result['max_nodes']})",
        "",
        "| graph | nodes listed | without the language | with it | added |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        added = r["tokens_after"] - r["tokens_before"]
        lines.append(
            f"| {r['graph_id']} | {r['listed']} of {r['nodes']} | {r['tokens_before']:,} "
            f"| {r['tokens_after']:,} | +{added:,} ({added / r['tokens_before']:.0%}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=MAX_PROMPT_NODES)
    parser.add_argument("--out", type=Path, help="write the rows as JSON here too")
    args = parser.parse_args(argv)
    result = measure(args.max_nodes)
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
