"""Narrate through any OpenAI-compatible chat endpoint with the ``openai`` client.

The key is read from an environment variable and handed to the client only: it is not
stored on the narrator, not in its repr, not in any attempt, and error messages from the
endpoint are scrubbed of it. With no ``api_key_env`` the variable is ``OPENAI_API_KEY``,
and a custom endpoint (``base_url``, or ``OPENAI_BASE_URL`` in the environment, which the
client honours too) without it gets a placeholder key, since local servers (llama.cpp,
vLLM, Ollama) accept any; a variable named with ``api_key_env`` must be set.

Requests use temperature 0 and wait at most ``timeout_s`` seconds each (default
:data:`DEFAULT_TIMEOUT_S`). Retries are our own loop (the client's are turned off, so
every retry is counted in the attempt): HTTP 408/409/429/5xx, timeouts and connection
errors are retried ``max_retries`` times (default :data:`DEFAULT_RETRIES`) with
exponential backoff, each retry announced through ``notify``; other errors fail at once.
A request that still fails is an attempt with ``api_error``, never an exception; its
message names the endpoint's URL.

Structured output, chosen by ``response_format``:
``json_schema`` (OpenAI, vLLM, Ollama, llama-server) sends
``{"type": "json_schema", "json_schema": {"name", "schema", "strict": false}}``;
``json_object`` (llama-cpp-python's server, ``python -m llama_cpp.server``) sends
``{"type": "json_object", "schema": ...}``; ``json`` sends ``{"type": "json_object"}``;
``none`` sends nothing. ``auto`` (the default) sends ``json_schema`` and, when the endpoint
refuses that request (HTTP 400, 422 or 5xx) and the same request in the ``json_object``
style succeeds, keeps ``json_object`` for the rest of the narrator's requests (saying so
through ``notify``). A prompt that does not fit the server's context window is an
``api.bad_request`` whose message says so and how to fix it.

A menu prompt (the extractive variant) is decoded claim by claim, one request per claim
(:func:`verity.llm.narrators.base.narrate_menu`): each request offers only the menu items
still left, and consecutive requests share their long prefix, which servers such as
llama.cpp's reuse from their cache. A choice prompt is one request: its task and its
schema state the same answer (:func:`verity.llm.choice.choice_answer`, 1 to k distinct
numbers of the list), in every response format; what comes back is read by
:func:`verity.llm.choice.read_choice`, whatever the endpoint enforced.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

from verity.errors import InputError
from verity.llm.narrators.base import (
    Attempt,
    Usage,
    anarrate_menu,
    api_error_attempt,
    narrate_menu,
    output_attempt,
)
from verity.llm.prompts import Prompt

__all__ = [
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT_S",
    "OPENAI_DEFAULT_URL",
    "RESPONSE_FORMATS",
    "AsyncOpenAIChatNarrator",
    "OpenAIChatNarrator",
    "check_base_url",
    "narrate_many",
    "resolve_api_key",
]

RESPONSE_FORMATS: tuple[str, ...] = ("auto", "json_schema", "json_object", "json", "none")
#: Seconds one request may take before it counts as a timeout.
DEFAULT_TIMEOUT_S = 120.0
#: Retries of a retryable failure (connection, timeout, HTTP 408/409/429/5xx).
DEFAULT_RETRIES = 2
#: Where the client goes without ``base_url`` or ``OPENAI_BASE_URL``.
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_KEYLIKE = re.compile(r"\b(sk|key|pk)-[A-Za-z0-9_*\-]{4,}")
_RETRY_STATUS = frozenset({408, 409, 429})
_PLACEHOLDER_KEY = "no-key-needed"


_FALLBACK_STATUS = frozenset({400, 422, 500, 501, 502})


def check_base_url(base_url: str) -> str:
    """``base_url`` when it is an http(s) URL with a host; else an :class:`InputError`."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(
            f"--base-url must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, "
            f"not {base_url[:80]!r}"
        )
    return base_url.strip()


