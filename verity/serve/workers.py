"""The worker processes of ``verity serve``, each one a slot that runs one request at a time.

A request waits for a free slot, then its body goes to that slot's process
(:func:`verity.serve._work.answer`); the event loop only waits. The wait and the work
share the request's deadline: a request still waiting for a slot at its deadline gets
:class:`Timeout` and nothing runs; a request whose work outlives it gets :class:`Timeout`
too, and its slot's process is ended (SIGTERM, then SIGKILL) and replaced, so abandoned
work never keeps a slot.
A slot whose process dies (killed, out of memory) is replaced as well, and its request
gets :class:`WorkerDied`; the other slots go on.

Workers start as :mod:`verity.stream` starts its own (its start method, signal handling
and garbage-collector freeze): on Linux the first ones fork when the service starts,
before it serves, and share the loaded graphs copy-on-write; elsewhere, and when a worker
is replaced (the service then runs threads, and forking is unsafe), they are spawned and
load the graphs from the directory the service was started with (or get them pickled).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from verity.core.graph import EvidenceGraph
from verity.core.profiles import Profile
from verity.errors import InputError
from verity.serve._work import Answer, answer, ready, start_worker
from verity.stream import _frozen, _start_method

__all__ = ["Timeout", "WorkerDied", "Workers"]

#: Seconds a worker that is being replaced gets to end on SIGTERM before it is killed.
_END_GRACE_S = 1.0


class Timeout(Exception):
    """The request's deadline passed before its answer was ready."""


class WorkerDied(Exception):
    """The worker process verifying the request ended unexpectedly."""


def _pickled(profiles: Mapping[str, Profile]) -> bytes:
    """The derived profiles for spawned workers, or an :class:`InputError` saying why
    they cannot go."""
    try:
        return pickle.dumps(dict(profiles))
    except Exception as exc:
        raise InputError(
            f"a --gates profile cannot be sent to worker processes ({type(exc).__name__}: "
            f"{str(exc)[:200]}); define its gates in an importable module"
        ) from None


class Workers:
    """``count`` worker processes with the service's graphs and derived profiles."""

    def __init__(
        self,
        count: int,
        graphs: Mapping[str, EvidenceGraph],
        profiles: Mapping[str, Profile],
        *,
        graph_dir: str | None = None,
    ) -> None:
        if count < 1:
            raise InputError(f"--workers must be at least 1, got {count}")
        self._graphs, self._graph_dir = dict(graphs), graph_dir
        self._profiles = _pickled(profiles)
        self._slots = [self._slot() for _ in range(count)]
        self._ended: list[ProcessPoolExecutor] = []  # replaced slots, ended in the background
        self._free: asyncio.Queue[int] | None = None

    def _slot(self) -> ProcessPoolExecutor:
        """One worker process (forked where it is safe, else spawned), not started yet."""
        method = _start_method(None)
        context = multiprocessing.get_context(method)
        graphs = self._graphs if method == "fork" or self._graph_dir is None else None
        initargs = (graphs, self._graph_dir, self._profiles)
        return ProcessPoolExecutor(1, context, initializer=start_worker, initargs=initargs)

    def start(self) -> None:
        """Start every worker and wait until each has its graphs."""
        with _frozen(True):  # forked workers share the loaded graphs' pages
            started = [slot.submit(ready) for slot in self._slots]
        for future in started:
            failed = future.result()
            if failed is not None:
                raise InputError(f"a worker process could not start ({failed})")

    async def answer(self, route: str, raw: bytes, timeout: float) -> Answer:
        """The answer of a worker to ``raw`` on ``route``, within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        if self._free is None:
            self._free = asyncio.Queue()
            for index in range(len(self._slots)):
                self._free.put_nowait(index)
        free = self._free
        try:
            index = await asyncio.wait_for(free.get(), timeout)
        except TimeoutError:
            raise Timeout from None
        failure: type[Exception] = WorkerDied
        future: asyncio.Future[Answer] | None = None
        try:
            future = asyncio.wrap_future(self._slots[index].submit(answer, route, raw))
            left = max(deadline - time.monotonic(), 0.0)
            result = await asyncio.wait_for(asyncio.shield(future), left)
        except TimeoutError:
            failure = Timeout
        except BrokenProcessPool:
            pass
        except BaseException:  # cancelled: the work is abandoned all the same
            if future is not None:
                future.add_done_callback(_taken)
            self._replace(index, free)
            raise
        else:
            free.put_nowait(index)
            return result
        if future is not None:
            future.add_done_callback(_taken)
        self._replace(index, free)
        raise failure

    def _replace(self, index: int, free: asyncio.Queue[int]) -> None:
        """End the slot's process (its work is abandoned, so it is ended in the
        background), put a new one in its place and free the slot once that one has
        started."""
        old, self._slots[index] = self._slots[index], self._slot()
        self._ended.append(old)
        threading.Thread(target=_end, args=(old,), name="verity-end-worker", daemon=True).start()
        started = asyncio.wrap_future(self._slots[index].submit(ready))

        def freed(future: asyncio.Future[str | None]) -> None:
            _taken(future)
            free.put_nowait(index)

        started.add_done_callback(freed)

    def close(self) -> None:
        """End every worker process (the work still running is abandoned), and wait for
        each pool's manager thread, so that none is still closing its pipe while the
        interpreter exits (which printed an ignored 'Bad file descriptor' traceback)."""
        for slot in self._slots:
            _end(slot)
        for slot in [*self._ended, *self._slots]:
            slot.shutdown(wait=True)


def _taken(future: asyncio.Future[Any]) -> None:
    """Take the outcome of work no request waits for any more (the failure of a worker
    ended for it), so that asyncio does not log it as never retrieved."""
    if not future.cancelled():
        future.exception()


def _end(slot: ProcessPoolExecutor) -> None:
    """Stop a slot's process: SIGTERM, then SIGKILL after :data:`_END_GRACE_S`."""
    processes = list(slot._processes.values())
    slot.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(_END_GRACE_S)
        if process.is_alive():
            process.kill()
            process.join()
