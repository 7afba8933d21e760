"""The extractive variant through every narrator kind, the repair pass and the demo.

Fakes stand in for endpoints and models here (named as fakes); the real model and a real
``llama_cpp.server`` are in ``test_local_model.py`` and ``test_openai_server.py``.
"""

from __future__ import annotations

import asyncio
import json
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from verity import EvidenceGraph, load_graph, verify
from verity.cli.render import render_demo
from verity.llm.choice import choice_answer
from verity.llm.menu import PLAN_CLAIMS, menu_facts, plan_type
from verity.llm.narrators import (
    AsyncOpenAIChatNarrator,
    OpenAIChatNarrator,
    RecordingNarrator,
    ReplayNarrator,
    ScriptedNarrator,
)
from verity.llm.narrators.base import Attempt, Usage, output_attempt
from verity.llm.prompts import Prompt, build_prompt, build_repair_prompt
from verity.llm.repair import narrate_and_verify
from verity.pipeline import run_demo

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the openai client's transport package
    import httpx  # type: ignore[no-redef]


@cache
def _graph_data() -> dict[str, Any]:
    from verity.backends.card_rewards import optimize

    return optimize(7, "max_value")


@pytest.fixture(scope="module")
def graph() -> EvidenceGraph:
    return load_graph(_graph_data())


@pytest.fixture(scope="module")
def prompt(graph: EvidenceGraph) -> Prompt:
    return build_prompt(graph, "extractive")


def _offered(body_or_prompt: Any) -> list[dict[str, Any]]:
    if isinstance(body_or_prompt, Prompt):
        schema = body_or_prompt.json_schema
    else:
        fmt = body_or_prompt["response_format"]
        schema = fmt["schema"] if "schema" in fmt else fmt["json_schema"]["schema"]
    return list(schema["properties"]["claims"]["items"]["enum"])


def _facts(claims: list[Any]) -> list[str]:
    return [c["cited_evidence_ids"][0] for c in claims]


# --- scripted and replay ------------------------------------------------------------------


def test_scripted_extractive_states_distinct_menu_facts(
    prompt: Prompt, graph: EvidenceGraph
) -> None:
    a = ScriptedNarrator("sloppy", seed=1).narrate(prompt)
    menu = [item.claim() for item in prompt.menu]
    assert len(a.claims) == prompt.max_claims == 5
    assert all({k: v for k, v in c.items() if k != "id"} in menu for c in a.claims)
    assert len(set(_facts(a.claims))) == 5
    # the plan first (the headline, then PLAN_CLAIMS allocation segments), then another part
    types = [graph.nodes[f].type for f in _facts(a.claims)]
    assert types[1 : 1 + PLAN_CLAIMS] == ["ALLOCATION_SEGMENT"] * PLAN_CLAIMS
    assert graph.nodes[_facts(a.claims)[0]].headline
    assert types[-1] not in types[:-1]
    assert verify(graph, a.narration or {}, "strict").summary.all_claims_verified
    assert a.raw_text == ScriptedNarrator("sloppy", seed=1).narrate(prompt).raw_text
    assert a.raw_text != ScriptedNarrator("sloppy", seed=2).narrate(prompt).raw_text


def test_recorded_extractive_narration_replays(tmp_path: Path, graph: EvidenceGraph) -> None:
    record = tmp_path / "attempts.jsonl"
    live = narrate_and_verify(
        graph, RecordingNarrator(ScriptedNarrator("clean"), record), "extractive"
    )
    replayed = narrate_and_verify(graph, ReplayNarrator(record), "extractive")
    assert replayed.final.to_dict() == live.final.to_dict()
    assert len(replayed.final.shipped) == 5


# --- chat endpoints: one request per claim, used facts removed ----------------------------


