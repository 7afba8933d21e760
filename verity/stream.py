"""Verify a stream of narrations (JSON Lines) in bounded memory, optionally in parallel.

Each input line is one narration naming its ``graph_id``; each output line is
``{"line": N, "report": {...}}`` or, for a line that cannot be used,
``{"line": N, "error": {"code": ..., "message": ...}}``, in input order. Input is read
in windows of a bounded number of lines, so resident memory does not grow with the
length of the stream.

With ``jobs > 1`` the narrations are verified in ``jobs - 1`` worker processes and in
the calling process, which verifies a chunk itself whenever the oldest one is still
with a worker. On Linux, when the
calling process runs a single thread, the workers are forked after the graphs are loaded
and share them copy-on-write (the loaded objects are moved out of the garbage
collector's reach with :func:`gc.freeze` while the pool runs, so collections do not
touch their pages); elsewhere they are spawned and each loads the graphs itself. Chunks
and their output pass between the processes as files in a private spool directory
(under ``/dev/shm`` where it can be written, else the system's temporary directory),
removed when the stream ends; only their names cross the pool's pipes.

With ``engine="dask"`` windows of lines are verified on a Dask cluster instead
(:mod:`verity.stream_dask`): the one at ``scheduler``, or a ``distributed``
``LocalCluster`` of ``jobs`` worker processes. The output is the same, byte for byte.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import json
import multiprocessing
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any

from verity.core.graph import EvidenceGraph, load_graph
from verity.core.profiles import Profile, resolve_profile
from verity.errors import InputError, VerityError
from verity.formats import LP_LABELS_FORMAT, NARRATION_FORMAT, REPORT_FORMAT, SPEC_FORMAT
from verity.jsonio import loads, path_text, read_json

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

#: Lines handed to a worker at a time.
CHUNK_LINES = 256
#: Chunks queued with each worker process.
_CHUNKS_PER_JOB = 4
#: Chunks read ahead of the oldest one (bounds memory to about this many chunks of
#: lines and their output): the worker queues, and chunks this process verifies when
#: it would otherwise wait.
_WINDOW_CHUNKS = 16
#: The interpreter's thread switch interval while workers run, in seconds (Python's
#: default is 0.005): the pool's threads, which pass chunks (or their spool files'
#: names) through the pipes, wait for the GIL at most this long while this process
#: verifies.
_SWITCH_INTERVAL = 0.0005
#: Where the spool directory of a stream with workers is made, first usable one first
#: (memory-backed on Linux); then the system's temporary directory.
_SPOOL_ROOTS: tuple[str, ...] = ("/dev/shm",)
#: How worker processes may be started (None: fork where it is safe, else spawn).
START_METHODS: tuple[str, ...] = ("fork", "spawn")
#: Where the lines are verified: in this process or its worker processes, or on Dask.
ENGINES: tuple[str, ...] = ("local", "dask")


#: Formats of files that sit beside graphs (``examples/``) and are not graphs.
_NOT_GRAPHS = frozenset({NARRATION_FORMAT, REPORT_FORMAT, SPEC_FORMAT, LP_LABELS_FORMAT})


def _other_format(path: Path) -> bool:
    """True when ``path`` is a JSON object of another verity format (a narration...)."""
    data = read_json(path, "graph file")
    return isinstance(data, dict) and data.get("format") in _NOT_GRAPHS


def load_graph_dir(directory: str | Path) -> dict[str, EvidenceGraph]:
    """Every ``*.json`` graph under ``directory`` (recursively), by graph id.

    Files of another verity format (narrations, reports, SQL specs, optimization labels)
    are skipped, so a
    folder such as ``examples/`` works; any other file must be a valid graph.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"graphs directory {path_text(root)} does not exist or is not a directory")
    graphs: dict[str, EvidenceGraph] = {}
    for path in sorted(root.rglob("*.json")):
        if _other_format(path):
            continue
        graph = load_graph(path)
        if graph.graph_id in graphs:
            raise InputError(f"two graphs in {path_text(root)} have the id {graph.graph_id!r}")
        graphs[graph.graph_id] = graph
    if not graphs:
        raise InputError(f"no *.json graphs under {path_text(root)}")
    return graphs


