"""Recording attempts to JSONL and replaying them, so a paid run can be re-scored offline.

A record is one JSON line: ``{"format": "verity.attempt/1", "key": {...}, "attempt":
{...}}`` where the key is (graph_id, variant, pass, prompt_hash) and the attempt is
:meth:`Attempt.to_dict`. Attempts hold no credentials, so neither do recordings.

:class:`ReplayNarrator` serves the recorded attempts of a key in the order they were
recorded (the last one again once they run out). A prompt with no record is an attempt
with ``api_error`` ``replay.missing``: a prompt that changed since the recording (its
hash differs) is not silently answered with another prompt's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verity.errors import InputError
from verity.formats import ATTEMPT_FORMAT
from verity.jsonio import loads, read_text
from verity.llm.narrators.base import Attempt, Narrator, api_error_attempt
from verity.llm.prompts import Prompt

__all__ = ["RecordingNarrator", "ReplayNarrator", "record_key"]

Key = tuple[str, str, int, str]


def record_key(graph_id: str, variant: str, pass_index: int, prompt_hash: str) -> Key:
    """The replay key of a prompt."""
    return (graph_id, variant, pass_index, prompt_hash)


def _key_of(prompt: Prompt) -> Key:
    return record_key(prompt.graph_id, prompt.variant, prompt.pass_index, prompt.prompt_hash)


class RecordingNarrator:
    """Wraps a narrator and appends every attempt it makes to a JSONL file."""

    def __init__(self, inner: Narrator, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()
        except OSError as exc:
            raise InputError(
                f"cannot write the recording {self.path}: {exc.strerror or exc}"
            ) from None

    @property
    def name(self) -> str:
        return self.inner.name

    def narrate(self, prompt: Prompt) -> Attempt:
        attempt = self.inner.narrate(prompt)
        graph_id, variant, pass_index, prompt_hash = _key_of(prompt)
        record = {
            "format": ATTEMPT_FORMAT,
            "key": {
                "graph_id": graph_id,
                "variant": variant,
                "pass": pass_index,
                "prompt_hash": prompt_hash,
            },
            "attempt": attempt.to_dict(),
        }
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return attempt


def _parse_record(line: str, where: str) -> tuple[Key, Attempt]:
    data: Any = loads(line, where)
    try:
        if data.get("format") != ATTEMPT_FORMAT:
            raise InputError(f"{where} is not a {ATTEMPT_FORMAT} record")
        key = data["key"]
        attempt = Attempt.from_dict(data["attempt"])
        return record_key(
            str(key["graph_id"]), str(key["variant"]), int(key["pass"]), str(key["prompt_hash"])
        ), attempt
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(
            f"{where} is not a usable attempt record ({type(exc).__name__}: {exc})"
        ) from None


class ReplayNarrator:
    """Serves recorded attempts by (graph_id, variant, pass, prompt_hash)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._records: dict[Key, list[Attempt]] = {}
        self._served: dict[Key, int] = {}
        for number, line in enumerate(read_text(self.path, "replay file").splitlines(), start=1):
            if line.strip():
                key, attempt = _parse_record(line, f"replay file {self.path} line {number}")
                self._records.setdefault(key, []).append(attempt)

    @property
    def name(self) -> str:
        return f"replay:{self.path.name}"

    def __len__(self) -> int:
        return sum(len(v) for v in self._records.values())

    def narrate(self, prompt: Prompt) -> Attempt:
        key = _key_of(prompt)
        recorded = self._records.get(key)
        if not recorded:
            return api_error_attempt(
                prompt,
                narrator=self.name,
                model="replay",
                code="replay.missing",
                message=f"{self.path.name} has no attempt for graph {prompt.graph_id!r}, variant "
                f"{prompt.variant!r}, pass {prompt.pass_index}, prompt {prompt.prompt_hash[:12]}",
            )
        i = self._served.get(key, 0)
        self._served[key] = i + 1
        return recorded[min(i, len(recorded) - 1)]