class FakeMenuCompletions:
    """A fake endpoint that honours the schema: answers the ``pick``-th item it is offered."""

    def __init__(
        self, pick: int = 0, fail_at: int | None = None, off_menu_at: int | None = None
    ) -> None:
        self.pick = pick
        self.fail_at = fail_at
        self.off_menu_at = off_menu_at  # this step ignores the schema: it rewords its claim
        self.bodies: list[dict[str, Any]] = []

    def _answer(self, body: dict[str, Any]) -> Any:
        self.bodies.append(body)
        if self.fail_at is not None and len(self.bodies) - 1 == self.fail_at:
            request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
            raise openai.InternalServerError(
                "boom", response=httpx.Response(500, request=request), body=None
            )
        offered = _offered(body)
        claim = dict(offered[min(self.pick, len(offered) - 1)])
        if self.off_menu_at is not None and len(self.bodies) - 1 == self.off_menu_at:
            claim["text"] = "Everyone agrees that " + claim["text"]
        message = SimpleNamespace(content=json.dumps({"claims": [claim]}), refusal=None)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop")],
            usage=SimpleNamespace(prompt_tokens=100, completion_tokens=20),
            model="fake-model",
        )

    def create(self, **body: Any) -> Any:
        return self._answer(body)


class FakeAsyncMenuCompletions(FakeMenuCompletions):
    async def create(self, **body: Any) -> Any:  # type: ignore[override]
        await asyncio.sleep(0)
        return self._answer(body)


def _openai(completions: FakeMenuCompletions) -> OpenAIChatNarrator:
    client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    return OpenAIChatNarrator(
        "fake-model", client=client, response_format="json_object", max_retries=0
    )


def test_openai_decodes_the_menu_claim_by_claim(prompt: Prompt, graph: EvidenceGraph) -> None:
    fake = FakeMenuCompletions()
    attempt = _openai(fake).narrate(prompt)
    assert len(fake.bodies) == 5
    sizes = [len(_offered(b)) for b in fake.bodies]
    # the headline items first (a marked graph), then the plan's items, fewer at every
    # step, then the parts not told yet
    assert sizes[0] == sum(i.headline for i in prompt.menu) > 0
    plan = [i for i in prompt.menu if i.node_type == plan_type(prompt.menu)]
    told = sizes[1 : 1 + PLAN_CLAIMS]
    assert told[0] == len(plan) and told == sorted(told, reverse=True)
    for body in fake.bodies:
        assert body["response_format"]["type"] == "json_object"
        assert body["messages"][:2] == prompt.messages()  # the shared prefix
    assert attempt.prompt_hash == prompt.prompt_hash and attempt.variant == "extractive"
    assert attempt.usage == Usage(500, 100) and attempt.api_error is None
    assert len(set(_facts(attempt.claims))) == 5
    assert [c["id"] for c in attempt.claims] == ["c1", "c2", "c3", "c4", "c5"]
    assert verify(graph, attempt.narration or {}, "strict").summary.all_claims_verified


def test_async_openai_decodes_the_menu_claim_by_claim(prompt: Prompt) -> None:
    fake = FakeAsyncMenuCompletions(pick=3)
    client = SimpleNamespace(chat=SimpleNamespace(completions=fake))
    narrator = AsyncOpenAIChatNarrator("fake-model", client=client, max_retries=0)
    attempt = asyncio.run(narrator.anarrate(prompt))
    assert len(fake.bodies) == 5 and len(set(_facts(attempt.claims))) == 5
    assert fake.bodies[0]["response_format"]["type"] == "json_schema"


def test_a_failed_request_mid_decode_keeps_the_claims_before_it(
    prompt: Prompt, graph: EvidenceGraph
) -> None:
    fake = FakeMenuCompletions(fail_at=2)
    result = narrate_and_verify(graph, _openai(fake), "extractive")
    attempt = result.passes[0].attempt
    assert len(attempt.claims) == 2 and attempt.api_error is not None
    assert attempt.api_error.code == "api.server_error"
    assert result.stop_reason == "api_error" and len(result.final.shipped) == 2

    first = FakeMenuCompletions(fail_at=0)
    failed = _openai(first).narrate(prompt)
    assert failed.narration is None and failed.api_error is not None


