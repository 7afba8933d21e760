"""`verity demo`: optimize a profile, narrate it with the local model, verify, repair.

Exits 0 when the demo ran, whatever the verdicts (they are what it shows); 2 when it
cannot run (for example without the ``verity[local]`` extra).
"""

from __future__ import annotations

import argparse

from verity.commands._options import add_repairs
from verity.demo import DEMO_GOAL, DEMO_PROFILE, DEMO_VARIANT, render_demo, run_demo
from verity.narrators import narrator_from_spec
from verity.prompts import VARIANTS

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out-dir",
        metavar="DIR",
        default="verity-demo",
        help="where the files go (default: ./verity-demo)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=DEMO_PROFILE,
        metavar="N",
        help=f"spending profile, 0 to 49 (default: {DEMO_PROFILE})",
    )
    parser.add_argument(
        "--goal",
        default=DEMO_GOAL,
        metavar="GOAL",
        help=f"optimization goal (default: {DEMO_GOAL})",
    )
    parser.add_argument(
        "--narrator",
        default="local",
        metavar="SPEC",
        help="local (default) or scripted[:PROFILE] for a quick dry run",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default=DEMO_VARIANT,
        help=f"prompt variant (default: {DEMO_VARIANT})",
    )
    add_repairs(parser)


def run(args: argparse.Namespace) -> int:
    narrator = narrator_from_spec(args.narrator)
    demo = run_demo(
        args.out_dir,
        profile=args.profile,
        goal=args.goal,
        narrator=narrator,
        repairs=args.repairs,
        variant=args.variant,
    )
    print(render_demo(demo))
    return 0
