"""Large ``/v1/verify`` bodies for the service's load benchmark and tests.

A large narration repeats the claims of the packaged example narration
(``verity/data/examples/narration.json``: five claims, two of them failing) under fresh
ids, for the example graph; 775 repeats give 3,875 claims, about 900 kB, the size of
request that stalled the service when it verified inside its event loop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "verity" / "data" / "examples"

#: Repeats of the example's claims in a large narration (3,875 claims).
LARGE_REPEATS = 775


def large_narration(repeats: int = LARGE_REPEATS) -> dict[str, Any]:
    """The example narration with its claims repeated ``repeats`` times, ids unique."""
    narration: dict[str, Any] = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
    claims = narration["claims"]
    narration["claims"] = [
        {**claim, "id": f"r{n}-{claim['id']}"} for n in range(repeats) for claim in claims
    ]
    return narration


def large_body(repeats: int = LARGE_REPEATS, *, inline: bool = False) -> bytes:
    """A ``/v1/verify`` body: the example graph (by id; with ``inline``, the whole graph)
    and :func:`large_narration`."""
    narration = large_narration(repeats)
    graph = narration["graph_id"]
    if inline:
        graph = json.loads((EXAMPLES / "graph.json").read_text("utf-8"))
    return json.dumps({"graph": graph, "narration": narration}).encode()