def test_a_claim_off_the_menu_is_kept_as_written_and_counts_as_told(
    prompt: Prompt, graph: EvidenceGraph
) -> None:
    fake = FakeMenuCompletions(off_menu_at=1)
    attempt = _openai(fake).narrate(prompt)
    written = attempt.claims[1]
    assert written["text"].startswith("Everyone agrees that ")  # as the model wrote it
    node = written["cited_evidence_ids"][0]
    later = [c for body in fake.bodies[2:] for c in _offered(body)]
    assert later and all(c["cited_evidence_ids"][0] != node for c in later)  # told
    assert len(set(_facts(attempt.claims))) == len(attempt.claims) == 5
    report = verify(graph, attempt.narration or {}, "strict")
    assert [v.id for v in report.claims if not v.passed] == ["c2"]  # verify judges it


# --- repair: replacements come from what is left of the menu ------------------------------


class FakeMenuNarrator:
    """A fake narrator: pass 0 writes one menu item and one item with a swapped number;
    a repair answers the first item left on its menu."""

    name = "fake-menu"

    def __init__(self) -> None:
        self.prompts: list[Prompt] = []

    def narrate(self, prompt: Prompt) -> Attempt:
        self.prompts.append(prompt)
        if prompt.pass_index == 0:
            good = prompt.menu[0].claim()
            bad = next(
                i.claim()
                for i in prompt.menu
                if i.numbers and i.node_id != good["cited_evidence_ids"][0]
            )
            bad["numbers"] = ["$999,999.00"]
            claims = [good, bad]
        else:
            claims = [prompt.menu[0].claim()]
        return output_attempt(
            prompt,
            narrator=self.name,
            model="fake",
            raw_text=json.dumps({"claims": claims}),
            finish_reason="stop",
            usage=Usage(1, 1),
            latency_s=0.0,
        )


def test_repair_replaces_dropped_items_from_what_is_left(graph: EvidenceGraph) -> None:
    fake = FakeMenuNarrator()
    result = narrate_and_verify(graph, fake, "extractive", repairs=1)
    first, repair = fake.prompts
    kept, dropped = result.passes[0].claims
    left = {i.node_id for i in repair.menu}
    assert kept["cited_evidence_ids"][0] not in left
    assert dropped["cited_evidence_ids"][0] not in left  # a dropped fact is not retried
    assert len(menu_facts(repair.menu)) == len(menu_facts(first.menu)) - 2
    assert repair.json_schema["properties"]["claims"]["items"]["enum"] == [
        i.claim() for i in repair.menu
    ]
    assert result.final.summary.all_claims_verified and len(result.final.shipped) == 2


def test_repair_ends_when_the_menu_is_used_up() -> None:
    data = dict(_graph_data())
    node = next(n for n in data["nodes"] if n["type"] == "ASSUMPTION")
    data = {**data, "nodes": [node], "edges": []}
    base = build_prompt(load_graph(data), "extractive")
    assert base.max_claims == 1
    review = {"kept_claims": [], "failing_claims": [{"claim": base.menu[0].claim()}]}
    repair = build_repair_prompt(base, review, previous_output="{}", pass_index=1, max_claims=1)
    assert repair.menu == ()

    class FakeWrongNarrator(FakeMenuNarrator):
        def narrate(self, prompt: Prompt) -> Attempt:
            self.prompts.append(prompt)
            claim = {**prompt.menu[0].claim(), "numbers": ["$999,999.00"]}
            return output_attempt(
                prompt,
                narrator=self.name,
                model="fake",
                raw_text=json.dumps({"claims": [claim]}),
                finish_reason="stop",
                usage=Usage(1, 1),
                latency_s=0.0,
            )

    fake = FakeWrongNarrator()
    result = narrate_and_verify(load_graph(data), fake, "extractive", repairs=1)
    assert result.stop_reason == "menu_exhausted" and len(fake.prompts) == 1
    assert result.final.refused


# --- the demo ---------------------------------------------------------------------------


def test_demo_defaults_to_choice_and_prints_the_headline_then_prose(tmp_path: Path) -> None:
    demo = run_demo(tmp_path / "demo", narrator=ScriptedNarrator("sloppy"))
    text = render_demo(demo)
    shipped = demo.result.final.shipped
    assert demo.variant == "choice" and len(shipped) == 5
    lines = text.splitlines()
    start = lines.index("Shipped narration (5 verified claims):") + 1
    # the plan and its net value, in names, on a line of its own
    assert lines[start] == "" and lines[start + 1] == shipped[0].text
    assert shipped[0].cited_evidence_ids == ["objective"]
    assert shipped[0].text.startswith("The best plan nets $") and "Steady Cash" in shipped[0].text
    assert lines[start + 2] == ""
    prose = " ".join(c.text for c in shipped[1:])
    end = lines.index("Dropped claims: none.")
    assert " ".join(line.strip() for line in lines[start + 3 : end]).strip() == prose
    assert "paper profile" not in text  # printed only when paper would ship something else
    assert lines.index("files:") > end  # then where the files went
    assert "_" not in " ".join(c.text for c in shipped)  # names, not ids, in what is read


