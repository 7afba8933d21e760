"""The narrator protocol, the attempt record and the reading of model output.

A narrator turns a :class:`verity.llm.prompts.Prompt` into an :class:`Attempt`: the raw
text, the narration parsed from it (or why it could not be parsed), token usage,
latency and finish reason. Nothing a model returns makes a narrator raise: bad output is
an attempt with ``parse_error`` and zero claims; a failed request (HTTP status, timeout,
connection, missing replay record) is an attempt with ``api_error``. The two are kept
apart so that a transport failure is never fed back to a model as validation feedback.

Reading output (:func:`parse_output`) needs only ``{"claims": [...]}``; each claim is
passed on as it is, for verify's schema gate to judge. Tolerated: surrounding
whitespace, one Markdown code fence around the JSON, a top-level list (read as the
claims), extra top-level keys (ignored), raw control characters such as newlines inside
strings (llama.cpp's JSON grammar lets a model write them). Every claim object gets the id
``c1``, ``c2``... by position; an ``id`` the model wrote is replaced, since ids belong to
the narrator.

Menu decoding (the extractive and choice variants, a prompt with a ``menu``):
:func:`narrate_menu` asks for one claim per call, each time from what the menu still
allows (:func:`verity.llm.prompts.menu_step_prompt`), and returns one attempt for the
whole narration: the chosen claims as ``{"claims": [...]}``, usage, latency and retries
summed over the calls. Each step's claim is taken as the menu item it is
(:func:`verity.llm.menu.item_for`, the one place model output is matched to the menu); a
claim that is no offered item (an endpoint that did not enforce the schema) is kept as
written, for verify to judge. A step that fails ends the decode; the claims chosen before
it stand (with the step's ``api_error`` recorded when it failed in transport).

A choice prompt's output (``{"facts": [...]}``, numbers of its listing) is read by
:func:`parse_choice`: each number becomes the claim of its item
(:func:`verity.llm.prompts.choice_claims`). What is accepted as written (with a note in
the attempt's ``notes``) and what makes the output unusable (``output.unknown_choice``,
``output.too_many_choices``, ``output.choice_not_number``, with ``expected`` and
``actual``) is :func:`verity.llm.choice.read_choice`'s rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from verity.formats import NARRATION_FORMAT, REFUSAL
from verity.llm.choice import CHOICE_KEY, ChoiceFault, offered_by, read_choice
from verity.llm.claim_ids import renumber
from verity.llm.menu import MenuItem, Said, allowed_items, item_for
from verity.llm.prompts import Prompt, choice_claims, menu_step_prompt

__all__ = [
    "API_ERROR_CODES",
    "PARSE_ERROR_CODES",
    "Attempt",
    "AttemptError",
    "Narrator",
    "Usage",
    "anarrate_menu",
    "api_error_attempt",
    "menu_attempt",
    "narrate_menu",
    "output_attempt",
    "parse_choice",
    "parse_output",
    "read_choice_output",
]

PARSE_ERROR_CODES: dict[str, str] = {
    "output.empty": "the model returned no text",
    "output.truncated": "the output stopped at the token limit (finish_reason 'length')",
    "output.not_json": "the output is not JSON",
    "output.wrong_shape": "the JSON is not an object with a claims array",
    "output.empty_claims": "the claims array is empty",
    "output.refusal": "the model refused instead of answering",
    "output.unknown_choice": "a chosen number is not one the prompt offers",
    "output.too_many_choices": "more numbers chosen than the prompt allows",
    "output.choice_not_number": "a chosen value is not a whole number",
}
API_ERROR_CODES: dict[str, str] = {
    "api.rate_limited": "HTTP 429 after every retry",
    "api.server_error": "HTTP 5xx after every retry",
    "api.timeout": "the request timed out after every retry",
    "api.connection": "the endpoint could not be reached after every retry",
    "api.auth": "the endpoint rejected the credentials (HTTP 401/403)",
    "api.bad_request": "the endpoint rejected the request (HTTP 4xx)",
    "api.error": "another client or endpoint error",
    "replay.missing": "the replay file holds no attempt for this prompt",
    "local.context_overflow": "the prompt does not fit the local model's context window",
    "local.error": "the local model failed",
}

_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(?P<body>.*?)\n?```$", re.DOTALL)
_REFUSAL_MARKERS = (
    "i can't",
    "i cannot",
    "i can not",
    "i'm sorry",
    "i am sorry",
    "i'm unable",
    "i am unable",
    "i won't",
    "i will not",
    "as an ai",
)


@dataclass(frozen=True, slots=True)
class AttemptError:
    """Why an attempt produced no narration: a stable code and a message."""

    code: str
    message: str
    #: What an answer should have been and what it was, where the reader can say
    #: (a refused choice answer); None otherwise and then left out of :meth:`to_dict`.
    expected: str | None = None
    actual: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"code": self.code, "message": self.message}
        if self.expected is not None:
            out["expected"] = self.expected
        if self.actual is not None:
            out["actual"] = self.actual
        return out


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one request (or a sum of requests)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass(frozen=True)
class Attempt:
    """One narrator call: what came back and how it went.

    ``narration`` is a ``verity.narration/1`` dict (claims as the model wrote them, ids
    assigned) or ``None``; then ``parse_error`` or ``api_error`` says why. ``latency_s``
    is the time spent in the model or endpoint call only. ``simulated`` marks attempts
    from the scripted simulator (its ``model`` and ``narrator`` say so too).
    ``settings`` says how the narrator ran where that can change the timing or the
    output (the local model: ``threads``, ``wait_policy``); empty for the others, and
    then left out of :meth:`to_dict`.
    """

    narrator: str
    model: str
    graph_id: str
    variant: str
    pass_index: int
    prompt_hash: str
    raw_text: str
    narration: dict[str, Any] | None
    parse_error: AttemptError | None = None
    api_error: AttemptError | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    retries: int = 0
    simulated: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: What the reader accepted leniently (a choice answer's number written as a string,
    #: a repeat dropped); empty for most attempts, and then left out of :meth:`to_dict`.
    notes: tuple[str, ...] = ()

    @property
    def claims(self) -> list[Any]:
        """The claims as parsed (empty when the attempt has none)."""
        if self.narration is None:
            return []
        return list(self.narration["claims"])

    @property
    def ok(self) -> bool:
        return self.narration is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (what ``--json`` prints and recordings store)."""
        settings: dict[str, Any] = {"settings": dict(self.settings)} if self.settings else {}
        if self.notes:
            settings["notes"] = list(self.notes)
        return {
            "narrator": self.narrator,
            "model": self.model,
            "simulated": self.simulated,
            "graph_id": self.graph_id,
            "variant": self.variant,
            "pass_index": self.pass_index,
            "prompt_hash": self.prompt_hash,
            "raw_text": self.raw_text,
            "narration": self.narration,
            "parse_error": self.parse_error.to_dict() if self.parse_error else None,
            "api_error": self.api_error.to_dict() if self.api_error else None,
            "usage": self.usage.to_dict(),
            "latency_s": self.latency_s,
            "finish_reason": self.finish_reason,
            "retries": self.retries,
            **settings,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Attempt:
        """Rebuild an attempt from :meth:`to_dict` output (KeyError/TypeError if malformed)."""

        def err(value: Any) -> AttemptError | None:
            if value is None:
                return None
            more = {k: str(value[k]) for k in ("expected", "actual") if value.get(k) is not None}
            return AttemptError(str(value["code"]), str(value["message"]), **more)

        usage = data.get("usage") or {}
        narration = data.get("narration")
        return cls(
            narrator=str(data["narrator"]),
            model=str(data["model"]),
            graph_id=str(data["graph_id"]),
            variant=str(data["variant"]),
            pass_index=int(data["pass_index"]),
            prompt_hash=str(data["prompt_hash"]),
            raw_text=str(data.get("raw_text", "")),
            narration=dict(narration) if isinstance(narration, Mapping) else None,
            parse_error=err(data.get("parse_error")),
            api_error=err(data.get("api_error")),
            usage=Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            latency_s=float(data.get("latency_s", 0.0)),
            finish_reason=data.get("finish_reason"),
            retries=int(data.get("retries", 0)),
            simulated=bool(data.get("simulated", False)),
            settings=dict(data.get("settings") or {}),
            notes=tuple(str(n) for n in data.get("notes") or ()),
        )


@runtime_checkable
class Narrator(Protocol):
    """Anything that narrates a prompt. ``name`` identifies it in results."""

    @property
    def name(self) -> str: ...

    def narrate(self, prompt: Prompt) -> Attempt: ...


def _looks_like_refusal(text: str) -> bool:
    low = text.strip().lower().replace("\u2019", "'")
    return low == REFUSAL.lower() or any(low.startswith(m) for m in _REFUSAL_MARKERS)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _read_json(
    raw_text: str, finish_reason: str | None, key: str
) -> tuple[Any, AttemptError | None]:
    """The JSON value of model output, or why there is none (``key``: the answer's key,
    which a refusal object does not hold)."""
    text = raw_text.strip()
    if finish_reason == "length":
        return None, AttemptError(
            "output.truncated",
            f"the output stopped at the token limit after {len(raw_text)} characters",
        )
    if not text:
        return None, AttemptError("output.empty", "the model returned no text")
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text, parse_constant=_reject_constant, strict=False)
    except (ValueError, RecursionError) as exc:
        if _looks_like_refusal(text):
            return None, AttemptError("output.refusal", f"the model refused: {text[:120]!r}")
        return None, AttemptError("output.not_json", f"the output is not JSON: {str(exc)[:120]}")
    if isinstance(data, str) and _looks_like_refusal(data):
        return None, AttemptError("output.refusal", f"the model refused: {data[:120]!r}")
    if isinstance(data, dict) and isinstance(data.get("refusal"), str) and key not in data:
        return None, AttemptError("output.refusal", f"the model refused: {data['refusal'][:120]!r}")
    return data, None