def _shown_url(url: str) -> str:
    """The URL without user name or password, for messages."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, "")).rstrip("/")


def resolve_api_key(api_key_env: str | None, base_url: str | None) -> str:
    """The key from ``api_key_env`` (which must then be set); with None, from
    ``OPENAI_API_KEY``, or a placeholder for a custom endpoint (``base_url``)."""
    name = "OPENAI_API_KEY" if api_key_env is None else api_key_env
    if not _ENV_NAME.match(name):
        raise InputError(f"--api-key-env must name an environment variable, not {name[:40]!r}")
    key = os.environ.get(name, "")
    if key:
        return key
    if api_key_env is not None:
        raise InputError(f"--api-key-env {name}: the environment variable {name} is not set")
    if base_url:
        return _PLACEHOLDER_KEY
    raise InputError(
        f"the openai narrator needs an API key in the environment variable {name} "
        "(or --base-url for a local endpoint)"
    )


def _context_overflow(exc: Exception) -> bool:
    """The endpoint said the prompt does not fit its context window (OpenAI's error code
    ``context_length_exceeded``, which llama-cpp-python's server sends too)."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code != 400:
        return False
    return getattr(exc, "code", None) == "context_length_exceeded"


def _response_format(kind: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if kind in ("json_schema", "auto"):
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


def _message(exc: Exception, code: str, secret: str, url: str, max_tokens: int) -> str:
    status = getattr(exc, "status_code", None)
    head = f"{type(exc).__name__}" + (f" (HTTP {status})" if status is not None else "")
    if code == "api.auth":
        return f"{head} from {url}: the endpoint rejected the credentials"
    if code == "api.timeout":
        return f"{head}: {url} accepted the request but sent no answer in time (--timeout)"
    if code == "api.connection":
        return f"{head}: could not connect to {url}"
    detail = str(exc)
    if secret and secret != _PLACEHOLDER_KEY:
        detail = detail.replace(secret, "[key]")
    detail = " ".join(_KEYLIKE.sub("[key]", detail).split())[:300]
    if _context_overflow(exc):
        return (
            f"{head} from {url}: the prompt plus max_tokens {max_tokens} does not fit the "
            "server's context window; start the server with a larger one (python -m "
            "llama_cpp.server --n_ctx 4096) or lower --max-tokens or --max-nodes: " + detail
        )
    if status == 404 and "/v1" not in urlsplit(url).path:
        return (
            f"{head} from {url}/chat/completions: no such route; OpenAI-compatible servers "
            "usually serve under /v1 (--base-url http://HOST:PORT/v1): " + detail
        )
    return f"{head} from {url}: {detail}"


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
        if isinstance(max_retries, bool) or not 0 <= max_retries <= 10:
            raise InputError("max_retries (--retries) must be a whole number from 0 to 10")
        if not timeout_s > 0:
            raise InputError("timeout_s (--timeout) must be a positive number of seconds")
        if max_tokens < 1:
            raise InputError("max_tokens (--max-tokens) must be at least 1")
        self.model = model
        self.base_url = base_url
        self.url = _shown_url(base_url or OPENAI_DEFAULT_URL)
        self.response_format = response_format
        #: The style requests use now (``auto`` may switch it to ``json_object``).
        self.active_format = response_format
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.seed = seed

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def request(self, prompt: Prompt, style: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": prompt.messages(),
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        fmt = _response_format(style or self.active_format, prompt.json_schema)
        if fmt is not None:
            body["response_format"] = fmt
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def fallback_for(self, exc: Exception, style: str) -> str | None:
        """The style to try at once after ``exc``: ``json_object`` when ``auto``'s
        ``json_schema`` request was refused; None otherwise."""
        if self.response_format != "auto" or style != "auto":
            return None
        if not isinstance(exc, openai.APIStatusError) or _context_overflow(exc):
            return None
        return "json_object" if exc.status_code in _FALLBACK_STATUS else None

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
                message=f"the response from {self.url} has no choices",
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
    """Construction and error handling shared by the sync and async narrators.

    ``client`` wraps an existing ``openai.OpenAI`` (``openai.AsyncOpenAI`` for the async
    narrator) instead of building one; then no key is read, ``base_url`` only labels
    messages, and the client's own timeout applies. ``notify`` receives one line per
    retry or format fallback (the CLI prints them on stderr).
    """

    _client_class: Any = None  # set by each subclass: openai.OpenAI or openai.AsyncOpenAI

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        response_format: str = "auto",
        max_tokens: int = 1024,
        max_retries: int = DEFAULT_RETRIES,
        backoff_s: float = 0.5,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        seed: int | None = None,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self._sleep = sleep  # the synchronous narrator's pause between retries
        self._notify = notify
        if client is None:
            given = base_url if base_url is not None else os.environ.get("OPENAI_BASE_URL") or None
            base_url = check_base_url(given) if given is not None else None
        elif base_url is None:
            base_url = str(getattr(client, "base_url", "") or "") or None
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

    @property
    def url(self) -> str:
        """The endpoint's base URL as messages show it (no credentials)."""
        return self._s.url

    @property
    def response_format(self) -> str:
        """The structured-output style requests use now."""
        return self._s.active_format

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._s.model!r}, base_url={self._s.base_url!r})"

    def _say(self, text: str) -> None:
        if self._notify is not None:
            self._notify(text)

    def _retry_after(self, exc: Exception, retries: int) -> float | None:
        """Seconds to wait before retrying ``exc``, or None when it is final."""
        code, retryable = _classify(exc)
        if retryable and retries < self._s.max_retries:
            wait = self._s.delay(retries)
            self._say(
                f"{self.name} at {self.url}: {code} ({_brief(exc, self._s.timeout_s)}); "
                f"retry {retries + 1} of {self._s.max_retries} in {wait:.1f}s"
            )
            return wait
        return None

    def _fell_back(self, exc: Exception, style: str) -> str | None:
        nxt = self._s.fallback_for(exc, style)
        if nxt is not None:
            status = getattr(exc, "status_code", "?")
            self._say(
                f"{self.name} at {self.url}: the endpoint refused response_format json_schema "
                f"(HTTP {status}); trying json_object (llama-cpp-python's server style; "
                "--response-format json_object skips this)"
            )
        return nxt

    def _adopt(self, style: str) -> None:
        """A request in ``style`` succeeded: use it from now on."""
        if style != self._s.active_format:
            self._s.active_format = style

    def _failed(self, prompt: Prompt, exc: Exception, started: float, retries: int) -> Attempt:
        code, _ = _classify(exc)
        return api_error_attempt(
            prompt,
            narrator=self.name,
            model=self._s.model,
            code=code,
            message=_message(exc, code, self._secret, self.url, self._s.max_tokens),
            latency_s=time.perf_counter() - started,
            retries=retries,
        )


def _brief(exc: Exception, timeout_s: float) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return f"no answer within {timeout_s:g}s"
    if isinstance(exc, openai.APIConnectionError):
        return "connection failed"
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}" if status is not None else type(exc).__name__


