"""Narrations a strong model wrote from verity's own prompts, replayed and verified.

``taught/`` holds, per graph, the grounded prompt verity sends (``NAME.pass0.txt``), the
reply a strong instruction-following model wrote to it (``NAME.pass0.reply.json``, as the
model wrote it), the repair prompt verity sent back for that reply (``NAME.pass1.txt``) and
the model's reply to it (``NAME.pass1.reply.json``). ``labels.json`` gives each claim of the
replies its truth against the evidence it cites (read by hand: ``true`` or ``false``, with
why for a false one).

Run from the repository root::

    .venv/bin/python benchmarks/hosted/taught.py --prompts      # write the pass-0 prompts
    .venv/bin/python benchmarks/hosted/taught.py                # verify the recorded replies
    .venv/bin/python benchmarks/hosted/taught.py --json

Verifying replays the recorded replies through :func:`verity.llm.repair.narrate_and_verify`
(strict, one repair). A graph whose pass-0 reply has refused claims and no recorded repair
reply gets its repair prompt written to ``NAME.pass1.txt`` and is reported as waiting. The
figures: claims written, shipped at pass 0, shipped after the one repair, how many shipped
claims are a cited statement word for word, and false claims shipped (must be 0; the script
exits 1 naming them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TAUGHT = HERE / "taught"
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (the hosted benchmark's graph references and verbatim rule)

from verity.llm.prompts import build_prompt  # noqa: E402
from verity.llm.repair import narrate_and_verify  # noqa: E402

#: The graphs: both backends, the two optimization examples and card plans of each kind.
GRAPHS: Mapping[str, str] = {
    "card-p05": "card/p05-max_value",
    "card-p14": "card/p14-no_fee",
    "card-p31": "card/p31-two_cards",
    "card-p45": "card/p45-max_value",
    "card-p45nf": "card/p45-no_fee",
    "sql-sample": "sql/sample",
    "lp-production-plan": "lp/production_plan",
    "lp-staff-schedule": "lp/staff_schedule",
    "lp-budget": "lpfile:tests/fixtures/lp/plan/budget",
    "lp-transport": "lpfile:tests/fixtures/lp/plan/transport",
    "lp-blend": "lpfile:tests/fixtures/lp/plan/blend",
    "whatif-production-plan": "whatif:production_plan:hours_austin=250",
}


def graph_of(ref: str) -> Any:
    """:func:`run.graph_of`, and ``lpfile:PATH`` (``PATH.lp`` with ``PATH.labels.json``,
    from the repository root, solved now) and ``whatif:EXAMPLE:NAME=VALUE`` (an
    optimization example re-solved with one change: :func:`verity.what_if`)."""
    kind, _, rest = ref.partition(":")
    if kind == "lpfile":
        from verity.backends.pulp import graph_from_file

        return graph_from_file(ROOT / f"{rest}.lp", ROOT / f"{rest}.labels.json")
    if kind == "whatif":
        import verity
        from verity.backends.pulp import read_model

        example, _, change = rest.partition(":")
        name, _, value = change.partition("=")
        problem = read_model(run.EXAMPLES / f"{example}.lp")
        labels = run.EXAMPLES / f"{example}.labels.json"
        return verity.what_if(problem, {name: float(value)}, labels=labels)
    return run.graph_of(ref)


def write_prompts(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, ref in GRAPHS.items():
        prompt = build_prompt(graph_of(ref), "grounded")
        (directory / f"{name}.pass0.txt").write_text(run.prompt_text(prompt), "utf-8")


def measure(directory: Path, labels: Mapping[str, Any], *, write: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"graphs": {}, "escaped": [], "unlabelled": []}
    for name, ref in GRAPHS.items():
        if not (directory / f"{name}.pass0.reply.json").exists():
            continue
        g = graph_of(ref)
        narrator = run.Recorded(directory, name, write=write)
        result = narrate_and_verify(g, narrator, "grounded", profile="strict", repairs=1)
        first = result.passes[0]
        last = result.passes[-1]
        truth = labels.get(name, {})
        row = {
            "written": len(first.claims),
            "shipped_pass0": len(first.report.shipped),
            "shipped_final": len(last.report.shipped),
            "waiting": narrator.waiting,
        }
        shipped = list(last.report.shipped)
        row["verbatim_final"] = sum(run.is_verbatim(c, g) for c in shipped)
        row["verbatim_named"] = sum(run.is_verbatim(c, g, named=True) for c in shipped)
        for p_index, p in enumerate(result.passes):
            for c in p.report.shipped:
                key = f"pass{p_index}/{c.id}"
                if key not in truth:
                    out["unlabelled"].append(f"{name}/{key}: {c.text}")
                elif truth[key] is not True:
                    out["escaped"].append(f"{name}/{key}: {c.text} ({truth[key]})")
        out["graphs"][name] = row
    return out


def render(result: Mapping[str, Any]) -> str:
    lines = [
        "| graph | claims written | shipped, pass 0 | shipped after one repair "
        "| verbatim of shipped | verbatim, names as displayed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    tot = dict.fromkeys(
        ("written", "shipped_pass0", "shipped_final", "verbatim_final", "verbatim_named"), 0
    )
    for name, row in result["graphs"].items():
        for k in tot:
            tot[k] += row[k]
        wait = " (repair waiting)" if row["waiting"] else ""
        lines.append(
            f"| {name} | {row['written']} | {row['shipped_pass0']} | "
            f"{row['shipped_final']}{wait} | {row['verbatim_final']} | {row['verbatim_named']} |"
        )

    def pct(n: int, d: int) -> str:
        return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"

    lines.append(
        f"| all | {tot['written']} | {pct(tot['shipped_pass0'], tot['written'])} | "
        f"{pct(tot['shipped_final'], tot['written'])} | "
        f"{pct(tot['verbatim_final'], tot['shipped_final'])} | "
        f"{pct(tot['verbatim_named'], tot['shipped_final'])} |"
    )
    lines.append(f"\nfalse claims shipped: {len(result['escaped'])}")
    lines += [f"  {e}" for e in result["escaped"]]
    if result["unlabelled"]:
        lines.append(f"shipped claims without a label: {len(result['unlabelled'])}")
        lines += [f"  {e}" for e in result["unlabelled"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=TAUGHT)
    parser.add_argument("--prompts", action="store_true", help="write the pass-0 prompts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.prompts:
        write_prompts(args.dir)
        return 0
    labels_path = args.dir / "labels.json"
    labels = json.loads(labels_path.read_text("utf-8")) if labels_path.exists() else {}
    result = measure(args.dir, labels)
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 1 if result["escaped"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
