"""Whole narrations against the gate profiles: attacks shipped and controls refused, per
class and style, on each fixture set.

Run from the repository root::

    .venv/bin/python benchmarks/adversarial/strict.py [--json] [--verbose]
    .venv/bin/python benchmarks/adversarial/strict.py --root OLD   # OLD's graphs
    .venv/bin/python benchmarks/adversarial/strict.py --set v5 --compare OLD --markdown

Data (written for this project): ``structured_attacks.json`` (false narrations of
checked-in graphs, by escape class), ``structured_controls.json`` (true narrations in
the style of a capable model, by style) and ``freetext.json`` (check-answer attacks and
controls). An attack *escapes* when a false claim ships or the shipped answer holds a
sentence that no single shipped claim states; a control is *accepted* when every claim
ships. ``--root`` measures another checkout (its graphs and its code on PYTHONPATH) on
these fixtures. ``--timing``
adds strict's throughput on the controls (claims per second, one core).

``--set v5`` measures ``v5_attacks.json`` and ``v5_controls.json`` (scope carried across
joins, sentences and lists, conditions, declared variants that widen, English display
names, a wrong ``coordinable``, LP linking rows; graphs of the sample database built from
``v5_data/``). ``--compare OLD`` measures the same fixtures a second time with OLD's code
and graphs (a child process with OLD on the path; this checkout's harness) and prints both
columns; a graph OLD's code refuses counts as *load refused*. ``--markdown`` prints the
comparison as tables.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _harness(code: str) -> ModuleType:
    """This checkout's harness, importing ``verity`` from ``code`` (a checkout)."""
    sys.path.insert(0, code)
    if Path(code).resolve() == ROOT:
        from verity.bench import adversarial

        return adversarial
    path = ROOT / "verity" / "bench" / "adversarial.py"
    spec = importlib.util.spec_from_file_location("_adversarial_harness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


#: Set by :func:`main` (or on first use): the harness over the code being measured.
harness: Any = None

#: The fixture sets: name -> (attacks, controls, free text or None). ``v4`` holds the
#: classes the declared-variation design was written against (coordination, deleted
#: verbs, intention verbs, comparators, recombined objects, compound heads, dashes as
#: signs, ...); ``v5`` the seams of reading a claim whole (its free text, answers against
#: a graph, is measured by ``graph_answers.py``).
ALL_SETS = {
    "v3-era": ("structured_attacks.json", "structured_controls.json", "freetext.json"),
    "v4": ("v4_attacks.json", "v4_controls.json", "v4_freetext.json"),
    "v5": ("v5_attacks.json", "v5_controls.json", None),
}
#: Measured by default (the sets the shipped checker is held to).
DEFAULT_SETS = ("v3-era", "v4")


def _tally(outcomes: list[Any], hit: str) -> tuple[int, dict[str, str]]:
    total = collections.Counter(o.group for o in outcomes)
    hits = collections.Counter(o.group for o in outcomes if getattr(o, hit))
    return sum(hits.values()), {g: f"{hits[g]}/{total[g]}" for g in total}


def _measure_set(
    root: str, attacks_file: str, controls_file: str, free_file: str | None
) -> dict[str, Any]:
    attacks = harness.load(HERE / attacks_file)["cases"]
    controls = harness.load(HERE / controls_file)["cases"]
    out: dict[str, Any] = {}
    for profile in ("paper", "strict"):
        att = harness.judge_all(attacks, profile, root, group_key="class")
        con = harness.judge_all(controls, profile, root, group_key="style")
        escaped, by_class = _tally(att, "escaped")
        accepted, by_style = _tally(con, "all_shipped")
        card = [o for o, c in zip(con, controls, strict=True) if c["graph"].startswith("card/")]
        out[profile] = {
            "attacks": len(att),
            "escaped": escaped,
            "escaped_by_class": by_class,
            "escaped_ids": [o.id for o in att if o.escaped],
            "controls": len(con),
            "accepted": accepted,
            "card_controls": len(card),
            "card_accepted": sum(o.all_shipped for o in card),
            "accepted_by_style": by_style,
            "refused_ids": [o.id for o in con if not o.all_shipped],
        }
        refused_loads = [o.id for o in (*att, *con) if o.load_refused]
        if refused_loads:  # only when any: the default output stays byte-identical
            out[profile]["load_refused_ids"] = refused_loads
    if free_file is None:
        return out
    free = harness.load(HERE / free_file)
    accepts = harness.answer_checker("check_answer")
    ft_att = [
        a for a in free["attacks"] if accepts(a["answer"], harness.freetext_passages(free, a))
    ]
    ft_con = [
        c for c in free["controls"] if not accepts(c["answer"], harness.freetext_passages(free, c))
    ]
    out["check_answer"] = {
        "attacks": len(free["attacks"]),
        "accepted": len(ft_att),
        "accepted_ids": [a["id"] for a in ft_att],
        "controls": len(free["controls"]),
        "rejected": len(ft_con),
        "rejected_ids": [c["id"] for c in ft_con],
    }
    return out


def measure(root: str, sets: tuple[str, ...] = DEFAULT_SETS) -> dict[str, Any]:
    """Each named fixture set under both profiles and check-answer."""
    global harness
    if harness is None:
        harness = _harness(str(ROOT))
    return {name: _measure_set(root, *ALL_SETS[name]) for name in sets}


def measure_elsewhere(other: str, sets: tuple[str, ...]) -> dict[str, Any]:
    """The same fixtures measured with ``other``'s code and graphs (a child process)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--root", other]
    command += ["--code", other, *[a for name in sets for a in ("--set", name)]]
    env = {**os.environ, "PYTHONPATH": other}
    proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: measuring {other} failed: {proc.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(proc.stdout)["result"]
    return result


def render_compare(old: dict[str, Any], new: dict[str, Any], labels: tuple[str, str]) -> str:
    """Markdown tables: per class attacks shipped, per style controls refused, under strict,
    with ``labels`` naming the two columns (old first)."""
    a, b = labels
    lines: list[str] = []
    for name in new:
        o, n = old[name]["strict"], new[name]["strict"]
        lines.append(f"**{name}: false claims shipped by strict, per class**")
        lines.append("")
        lines.append(f"| class | attacks | shipped ({a}) | shipped ({b}) |")
        lines.append("|---|---:|---:|---:|")
        for group, cell in n["escaped_by_class"].items():
            total = cell.split("/")[1]
            old_cell = o["escaped_by_class"].get(group, "-/-").split("/")[0]
            lines.append(f"| {group} | {total} | {old_cell} | {cell.split('/')[0]} |")
        lines.append(f"| **all** | {n['attacks']} | {o['escaped']} | {n['escaped']} |")
        lines.append("")
        lines.append(f"**{name}: true claims refused by strict, per style**")
        lines.append("")
        lines.append(f"| style | controls | refused ({a}) | refused ({b}) |")
        lines.append("|---|---:|---:|---:|")
        for group, cell in n["accepted_by_style"].items():
            shipped, total = cell.split("/")
            old_shipped = o["accepted_by_style"].get(group, f"{total}/{total}").split("/")[0]
            lines.append(
                f"| {group} | {total} | {int(total) - int(old_shipped)} | "
                f"{int(total) - int(shipped)} |"
            )
        lines.append(
            f"| **all** | {n['controls']} | {o['controls'] - o['accepted']} | "
            f"{n['controls'] - n['accepted']} |"
        )
        lines.append("")
        lines.append(
            f"Load refused ({a} / {b}): {len(o.get('load_refused_ids', ()))} / "
            f"{len(n.get('load_refused_ids', ()))} cases."
        )
        lines.append("")
    return "\n".join(lines).rstrip()


def render_side_by_side(old: dict[str, Any], new: dict[str, Any], labels: tuple[str, str]) -> str:
    """Plain text: each set's strict lines for ``old`` then ``new``."""
    lines = []
    for name in new:
        for label, result in zip(labels, (old, new), strict=True):
            body = render({name: {**result[name], "check_answer": None}}, verbose=False)
            for line in body.splitlines():
                if line.startswith("strict") or line.startswith("load refused"):
                    lines.append(f"[{name}] {label:>6} {line}")
    return "\n".join(lines)


def timing(root: str, rounds: int = 20) -> dict[str, float]:
    """Strict claims per second over the control narrations (graphs loaded once, warm)."""
    import verity

    controls = harness.load(HERE / "structured_controls.json")["cases"]
    prepared = [harness.narration(c, root) for c in controls]
    claims = sum(len(n["claims"]) for _, n in prepared)
    best: dict[str, float] = {}
    for profile in ("paper", "strict"):
        for g, n in prepared:  # warm-up: statement caches
            verity.verify(g, n, profile=profile)
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            for g, n in prepared:
                verity.verify(g, n, profile=profile)
            times.append(time.perf_counter() - started)
        best[f"{profile}_claims_per_s"] = claims / min(times)
    return best


def render(result: dict[str, Any], verbose: bool) -> str:
    lines = []
    for name, found in result.items():
        if name == "timing":
            continue
        lines.append(f"[{name}]")
        for profile in ("paper", "strict"):
            r = found[profile]
            lines.append(
                f"{profile}: attacks escaped {r['escaped']}/{r['attacks']} "
                + ", ".join(f"{k} {v}" for k, v in r["escaped_by_class"].items())
            )
            lines.append(
                f"{profile}: controls accepted {r['accepted']}/{r['controls']} "
                f"(card graphs {r['card_accepted']}/{r['card_controls']}) "
                + ", ".join(f"{k} {v}" for k, v in r["accepted_by_style"].items())
            )
            if verbose:
                lines.append(f"  escaped: {r['escaped_ids'] or '-'}")
                lines.append(f"  refused controls: {r['refused_ids'] or '-'}")
            if r.get("load_refused_ids"):
                lines.append(
                    f"load refused ({profile}): {len(r['load_refused_ids'])} cases"
                    + (f" {r['load_refused_ids']}" if verbose else "")
                )
        c = found.get("check_answer")
        if c is None:
            continue
        lines.append(
            f"check-answer: attacks accepted {c['accepted']}/{c['attacks']}, "
            f"controls rejected {c['rejected']}/{c['controls']}"
        )
        if verbose:
            lines.append(f"  accepted: {c['accepted_ids'] or '-'}")
            lines.append(f"  rejected: {c['rejected_ids'] or '-'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="checkout whose graphs to use")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        choices=sorted(ALL_SETS),
        help="a fixture set to measure (repeatable; default: v3-era and v4)",
    )
    parser.add_argument("--code", default=str(ROOT), help="checkout whose verity to import")
    parser.add_argument(
        "--compare", metavar="OLD", help="also measure with OLD's code and graphs, side by side"
    )
    parser.add_argument(
        "--labels", default="v4,v5", help="column names for --compare: OLD,THIS (default v4,v5)"
    )
    parser.add_argument("--markdown", action="store_true", help="--compare as Markdown tables")
    args = parser.parse_args(argv)
    global harness
    harness = _harness(args.code)
    sets = tuple(args.sets or DEFAULT_SETS)
    if args.compare:
        old = measure_elsewhere(args.compare, sets)
        new = measure(args.root, sets)
        labels = tuple(args.labels.split(",", 1))
        if len(labels) != 2:
            parser.error("--labels takes two names: OLD,THIS")
        pair = (labels[0], labels[1])
        if args.json:
            print(json.dumps({pair[0]: old, pair[1]: new}, indent=2))
        elif args.markdown:
            print(render_compare(old, new, pair))
        else:
            print(render_side_by_side(old, new, pair))
        return 0
    result = measure(args.root, sets)
    if args.timing:
        result["timing"] = timing(args.root)
    if args.json:
        print(json.dumps({"result": result}, indent=2))
    else:
        print(render(result, args.verbose))
        if args.timing:
            print("throughput: " + ", ".join(f"{k} {v:,.0f}" for k, v in result["timing"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
