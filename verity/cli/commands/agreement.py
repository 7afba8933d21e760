"""`verity agreement LABELS.csv`: rater agreement (raw, Cohen's kappa, Fleiss' kappa)."""

from __future__ import annotations

import argparse

from verity.bench.agreement import AgreementResult, agreement, read_labels
from verity.cli.commands._output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("labels", metavar="LABELS.csv", help="CSV with columns item,rater,label")
    parser.add_argument(
        "--drop",
        action="append",
        default=[],
        metavar="LABEL",
        help="leave out votes with this label (e.g. UNCLEAR); repeatable",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _num(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _kappa(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def to_dict(result: AgreementResult) -> dict[str, object]:
    """The result as JSON-ready data (rates and kappas rounded to 3 decimals)."""
    return {
        "raters": result.raters,
        "labels": result.labels,
        "items": result.items,
        "pairs": [
            {
                "rater_a": p.rater_a,
                "rater_b": p.rater_b,
                "items": p.items,
                "agreement": _num(p.agreement),
                "cohen_kappa": _num(p.kappa),
            }
            for p in result.pairs
        ],
        "fleiss": {
            "raters": result.fleiss.raters,
            "items": result.fleiss.items,
            "kappa": _num(result.fleiss.kappa),
        },
    }


def render(result: AgreementResult) -> str:
    """A plain-text table of the result."""
    lines = [
        f"{len(result.raters)} raters, {result.items} items, labels: {', '.join(result.labels)}",
    ]
    if result.pairs:
        width = max(len(f"{p.rater_a} vs {p.rater_b}") for p in result.pairs)
        lines.append(f"{'pair':<{width}}  items  agreement  cohen_kappa")
        for p in result.pairs:
            name = f"{p.rater_a} vs {p.rater_b}"
            lines.append(
                f"{name:<{width}}  {p.items:>5}  {_pct(p.agreement):>9}  {_kappa(p.kappa):>11}"
            )
    f = result.fleiss
    lines.append(
        f"fleiss kappa ({f.items} items labelled by all {f.raters} raters): {_kappa(f.kappa)}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    result = agreement(read_labels(args.labels, drop=args.drop))
    if args.json:
        print_json(to_dict(result))
    else:
        print(render(result))
    return 0
