"""The Dask engine of ``verify-stream``: windows of lines verified on a Dask cluster.

The loaded graphs and the profile are scattered to every worker once (broadcast); each
task then verifies one window of numbered lines against the worker's copy with the same
function as the local engine, so the output lines are the same, byte for byte. At most
four windows per worker are in flight, and results are yielded in input order, so
memory stays bounded however long the stream is.

Without a scheduler address a ``distributed.LocalCluster`` of ``workers`` single-threaded
worker processes is started for the run and closed after it. Needs the ``dask`` extra.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from verity._lines import chunks, in_order, verify_lines
from verity.core.graph import EvidenceGraph
from verity.core.profiles import Profile
from verity.errors import InputError, VerityError
from verity.extras import require_extra

__all__ = ["CONNECT_TIMEOUT_S", "DASK_CHUNK_LINES", "require_dask", "verify_on_dask"]

#: Lines per Dask task: more than the local engine's chunks, to amortise task overhead.
DASK_CHUNK_LINES = 1024
#: Windows in flight per worker.
_WINDOWS_PER_WORKER = 4
#: Seconds to wait for a scheduler (and for a local cluster's workers) to answer.
CONNECT_TIMEOUT_S = 30


def require_dask() -> None:
    """Raise the one-line :class:`InputError` naming the ``dask`` extra when it is missing."""
    require_extra("dask", "--engine dask")


def _verify_window(
    shared: tuple[Mapping[str, EvidenceGraph], str | Profile], window: list[tuple[int, bytes]]
) -> list[str]:
    graphs, profile = shared
    return verify_lines(window, graphs, profile)


def _connect(scheduler: str | None, workers: int, timeout_s: float) -> tuple[Any, Any]:
    """(client, cluster or None): a client of the scheduler, or of a new LocalCluster."""
    from distributed import Client, LocalCluster

    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        try:
            return Client(cluster, set_as_default=False), cluster
        except BaseException:
            cluster.close()
            raise
    try:
        client = Client(scheduler, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"cannot reach the Dask scheduler at {scheduler}: {type(exc).__name__}: {exc}"[:500]
        ) from None
    return client, None


def _worker_count(client: Any, timeout_s: float) -> int:
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        raise InputError(f"the Dask cluster has no workers (waited {timeout_s:g} s)") from None
    return max(1, len(client.scheduler_info().get("workers", {})))


def _result(future: Any) -> list[str]:
    try:
        out: list[str] = future.result()
    except Exception as exc:  # a lost worker or cluster: one line, never a traceback
        raise VerityError(
            f"the Dask cluster failed a window: {type(exc).__name__}: {exc}"[:500]
        ) from None
    return out


def verify_on_dask(
    lines: Iterable[bytes],
    graphs: Mapping[str, EvidenceGraph],
    profile: str | Profile,
    *,
    scheduler: str | None = None,
    workers: int = 1,
    chunk_lines: int = DASK_CHUNK_LINES,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
) -> Iterator[str]:
    """Yield one output line per input line, in input order, verified on Dask: on the
    cluster at ``scheduler``, else on a new ``LocalCluster`` of ``workers`` processes."""
    require_dask()
    client, cluster = _connect(scheduler, workers, connect_timeout_s)
    try:
        window = _worker_count(client, connect_timeout_s) * _WINDOWS_PER_WORKER
        [shared] = client.scatter([(dict(graphs), profile)], broadcast=True, hash=False)
        submit = functools.partial(client.submit, _verify_window, shared, pure=False)
        yield from in_order(chunks(lines, chunk_lines), submit, _result, window)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
