"""verity serve: a real server on 127.0.0.1 (a `verity serve` child process), real HTTP
requests. The bodies are the CLI's JSON; bad input is a 400 error object with the CLI's
codes; a large body is 413; the process stops cleanly on SIGTERM."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, FIXTURES, ROOT, needs
from verity.cli.main import main

needs("serve", "uvicorn")
needs("serve", "starlette")

from verity.serve import listen  # noqa: E402  (after the extra's check)
from verity.serve.app import service_version  # noqa: E402

GRAPH = json.loads((EXAMPLES / "graph.json").read_text("utf-8"))
NARRATION = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
MAX_BODY = 65536
START_TIMEOUT_S = 60
PASSAGES = [{"id": "p1", "text": "The tenant shall not sublet the flat."}]
ANSWER = "The tenant shall not sublet the flat. The tenant may keep a dog."
JSON = {"Content-Type": "application/json"}


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    first_line: str

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, str]:
        """(status, parsed JSON body, raw body) of one request on a new connection."""
        status, raw, _ = self.exchange(method, path, body, headers)
        return status, json.loads(raw), raw

    def exchange(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str, dict[str, str]]:
        """(status, raw JSON body, response headers by lower-case name) of one request;
        a body goes as ``application/json`` unless ``headers`` say otherwise."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            payload = body if isinstance(body, bytes) or body is None else json.dumps(body)
            if headers is None:
                headers = {} if payload is None else {"Content-Type": "application/json"}
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            raw = response.read().decode("utf-8")
            assert response.getheader("content-type", "").startswith("application/json")
            return response.status, raw, {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()


def start(*args: str) -> Server:
    """Start ``verity serve --port 0 ARGS`` and wait for its "serving on" line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "verity", "serve", "--port", "0", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.append(process.stderr.readline().decode()),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    reader.join(START_TIMEOUT_S)
    found = re.search(r"serving on http://127\.0\.0\.1:(\d+)", lines[0] if lines else "")
    if found is None:
        process.kill()
        raise AssertionError(f"the server did not start: {lines}")
    return Server(process, int(found.group(1)), lines[0])


def stop(server: Server) -> tuple[int, str]:
    """SIGTERM the server; (exit status, rest of its stderr)."""
    server.process.send_signal(signal.SIGTERM)
    try:
        _, err = server.process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise
    return server.process.returncode, err.decode()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    gates = "verity.data.examples.fee_gates:fees"
    args = ("--graphs", str(EXAMPLES), "--max-body", str(MAX_BODY), "--gates", gates)
    running = start(*args, "--workers", "2")
    try:
        yield running
    finally:
        status, err = stop(running)
        assert status == 0 and "Traceback" not in err, err


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    main(argv)
    return json.loads(capsys.readouterr().out)


def test_healthz(server: Server) -> None:
    assert "profiles paper, strict, paper+fee; workers: 2" in server.first_line
    status, body, _ = server.request("GET", "/healthz")
    assert (status, body) == (200, {"status": "ok", "version": service_version()})


def test_verify_answers_the_report_of_verify_json(
    server: Server, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    graph, narration = str(EXAMPLES / "graph.json"), str(EXAMPLES / "narration.json")
    for profile in ("strict", "paper"):
        cli = _cli_json(["verify", graph, narration, "--json", "--profile", profile], capsys)
        by_id = {"graph": GRAPH["graph_id"], "narration": NARRATION, "profile": profile}
        assert server.request("POST", "/v1/verify", by_id)[:2] == (200, cli)
        inline = {"graph": GRAPH, "narration": NARRATION, "profile": profile}
        assert server.request("POST", "/v1/verify", inline)[:2] == (200, cli)
    default = server.request("POST", "/v1/verify", {"graph": GRAPH, "narration": NARRATION})
    assert default[1]["profile"] == "strict"
    argv = ["verify", graph, narration, "--json", "--profile", "paper"]
    cli = _cli_json([*argv, "--gates", "verity.data.examples.fee_gates:fees"], capsys)
    body = {"graph": GRAPH["graph_id"], "narration": NARRATION, "profile": "paper+fee"}
    status, report, _ = server.request("POST", "/v1/verify", body)
    assert (status, report) == (200, cli) and report["summary"]["failing_by_gate"]["fee"] == 1


def test_check_answer_answers_the_result_of_check_answer_json(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.json").write_text(json.dumps(PASSAGES), "utf-8")
    (tmp_path / "a.txt").write_text(ANSWER, "utf-8")
    cli = _cli_json(
        ["check-answer", str(tmp_path / "p.json"), str(tmp_path / "a.txt"), "--json"], capsys
    )
    body = {"answer": ANSWER, "passages": PASSAGES}
    assert server.request("POST", "/v1/check-answer", body)[:2] == (200, cli)
    assert cli["unsupported_claims_removed"] == 1


def test_check_answer_against_a_graph_answers_check_answer_graph_json(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = "gold_dining wins dining at 4x, ahead of flat_two at 2x. gold_dining wins dining."
    (tmp_path / "a.txt").write_text(answer, "utf-8")
    graph = str(EXAMPLES / "graph.json")
    cli = _cli_json(["check-answer", "--graph", graph, str(tmp_path / "a.txt"), "--json"], capsys)
    assert cli["graph_id"] == GRAPH["graph_id"] and cli["unsupported_claims_removed"] == 1
    assert cli["claims"][0]["node_ids"] == ["win-dining"]
    for ref in (GRAPH["graph_id"], GRAPH):
        body = {"answer": answer, "graph": ref}
        assert server.request("POST", "/v1/check-answer", body)[:2] == (200, cli)
    card = json.loads(
        (ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json").read_text("utf-8")
    )
    body = {"answer": "rotating_bonus wins online at 5%.", "graph": card}
    status, result, _ = server.request("POST", "/v1/check-answer", body)
    assert status == 200 and result["claims"][0]["reason"] == "required_span_dropped"


BAD_REQUESTS = [
    ("/v1/verify", b"{bad", "input.unusable", "not valid JSON"),
    ("/v1/verify", b"\xff\xfe", "input.invalid_utf8", "not valid UTF-8"),
    ("/v1/verify", b"[1]", "input.unusable", "not a JSON object"),
    ("/v1/verify", b'{"graph": 1e999}', "input.unusable", ""),
    ("/v1/verify", {"graph": GRAPH["graph_id"]}, "input.unusable", 'no "narration"'),
    ("/v1/verify", {"narration": NARRATION}, "input.unusable", 'no "graph"'),
    (
        "/v1/verify",
        {"graph": "nope", "narration": NARRATION},
        "input.unknown_graph",
        "no graph with id 'nope'",
    ),
    ("/v1/verify", {"graph": 7, "narration": NARRATION}, "input.unusable", "graph_id string"),
    ("/v1/verify", {"graph": {"nodes": []}, "narration": NARRATION}, "input.unusable", "graph"),
    ("/v1/verify", {"graph": GRAPH, "narration": []}, "input.unusable", "narration object"),
    ("/v1/verify", {"graph": GRAPH, "narration": {}}, "input.unusable", "claims"),
    (
        "/v1/verify",
        {"graph": GRAPH, "narration": {**NARRATION, "graph_id": "other"}},
        "input.unusable",
        "narration is for graph 'other'",
    ),
    (
        "/v1/verify",
        {"graph": GRAPH, "narration": NARRATION, "profile": "loose"},
        "input.unusable",
        "unknown profile 'loose'; choose one of paper, strict, paper+fee",
    ),
    (
        "/v1/verify",
        {"graph": GRAPH, "narration": NARRATION, "extra": 1},
        "input.unusable",
        "unknown field 'extra'",
    ),
    ("/v1/check-answer", {"answer": 3, "passages": []}, "input.unusable", '"answer"'),
    ("/v1/check-answer", {"answer": "x", "passages": {}}, "input.unusable", '"passages"'),
    ("/v1/check-answer", {"answer": "x", "passages": [{"id": 1}]}, "input.unusable", "passage"),
    ("/v1/check-answer", {"answer": "x"}, "input.unusable", 'no "passages" (or "graph")'),
    (
        "/v1/check-answer",
        {"answer": "x", "passages": [], "graph": GRAPH},
        "input.unusable",
        'give "passages" or "graph", not both',
    ),
    ("/v1/check-answer", {"answer": "x", "graph": "nope"}, "input.unknown_graph", "'nope'"),
    ("/v1/check-answer", {"answer": "x", "graph": 3}, "input.unusable", '"graph" must be'),
    ("/v1/check-answer", {"answer": "x", "graph": {"nodes": []}}, "input.unusable", "schema"),
]


@pytest.mark.parametrize(("path", "body", "code", "message"), BAD_REQUESTS)
def test_bad_input_is_a_400_error_object(
    server: Server, path: str, body: Any, code: str, message: str
) -> None:
    status, data, raw = server.request("POST", path, body)
    assert status == 400 and set(data) == {"error"} and set(data["error"]) == {"code", "message"}
    assert data["error"]["code"] == code and message in data["error"]["message"], data
    assert "Traceback" not in raw and "\n" not in data["error"]["message"]


def test_a_body_over_max_body_is_413(server: Server) -> None:
    big = json.dumps({"answer": "x" * MAX_BODY, "passages": []}).encode()
    status, data, _ = server.request("POST", "/v1/check-answer", big)
    assert status == 413 and data["error"]["code"] == "input.too_large"
    assert str(MAX_BODY) in data["error"]["message"]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:  # chunked: no Content-Length, the limit holds while reading
        conn.request(
            "POST",
            "/v1/verify",
            body=iter([b"{" + b" " * 40000] * 3),
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = conn.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"]["code"] == "input.too_large"
    finally:
        conn.close()
    fits = json.dumps({"answer": "x" * (MAX_BODY - 100), "passages": []}).encode()
    assert len(fits) <= MAX_BODY and server.request("POST", "/v1/check-answer", fits)[0] == 200


def test_unknown_paths_and_methods(server: Server) -> None:
    status, data, _ = server.request("GET", "/v2/verify")
    assert status == 404 and data["error"]["code"] == "http.not_found"
    status, data, _ = server.request("GET", "/v1/verify")
    assert status == 405 and data["error"]["code"] == "http.method_not_allowed"
    status, data, _ = server.request("POST", "/healthz", b"{}")
    assert status == 405


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/v1/verify", "POST"),
        ("DELETE", "/v1/check-answer", "POST"),
        ("POST", "/healthz", "GET, HEAD"),
        ("PUT", "/healthz", "GET, HEAD"),
    ],
)
def test_a_wrong_method_answers_405_with_the_allowed_ones(
    server: Server, method: str, path: str, allow: str
) -> None:
    status, raw, headers = server.exchange(method, path, b"{}" if method != "GET" else None)
    assert (status, headers["allow"]) == (405, allow)
    error = json.loads(raw)["error"]
    assert error == {
        "code": "http.method_not_allowed",
        "message": f"{method} is not allowed on {path}; use {allow}",
    }


def test_duplicate_claim_ids_are_refused_as_the_cli_refuses_them(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FIXTURES / "claims" / "duplicate_ids.narration.json"
    cli = _cli_json(["verify", str(EXAMPLES / "graph.json"), str(path), "--json"], capsys)
    body = {"graph": GRAPH["graph_id"], "narration": json.loads(path.read_text("utf-8"))}
    status, report, _ = server.request("POST", "/v1/verify", body)
    assert (status, report) == (200, cli)
    (error,) = report["claims"][2]["errors"]
    assert error["code"] == "schema.duplicate_id" and error["actual"] == ["claims[0]", "claims[2]"]


def test_one_connection_serves_many_requests_without_a_nagle_stall(server: Server) -> None:
    with listen("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP  # so that asyncio sets TCP_NODELAY
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    body = json.dumps({"graph": GRAPH["graph_id"], "narration": NARRATION})
    seconds = []
    try:
        for _ in range(20):
            started = time.perf_counter()
            conn.request("POST", "/v1/verify", body=body, headers=JSON)
            response = conn.getresponse()
            assert response.status == 200 and json.loads(response.read())["summary"]["claims"] == 5
            seconds.append(time.perf_counter() - started)
    finally:
        conn.close()
    # With Nagle on, each response after the first waits ~40 ms for a delayed ACK.
    assert statistics.median(seconds) < 0.035, seconds


def test_sigterm_stops_the_server_and_a_taken_port_is_one_line() -> None:
    running = start()
    assert running.request("GET", "/healthz")[0] == 200
    taken = subprocess.run(
        [sys.executable, "-m", "verity", "serve", "--port", str(running.port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )
    assert taken.returncode == 2 and taken.stderr.decode().count("\n") == 1
    assert f"cannot listen on 127.0.0.1:{running.port}" in taken.stderr.decode()
    status, err = stop(running)
    assert status == 0 and err == "verity: stopped\n"
    with pytest.raises(ConnectionRefusedError):
        running.request("GET", "/healthz")