def test_scripted_choice_answers_with_numbers_the_headline_first(graph: EvidenceGraph) -> None:
    prompt = build_prompt(graph, "choice")
    a = ScriptedNarrator("sloppy", seed=1).narrate(prompt)
    labels = json.loads(a.raw_text)["facts"]
    assert labels[0] == 1 and len(labels) == 5 == len(set(labels))
    claims = [{k: v for k, v in c.items() if k != "id"} for c in a.claims]
    assert claims == [prompt.listing[n - 1].claim() for n in labels]
    assert verify(graph, a.narration or {}, "strict").summary.all_claims_verified
    assert a.raw_text == ScriptedNarrator("sloppy", seed=1).narrate(prompt).raw_text


def test_recorded_choice_narration_replays(tmp_path: Path, graph: EvidenceGraph) -> None:
    record = tmp_path / "attempts.jsonl"
    live = narrate_and_verify(graph, RecordingNarrator(ScriptedNarrator("clean"), record), "choice")
    replayed = narrate_and_verify(graph, ReplayNarrator(record), "choice")
    assert replayed.final.to_dict() == live.final.to_dict()
    assert len(replayed.final.shipped) == 5


class FakeChoiceCompletions(FakeMenuCompletions):
    """A fake endpoint for choice prompts: answers the offered numbers from the ``pick``-th
    on, as many as the schema allows."""

    def _answer(self, body: dict[str, Any]) -> Any:
        self.bodies.append(body)
        fmt = body["response_format"]
        schema = fmt["schema"] if "schema" in fmt else fmt["json_schema"]["schema"]
        facts = schema["properties"]["facts"]
        numbers = facts["items"]["enum"][self.pick :][: facts["maxItems"]]
        message = SimpleNamespace(content=json.dumps({"facts": numbers}), refusal=None)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop")],
            usage=SimpleNamespace(prompt_tokens=100, completion_tokens=12),
            model="fake-model",
        )


def test_openai_sends_choice_in_one_request_its_prompt_and_schema_agree(
    graph: EvidenceGraph,
) -> None:
    prompt = build_prompt(graph, "choice")
    fake = FakeChoiceCompletions(pick=1)
    attempt = _openai(fake).narrate(prompt)
    assert len(fake.bodies) == 1  # the whole choice, one request
    schema = fake.bodies[0]["response_format"]["schema"]
    assert schema == prompt.json_schema
    facts = schema["properties"]["facts"]
    assert facts["items"]["enum"] == list(range(1, len(prompt.listing) + 1))
    assert facts["maxItems"] == prompt.max_claims == 5
    assert choice_answer(facts["items"]["enum"], 5)[1] in fake.bodies[0]["messages"][-1]["content"]
    labels = json.loads(attempt.raw_text)["facts"]
    assert labels == [2, 3, 4, 5, 6]
    claims = [{k: v for k, v in c.items() if k != "id"} for c in attempt.claims]
    assert claims == [prompt.listing[n - 1].claim() for n in labels]
    assert attempt.usage == Usage(100, 12) and attempt.variant == "choice"
    assert verify(graph, attempt.narration or {}, "strict").summary.all_claims_verified


def test_demo_names_what_paper_would_add(tmp_path: Path) -> None:
    demo = run_demo(
        tmp_path / "demo", narrator=ScriptedNarrator("sloppy"), variant="constrained", repairs=0
    )
    if demo.paper_only:
        assert "The four-gate paper profile would have shipped" in render_demo(demo)
    for verdict in demo.result.final.claims:
        if not verdict.passed:
            assert verdict.errors[0].code in render_demo(demo)
