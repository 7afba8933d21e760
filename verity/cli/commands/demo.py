"""`verity demo`: optimize a profile, narrate it with the local model, verify, repair.

Exits as ``verity verify graph.json narration.json`` on the files it writes: 0 every
final claim verified, 1 some removed and at least one shipped, 3 nothing shipped (the
refusal); 4 when the narrator could not be reached; 2 when it cannot run (for example
without the ``verity-evidence[local]`` extra).

``--spend-profile N`` picks the card-rewards spending profile (the gates are always
``strict``). The files go into ``--out-dir`` only when the run is complete; SIGINT or
SIGTERM stops it with one line, exit status 130 or 143, and the previous run's files
as they were (:mod:`verity.files`). So does a failure: bad input (exit 2; ``--html``'s
folder is checked before the run), or a narrator that failed the first attempt (exit 4,
or 3 when the endpoint answered with an error; :func:`verity.pipeline.failed_attempt`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from verity.cli.commands._options import (
    add_openai_options,
    add_quiet,
    add_repairs,
    add_spend_profile,
    add_threads,
    progress_events,
)
from verity.cli.commands._output import exit_code, until_stopped
from verity.cli.commands.narrate import (
    NARRATOR_HELP,
    VARIANT_HELP,
    build_narrator,
    failure_status,
    scripted_mixes,
)
from verity.cli.render import render_demo, render_demo_html
from verity.files import check_dir_target, check_file_target, write_file
from verity.llm.prompts import VARIANTS
from verity.pipeline import DEMO_GOAL, DEMO_PROFILE, DEMO_VARIANT, NarratorFailed, run_demo

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from verity.backends.card_rewards import GOALS

    parser.add_argument(
        "--out-dir",
        metavar="DIR",
        default="verity-demo",
        help="where the files go, once the run is complete; an interrupted run leaves "
        "the previous ones as they were (default: ./verity-demo)",
    )
    add_spend_profile(parser, help=f"spending profile, 0 to 49 (default: {DEMO_PROFILE})", type=int)
    parser.add_argument(
        "--goal",
        default=DEMO_GOAL,
        choices=GOALS,
        help=f"optimization goal (default: {DEMO_GOAL})",
    )
    parser.add_argument(
        "--narrator",
        default="local",
        metavar="SPEC",
        help=NARRATOR_HELP.format(profiles=scripted_mixes())
        + " (default: local; scripted for a quick dry run)",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default=DEMO_VARIANT,
        help=VARIANT_HELP,
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="also write a one-page HTML report: each shipped sentence with its cited "
        "evidence, the dropped claims with their reason",
    )
    add_repairs(parser)
    add_quiet(parser)
    add_threads(parser.add_argument_group("the local narrator"))
    add_openai_options(parser.add_argument_group("openai:MODEL narrators"))


def run(args: argparse.Namespace) -> int:
    return until_stopped("demo", f"{args.out_dir} is unchanged", lambda: _demo(args))


def _in_out_dir(html: Path, out_dir: str) -> bool:
    """True when ``html`` goes straight into ``out_dir``, which the run makes."""
    return os.path.abspath(html.parent) == os.path.abspath(out_dir) and not html.is_dir()


def _demo(args: argparse.Namespace) -> int:
    given = args.spend_profile
    check_dir_target(Path(args.out_dir))
    if args.html is not None and not _in_out_dir(args.html, args.out_dir):
        check_file_target(args.html, "--html")
    try:
        with progress_events(args, "demo") as on_event:
            narrator = build_narrator(args, seed=False, on_event=on_event)
            demo = run_demo(
                args.out_dir,
                profile=DEMO_PROFILE if given is None else given,
                goal=args.goal,
                narrator=narrator,
                repairs=args.repairs,
                variant=args.variant,
                on_event=on_event,
            )
    except NarratorFailed as failed:  # a failure, not a run: the last run is left whole
        return failure_status(narrator, failed.attempt, f"{args.out_dir} is unchanged")
    if args.html is not None:
        write_file(args.html, render_demo_html(demo))
    print(render_demo(demo, html_file=args.html))
    attempt = demo.result.passes[0].attempt
    if attempt.api_error is not None:  # claims chosen before the transport failed
        failure_status(narrator, attempt)
    s = demo.result.final.summary
    return exit_code(s.claims, s.passed)
