"""verify(): run the gates of a profile over every claim of a narration."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verity.core.claims import Narration, ParsedNarration, parse_narration
from verity.core.engine import build_report
from verity.core.gates import Gate, gates_for
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.profiles import Profile, resolve_profile
from verity.core.report import Report
from verity.core.wire import read_narration_text

__all__ = ["verify", "verify_json", "verify_parsed"]


def _gates(profile: str | Profile, on_fail: str | None) -> tuple[str, tuple[Gate, ...], str]:
    name, gates, policy = resolve_profile(profile, on_fail)
    if not isinstance(profile, Profile):
        gates = gates_for(profile)  # the built-in table, looked up here
    return name, gates, policy


def verify(
    graph: EvidenceGraph | Mapping[str, Any] | str | Path,
    narration: Narration | Mapping[str, Any],
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """Check every claim of ``narration`` against ``graph`` under ``profile``.

    Failing claims are dropped, not fatal: the report lists every verdict with its
    errors, ships the passing claims in order and answers with their texts, or with
    :data:`verity.REFUSAL` when none passes. Raises :class:`verity.errors.InputError`
    only for input that cannot be used at all (a graph that fails to load, a
    narration that is not an object with a claims array, an unknown profile, a
    narration for another graph).

    :func:`verify_json` takes the narration's JSON text instead, the fastest way in.

    ``profile`` is ``"strict"``, ``"paper"`` or a :class:`verity.Profile` made with
    :func:`verity.extend`. ``on_fail`` overrides the profile's policy: ``"filter"``
    returns the report, ``"raise"`` raises :class:`verity.VerificationFailed` (carrying
    the report) when any claim fails.
    """
    name, gates, policy = _gates(profile, on_fail)
    return build_report(load_graph(graph), parse_narration(narration), name, gates, policy)


def verify_json(
    graph: EvidenceGraph | Mapping[str, Any] | str | Path,
    narration: str | bytes,
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """:func:`verify` of a narration given as JSON text (``str`` or UTF-8 ``bytes``).

    The text is decoded and its claims checked in one pass, faster than parsing it
    and calling :func:`verify`, with the same report. Text that is not JSON is an
    :class:`verity.errors.InputError`, as a file that is not JSON is.
    """
    name, gates, policy = _gates(profile, on_fail)
    return build_report(load_graph(graph), read_narration_text(narration), name, gates, policy)


def verify_parsed(
    graph: EvidenceGraph,
    parsed: ParsedNarration,
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """:func:`verify` of a loaded graph and a narration already read (verify-stream)."""
    name, gates, policy = _gates(profile, on_fail)
    return build_report(graph, parsed, name, gates, policy)
