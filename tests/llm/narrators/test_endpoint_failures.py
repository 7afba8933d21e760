"""`narrate` and `demo` against real (misbehaving) endpoints on 127.0.0.1: every failure
ends in one line that names the URL and says what to do, with its own exit status."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.endpoint import free_port, serve
from tests.helpers import EXAMPLES
from verity import InputError
from verity.cli.main import EXIT_INPUT, EXIT_UNREACHABLE, main
from verity.llm.narrators.openai_chat import OpenAIChatNarrator

GRAPH = EXAMPLES / "graph.json"


def _passing_claims() -> str:
    narration = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
    return json.dumps({"claims": narration["claims"][:2]})  # c1 and c2 pass strict


def _narrate(url: str, *options: str) -> list[str]:
    """``narrate`` of the example graph with the ``openai:m`` narrator at ``url``, with a
    variant that asks for claims (what the canned endpoints answer)."""
    return [
        "narrate",
        str(GRAPH),
        "--narrator",
        "openai:m",
        "--base-url",
        url,
        "--variant",
        "constrained",
        *options,
    ]


def _status(argv: list[str]) -> Any:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own exit
        return exc.code


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_json_schema_refused_falls_back_to_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 13.4: python -m llama_cpp.server answers json_schema with HTTP 500.
    with serve("schema500", _passing_claims()) as endpoint:
        code = main(_narrate(endpoint.url))
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "refused response_format json_schema (HTTP 500)" in captured.err
    styles = [r["response_format"]["type"] for r in endpoint.requests]
    assert styles == ["json_schema", "json_object"]  # one fallback, then json_object


def test_fallback_is_kept_for_later_requests() -> None:
    from verity.core.graph import load_graph
    from verity.llm.prompts import build_prompt

    prompt = build_prompt(load_graph(GRAPH), "constrained")
    with serve("schema500", _passing_claims()) as endpoint:
        narrator = OpenAIChatNarrator("m", base_url=endpoint.url, max_retries=0)
        first, second = narrator.narrate(prompt), narrator.narrate(prompt)
    assert first.ok and second.ok and narrator.response_format == "json_object"
    styles = [r["response_format"]["type"] for r in endpoint.requests]
    assert styles == ["json_schema", "json_object", "json_object"]


def test_explicit_json_schema_does_not_fall_back(capsys: pytest.CaptureFixture[str]) -> None:
    with serve("schema500") as endpoint:
        code = main(_narrate(endpoint.url, "--response-format", "json_schema", "--retries", "0"))
    err = capsys.readouterr().err
    assert code == 3 and "api.server_error" in err and endpoint.url in err
    assert len(endpoint.requests) == 1


def test_context_overflow_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 13.4: the repair prompt overflowed the server's 2048-token context: bare HTTP 400.
    with serve("overflow") as endpoint:
        code = main(_narrate(endpoint.url))
    err = capsys.readouterr().err
    assert code == 3
    assert "context window" in err and "--n_ctx" in err and "--max-tokens" in err
    assert len(endpoint.requests) == 1  # neither retried nor sent again in another style


def test_server_that_never_answers_times_out_quickly(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 13.6: 60 s x 4 tries of silence; now --timeout/--retries and a note per retry.
    with serve("hang") as endpoint:
        started = time.monotonic()
        code = _status(_narrate(endpoint.url, "--timeout", "0.5", "--retries", "1"))
        took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == EXIT_UNREACHABLE, err
    assert took < 10
    assert "retry 1 of 1" in err and "no answer within 0.5s" in err
    assert f"could not be reached at {endpoint.url}" in err and "api.timeout" in err
    assert len(endpoint.requests) == 2


def test_connection_refused_has_its_own_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 13.7: exit 3 ("nothing verifiable") and no URL before.
    url = f"http://127.0.0.1:{free_port()}/v1"
    code = main(_narrate(url, "--retries", "0"))
    err = capsys.readouterr().err
    assert code == EXIT_UNREACHABLE == 4
    assert f"could not be reached at {url}" in err and "api.connection" in err


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "localhost", "ftp://127.0.0.1/v1", ""])
def test_base_url_without_a_scheme_is_refused(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = _status(_narrate(url))
    err = capsys.readouterr().err
    assert code == EXIT_INPUT
    assert err.startswith("verity: error: --base-url must be an http:// or https:// URL")
    assert err.count("\n") == 1


def test_base_url_without_v1_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with serve("notfound") as endpoint:
        bare = endpoint.url.removesuffix("/v1")
        code = main(_narrate(bare))
    err = capsys.readouterr().err
    assert code == 3
    assert "HTTP 404" in err and "serve under /v1" in err and bare in err


def test_demo_takes_the_openai_options(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 13.8: `demo --narrator openai:M` asked for --base-url, which demo did not accept.
    url = f"http://127.0.0.1:{free_port()}/v1"
    code = _status(
        [
            "demo",
            "--out-dir",
            str(tmp_path / "d"),
            "--narrator",
            "openai:m",
            "--base-url",
            url,
            "--retries",
            "0",
            "--timeout",
            "5",
        ]
    )
    err = capsys.readouterr().err
    assert code == EXIT_UNREACHABLE, err
    assert f"could not be reached at {url}" in err


def test_named_key_variable_must_be_set(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 13.11: --api-key-env NAME with NAME unset silently used a placeholder key.
    monkeypatch.delenv("VERITY_TEST_UNSET_KEY", raising=False)
    code = _status(_narrate("http://127.0.0.1:9/v1", "--api-key-env", "VERITY_TEST_UNSET_KEY"))
    err = capsys.readouterr().err
    assert code == EXIT_INPUT
    assert "VERITY_TEST_UNSET_KEY is not set" in err and err.count("\n") == 1


def test_openai_base_url_from_the_environment_counts_for_the_key_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 13.11: the client honoured OPENAI_BASE_URL but the key check did not.
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        OpenAIChatNarrator("m")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    narrator = OpenAIChatNarrator("m")
    assert narrator.url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "127.0.0.1:9")
    with pytest.raises(InputError, match="http:// or https://"):
        OpenAIChatNarrator("m")


def test_credentials_in_the_url_are_not_shown() -> None:
    narrator = OpenAIChatNarrator("m", base_url="http://user:hunter2@127.0.0.1:9/v1")
    assert narrator.url == "http://127.0.0.1:9/v1"
