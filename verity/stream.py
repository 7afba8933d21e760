"""Verify a stream of narrations (JSON Lines) in bounded memory, optionally in parallel.

Each input line is one narration naming its ``graph_id``; each output line is
``{"line": N, "report": {...}}`` or, for a line that cannot be used,
``{"line": N, "error": {"code": ..., "message": ...}}``, in input order.

Lines are read in chunks of :data:`CHUNK_LINES`. With ``jobs > 1`` the chunks go to a
:class:`concurrent.futures.ProcessPoolExecutor` of ``jobs`` worker processes, while this
process reads the input and yields each chunk's output in input order; at most four
chunks a worker are read ahead of the output, so resident memory does not grow with the
length of the stream. On Linux, when the calling process runs a single
thread, the workers are forked after the graphs are loaded and share them copy-on-write
(the loaded objects are moved out of the garbage collector's reach with :func:`gc.freeze`
while the pool runs, so collections do not touch their pages); elsewhere they are
spawned and each loads the graphs itself. Workers ignore SIGINT (the process that runs
the stream stops them when it is interrupted or the stream is closed) and end on SIGTERM
once the output they may be sending is sent.

With ``engine="dask"`` chunks of lines are verified on a Dask cluster instead
(:mod:`verity.stream_dask`): the one at ``scheduler``, or a ``distributed``
``LocalCluster`` of ``jobs`` worker processes. The output is the same, byte for byte.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import Any

from verity._lines import (
    CHUNK_LINES,
    LINE_ERROR_CODES,
    Chunk,
    chunks,
    in_order,
    load_graph_dir,
    verify_lines,
)
from verity.core.graph import EvidenceGraph
from verity.core.profiles import Profile, resolve_profile
from verity.errors import InputError

__all__ = [
    "CHUNK_LINES",
    "ENGINES",
    "LINE_ERROR_CODES",
    "START_METHODS",
    "chunks",
    "load_graph_dir",
    "verify_lines",
    "verify_stream",
]

#: Chunks read ahead of the output per worker process: in the pool or waiting for it.
_CHUNKS_PER_JOB = 4
#: How worker processes may be started (None: fork where it is safe, else spawn).
START_METHODS: tuple[str, ...] = ("fork", "spawn")
#: Where the lines are verified: in this process or its worker processes, or on Dask.
ENGINES: tuple[str, ...] = ("local", "dask")

#: How long a worker told to end waits for a chunk's output it is sending to be sent.
_SEND_GRACE_S = 1.0
#: The code of the function through which a worker sends each chunk's output.
_SEND_BYTES = Connection.send_bytes.__code__

# Worker-process state: the graphs and the profile, or why they could not be loaded.
_WORKER: dict[str, Any] = {}


def _leave_signals_to_the_stream() -> None:
    """In a worker: SIGINT (a terminal's Ctrl-C reaches every process of its group) is
    ignored, since the stream's process stops the pool; SIGTERM ends the worker, though
    not halfway through sending a chunk's output (:func:`_end_worker`; POSIX)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGTERM, _end_worker)
        signal.signal(signal.SIGALRM, _end_worker)


def _sending(frame: FrameType | None) -> bool:
    """True while ``frame`` or one of its callers sends a message through a pipe."""
    while frame is not None:
        if frame.f_code is _SEND_BYTES:
            return True
        frame = frame.f_back
    return False


def _end_worker(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (and the SIGALRM it sets) in a worker: exit, unless the worker is sending a
    chunk's output; then look again every 10 ms, for at most :data:`_SEND_GRACE_S`. A
    worker killed halfway through a message (by a SIGTERM to the whole group, from a
    service manager or ``pkill``) would leave the pool's reader waiting for the rest for
    ever; the limit is for a pool that no longer reads."""
    deadline: float = _WORKER.setdefault("ending", time.monotonic() + _SEND_GRACE_S)
    if _sending(frame) and time.monotonic() < deadline:
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)  # again every 10 ms until it ends
    else:
        os._exit(128 + signal.SIGTERM)


def _adopt(graphs: Mapping[str, EvidenceGraph], profile: str | Profile) -> None:
    """Initialize a forked worker with the graphs and profile it shares with its parent."""
    _leave_signals_to_the_stream()
    _WORKER.update(graphs=graphs, profile=profile)


def _load(graph_dir: str, pickled_profile: bytes) -> None:
    """Initialize a spawned worker: load its graphs and profile; never raises.

    An initializer that raises breaks the pool with a traceback on the worker's stderr,
    so a failure is kept and raised by each chunk instead, as one :class:`InputError`
    that says why (the profile comes pickled for the same reason: its unpickling then
    happens here, not in the worker's start-up).
    """
    _leave_signals_to_the_stream()
    try:
        _WORKER.update(profile=pickle.loads(pickled_profile), graphs=load_graph_dir(graph_dir))
    except Exception as exc:
        _WORKER["failed"] = f"{type(exc).__name__}: {exc}"[:300]


def _verify_chunk(chunk: Chunk) -> list[str]:
    """A worker's output lines for a chunk of lines."""
    failed = _WORKER.get("failed")
    if failed is not None:
        raise InputError(f"a verify-stream worker process could not start ({failed})")
    return verify_lines(chunk, _WORKER["graphs"], _WORKER["profile"])


def _pickled(profile: str | Profile) -> bytes:
    """The profile for spawned workers, or an :class:`InputError` saying it cannot go."""
    try:
        return pickle.dumps(profile)
    except Exception as exc:
        raise InputError(
            f"the profile cannot be sent to worker processes ({type(exc).__name__}: "
            f"{str(exc)[:200]}); define its gates in an importable module, or use one job"
        ) from None


def _start_method(requested: str | None) -> str:
    if requested is not None:
        if requested not in START_METHODS:
            raise InputError(
                f"unknown start method {requested!r}; expected one of {', '.join(START_METHODS)}"
            )
        return requested
    safe = sys.platform.startswith("linux") and threading.active_count() == 1
    return "fork" if safe else "spawn"


def _pool(
    jobs: int,
    method: str,
    graphs: Mapping[str, EvidenceGraph],
    graph_dir: str,
    profile: str | Profile,
) -> ProcessPoolExecutor:
    """``jobs`` workers, started when the first chunk is submitted: forked ones get the
    loaded graphs, spawned ones load them from ``graph_dir``."""
    context = multiprocessing.get_context(method)
    if method == "fork":
        return ProcessPoolExecutor(jobs, context, initializer=_adopt, initargs=(graphs, profile))
    initargs = (graph_dir, _pickled(profile))
    return ProcessPoolExecutor(jobs, context, initializer=_load, initargs=initargs)


@contextlib.contextmanager
def _frozen(fork: bool) -> Iterator[None]:
    """With ``fork``, the objects of this process out of the garbage collector's reach
    (:func:`gc.freeze`) for the block: no collection, here or in a forked worker, then
    writes to the pages of the loaded graphs, which stay shared."""
    if not fork:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _result(future: Future[list[str]]) -> list[str]:
    """The output lines of a chunk, once its worker has verified them."""
    return future.result()


def _in_pool(chunked: Iterable[Chunk], pool: ProcessPoolExecutor, jobs: int) -> Iterator[str]:
    """The output of every chunk, verified by the pool, in input order. The workers are
    stopped when the stream ends, fails or is closed (chunks not started are cancelled,
    those started are finished); a worker that dies fails the stream."""
    limit = jobs * _CHUNKS_PER_JOB
    try:
        yield from in_order(chunked, lambda c: pool.submit(_verify_chunk, c), _result, limit)
    except BrokenProcessPool:
        raise InputError(
            "a verify-stream worker process ended unexpectedly (killed, or out of memory?)"
        ) from None
    finally:
        pool.shutdown(cancel_futures=True)


def verify_stream(
    lines: Iterable[bytes],
    graph_dir: str | Path,
    profile: str | Profile = "strict",
    jobs: int = 1,
    *,
    start_method: str | None = None,
    engine: str = "local",
    scheduler: str | None = None,
) -> Generator[str, None, None]:
    """Yield one output line (without newline) per input line, in input order.

    ``start_method`` picks how workers start when ``jobs > 1`` (see the module docs);
    None chooses. ``engine="dask"`` verifies on the Dask cluster at ``scheduler`` (an
    address such as ``tcp://10.0.0.5:8786``), or on a ``LocalCluster`` of ``jobs``
    workers when it is None. ``profile`` may be a :class:`verity.Profile`; failing
    claims are always filtered (each line carries its report). Closing the generator
    early stops the worker processes.
    """
    resolve_profile(profile)  # an unknown profile fails before any work
    if jobs < 1:
        raise InputError("--jobs must be at least 1")
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if scheduler is not None and engine != "dask":
        raise InputError("--scheduler needs --engine dask")
    if engine == "dask":
        from verity.stream_dask import require_dask, verify_on_dask

        require_dask()
        graphs = load_graph_dir(graph_dir)
        yield from verify_on_dask(lines, graphs, profile, scheduler=scheduler, workers=jobs)
        return
    method = _start_method(start_method)
    graphs = load_graph_dir(graph_dir)  # in this process: a bad directory fails early
    chunked = chunks(lines, CHUNK_LINES)
    if jobs == 1:
        for chunk in chunked:
            yield from verify_lines(chunk, graphs, profile)
        return
    pool = _pool(jobs, method, graphs, str(graph_dir), profile)
    with _frozen(method == "fork"):  # the workers fork with the first chunk
        yield from _in_pool(chunked, pool, jobs)
