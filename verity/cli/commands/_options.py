"""Command-line options that several commands share.

Light to import (``verify`` and the ``verify-stream`` workers use it): the repair loop and
the narrators are imported by the options that need them, when they are added.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from verity.core.profiles import Profile, extend, load_gates
from verity.errors import InputError
from verity.formats import MAX_REPAIRS
from verity.progress import OnEvent, StepLine

__all__ = [
    "add_gates",
    "add_openai_options",
    "add_quiet",
    "add_repairs",
    "add_threads",
    "chosen_profile",
    "int_in_range",
    "local_options",
    "openai_options",
    "progress_events",
    "stderr_notes",
]


def int_in_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from ``low`` (to ``high``, when given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return parse


def add_repairs(parser: argparse.ArgumentParser, what: str = "repair passes") -> None:
    """``--repairs N``: 0 to :data:`verity.formats.MAX_REPAIRS`, default 1."""
    parser.add_argument(
        "--repairs",
        type=int_in_range(0, MAX_REPAIRS),
        default=1,
        metavar="N",
        help=f"{what}, 0 to {MAX_REPAIRS} (default: 1)",
    )


def add_gates(parser: argparse.ArgumentParser) -> None:
    """``--gates MODULE:ATTR``: custom gates run after the ``--profile`` gates."""
    parser.add_argument(
        "--gates",
        metavar="MODULE:ATTR",
        help="custom gates to run after the profile's: a verity.Profile, a verity.CustomGate "
        "or a list of them, imported from MODULE (the current directory comes first)",
    )


def chosen_profile(args: argparse.Namespace) -> str | Profile:
    """``--profile``, extended by ``--gates`` when given. The command line always filters
    (its exit status says whether claims failed), whatever the profile's on-fail policy."""
    spec = getattr(args, "gates", None)
    if not spec:
        return str(args.profile)
    profile = load_gates(spec, args.profile)
    if profile.on_fail != "filter":
        profile = extend(profile, name=profile.name, on_fail="filter")
    return profile


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600, got {text}")
    return value


#: ``args`` attribute -> narrator option, for :func:`openai_options`.
_OPENAI_OPTIONS = (
    ("base_url", "base_url"),
    ("api_key_env", "api_key_env"),
    ("response_format", "response_format"),
    ("timeout", "timeout_s"),
    ("retries", "max_retries"),
    ("max_tokens", "max_tokens"),
)


def add_openai_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options of ``openai:MODEL`` narrators (endpoint, key, format, time limits)."""
    from verity.llm.narrators.openai_chat import (
        DEFAULT_RETRIES,
        DEFAULT_TIMEOUT_S,
        RESPONSE_FORMATS,
    )

    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible endpoint, with its /v1 (e.g. http://127.0.0.1:8000/v1; "
        "default: $OPENAI_BASE_URL, else api.openai.com)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key; it must be set (default: "
        "OPENAI_API_KEY, optional with a custom endpoint)",
    )
    parser.add_argument(
        "--response-format",
        choices=RESPONSE_FORMATS,
        help="structured-output style: auto tries json_schema and falls back to "
        "json_object, the style of python -m llama_cpp.server (default: auto)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help=f"most seconds one request may take (default: {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--retries",
        type=int_in_range(0, 10),
        metavar="N",
        help="retries after a connection error, timeout or HTTP 408/409/429/5xx, 0 to 10 "
        f"(default: {DEFAULT_RETRIES})",
    )
    parser.add_argument(
        "--max-tokens",
        type=int_in_range(1),
        metavar="N",
        help="most tokens one answer may use; with the prompt it must fit the server's "
        "context window (default: 1024)",
    )


def openai_options(args: argparse.Namespace) -> dict[str, Any]:
    """The openai options given on the command line (absent ones left out)."""
    return {
        option: getattr(args, attr)
        for attr, option in _OPENAI_OPTIONS
        if getattr(args, attr, None) is not None
    }


def stderr_notes(text: str) -> None:
    """Print a narrator's note (a retry, a fallback) on stderr."""
    print(f"verity: {text}", file=sys.stderr, flush=True)


def add_spend_profile(parser: argparse.ArgumentParser, help: str, **kwargs: Any) -> None:
    """``--spend-profile N``: the card-rewards spending profile (``--profile`` names the
    gate profile)."""
    parser.add_argument("--spend-profile", metavar="N", help=help, **kwargs)


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress on stderr."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (by default each long step is shown there: live on a "
        "terminal, one line per step elsewhere)",
    )


@contextmanager
def progress_events(args: argparse.Namespace, label: str) -> Iterator[OnEvent | None]:
    """The progress line of a command on stderr (None with ``--quiet``), erased at the end."""
    if getattr(args, "quiet", False):
        yield None
        return
    with StepLine(label, sys.stderr) as line:
        yield line


def add_threads(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--threads N``: the threads of the local narrator."""
    parser.add_argument(
        "--threads",
        type=int_in_range(1),
        metavar="N",
        help="threads the local narrator's model runs on, at least 1 (default: the "
        "machine's cores, at most 4; benchmarks/perf/threads.py); llama.cpp runs with "
        "OMP_WAIT_POLICY=PASSIVE unless the environment sets it",
    )


def local_options(args: argparse.Namespace, specs: tuple[str, ...]) -> dict[str, Any]:
    """The local narrator's options given on the command line; ``--threads`` with no
    local narrator among ``specs`` is an error."""
    threads = getattr(args, "threads", None)
    if threads is None:
        return {}
    if "local" not in specs:
        raise InputError(f"--threads applies to the local narrator only, not {', '.join(specs)}")
    return {"n_threads": threads}
