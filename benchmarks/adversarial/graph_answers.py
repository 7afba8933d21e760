"""Free-text answers against evidence graphs: attacks accepted and controls refused, per
class and style, by ``check_answer(answer, graph=...)`` (``check-answer --graph``), and,
for comparison, by ``check_answer(answer, passages)`` with the graph's statements as the
passages (what a user could do before the graph mode).

Run from the repository root::

    .venv/bin/python benchmarks/adversarial/graph_answers.py [--json] [--verbose] [--timing]

Data: ``graph_freetext.json`` (one-sentence answers over card-rewards graphs, the SQL
sample graph and two SQL graphs of public data in ``public_data/``). An attack is
*accepted* when its answer survives whole; a control is *refused* when any sentence of it
is removed. ``--timing`` adds sentences per second of the graph mode (graphs loaded once,
warm).

``--data v5_freetext.json`` measures the v5 answers (scope carried across the sentences
of an answer, and analyst-worded controls); a graph the code refuses to build counts as
refused (an attack not accepted, a control refused). ``--compare OLD`` measures the same
file with OLD's code and graphs too (see ``strict.py``) and prints both columns.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import strict  # noqa: E402  (the harness loader and the child-process comparison)

harness: Any = None


def _whole(result: Any) -> bool:
    return not result.refused and result.unsupported_claims_removed == 0


def measure(root: str, data_file: str = "graph_freetext.json") -> dict[str, Any]:
    import verity

    data = harness.load(HERE / data_file)
    out: dict[str, Any] = {}
    for mode in ("graph", "statements_as_passages"):

        def kept(item: dict[str, Any], mode: str = mode) -> bool:
            try:
                g = harness.graph(item["graph"], root)
            except harness.LOAD_REFUSALS:
                return False
            if mode == "graph":
                return _whole(verity.check_answer(item["answer"], graph=g))
            passages = [{"id": n.id, "text": n.statement} for n in g.model.nodes]
            return _whole(verity.check_answer(item["answer"], passages))

        accepted = [a for a in data["attacks"] if kept(a)]
        refused = [c for c in data["controls"] if not kept(c)]
        by_class = collections.Counter(a["class"] for a in data["attacks"])
        hit_class = collections.Counter(a["class"] for a in accepted)
        by_style = collections.Counter(c["style"] for c in data["controls"])
        hit_style = collections.Counter(c["style"] for c in refused)
        out[mode] = {
            "attacks": len(data["attacks"]),
            "accepted": len(accepted),
            "accepted_by_class": {k: f"{hit_class[k]}/{n}" for k, n in by_class.items()},
            "accepted_ids": [a["id"] for a in accepted],
            "controls": len(data["controls"]),
            "refused": len(refused),
            "refused_by_style": {k: f"{hit_style[k]}/{n}" for k, n in by_style.items()},
            "refused_ids": [c["id"] for c in refused],
        }
    return out


def timing(root: str, rounds: int = 20) -> dict[str, float]:
    """Graph-mode sentences per second over every fixture answer (graphs loaded, warm)."""
    import verity

    data = harness.load(HERE / "graph_freetext.json")
    items = [(harness.graph(i["graph"], root), i["answer"]) for i in data["attacks"]]
    items += [(harness.graph(i["graph"], root), i["answer"]) for i in data["controls"]]
    sentences = sum(len(verity.check_answer(a, graph=g).claims) for g, a in items)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for g, a in items:
            verity.check_answer(a, graph=g)
        times.append(time.perf_counter() - started)
    return {"graph_sentences_per_s": sentences / min(times)}


def render(result: dict[str, Any], verbose: bool) -> str:
    lines = []
    for mode in ("graph", "statements_as_passages"):
        r = result[mode]
        lines.append(
            f"{mode}: attacks accepted {r['accepted']}/{r['attacks']} "
            + ", ".join(f"{k} {v}" for k, v in r["accepted_by_class"].items())
        )
        lines.append(
            f"{mode}: controls refused {r['refused']}/{r['controls']} "
            + ", ".join(f"{k} {v}" for k, v in r["refused_by_style"].items())
        )
        if verbose:
            lines.append(f"  accepted: {r['accepted_ids'] or '-'}")
            lines.append(f"  refused: {r['refused_ids'] or '-'}")
    if "timing" in result:
        lines.append(f"graph mode: {result['timing']['graph_sentences_per_s']:,.0f} sentences/s")
    return "\n".join(lines)


def _elsewhere(other: str, data_file: str) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--data", data_file]
    command += ["--root", other, "--code", other]
    env = {**os.environ, "PYTHONPATH": other}
    proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: measuring {other} failed: {proc.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(proc.stdout)["result"]
    return result


def render_compare(old: dict[str, Any], new: dict[str, Any], labels: tuple[str, ...]) -> str:
    """Markdown: per class answers kept whole, per style answers refused (graph mode)."""
    a, b = labels[0], labels[-1]
    o, n = old["graph"], new["graph"]
    lines = [f"| class | answers | kept ({a}) | kept ({b}) |", "|---|---:|---:|---:|"]
    for group, cell in n["accepted_by_class"].items():
        hit, total = cell.split("/")
        lines.append(
            f"| {group} | {total} | {o['accepted_by_class'][group].split('/')[0]} | {hit} |"
        )
    lines.append(f"| **all** | {n['attacks']} | {o['accepted']} | {n['accepted']} |")
    lines += ["", f"| style | answers | refused ({a}) | refused ({b}) |", "|---|---:|---:|---:|"]
    for group, cell in n["refused_by_style"].items():
        hit, total = cell.split("/")
        lines.append(
            f"| {group} | {total} | {o['refused_by_style'][group].split('/')[0]} | {hit} |"
        )
    lines.append(f"| **all** | {n['controls']} | {o['refused']} | {n['refused']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="checkout whose graphs to use")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--data", default="graph_freetext.json", help="fixture file in this folder")
    parser.add_argument("--code", default=str(ROOT), help="checkout whose verity to import")
    parser.add_argument("--compare", metavar="OLD", help="also measure with OLD's code and graphs")
    parser.add_argument("--labels", default="v4,v5", help="column names for --compare")
    args = parser.parse_args(argv)
    global harness
    harness = strict._harness(args.code)
    if args.compare:
        old = _elsewhere(args.compare, args.data)
        new = measure(args.root, args.data)
        print(render_compare(old, new, tuple(args.labels.split(",", 1))))
        return 0
    result = measure(args.root, args.data)
    if args.timing:
        result["timing"] = timing(args.root)
    print(json.dumps({"result": result}, indent=2) if args.json else render(result, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