#: The codes of an output line for an input line that cannot be used, with what they mean.
LINE_ERROR_CODES: dict[str, str] = {
    "input.invalid_utf8": "the line is not valid UTF-8",
    "input.empty_line": "the line is empty",
    "input.unknown_graph": "the narration names a graph_id no loaded graph has",
    "input.unusable": "the line is not a usable narration (its message says why)",
    "internal.error": "verifying the line failed unexpectedly; the stream goes on",
}
_INVALID_UTF8, _EMPTY_LINE, _UNKNOWN_GRAPH, _UNUSABLE, _INTERNAL = LINE_ERROR_CODES


def _error_line(number: int, code: str, message: str) -> str:
    body = {"line": number, "error": {"code": code, "message": message}}
    return json.dumps(body, ensure_ascii=False)


def _read_line(number: int, raw: bytes, text: str) -> tuple[str, Any]:
    """(graph id, narration object) of a line (the narration is checked when verified)."""
    data = loads(text, f"line {number}")
    if not isinstance(data, dict):
        raise InputError(f"line {number} is not a JSON object")
    graph_id = data.get("graph_id")
    if not isinstance(graph_id, str):
        raise InputError(f"line {number} names no graph_id")
    return graph_id, data


def _verify_line(
    number: int, raw: bytes, graphs: Mapping[str, EvidenceGraph], profile: str | Profile
) -> str:
    from verity.core.claims import ParsedNarration, parse_narration
    from verity.core.verify import verify_parsed

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _error_line(number, _INVALID_UTF8, f"not valid UTF-8 (byte {exc.start})")
    if not text.strip():
        return _error_line(number, _EMPTY_LINE, "the line is empty")
    try:
        graph_id, narration = _read_line(number, raw, text)
        graph = graphs.get(graph_id)
        if graph is None:
            return _error_line(number, _UNKNOWN_GRAPH, f"no graph with id {graph_id!r}")
        if not isinstance(narration, ParsedNarration):
            narration = parse_narration(narration)
        report = verify_parsed(graph, narration, profile=profile, on_fail="filter")
    except VerityError as exc:
        return _error_line(number, _UNUSABLE, str(exc))
    except Exception as exc:  # a line must never stop the stream
        return _error_line(number, _INTERNAL, f"{type(exc).__name__}: {exc}"[:500])
    return json.dumps({"line": number, "report": report.to_dict()}, ensure_ascii=False)


def verify_lines(
    lines: Iterable[tuple[int, bytes]],
    graphs: Mapping[str, EvidenceGraph],
    profile: str | Profile,
) -> list[str]:
    """Verify numbered raw lines in this process; one output line each."""
    return [_verify_line(n, raw, graphs, profile) for n, raw in lines]


# Worker-process state: the graphs and profile, loaded once per worker.
_WORKER: dict[str, Any] = {}


def _init_worker(graph_dir: str, pickled_profile: bytes) -> None:
    """Load a spawned worker's graphs and profile; never raises.

    A pool whose initializer raises starts new workers forever and its tasks never
    finish, so a failure is kept and raised by each task instead (the profile comes
    pickled for the same reason: its unpickling then happens here, not in the start-up).
    """
    try:
        _WORKER["profile"] = pickle.loads(pickled_profile)
        _WORKER["graphs"] = load_graph_dir(graph_dir)
    except Exception as exc:
        _WORKER["failed"] = f"{type(exc).__name__}: {exc}"[:300]


#: A value on its way to another process: ("file", path of its pickle in the spool) or
#: ("zlib", its pickle compressed), made by :func:`_put` and read back by :func:`_take`.
_Parcel = tuple[str, Any]


def _work(parcel: _Parcel, out_path: str | None) -> _Parcel:
    """A worker's output lines for a chunk of lines, both as parcels."""
    failed = _WORKER.get("failed")
    if failed is not None:
        raise InputError(f"a verify-stream worker process could not start ({failed})")
    chunk: list[tuple[int, bytes]] = _take(parcel)
    return _put(verify_lines(chunk, _WORKER["graphs"], _WORKER["profile"]), out_path)


def _put(value: Any, path: str | None) -> _Parcel:
    """``value`` ready to go to another process: pickled into the spool file ``path``,
    or, when there is none or it cannot be written, pickled and compressed.

    A chunk is about half a megabyte of narrations and its output about a megabyte of
    JSON. Sent through the pool's pipe, a message goes a pipe's capacity at a time, and
    the pool's thread on this side waits for the GIL between writes or reads, which this
    process's main thread holds while it verifies: the worker sat blocked on the pipe.
    Compressed (zlib, its fastest level) a message takes a few writes, but compressing
    and decompressing cost the two processes about 17 ms a chunk; a file in memory
    costs about 2 ms and only its name crosses the pipe.
    """
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    if path is not None:
        try:
            with open(path, "xb") as handle:
                handle.write(data)
        except OSError:  # a full or vanished spool: the pipe still works
            _remove(path)
        else:
            return ("file", path)
    return ("zlib", zlib.compress(data, 1))


