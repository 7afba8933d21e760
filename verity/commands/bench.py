"""`verity bench`: the paired benchmark over narrators, prompt variants and gate profiles."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from verity.bench import DEFAULT_RESAMPLES, RESULTS_FILE
from verity.commands._options import add_repairs, int_in_range
from verity.errors import InputError
from verity.gates import PROFILES
from verity.prompts import VARIANTS

if TYPE_CHECKING:
    from verity.bench.report import ReportFiles


def _csv(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--narrators", type=_csv, default=("local",), metavar="LIST",
        help="comma-separated narrator specs: local, openai:MODEL, scripted[:PROFILE], "
        "replay:FILE (default: local)",
    )
    parser.add_argument(
        "--variants", type=_csv, default=VARIANTS, metavar="LIST",
        help=f"comma-separated prompt variants (default: {','.join(VARIANTS)})",
    )
    parser.add_argument(
        "--profiles", type=_csv, default=PROFILES, metavar="LIST",
        help=f"comma-separated gate profiles (default: {','.join(PROFILES)})",
    )
    parser.add_argument("--graphs", metavar="DIR",
                        help="directory of evidence graph files (default: "
                        "evidence_graphs/card_rewards)")
    parser.add_argument("--limit", type=int_in_range(1), metavar="N",
                        help="run only the first N graphs (by file name)")
    add_repairs(parser, "repair passes per profile")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the narrators and of the bootstrap (default: 0)")
    parser.add_argument("--out", default="bench_results", metavar="DIR",
                        help=f"output directory: {RESULTS_FILE}, report, figures "
                        "(default: bench_results)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out, skipping finished instances")
    parser.add_argument("--concurrency", type=int_in_range(1), default=1, metavar="K",
                        help="instances in flight at once (the local model runs one at a "
                        "time anyway; default: 1)")
    parser.add_argument("--report", metavar="DIR",
                        help=f"only rebuild the report in DIR from DIR/{RESULTS_FILE} "
                        "(or its .gz)")
    parser.add_argument("--resamples", type=int_in_range(1), default=DEFAULT_RESAMPLES,
                        metavar="N", help=f"bootstrap resamples (default: {DEFAULT_RESAMPLES})")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    group = parser.add_argument_group("openai narrators")
    group.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint")
    group.add_argument("--api-key-env", metavar="NAME",
                       help="environment variable holding the key (default: OPENAI_API_KEY)")
    group.add_argument("--response-format", metavar="KIND",
                       help="structured-output style of the endpoint")


def _report_only(args: argparse.Namespace) -> int:
    from verity.bench.report import build_report

    out = Path(args.report)
    results = out / RESULTS_FILE
    packed = out / (RESULTS_FILE + ".gz")
    if not results.exists() and packed.exists():
        results = packed
    files = build_report(results, out, resamples=args.resamples, figures=not args.no_figures)
    _print_files(files, figures=not args.no_figures)
    return 0


def _print_files(files: ReportFiles, *, figures: bool) -> None:
    note = f" ({files.incomplete} incomplete left out)" if files.incomplete else ""
    print(f"report of {files.instances} instances{note}: "
          + ", ".join(str(files.out_dir / f) for f in files.files))
    if figures and not any(f.endswith(".png") for f in files.files) and files.instances:
        print("verity: figures skipped: matplotlib is not installed "
              "(pip install 'verity[bench]')", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.report:
        return _report_only(args)
    from verity.bench.runner import BenchPlan, find_graphs, run_bench

    graphs = find_graphs(args.graphs, args.limit)
    plan = BenchPlan(
        narrators=args.narrators, variants=args.variants, profiles=args.profiles,
        graphs=tuple(graphs), repairs=args.repairs, seed=args.seed,
        concurrency=args.concurrency,
    )
    openai_options = {
        k: v for k, v in (("base_url", args.base_url), ("api_key_env", args.api_key_env),
                          ("response_format", args.response_format)) if v is not None
    }
    if openai_options and not any(s.startswith("openai:") for s in plan.narrators):
        raise InputError("--base-url, --api-key-env and --response-format need an openai narrator")
    outcome = run_bench(
        plan, args.out, resume=args.resume, openai_options=openai_options,
        progress=None if args.quiet else sys.stderr, resamples=args.resamples,
        figures=not args.no_figures,
    )
    print(f"{outcome.ran} instances run, {outcome.skipped} already done, "
          f"{outcome.planned} planned; results in {outcome.results}")
    if outcome.report is not None:
        _print_files(outcome.report, figures=not args.no_figures)
    return 0