def _read_list(
    raw_text: str, finish_reason: str | None, key: str
) -> tuple[list[Any] | None, AttemptError | None]:
    """The array under ``key`` of model output (or a top-level array), or why there is none."""
    data, error = _read_json(raw_text, finish_reason, key)
    if error is not None:
        return None, error
    found = data if isinstance(data, list) else data.get(key) if isinstance(data, dict) else None
    if not isinstance(found, list):
        shape = (
            f"an object without a {key} array" if isinstance(data, dict) else type(data).__name__
        )
        return None, AttemptError("output.wrong_shape", f'expected {{"{key}": [...]}}, got {shape}')
    if not found:
        return None, AttemptError("output.empty_claims", f"the {key} array is empty")
    return found, None


def _narration_of(claims: list[Any], graph_id: str) -> dict[str, Any]:
    return {"format": NARRATION_FORMAT, "graph_id": graph_id, "claims": renumber(claims)}


def parse_output(
    raw_text: str, finish_reason: str | None, graph_id: str
) -> tuple[dict[str, Any] | None, AttemptError | None]:
    """Read model output into a narration dict, or say why it cannot be read."""
    claims, error = _read_list(raw_text, finish_reason, "claims")
    if claims is None:
        return None, error
    return _narration_of(claims, graph_id), None


