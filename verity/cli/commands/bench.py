"""`verity bench`: the paired benchmark over narrators, prompt variants and gate profiles.

Needs numpy (the ``bench`` extra); matplotlib draws the figures when it is installed.
A run of a real model (``local`` or ``openai:``) over more than :data:`CONFIRM_ABOVE`
instances asks for ``--yes`` or a smaller plan (``--limit``) first: the default plan is
3 variants x 150 graphs, hours on a CPU.

Every input is checked before anything is solved or written (:func:`_check_inputs`), and
a run that fails all the same (a graph that does not load, a narrator that cannot be
built) leaves no new folder behind (:func:`verity.files.new_dirs_undone`).
Each finished instance is appended whole (flushed and fsync'd) to ``OUT/results.jsonl``;
the report and figures are written into a hidden sibling of OUT and moved in together
at the end. So SIGINT or SIGTERM (one line, exit status 130 or 143) leaves the previous
run's bytes of the results file as they were, followed only by whole instances, and
the previous report as it was; ``--resume`` continues from there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verity.bench import DEFAULT_RESAMPLES, RESULTS_FILE
from verity.cli.commands._options import (
    add_openai_options,
    add_repairs,
    add_threads,
    int_in_range,
    local_options,
    openai_options,
)
from verity.cli.commands._options import stderr_notes as _notes
from verity.cli.commands._output import until_stopped
from verity.core.gates import PROFILES
from verity.errors import InputError
from verity.extras import install_hint, require_extra
from verity.files import new_dirs_undone
from verity.llm.prompts import VARIANTS

if TYPE_CHECKING:
    from verity.bench.report import ReportFiles

__all__ = ["CONFIRM_ABOVE", "add_arguments", "run"]

#: Planned real-model instances above which a run needs --yes (or --limit / --graphs).
CONFIRM_ABOVE = 30
_SIMULATED_KINDS = ("scripted", "replay")


def _csv(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from verity.cli.commands.narrate import scripted_mixes

    parser.add_argument(
        "--narrators",
        type=_csv,
        default=("local",),
        metavar="LIST",
        help="comma-separated narrator specs: local, openai:MODEL, scripted[:PROFILE] "
        f"(PROFILE {scripted_mixes()}), replay:FILE (default: local)",
    )
    parser.add_argument(
        "--variants",
        type=_csv,
        default=VARIANTS,
        metavar="LIST",
        help=f"comma-separated prompt variants, of {', '.join(VARIANTS)} (default: all)",
    )
    parser.add_argument(
        "--profiles",
        type=_csv,
        default=PROFILES,
        metavar="LIST",
        help=f"comma-separated gate profiles, of {', '.join(PROFILES)} (default: all)",
    )
    parser.add_argument(
        "--graphs",
        metavar="DIR",
        help="directory of evidence graph files (default: "
        "./evidence_graphs/card_rewards of a checkout; elsewhere the 150 "
        "card-rewards graphs are solved into OUT/graphs)",
    )
    parser.add_argument(
        "--limit",
        type=int_in_range(1),
        metavar="N",
        help="run only the first N graphs (by file name)",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help=f"run a real-model plan of more than {CONFIRM_ABOVE} instances "
        "without asking for --limit first",
    )
    add_repairs(parser, "repair passes per profile")
    parser.add_argument(
        "--restate",
        action="store_true",
        help="after the repair loop, ship a claim refused only by its words as its cited "
        "node's nearest declared sentence, without a model call, and report the share of "
        "shipped claims that shipped restated (off by default)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the narrators and of the bootstrap (default: 0)",
    )
    parser.add_argument(
        "--out",
        default="bench_results",
        metavar="DIR",
        help=f"output directory: {RESULTS_FILE} (each finished instance appended whole), "
        "report and figures (moved in together at the end); an interrupted run keeps the "
        "report before it and every instance that finished (default: bench_results)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out (also one that was interrupted), skipping "
        "finished instances; the profiles, repairs, seed and --restate must be the run's",
    )
    parser.add_argument(
        "--concurrency",
        type=int_in_range(1),
        default=1,
        metavar="K",
        help="instances in flight at once (the local model runs one at a time anyway; default: 1)",
    )
    parser.add_argument(
        "--report",
        metavar="DIR",
        help=f"only rebuild the report in DIR from DIR/{RESULTS_FILE} (or its .gz)",
    )
    parser.add_argument(
        "--rescore",
        metavar="DIR",
        help=f"re-verify the recorded claims of DIR/{RESULTS_FILE} (or its .gz) "
        "under the current gates, without a model, rewrite the file and "
        "rebuild the report (graphs from --graphs or the default)",
    )
    parser.add_argument(
        "--resamples",
        type=int_in_range(1),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples (default: {DEFAULT_RESAMPLES})",
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_threads(parser.add_argument_group("the local narrator"))
    add_openai_options(parser.add_argument_group("openai:MODEL narrators"))


def _results_in(out: Path) -> Path:
    results = out / RESULTS_FILE
    packed = out / (RESULTS_FILE + ".gz")
    if not results.exists() and packed.exists():
        return packed
    return results


def _report_only(args: argparse.Namespace) -> int:
    from verity.bench.report import build_report

    out = Path(args.report)
    files = build_report(
        _results_in(out), out, resamples=args.resamples, figures=not args.no_figures
    )
    _print_files(files, figures=not args.no_figures)
    return 0


def _rescore(args: argparse.Namespace) -> int:
    from verity.bench.report import build_report
    from verity.bench.rescore import rescore_file
    from verity.bench.runner import default_graph_dir

    out = Path(args.rescore)
    graph_dir = args.graphs if args.graphs is not None else default_graph_dir()
    if graph_dir is None:
        raise InputError("--rescore needs the graphs the run used: pass --graphs DIR")
    path, records, changed = rescore_file(_results_in(out), graph_dir)
    print(f"re-scored {records} records in {path}: {changed} claim verdicts changed")
    files = build_report(path, out, resamples=args.resamples, figures=not args.no_figures)
    _print_files(files, figures=not args.no_figures)
    return 0


def _print_files(files: ReportFiles, *, figures: bool) -> None:
    note = f" ({files.incomplete} incomplete left out)" if files.incomplete else ""
    print(
        f"report of {files.instances} instances{note}: "
        + ", ".join(str(files.out_dir / f) for f in files.files)
    )
    if figures and not any(f.endswith(".png") for f in files.files) and files.instances:
        print(
            f"verity: figures skipped: matplotlib is not installed ({install_hint('bench')})",
            file=sys.stderr,
        )


def _graph_count(args: argparse.Namespace) -> int:
    """How many graphs the run will use, without solving any."""
    from verity.bench.runner import card_rewards_graph_names, default_graph_dir, find_graphs

    if args.graphs is not None or default_graph_dir() is not None:
        return len(find_graphs(args.graphs, args.limit))
    return len(card_rewards_graph_names()[: args.limit])


def _confirm(args: argparse.Namespace, graphs: int) -> None:
    """Refuse a long real-model plan the user did not ask for explicitly."""
    real = [s for s in args.narrators if s.partition(":")[0] not in _SIMULATED_KINDS]
    planned = graphs * len(args.narrators) * len(args.variants)
    if not real or args.yes or args.limit is not None or planned <= CONFIRM_ABOVE:
        return
    raise InputError(
        f"this plan runs {planned} instances ({graphs} graphs x {len(args.variants)} variants "
        f"x {len(args.narrators)} narrator(s)) with {', '.join(real)}: hours on a CPU; pass "
        "--yes to run them all, or --limit N for the first N graphs"
    )


def run(args: argparse.Namespace) -> int:
    require_extra("bench", "verity bench", ("numpy",))
    if args.report and args.rescore:
        raise InputError("--report and --rescore are two ways to rebuild a report: pick one")
    if args.report:
        return _report_only(args)
    if args.rescore:
        return _rescore(args)
    kept = (
        f"{Path(args.out) / RESULTS_FILE} holds every instance that finished, the report "
        "is the one before; --resume continues"
    )
    return until_stopped("bench", kept, lambda: _bench_or_nothing(args))


def _bench_or_nothing(args: argparse.Namespace) -> int:
    """:func:`_bench`; when it fails, the folders it made for ``--out`` are removed again
    (each one still empty)."""
    with new_dirs_undone(Path(args.out)):
        return _bench(args)


def _check_inputs(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """Refuse a run that cannot go, before anything is solved or written: options for a
    narrator that is not planned, the plan (narrators and their extras, variants,
    profiles), the graphs, the size of the plan, the output directory. Returns the
    openai options and the local narrator's."""
    from verity.bench.runner import check_out_dir, check_plan

    options = openai_options(args)
    if options and not any(s.startswith("openai:") for s in args.narrators):
        raise InputError(
            "--base-url, --api-key-env, --response-format, --timeout, --retries "
            "and --max-tokens need an openai narrator"
        )
    check_plan(args.narrators, args.variants, args.profiles, args.repairs, args.concurrency)
    local = local_options(args, args.narrators)
    _confirm(args, _graph_count(args))
    check_out_dir(
        args.out,
        resume=args.resume,
        profiles=args.profiles,
        repairs=args.repairs,
        seed=args.seed,
        restate=args.restate,
    )
    options["notify"] = _notes  # make_narrator hands openai options to openai narrators only
    return options, local


def _bench(args: argparse.Namespace) -> int:
    from verity.bench.runner import BenchPlan, find_graphs, run_bench

    options, local = _check_inputs(args)
    graphs = find_graphs(
        args.graphs, args.limit, build_dir=Path(args.out) / "graphs", log=sys.stderr
    )
    plan = BenchPlan(
        narrators=args.narrators,
        variants=args.variants,
        profiles=args.profiles,
        graphs=tuple(graphs),
        repairs=args.repairs,
        seed=args.seed,
        concurrency=args.concurrency,
        restate=args.restate,
    )
    outcome = run_bench(
        plan,
        args.out,
        resume=args.resume,
        openai_options=options,
        local_options=local,
        progress=None if args.quiet else sys.stderr,
        resamples=args.resamples,
        figures=not args.no_figures,
        log=sys.stderr,
    )
    print(
        f"{outcome.ran} instances run, {outcome.skipped} already done, "
        f"{outcome.planned} planned; results in {outcome.results}"
    )
    if outcome.report is not None:
        _print_files(outcome.report, figures=not args.no_figures)
    return 0
