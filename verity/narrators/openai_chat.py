"""Narrate through any OpenAI-compatible chat endpoint with the ``openai`` client.

The key is read from an environment variable (``OPENAI_API_KEY`` unless another name
is given) and handed to the client only: it is not stored on the narrator, not in its
repr, not in any attempt, and error messages from the endpoint are scrubbed of it. A
custom ``base_url`` without the variable set uses a placeholder key, since local servers
(llama.cpp, vLLM, Ollama) accept any.

Requests use temperature 0. Retries are our own loop (the client's are turned off, so
every retry is counted in the attempt): HTTP 408/409/429/5xx, timeouts and connection
errors are retried with exponential backoff; other errors fail at once. A request that
still fails is an attempt with ``api_error``, never an exception.

Structured output, chosen by ``response_format``:
``json_schema`` (OpenAI, vLLM, Ollama, llama-server) sends
``{"type": "json_schema", "json_schema": {"name", "schema", "strict": false}}``;
``json_object`` (llama-cpp-python's server) sends ``{"type": "json_object", "schema": ...}``;
``json`` sends ``{"type": "json_object"}``; ``none`` sends nothing.

A menu prompt (the extractive variant) is decoded claim by claim, one request per claim
(:func:`verity.narrators.base.narrate_menu`): each request offers only the menu items
still left, and consecutive requests share their long prefix, which servers such as
llama.cpp's reuse from their cache.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import openai

from verity.errors import InputError
from verity.narrators.base import (
    Attempt,
    Usage,
    anarrate_menu,
    api_error_attempt,
    narrate_menu,
    output_attempt,
)
from verity.prompts import Prompt

__all__ = [
    "RESPONSE_FORMATS",
    "AsyncOpenAIChatNarrator",
    "OpenAIChatNarrator",
    "narrate_many",
    "resolve_api_key",
]

RESPONSE_FORMATS: tuple[str, ...] = ("json_schema", "json_object", "json", "none")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_KEYLIKE = re.compile(r"\b(sk|key|pk)-[A-Za-z0-9_*\-]{4,}")
_RETRY_STATUS = frozenset({408, 409, 429})
_PLACEHOLDER_KEY = "no-key-needed"


def resolve_api_key(api_key_env: str, base_url: str | None) -> str:
    """The key from ``api_key_env``; a placeholder for custom endpoints without one."""
    if not _ENV_NAME.match(api_key_env):
        raise InputError(
            f"--api-key-env must name an environment variable, not {api_key_env[:40]!r}"
        )
    key = os.environ.get(api_key_env, "")
    if key:
        return key
    if base_url:
        return _PLACEHOLDER_KEY
    raise InputError(
        f"the openai narrator needs an API key in the environment variable {api_key_env} "
        "(or --base-url for a local endpoint)"
    )


def _response_format(kind: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "narration", "schema": schema, "strict": False},
        }
    if kind == "json_object":
        return {"type": "json_object", "schema": schema}
    if kind == "json":
        return {"type": "json_object"}
    return None


def _classify(exc: Exception) -> tuple[str, bool]:
    """(error code, retryable) of a client exception."""
    if isinstance(exc, openai.APITimeoutError):
        return "api.timeout", True
    if isinstance(exc, openai.APIConnectionError):
        return "api.connection", True
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return "api.rate_limited", True
        if status >= 500:
            return "api.server_error", True
        if status in (401, 403):
            return "api.auth", False
        return "api.bad_request", status in _RETRY_STATUS
    return "api.error", False


def _message(exc: Exception, code: str, secret: str) -> str:
    status = getattr(exc, "status_code", None)
    head = f"{type(exc).__name__}" + (f" (HTTP {status})" if status is not None else "")
    if code == "api.auth":
        return f"{head}: the endpoint rejected the credentials"
    detail = str(exc)
    if secret and secret != _PLACEHOLDER_KEY:
        detail = detail.replace(secret, "[key]")
    detail = _KEYLIKE.sub("[key]", detail)
    return f"{head}: {' '.join(detail.split())[:300]}"


class _Settings:
    """What the sync and async narrators share: options, request body, result reading."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        response_format: str,
        max_tokens: int,
        max_retries: int,
        backoff_s: float,
        timeout_s: float,
        seed: int | None,
    ) -> None:
        if not model:
            raise InputError("the openai narrator needs a model name (openai:MODEL)")
        if response_format not in RESPONSE_FORMATS:
            raise InputError(
                f"unknown response format {response_format!r}; "
                f"expected one of {', '.join(RESPONSE_FORMATS)}"
            )
        if not 0 <= max_retries <= 10:
            raise InputError("max_retries must be between 0 and 10")
        self.model = model
        self.base_url = base_url
        self.response_format = response_format
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.seed = seed

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def request(self, prompt: Prompt) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": prompt.messages(),
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        fmt = _response_format(self.response_format, prompt.json_schema)
        if fmt is not None:
            body["response_format"] = fmt
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def delay(self, retry: int) -> float:
        return float(min(self.backoff_s * (2**retry), 30.0))

    def attempt(self, prompt: Prompt, completion: Any, latency: float, retries: int) -> Attempt:
        choices = getattr(completion, "choices", None) or []
        if not choices:
            return api_error_attempt(
                prompt,
                narrator=self.name,
                model=self.model,
                code="api.error",
                message="the response has no choices",
                latency_s=latency,
                retries=retries,
            )
        choice = choices[0]
        message = choice.message
        usage = getattr(completion, "usage", None)
        return output_attempt(
            prompt,
            narrator=self.name,
            model=str(getattr(completion, "model", None) or self.model),
            raw_text=message.content or "",
            finish_reason=choice.finish_reason,
            usage=Usage(
                int(getattr(usage, "prompt_tokens", 0) or 0),
                int(getattr(usage, "completion_tokens", 0) or 0),
            ),
            latency_s=latency,
            retries=retries,
            refusal=getattr(message, "refusal", None),
        )


