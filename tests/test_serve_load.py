"""verity serve under load, with real servers on 127.0.0.1 (``verity serve`` child
processes) and real HTTP: requests are verified by worker processes, so a small request
answers while a large one (11,625 claims, 2.7 MB) is verified; a request past
``--timeout`` answers 503 and its work is stopped; a worker that dies answers 500 and is
replaced; the workers end when the server is killed; bodies must be ``application/json``
with every key once; ``--workers`` and ``--timeout`` are checked."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, ROOT, needs

needs("serve", "uvicorn")
needs("serve", "starlette")

from tests.test_serve import START_TIMEOUT_S, Server, start, stop  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks" / "serve"))
from serve_bodies import large_body  # noqa: E402  (benchmarks/serve/serve_bodies.py)

GRAPH = json.loads((EXAMPLES / "graph.json").read_text("utf-8"))
NARRATION = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
LARGE = large_body()
LARGE_CLAIMS = 3875
# Three times as large: about 2 s of verifying on one core.
HUGE, HUGE_CLAIMS = large_body(3 * 775), 3 * 3875
MIB = 1024 * 1024
SMALL = json.dumps({"graph": GRAPH["graph_id"], "narration": NARRATION}).encode()
JSON = {"Content-Type": "application/json"}


def post(
    port: int, body: bytes, headers: dict[str, str] | None = None, path: str = "/v1/verify"
) -> tuple[int, Any]:
    """(status, parsed JSON body) of one POST on a new connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", path, body=body, headers=JSON if headers is None else headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def workers_of(server: Server) -> list[int]:
    """The process ids of the server's worker processes (its children but the
    multiprocessing resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.process.pid and b"resource_tracker" not in command:
            found.append(int(entry.name))
    return sorted(found)


def alive(pid: int) -> bool:
    """True while process ``pid`` runs (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def in_background(port: int, body: bytes) -> tuple[threading.Thread, dict[str, Any]]:
    """POST ``body`` from a thread; the dict gets "answered" (the perf_counter time its
    answer began to arrive), then "status" and "body"."""
    result: dict[str, Any] = {}

    def send() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            conn.request("POST", "/v1/verify", body=body, headers=JSON)
            response = conn.getresponse()
            result["answered"] = time.perf_counter()
            result["status"], result["body"] = response.status, json.loads(response.read())
        finally:
            conn.close()

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread, result


def until(condition: Any, seconds: float) -> bool:
    """Poll ``condition()`` every 50 ms for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = start("--graphs", str(EXAMPLES), "--workers", "2", "--max-body", str(4 * MIB))
    try:
        yield running
    finally:
        status, err = stop(running)
        assert status == 0 and "Traceback" not in err, err


def test_a_small_request_answers_while_a_large_one_is_verified(server: Server) -> None:
    thread, large = in_background(server.port, HUGE)
    time.sleep(0.3)  # the body is sent (loopback) and being verified
    started = time.perf_counter()
    status, report = post(server.port, SMALL)
    small = time.perf_counter() - started
    assert status == 200 and report["summary"]["claims"] == 5
    assert "answered" not in large, "the large request was answered first"
    thread.join(120)
    assert large["status"] == 200 and large["body"]["summary"]["claims"] == HUGE_CLAIMS
    # A loop that verified the large request itself would answer the small one after it.
    assert small < (large["answered"] - started) / 2, (small, large["answered"] - started)


def test_a_request_past_its_deadline_is_503_and_its_worker_is_replaced() -> None:
    running = start("--graphs", str(EXAMPLES), "--workers", "1", "--timeout", "0.3")
    try:
        (before,) = workers_of(running)
        started = time.perf_counter()
        status, body = post(running.port, LARGE)
        seconds = time.perf_counter() - started
        assert status == 503 and body["error"]["code"] == "input.timeout", body
        assert "0.3 s" in body["error"]["message"] and seconds < 2.0, seconds
        # the abandoned work does not keep the worker: its process ends, a new one starts
        assert until(lambda: before not in workers_of(running), 10), workers_of(running)
        assert until(lambda: len(workers_of(running)) == 1, 30), workers_of(running)
        assert until(lambda: post(running.port, SMALL)[0] == 200, 30)
    finally:
        status, err = stop(running)
    assert status == 0 and "Traceback" not in err and "never retrieved" not in err, err


def test_a_worker_that_dies_answers_500_and_is_replaced() -> None:
    running = start("--graphs", str(EXAMPLES), "--workers", "1")
    try:
        (worker,) = workers_of(running)
        thread, large = in_background(running.port, LARGE)
        time.sleep(0.3)
        os.kill(worker, signal.SIGKILL)
        thread.join(60)
        assert large["status"] == 500, large
        assert large["body"] == {
            "error": {
                "code": "internal.error",
                "message": "the server failed (a worker process died)",
            }
        }
        status, report = post(running.port, SMALL)
        assert status == 200 and report["summary"]["claims"] == 5
        (replaced,) = workers_of(running)
        assert replaced != worker
    finally:
        status, err = stop(running)
    assert status == 0 and "Traceback" not in err, err
    assert "its worker process died" in err


def test_the_workers_end_when_the_server_is_killed() -> None:
    running = start("--graphs", str(EXAMPLES), "--workers", "2")
    workers = workers_of(running)
    assert len(workers) == 2
    running.process.kill()
    running.process.wait(30)
    assert until(lambda: not any(alive(pid) for pid in workers), 15)


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1"],
)
def test_a_body_that_is_not_application_json_is_415(
    server: Server, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    for path in ("/v1/verify", "/v1/check-answer"):
        status, body = post(server.port, SMALL, headers, path)
        assert status == 415 and body["error"]["code"] == "input.media_type", body
        assert "Content-Type: application/json" in body["error"]["message"]


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"]
)
def test_json_with_or_without_a_utf8_charset_is_accepted(server: Server, content_type: str) -> None:
    assert post(server.port, SMALL, {"Content-Type": content_type})[0] == 200


@pytest.mark.parametrize(
    ("body", "key"),
    [
        (b'{"graph": "x", "graph": "%s", "narration": %s}', "graph"),
        (b'{"graph": "%s", "narration": %s, "narration": {}}', "narration"),
    ],
)
def test_a_key_twice_in_the_body_is_400(server: Server, body: bytes, key: str) -> None:
    raw = body % (GRAPH["graph_id"].encode(), json.dumps(NARRATION).encode())
    status, data = post(server.port, raw)
    assert status == 400 and data["error"]["code"] == "input.unusable", data
    assert f"the key {key!r} appears twice in one object" in data["error"]["message"]


def test_a_key_twice_deep_in_a_claim_is_400(server: Server) -> None:
    claim = json.dumps(NARRATION["claims"][0])
    twice = claim[:-1] + ', "text": "gold_dining wins dining."}'
    narration = json.dumps(NARRATION).replace(claim, twice, 1)
    assert narration.count('"text"') == len(NARRATION["claims"]) + 1
    raw = f'{{"graph": "{GRAPH["graph_id"]}", "narration": {narration}}}'.encode()
    status, data = post(server.port, raw)
    assert status == 400 and "the key 'text' appears twice" in data["error"]["message"], data


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--workers", "0", "argument --workers: must be at least 1, got 0"),
        ("--workers", "-2", "argument --workers: must be at least 1, got -2"),
        ("--workers", "two", "argument --workers: expected a whole number, got 'two'"),
        ("--timeout", "0", "argument --timeout: must be more than 0 and at most 3600, got 0"),
    ],
)
def test_workers_and_timeout_are_checked(option: str, value: str, message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verity", "serve", "--port", "0", option, value],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.decode() == f"verity: error: {message}\n"
