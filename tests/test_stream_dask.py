"""verify-stream on a real Dask cluster: the same bytes as the local engine, in order, with
the graphs shipped to each worker once, from Python and from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, ROOT, needs
from tests.helpers import stream_lines as _lines
from verity import InputError
from verity.data.examples.fee_gates import fees
from verity.stream import load_graph_dir, verify_stream
from verity.stream_dask import verify_on_dask

distributed = needs("dask", "distributed")

TIMEOUT_S = 180


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two single-threaded workers in this process, reachable over TCP on loopback."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    ) as local:
        yield local


def _input(n: int = 40) -> list[bytes]:
    return _lines() * n


def test_dask_gives_the_local_bytes_in_order(cluster: Any, graph_dir: Path) -> None:
    lines = _input()
    local = list(verify_stream(lines, graph_dir))
    graphs = load_graph_dir(graph_dir)
    on_dask = list(
        verify_on_dask(lines, graphs, "strict", scheduler=cluster.scheduler_address, chunk_lines=7)
    )
    assert on_dask == local and len(local) == len(lines)
    assert [json.loads(x)["line"] for x in on_dask] == list(range(1, len(lines) + 1))
    via_stream = verify_stream(
        lines, graph_dir, "paper", engine="dask", scheduler=cluster.scheduler_address
    )
    assert list(via_stream) == list(verify_stream(lines, graph_dir, "paper"))


def test_graphs_are_shipped_to_each_worker_once(cluster: Any, graph_dir: Path) -> None:
    graphs = load_graph_dir(graph_dir)
    stream = verify_on_dask(
        _input(20), graphs, "strict", scheduler=cluster.scheduler_address, chunk_lines=4
    )
    first = next(stream)
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        held = client.has_what()
    rest = list(stream)
    shared = [[k for k in keys if str(k).startswith("tuple-")] for keys in held.values()]
    assert len(held) == 2 and all(len(keys) == 1 for keys in shared), held
    assert shared[0] == shared[1]
    assert json.loads(first)["line"] == 1 and len(rest) == len(_input(20)) - 1


def test_a_custom_profile_runs_on_the_workers(cluster: Any) -> None:
    narration = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
    lines = [json.dumps(narration).encode()] * 5
    examples = EXAMPLES
    local = list(verify_stream(lines, examples, fees))
    address = cluster.scheduler_address
    remote = verify_stream(lines, examples, fees, engine="dask", scheduler=address)
    assert list(remote) == local and '"fee.amount_missing"' in local[0]


def test_bad_engine_options_are_input_errors(graph_dir: Path) -> None:
    with pytest.raises(InputError, match="unknown engine 'spark'"):
        list(verify_stream(_lines(), graph_dir, engine="spark"))
    with pytest.raises(InputError, match="--scheduler needs --engine dask"):
        list(verify_stream(_lines(), graph_dir, scheduler="tcp://127.0.0.1:8786"))
    with pytest.raises(
        InputError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
    ):
        list(
            verify_on_dask(
                _lines(), {}, "strict", scheduler="tcp://127.0.0.1:9", connect_timeout_s=1
            )
        )


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "verity", "verify-stream", *args],
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT_S,
        cwd=ROOT,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dask") / "narrations.jsonl"
    path.write_bytes(b"\n".join(_input(30)) + b"\n")
    return path


def test_the_cli_on_a_scheduler_and_on_its_own_local_cluster(
    cluster: Any, graph_dir: Path, jsonl: Path
) -> None:
    local = _cli(str(graph_dir), str(jsonl))
    assert local.returncode == 0 and local.stdout.count(b"\n") == len(_input(30))
    address = cluster.scheduler_address
    results: dict[str, subprocess.CompletedProcess[bytes]] = {}

    def run(name: str, *args: str) -> None:
        results[name] = _cli(str(graph_dir), str(jsonl), "--engine", "dask", *args)

    threads = [
        threading.Thread(target=run, args=("scheduler", "--scheduler", address)),
        threading.Thread(target=run, args=("own", "--jobs", "2")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S)
    for name, done in results.items():
        assert done.returncode == 0, (name, done.stderr[-2000:])
        assert b"Traceback" not in done.stderr
        assert done.stdout == local.stdout, name
    assert set(results) == {"scheduler", "own"}


def test_the_cli_refuses_a_scheduler_without_dask(graph_dir: Path, jsonl: Path) -> None:
    done = _cli(str(graph_dir), str(jsonl), "--scheduler", "tcp://127.0.0.1:8786")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == b"verity: error: --scheduler needs --engine dask\n"
