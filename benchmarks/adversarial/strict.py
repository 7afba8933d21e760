"""Whole narrations against the gate profiles: attacks shipped and controls refused, per
class and style, on each fixture set.

Run from the repository root::

    .venv/bin/python benchmarks/adversarial/strict.py [--json] [--verbose]
    .venv/bin/python benchmarks/adversarial/strict.py --root OLD   # OLD's graphs

Data (written for this project): ``structured_attacks.json`` (false narrations of
checked-in graphs, by escape class), ``structured_controls.json`` (true narrations in
the style of a capable model, by style) and ``freetext.json`` (check-answer attacks and
controls). An attack *escapes* when a false claim ships or the shipped answer holds a
sentence that no single shipped claim states; a control is *accepted* when every claim
ships. ``--root`` measures another checkout (its graphs and its code on PYTHONPATH) on
these fixtures. ``--timing``
adds strict's throughput on the controls (claims per second, one core).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from verity.bench import adversarial as harness  # noqa: E402

#: The fixture sets: (name, attacks, controls, free text). ``v4`` holds the classes the
#: declared-variation design was written against (coordination, deleted verbs, intention
#: verbs, comparators, recombined objects, compound heads, dashes as signs, ...).
SETS = (
    ("v3-era", "structured_attacks.json", "structured_controls.json", "freetext.json"),
    ("v4", "v4_attacks.json", "v4_controls.json", "v4_freetext.json"),
)


def _tally(outcomes: list[Any], hit: str) -> tuple[int, dict[str, str]]:
    total = collections.Counter(o.group for o in outcomes)
    hits = collections.Counter(o.group for o in outcomes if getattr(o, hit))
    return sum(hits.values()), {g: f"{hits[g]}/{total[g]}" for g in total}


def _measure_set(
    root: str, attacks_file: str, controls_file: str, free_file: str
) -> dict[str, Any]:
    attacks = harness.load(HERE / attacks_file)["cases"]
    controls = harness.load(HERE / controls_file)["cases"]
    free = harness.load(HERE / free_file)
    accepts = harness.answer_checker("check_answer")
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


def measure(root: str) -> dict[str, Any]:
    """Every fixture set under both profiles and check-answer."""
    return {name: _measure_set(root, *files) for name, *files in SETS}


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
        c = found["check_answer"]
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
    args = parser.parse_args(argv)
    result = measure(args.root)
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