def parse_choice(
    raw_text: str, finish_reason: str | None, prompt: Prompt
) -> tuple[dict[str, Any] | None, AttemptError | None]:
    """Read a choice prompt's output, ``{"facts": [...]}``, into the narration of the
    chosen items, or say why it cannot be read (:func:`read_choice_output`)."""
    narration, error, _ = read_choice_output(raw_text, finish_reason, prompt)
    return narration, error


def read_choice_output(
    raw_text: str, finish_reason: str | None, prompt: Prompt
) -> tuple[dict[str, Any] | None, AttemptError | None, tuple[str, ...]]:
    """:func:`parse_choice` with the notes of what was read leniently
    (:func:`verity.llm.choice.read_choice` says what is accepted and what is refused)."""
    data, error = _read_json(raw_text, finish_reason, CHOICE_KEY)
    if error is not None:
        return None, error, ()
    offered, most = offered_by(prompt.json_schema)
    reading = read_choice(data, offered, most)
    if isinstance(reading, ChoiceFault):
        fault = AttemptError(reading.code, reading.message, reading.expected, reading.actual)
        return None, fault, ()
    claims = choice_claims(prompt, reading.labels)
    if claims is None:
        return (
            None,
            AttemptError(
                "output.unknown_choice",
                f"the chosen numbers {json.dumps(list(reading.labels))[:80]} do not name "
                "different facts of the list",
                "numbers of different listed facts",
                json.dumps(list(reading.labels))[:120],
            ),
            (),
        )
    return _narration_of(list(claims), prompt.graph_id), None, reading.notes


def _attempt_for(prompt: Prompt, *, narrator: str, model: str, **fields: Any) -> Attempt:
    """An attempt keyed to ``prompt``: its graph, variant, pass index and hash."""
    return Attempt(
        narrator=narrator,
        model=model,
        graph_id=prompt.graph_id,
        variant=prompt.variant,
        pass_index=prompt.pass_index,
        prompt_hash=prompt.prompt_hash,
        **fields,
    )


def output_attempt(
    prompt: Prompt,
    *,
    narrator: str,
    model: str,
    raw_text: str,
    finish_reason: str | None,
    usage: Usage,
    latency_s: float,
    retries: int = 0,
    simulated: bool = False,
    refusal: str | None = None,
) -> Attempt:
    """An attempt from model output; ``refusal`` is an API-level refusal message, if any."""
    narration: dict[str, Any] | None = None
    error: AttemptError | None
    notes: tuple[str, ...] = ()
    if refusal:
        error = AttemptError("output.refusal", f"the model refused: {refusal[:120]!r}")
    elif prompt.listing:
        narration, error, notes = read_choice_output(raw_text, finish_reason, prompt)
    else:
        narration, error = parse_output(raw_text, finish_reason, prompt.graph_id)
    return _attempt_for(
        prompt,
        narrator=narrator,
        model=model,
        raw_text=raw_text,
        narration=narration,
        parse_error=error,
        usage=usage,
        latency_s=latency_s,
        finish_reason=finish_reason,
        retries=retries,
        simulated=simulated,
        notes=notes,
    )


