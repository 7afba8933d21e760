"""`verity optimize`: solve the card-rewards MILP and write its evidence graph.

``verity optimize --spend-profile N --goal G [--solver cbc|highs] [--out FILE]`` writes
one graph (to stdout without ``--out``); ``verity optimize --all --out-dir DIR`` writes
all profile x goal graphs as ``DIR/pNN-GOAL.json``: they are solved into a hidden sibling
of DIR and moved into it when every one is written, so SIGINT or SIGTERM (one line, exit
status 130 or 143) leaves DIR as it was. ``--profile N`` still works for one
release as a deprecated spelling of ``--spend-profile N`` (with a note on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verity.backends._pulp_support import solver as pulp_solver
from verity.backends.card_rewards import (
    GOALS,
    SOLVERS,
    Profile,
    build_graph,
    graph_json,
    load_catalog,
    load_profiles,
    solve,
    solved_graphs,
)
from verity.cli.commands._options import add_quiet, add_spend_profile
from verity.cli.commands._output import check_output, until_stopped, write_or_print
from verity.errors import InputError
from verity.files import staged_dir, write_file
from verity.progress import Progress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spend_profile(parser, help="spending profile number (0 to 49)")
    parser.add_argument("--goal", metavar="GOAL", help=f"one of: {', '.join(GOALS)}")
    parser.add_argument(
        "--solver",
        metavar="SOLVER",
        default="cbc",
        help=f"one of: {', '.join(SOLVERS)} (default: cbc)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")
    parser.add_argument("--all", action="store_true", help="every profile with every goal")
    parser.add_argument(
        "--out-dir",
        metavar="DIR",
        help="directory for --all; the graphs move into it once every one is solved",
    )
    add_quiet(parser)


def _profile(text: str, profiles: tuple[Profile, ...], option: str) -> Profile:
    last = len(profiles) - 1
    try:
        index = int(text, 10)
    except ValueError:
        raise InputError(f"{option} must be a number from 0 to {last}, not {text!r}") from None
    if not 0 <= index <= last:
        raise InputError(f"{option} must be a number from 0 to {last}, not {index}")
    return profiles[index]


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InputError(f"{option} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _run_all(args: argparse.Namespace, profiles: tuple[Profile, ...], given: Any) -> int:
    if given is not None or args.goal is not None or args.out is not None:
        raise InputError(
            "--all takes --out-dir (and --solver), not --spend-profile, --goal or --out"
        )
    if args.out_dir is None:
        raise InputError("--all needs --out-dir DIR")
    out_dir = Path(args.out_dir)
    return until_stopped(
        "optimize",
        f"{out_dir} is unchanged",
        lambda: _write_all(args.solver, profiles, out_dir, quiet=args.quiet),
    )


def _write_all(solver: str, profiles: tuple[Profile, ...], out_dir: Path, *, quiet: bool) -> int:
    """Solve every graph into a hidden sibling of ``out_dir``, then move them in."""
    bar = None if quiet else Progress(len(profiles) * len(GOALS), label="optimize solved")
    if bar is not None:
        bar.start()
    done = 0
    try:
        with staged_dir(out_dir) as staging:
            for name, text in solved_graphs(solver, profiles=profiles):
                write_file(staging / name, text)
                done += 1
                if bar is not None:
                    bar.update()
    finally:
        if bar is not None:
            bar.close()
    print(f"optimize: wrote {done} graphs to {out_dir}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    _check_choice("--solver", args.solver, SOLVERS)
    pulp_solver(args.solver)  # installed, before anything is solved or written
    profiles = load_profiles()
    given, option = args.spend_profile, "--spend-profile"
    if args.all:
        return _run_all(args, profiles, given)
    if args.out_dir is not None:
        raise InputError("--out-dir goes with --all; use --out FILE for one graph")
    if given is None or args.goal is None:
        raise InputError(f"give {option} N and --goal GOAL, or --all --out-dir DIR")
    profile = _profile(given, profiles, option)
    goal = _check_choice("--goal", args.goal, GOALS)
    check_output(args.out)
    catalog = load_catalog()
    text = graph_json(build_graph(catalog, solve(catalog, profile, goal, args.solver)))
    write_or_print(text, args.out)
    return 0