class _ChatNarrator:
    """Construction and error handling shared by the sync and async narrators."""

    _client_class: Any = None  # set by each subclass: openai.OpenAI or openai.AsyncOpenAI

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        response_format: str = "json_schema",
        max_tokens: int = 1024,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        timeout_s: float = 60.0,
        seed: int | None = None,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._sleep = sleep  # the synchronous narrator's pause between retries
        self._s = _Settings(
            model,
            base_url=base_url,
            response_format=response_format,
            max_tokens=max_tokens,
            max_retries=max_retries,
            backoff_s=backoff_s,
            timeout_s=timeout_s,
            seed=seed,
        )
        key = resolve_api_key(api_key_env, base_url) if client is None else ""
        self._secret = key
        self._client = (
            client
            if client is not None
            else self._client_class(
                api_key=key, base_url=base_url, timeout=timeout_s, max_retries=0
            )
        )

    @property
    def name(self) -> str:
        return self._s.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._s.model!r}, base_url={self._s.base_url!r})"

    def _retry_after(self, exc: Exception, retries: int) -> float | None:
        """Seconds to wait before retrying ``exc``, or None when it is final."""
        _, retryable = _classify(exc)
        if retryable and retries < self._s.max_retries:
            return self._s.delay(retries)
        return None

    def _failed(self, prompt: Prompt, exc: Exception, started: float, retries: int) -> Attempt:
        code, _ = _classify(exc)
        return api_error_attempt(
            prompt,
            narrator=self.name,
            model=self._s.model,
            code=code,
            message=_message(exc, code, self._secret),
            latency_s=time.perf_counter() - started,
            retries=retries,
        )


class OpenAIChatNarrator(_ChatNarrator):
    """Synchronous narrator for an OpenAI-compatible endpoint."""

    _client_class = openai.OpenAI

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.menu:
            return narrate_menu(prompt, self._narrate_one)
        return self._narrate_one(prompt)

    def _narrate_one(self, prompt: Prompt) -> Attempt:
        body = self._s.request(prompt)
        started = time.perf_counter()
        retries = 0
        while True:
            try:
                completion = self._client.chat.completions.create(**body)
            except Exception as exc:  # the client's errors become data, never a crash
                wait = self._retry_after(exc, retries)
                if wait is None:
                    return self._failed(prompt, exc, started, retries)
                self._sleep(wait)
                retries += 1
                continue
            return self._s.attempt(prompt, completion, time.perf_counter() - started, retries)


class AsyncOpenAIChatNarrator(_ChatNarrator):
    """Asynchronous variant for benchmarks: ``await anarrate(prompt)``; see :func:`narrate_many`."""

    _client_class = openai.AsyncOpenAI

    async def anarrate(self, prompt: Prompt) -> Attempt:
        if prompt.menu:
            return await anarrate_menu(prompt, self._anarrate_one)
        return await self._anarrate_one(prompt)

    async def _anarrate_one(self, prompt: Prompt) -> Attempt:
        body = self._s.request(prompt)
        started = time.perf_counter()
        retries = 0
        while True:
            try:
                completion = await self._client.chat.completions.create(**body)
            except Exception as exc:  # the client's errors become data, never a crash
                wait = self._retry_after(exc, retries)
                if wait is None:
                    return self._failed(prompt, exc, started, retries)
                await asyncio.sleep(wait)
                retries += 1
                continue
            return self._s.attempt(prompt, completion, time.perf_counter() - started, retries)


async def narrate_many(
    narrator: AsyncOpenAIChatNarrator, prompts: Sequence[Prompt], *, max_in_flight: int = 4
) -> list[Attempt]:
    """Narrate every prompt with at most ``max_in_flight`` requests open; results in order."""
    if max_in_flight < 1:
        raise InputError("max_in_flight must be at least 1")
    gate = asyncio.Semaphore(max_in_flight)

    async def one(prompt: Prompt) -> Attempt:
        async with gate:
            return await narrator.anarrate(prompt)

    return list(await asyncio.gather(*(one(p) for p in prompts)))