def api_error_attempt(
    prompt: Prompt,
    *,
    narrator: str,
    model: str,
    code: str,
    message: str,
    latency_s: float = 0.0,
    retries: int = 0,
) -> Attempt:
    """An attempt whose request failed: no text, no narration, the error as data."""
    return _attempt_for(
        prompt,
        narrator=narrator,
        model=model,
        raw_text="",
        narration=None,
        api_error=AttemptError(code, message),
        latency_s=latency_s,
        retries=retries,
    )


def menu_attempt(prompt: Prompt, chosen: Sequence[Said], steps: list[Attempt]) -> Attempt:
    """One attempt for a whole menu decode: ``chosen`` claims, ``steps`` the calls made.

    With no claim chosen it is the first step's failure (re-keyed to ``prompt``). A
    transport failure after some claims keeps them and records the error; the finish
    reason is the last step's.
    """
    last = steps[-1] if steps else None
    usage = Usage()
    for a in steps:
        usage = usage + a.usage
    latency = sum(a.latency_s for a in steps)
    retries = sum(a.retries for a in steps)
    if last is None:
        return api_error_attempt(
            prompt, narrator="menu", model="menu", code="api.error", message="no step ran"
        )
    narration: dict[str, Any] | None
    if chosen:
        claims = [c.claim() if isinstance(c, MenuItem) else dict(c) for c in chosen]
        raw = json.dumps({"claims": claims}, ensure_ascii=False)
        narration, error = parse_output(raw, "stop", prompt.graph_id)
    else:
        raw, narration, error = last.raw_text, None, last.parse_error
    return _attempt_for(
        prompt,
        narrator=last.narrator,
        model=last.model,
        raw_text=raw,
        narration=narration,
        parse_error=error,
        api_error=last.api_error,
        usage=usage,
        latency_s=latency,
        finish_reason=last.finish_reason,
        retries=retries,
        simulated=last.simulated,
    )


def _step_claim(attempt: Attempt, offered: Sequence[MenuItem]) -> Said | None:
    """The one claim a step returned: the offered item it is, else the claim as written
    (without the narrator's id); None when the step gave no claim object."""
    if attempt.api_error is not None or attempt.narration is None:
        return None
    claims = attempt.claims
    if not claims or not isinstance(claims[0], dict):
        return None
    written = {k: v for k, v in claims[0].items() if k != "id"}
    return item_for(offered, written) or written


class _MenuDecode:
    """The state of one menu decode, shared by :func:`narrate_menu` and
    :func:`anarrate_menu`: the claims chosen, what the current step offers and the calls
    made so far."""

    def __init__(self, prompt: Prompt) -> None:
        self._prompt = prompt
        self._chosen: list[Said] = []
        self._offered: list[MenuItem] = []
        self._steps: list[Attempt] = []

    def next_step(self) -> Prompt | None:
        """The next step's prompt, or None when the claims are told or the menu used up."""
        if len(self._chosen) >= self._prompt.max_claims:
            return None
        self._offered = allowed_items(self._prompt.menu, self._chosen)
        if not self._offered:
            return None
        return menu_step_prompt(self._prompt, self._chosen)

    def took(self, attempt: Attempt) -> bool:
        """Record a step's attempt; False when it gave no claim (the decode stops)."""
        self._steps.append(attempt)
        claim = _step_claim(attempt, self._offered)
        if claim is None:
            return False
        self._chosen.append(claim)
        return True

    def result(self) -> Attempt:
        return menu_attempt(self._prompt, self._chosen, self._steps)


def narrate_menu(prompt: Prompt, call: Callable[[Prompt], Attempt]) -> Attempt:
    """Decode a menu prompt claim by claim with ``call`` (one ordinary narrator call a step)."""
    decode = _MenuDecode(prompt)
    while (step := decode.next_step()) is not None:
        if not decode.took(call(step)):
            break
    return decode.result()


async def anarrate_menu(prompt: Prompt, call: Callable[[Prompt], Awaitable[Attempt]]) -> Attempt:
    """:func:`narrate_menu` for an asynchronous narrator call."""
    decode = _MenuDecode(prompt)
    while (step := decode.next_step()) is not None:
        if not decode.took(await call(step)):
            break
    return decode.result()
