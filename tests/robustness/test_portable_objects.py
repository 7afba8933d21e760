"""The objects a user or a worker process pickles or copies survive it.

The evidence graph pickles without its derived matcher and caches. Spawned verify-stream
workers get the profile pickled, and a worker that cannot start fails the stream with one
clear error instead of hanging.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import verity
from tests.helpers import EXAMPLES, ROOT
from verity.core.gates import gates_for
from verity.data.examples.fee_gates import fees
from verity.stream import verify_stream

GRAPH = EXAMPLES / "graph.json"
NARRATION = (EXAMPLES / "narration.json").read_text("utf-8")
PASSAGES = [
    verity.Passage("p1", "The tenant shall not sublet the flat without written consent."),
    verity.Passage("p2", "Rent is due on the first day of each month."),
]
ANSWER = "The tenant shall not sublet the flat. Rent is due on the first day of each month."


def _round_trips(value: Any) -> Iterator[tuple[str, Any]]:
    yield "pickle", pickle.loads(pickle.dumps(value))
    yield "copy", copy.copy(value)
    yield "deepcopy", copy.deepcopy(value)


def _samples() -> list[Any]:
    result = verity.check_answer(ANSWER + " The tenant may sublet the flat.", PASSAGES)
    assert result.claims and any(c.span is not None for c in result.claims)
    finding = verity.Finding("x.y", "message", expected=["a"], actual=None, gate="prose")
    return [result, *result.claims, PASSAGES[0], finding, *gates_for("strict")]


def test_results_findings_and_gates_pickle_and_copy() -> None:
    for value in _samples():
        for how, back in _round_trips(value):
            assert back == value and type(back) is type(value), (how, value)


def test_a_warm_graph_pickles_without_its_caches_and_verifies_alike() -> None:
    graph = verity.load_graph(GRAPH)
    reports = {
        p: verity.verify_json(graph, NARRATION, p).model_dump_json() for p in ("paper", "strict")
    }
    assert graph.cache  # warm: the gates filled it
    for how, back in _round_trips(graph):
        if how == "copy":
            continue  # a shallow copy shares the caches, as any object's does
        # the caches stay behind; the alias matcher is rebuilt from the aliases (graphs
        # naming the same entities may share one, so it may be the very same object)
        assert back.cache == {} and back.matcher.forms == graph.matcher.forms, how
        for profile, report in reports.items():
            assert verity.verify_json(back, NARRATION, profile).model_dump_json() == report


def test_an_alias_matcher_pickles_as_its_aliases() -> None:
    matcher = verity.load_graph(GRAPH).matcher
    text = " ".join(matcher.forms)
    for how, back in _round_trips(matcher):
        assert back.forms == matcher.forms, how
        assert back.find(text) == matcher.find(text), how


def test_a_custom_profile_pickles_by_reference() -> None:
    back = pickle.loads(pickle.dumps(fees))
    assert back.name == fees.name and back.custom == fees.custom
    assert [(g.name, g.profiles, dict(g.codes)) for g in back.gates] == [
        (g.name, g.profiles, dict(g.codes)) for g in fees.gates
    ]


def test_spawned_workers_verify_as_this_process_does() -> None:
    lines = [NARRATION.replace("\n", " ").encode()] * 5
    one = list(verify_stream(lines, EXAMPLES, "strict"))
    two = list(verify_stream(lines, EXAMPLES, "strict", 2, start_method="spawn"))
    assert one == two and json.loads(one[0])["report"]["summary"]["claims"] == 5


def test_a_profile_that_cannot_be_pickled_is_refused_before_any_worker() -> None:
    unpicklable = verity.extend(
        "paper",
        [verity.CustomGate("local", lambda claim, graph: iter(()), {"local.bad": "never"})],
    )
    with pytest.raises(verity.InputError, match="cannot be sent to worker processes"):
        list(verify_stream([b"{}"], EXAMPLES, unpicklable, 2, start_method="spawn"))


def test_a_worker_that_cannot_start_fails_the_stream_instead_of_hanging(tmp_path: Path) -> None:
    # The gate's module exists in this process only: a spawned worker cannot import it.
    # Before the fix, the pool restarted failing workers forever and the stream hung.
    script = tmp_path / "probe.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, types
            sys.path.insert(0, {str(ROOT)!r})
            import verity
            from verity.stream import verify_stream

            if __name__ == "__main__":  # not in the spawned worker, which re-runs this file
                module = types.ModuleType("only_here")
                sys.modules["only_here"] = module
                exec(
                    "import verity\\n"
                    "@verity.custom_gate('here', codes={{'here.bad': 'never'}})\\n"
                    "def here(claim, graph):\\n"
                    "    return iter(())\\n",
                    module.__dict__,
                )
                profile = verity.extend("paper", [module.here])
                try:
                    list(verify_stream([b"{{}}"] * 3, {str(EXAMPLES)!r}, profile, 2,
                                       start_method="spawn"))
                except verity.InputError as exc:
                    print("INPUT ERROR:", exc)
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "INPUT ERROR: a verify-stream worker process could not start" in done.stdout
    assert "only_here" in done.stdout