class _Call:
    """The retry policy of one request, shared by the sync and async narrators.

    A request refused for its response format is sent again at once in the fallback
    style (once a narration); an error :func:`_classify` calls retryable is retried up
    to ``max_retries`` times after the settings' backoff, in the style in use then;
    anything else ends the narration as an API-error attempt. Each fallback and retry
    counts in the attempt's ``retries``.
    """

    def __init__(self, narrator: _ChatNarrator, prompt: Prompt) -> None:
        self._narrator = narrator
        self._prompt = prompt
        self._started = time.perf_counter()
        self._retries = 0
        self._style = narrator._s.active_format
        self._fallback_tried = False

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next ``chat.completions.create`` call."""
        return self._narrator._s.request(self._prompt, self._style)

    def failed(self, exc: Exception) -> Attempt | float | None:
        """After the request raised ``exc``: None to send again now (a format fallback),
        the seconds to wait before a retry (then call :meth:`waited`), or the final
        attempt."""
        narrator = self._narrator
        fallback = None if self._fallback_tried else narrator._fell_back(exc, self._style)
        if fallback is not None:
            self._fallback_tried = True
            self._style = fallback
            return None
        wait = narrator._retry_after(exc, self._retries)
        if wait is None:
            return narrator._failed(
                self._prompt, exc, self._started, self._retries + self._fallback_tried
            )
        return wait

    def waited(self) -> None:
        """The backoff is over: the retry goes out in the style in use now."""
        self._retries += 1
        self._style = self._narrator._s.active_format

    def answered(self, completion: Any) -> Attempt:
        """The request succeeded: adopt its style and read the completion."""
        self._narrator._adopt(self._style)
        latency = time.perf_counter() - self._started
        return self._narrator._s.attempt(
            self._prompt, completion, latency, self._retries + self._fallback_tried
        )


class OpenAIChatNarrator(_ChatNarrator):
    """Synchronous narrator for an OpenAI-compatible endpoint."""

    _client_class = openai.OpenAI

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.menu and not prompt.listing:
            return narrate_menu(prompt, self._narrate_one)
        return self._narrate_one(prompt)

    def _narrate_one(self, prompt: Prompt) -> Attempt:
        call = _Call(self, prompt)
        while True:
            try:
                completion = self._client.chat.completions.create(**call.request())
            except Exception as exc:  # the client's errors become data, never a crash
                step = call.failed(exc)
                if isinstance(step, Attempt):
                    return step
                if step is not None:
                    self._sleep(step)
                    call.waited()
                continue
            return call.answered(completion)


class AsyncOpenAIChatNarrator(_ChatNarrator):
    """Asynchronous variant for benchmarks: ``await anarrate(prompt)``; see :func:`narrate_many`."""

    _client_class = openai.AsyncOpenAI

    async def anarrate(self, prompt: Prompt) -> Attempt:
        if prompt.menu and not prompt.listing:
            return await anarrate_menu(prompt, self._anarrate_one)
        return await self._anarrate_one(prompt)

    async def _anarrate_one(self, prompt: Prompt) -> Attempt:
        call = _Call(self, prompt)
        while True:
            try:
                completion = await self._client.chat.completions.create(**call.request())
            except Exception as exc:  # the client's errors become data, never a crash
                step = call.failed(exc)
                if isinstance(step, Attempt):
                    return step
                if step is not None:
                    await asyncio.sleep(step)
                    call.waited()
                continue
            return call.answered(completion)


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
