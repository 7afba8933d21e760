"""Narrators: turn a prompt into an attempt. One protocol, four kinds.

``narrator_from_spec`` builds one from a command-line spec:
``local`` (embedded SmolLM2), ``openai:MODEL`` (any OpenAI-compatible endpoint),
``scripted[:PROFILE]`` (the simulator) or ``replay:FILE`` (recorded attempts).

The openai-backed names are imported on first use, so importing this package (and the
repair loop, and :mod:`verity.bench`) does not load the ``openai`` client.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verity.errors import InputError
from verity.extras import install_hint, missing_modules, require_extra
from verity.llm.narrators.base import (
    API_ERROR_CODES,
    PARSE_ERROR_CODES,
    Attempt,
    AttemptError,
    Narrator,
    Usage,
    parse_output,
)
from verity.llm.narrators.replay import RecordingNarrator, ReplayNarrator
from verity.llm.narrators.scripted import DEFAULT_MIX, MIXES, ErrorMix, ScriptedNarrator

if TYPE_CHECKING:
    from verity.llm.narrators.openai_chat import (
        AsyncOpenAIChatNarrator,
        OpenAIChatNarrator,
        narrate_many,
    )

__all__ = [
    "API_ERROR_CODES",
    "PARSE_ERROR_CODES",
    "SCRIPTED_MIXES",
    "AsyncOpenAIChatNarrator",
    "Attempt",
    "AttemptError",
    "ErrorMix",
    "Narrator",
    "OpenAIChatNarrator",
    "RecordingNarrator",
    "ReplayNarrator",
    "ScriptedNarrator",
    "Usage",
    "check_spec",
    "narrate_many",
    "narrator_from_spec",
    "parse_output",
]

#: Names imported on first use: the openai client is heavy and most runs never need it.
_LAZY = {
    "AsyncOpenAIChatNarrator": "verity.llm.narrators.openai_chat",
    "OpenAIChatNarrator": "verity.llm.narrators.openai_chat",
    "narrate_many": "verity.llm.narrators.openai_chat",
}


#: The scripted narrator's error mixes by name (``scripted:NAME``).
SCRIPTED_MIXES = MIXES


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


_OPTIONS: dict[str, frozenset[str]] = {
    "local": frozenset({"n_ctx", "n_threads", "seed", "max_tokens", "reuse_prefix", "on_event"}),
    "openai": frozenset(
        {
            "base_url",
            "api_key_env",
            "response_format",
            "max_tokens",
            "max_retries",
            "backoff_s",
            "timeout_s",
            "seed",
            "notify",
        }
    ),
    "scripted": frozenset({"seed"}),
    "replay": frozenset(),
}


def _options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    given = {k: v for k, v in options.items() if v is not None}
    stray = sorted(set(given) - _OPTIONS[kind])
    if stray:
        raise InputError(f"option {stray[0]!r} does not apply to {kind} narrators")
    return given


def check_spec(spec: str) -> None:
    """Refuse, without building the narrator (no model is loaded, no file read), a spec
    that is unknown, a kind whose extra is not installed, a ``scripted`` profile that
    does not exist or a ``replay`` file that is not there."""
    kind, _, arg = spec.partition(":")
    if kind == "local" and not arg:
        require_extra("local", "the local narrator")
    elif kind == "openai":
        if missing_modules(("openai",)):
            raise InputError(
                f"openai:MODEL narrators need the openai package (not installed): {install_hint()}"
            )
    elif kind == "scripted":
        ScriptedNarrator(arg or DEFAULT_MIX)
    elif kind == "replay" and arg:
        if not Path(arg).is_file():
            raise InputError(f"replay file {arg} does not exist or is not a file")
    else:
        raise InputError(
            f"unknown narrator {spec!r}; expected local, openai:MODEL, "
            "scripted[:PROFILE] or replay:FILE"
        )


def narrator_from_spec(spec: str, **options: Any) -> Narrator:
    """A narrator from ``local``, ``openai:MODEL``, ``scripted[:PROFILE]`` or ``replay:FILE``.

    Options that are ``None`` are ignored; an option that does not apply to the kind is
    an :class:`InputError`, as is an unknown spec (:func:`check_spec`).
    """
    kind, _, arg = spec.partition(":")
    if kind == "local" and not arg:
        from verity.llm.narrators.local import LocalNarrator

        return LocalNarrator(**_options("local", options))
    if kind == "openai":
        from verity.llm.narrators.openai_chat import OpenAIChatNarrator

        return OpenAIChatNarrator(arg, **_options("openai", options))
    if kind == "scripted":
        return ScriptedNarrator(arg or DEFAULT_MIX, **_options("scripted", options))
    if kind == "replay" and arg:
        _options("replay", options)
        return ReplayNarrator(arg)
    check_spec(spec)  # raises: the spec is unknown
    raise AssertionError(spec)  # pragma: no cover