def _take(parcel: _Parcel) -> Any:
    """The value of a parcel from :func:`_put`; a spool file is removed once read."""
    kind, body = parcel
    if kind == "zlib":
        return pickle.loads(zlib.decompress(body))
    try:
        with open(body, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise VerityError(
            f"verify-stream lost a chunk on its way between processes ({exc}); "
            "was its spool directory removed?"
        ) from None
    _remove(body)
    return pickle.loads(data)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


#: The start of a spool directory's name, followed by its process's id.
_SPOOL_PREFIX = "verity-stream-"
#: A spool is stale when its process has ended and nothing in it changed for this long,
#: in seconds (a process id from another PID namespace sharing /dev/shm looks ended).
_STALE_AFTER_S = 600.0


def _spool_dir() -> str | None:
    """A new private directory for a stream's parcels, or None (they go by pipe).

    Its name holds this process's id: spools left by processes that no longer run (a
    killed stream) are removed first.
    """
    for root in (*_SPOOL_ROOTS, None):
        try:
            where = tempfile.mkdtemp(prefix=f"{_SPOOL_PREFIX}{os.getpid()}-", dir=root)
        except OSError:
            continue
        _remove_stale_spools(os.path.dirname(where))
        return where
    return None


@contextlib.contextmanager
def _spool() -> Iterator[str | None]:
    """A stream's spool directory (None: there is none), removed when the block ends
    and at exit, should the caller never finish or close the stream."""
    where = _spool_dir()
    if where is None:
        yield None
        return
    remove = functools.partial(shutil.rmtree, where, ignore_errors=True)
    atexit.register(remove)
    try:
        yield where
    finally:
        atexit.unregister(remove)
        remove()


def _remove_stale_spools(root: str) -> None:
    """Remove the stale spools under ``root`` (POSIX only; see :data:`_STALE_AFTER_S`)."""
    if os.name != "posix":
        return
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        pid = name[len(_SPOOL_PREFIX) :].partition("-")[0]
        if name.startswith(_SPOOL_PREFIX) and pid.isdigit() and not _alive(int(pid)):
            path = os.path.join(root, name)
            try:
                idle = time.time() - os.stat(path).st_mtime
            except OSError:
                continue
            if idle > _STALE_AFTER_S:
                shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or cannot tell: leave it
        return True
    return True


def _pickled(profile: str | Profile) -> bytes:
    """The profile for spawned workers, or an :class:`InputError` saying it cannot go."""
    try:
        return pickle.dumps(profile)
    except Exception as exc:
        raise InputError(
            f"the profile cannot be sent to worker processes ({type(exc).__name__}: "
            f"{str(exc)[:200]}); define its gates in an importable module, or use one job"
        ) from None


def chunks(lines: Iterable[bytes], size: int = CHUNK_LINES) -> Iterator[list[tuple[int, bytes]]]:
    """The lines numbered from 1, in lists of at most ``size``."""
    numbered = enumerate(lines, start=1)
    while chunk := list(islice(numbered, size)):
        yield chunk


def _start_method(requested: str | None) -> str:
    if requested is not None:
        if requested not in START_METHODS:
            raise InputError(
                f"unknown start method {requested!r}; expected one of {', '.join(START_METHODS)}"
            )
        return requested
    safe = sys.platform.startswith("linux") and threading.active_count() == 1
    return "fork" if safe else "spawn"


def verify_stream(
    lines: Iterable[bytes],
    graph_dir: str | Path,
    profile: str | Profile = "strict",
    jobs: int = 1,
    *,
    start_method: str | None = None,
    engine: str = "local",
    scheduler: str | None = None,
) -> Iterator[str]:
    """Yield one output line (without newline) per input line, in input order.

    ``start_method`` picks how workers start when ``jobs > 1`` (see the module docs);
    None chooses. ``engine="dask"`` verifies on the Dask cluster at ``scheduler`` (an
    address such as ``tcp://10.0.0.5:8786``), or on a ``LocalCluster`` of ``jobs``
    workers when it is None. ``profile`` may be a :class:`verity.Profile`; failing
    claims are always filtered (each line carries its report).
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
    if jobs == 1:
        for chunk in chunks(lines):
            yield from verify_lines(chunk, graphs, profile)
        return
    yield from _parallel(lines, graphs, str(graph_dir), profile, jobs, method)


class _Chunk:
    """A chunk of lines in the output window: waiting, sent to a worker, or verified here."""

    __slots__ = ("lines", "output", "result")

    def __init__(self, lines: list[tuple[int, bytes]]) -> None:
        self.lines = lines
        self.result: AsyncResult[_Parcel] | None = None
        self.output: list[str] | None = None

    @property
    def waiting(self) -> bool:
        return self.result is None and self.output is None


class _Window:
    """Chunks in input order, verified by ``jobs - 1`` workers and by this process.

    Each worker is kept :data:`_CHUNKS_PER_JOB` chunks ahead (chunks it has not finished);
    while the oldest chunk is still with a worker, this process verifies the next waiting
    chunk itself instead of waiting, and after each one tops the workers up again, so
    every process keeps busy and the output stays in input order.
    """

    def __init__(
        self,
        pool: Any,
        helpers: int,
        graphs: Mapping[str, EvidenceGraph],
        profile: str | Profile,
        spool: str | None,
    ) -> None:
        self.pool, self.graphs, self.profile, self.spool = pool, graphs, profile, spool
        self.limit = helpers * _CHUNKS_PER_JOB  # chunks with the workers at most
        self.size = max(_WINDOW_CHUNKS, 2 * self.limit)  # chunks read ahead at most
        self.chunks: deque[_Chunk] = deque()
        self.sent = 0  # chunks sent so far: names their spool files

    def _paths(self) -> tuple[str | None, str | None]:
        self.sent += 1
        if self.spool is None:
            return None, None
        base = os.path.join(self.spool, str(self.sent))
        return base + ".in", base + ".out"

    def add(self, lines: list[tuple[int, bytes]]) -> None:
        self.chunks.append(_Chunk(lines))
        self._send()

    def _send(self) -> None:
        """Send waiting chunks, oldest first, until the workers hold ``limit`` unfinished."""
        busy = sum(1 for c in self.chunks if c.result is not None and not c.result.ready())
        for chunk in self.chunks:
            if busy >= self.limit:
                return
            if chunk.waiting:
                in_path, out_path = self._paths()
                parcel = _put(chunk.lines, in_path)
                chunk.result = self.pool.apply_async(_work, (parcel, out_path))
                busy += 1

    def _verify_here(self, chunk: _Chunk) -> list[str]:
        chunk.output = verify_lines(chunk.lines, self.graphs, self.profile)
        return chunk.output

    def pop(self) -> list[str]:
        """The output of the oldest chunk, once it is verified."""
        head = self.chunks.popleft()
        result = head.result
        if result is not None:
            while not result.ready():
                spare = next((c for c in self.chunks if c.waiting), None)
                if spare is None:
                    break
                self._verify_here(spare)
                self._send()  # a worker may have finished meanwhile
            output: list[str] = _take(result.get())
        else:
            output = head.output if head.output is not None else self._verify_here(head)
        self._send()
        return output

    @property
    def full(self) -> bool:
        return len(self.chunks) >= self.size

    def __len__(self) -> int:
        return len(self.chunks)


def _parallel(
    lines: Iterable[bytes],
    graphs: dict[str, EvidenceGraph],
    graph_dir: str,
    profile: str | Profile,
    jobs: int,
    method: str,
) -> Iterator[str]:
    """Verify with ``jobs - 1`` worker processes and this one (see :class:`_Window`)."""
    ctx = multiprocessing.get_context(method)
    helpers = jobs - 1
    if method == "fork":
        _WORKER.update(graphs=graphs, profile=profile)
        gc.freeze()
        pool = ctx.Pool(helpers)
    else:
        initargs = (graph_dir, _pickled(profile))
        pool = ctx.Pool(helpers, initializer=_init_worker, initargs=initargs)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_INTERVAL)  # the pool's threads get the GIL sooner
    try:
        with _spool() as spool, pool:  # the pool stops its workers before the spool goes
            window = _Window(pool, helpers, graphs, profile, spool)
            for chunk in chunks(lines, CHUNK_LINES):
                window.add(chunk)
                if window.full:
                    yield from window.pop()
            while len(window):
                yield from window.pop()
    finally:
        sys.setswitchinterval(switch)
        if method == "fork":
            gc.unfreeze()
            _WORKER.clear()
