"""Logging: one line per event on stderr (stdout belongs to the stdio transport), JSON when not on
a terminal. Call sites log names and outcomes, never arguments: arguments can carry tokens.

structlog's own loggers and the standard library's (uvicorn, the MCP SDK, alembic, warnings)
go through one handler and one `ProcessorFormatter`, so every line has the same shape and
carries the same context: what `bind` and `log_scope` bound for the request being handled (its
request id, JSON-RPC id and method, MCP session, agent and conversation). One handler also
means one lock: two threads never interleave halves of their lines.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import orjson
import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

# The loggers kept at the configured level; every other one (the SDK's, alembic's, httpx's)
# says only warnings and errors.
CHATTY_AT_INFO = ("facade", "domains", "uvicorn.error")
# Where a request's id travels: accepted from the client when well-formed, else made here, and
# always in the response (facade/web/requests.py).
REQUEST_ID_HEADER = "x-request-id"
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")


def configure_logging(json_output: bool | None = None, level: int = logging.INFO) -> None:
    as_json = (not sys.stderr.isatty()) if json_output is None else json_output
    renderer: Processor = _json_line if as_json else structlog.dev.ConsoleRenderer(colors=False)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                _stamp,
                structlog.stdlib.PositionalArgumentsFormatter(),
                structlog.stdlib.ExtraAdder(),
                _drop_colours,
                _no_bearer,
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    # structlog's own events are rendered by the same chain and written straight to the handler's
    # stream under its lock: a tool.call line cost ~3x more as a standard-library record
    # (scripts/bench_logs.py). A structlog logger wrapped around a standard-library one
    # (facade/catalogue/discovery.py) still hands its event to the handler's formatter.
    structlog.configure(
        processors=[_stamp, _Finish(renderer)],
        wrapper_class=_bound_logger_class(level),
        logger_factory=lambda name=None, *_: _Lines(handler, name or "facade"),
        cache_logger_on_first_use=True,
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in CHATTY_AT_INFO:
        logging.getLogger(name).setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        # uvicorn's own handlers (when it configured any) would print plain text beside ours.
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    logging.captureWarnings(True)  # warnings.warn becomes a `py.warnings` line, not bare stderr text
    if as_json:
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_thread_uncaught


class _Lines:
    """What structlog's loggers write to: whole lines on the handler's stream, under its lock."""

    def __init__(self, handler: logging.StreamHandler[Any], name: str) -> None:
        self.handler = handler
        self.name = name

    def msg(self, line: str) -> None:
        with self.handler.lock or contextlib.nullcontext():
            self.handler.stream.write(line + "\n")
            self.handler.stream.flush()

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


class _Finish:
    """The last processor: an exception written out, then the line rendered, or the event handed
    to a wrapped standard-library logger."""

    def __init__(self, renderer: Processor) -> None:
        self.renderer = renderer

    def __call__(self, logger: WrappedLogger, method: str, event_dict: EventDict) -> Any:
        if "exc_info" in event_dict:
            event_dict = structlog.processors.format_exc_info(logger, method, event_dict)
        if isinstance(logger, logging.Logger):
            return structlog.stdlib.ProcessorFormatter.wrap_for_formatter(logger, method, event_dict)
        return self.renderer(logger, method, event_dict)


_LEVELS = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning", logging.ERROR: "error", logging.CRITICAL: "critical"}


def _bound_logger_class(level: int) -> type[structlog.typing.FilteringBoundLogger]:
    """structlog's filtering bound logger for `level`, its methods that write written in one frame
    each: structlog's `info` is three (the method, `_proxy_to_logger`, `_process_event`), ~1.1 us of
    a line's ~5 (2026-12-05, issue 17). The same chain runs, with the same result: a rendered line
    to our writer, or (args, kwargs) to a wrapped standard-library logger."""
    base = structlog.make_filtering_bound_logger(level)
    written = {name: _writing(name) for number, name in _LEVELS.items() if number >= level}
    aliases = {alias: written[name] for alias, name in (("fatal", "critical"), ("warn", "warning"), ("msg", "info")) if name in written}
    return type(base.__name__, (base,), {**written, **aliases})


def _writing(method: str) -> Callable[..., Any]:
    def write(self: Any, event: str, *args: Any, **event_dict: Any) -> Any:
        event_dict["event"] = event % args if args else event  # structlog's _maybe_interpolate
        if self._context:
            event_dict = {**self._context, **event_dict}
        logger = self._logger
        try:
            for processor in self._processors:
                event_dict = processor(logger, method, event_dict)
        except structlog.DropEvent:
            return None
        if isinstance(event_dict, tuple):
            positional, keywords = event_dict
            return getattr(logger, method)(*positional, **keywords)
        return getattr(logger, method)(event_dict)

    write.__name__ = method
    return write


_CONTEXT: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("facade_log_context", default={})


def bind(**values: Any) -> None:
    """Every line logged from here on in this context (its task, and the worker threads its jobs
    run on) carries `values`, until the `log_scope` around it ends."""
    _CONTEXT.set({**_CONTEXT.get(), **values})


class log_scope:  # noqa: N801 - used as the function it was: `with log_scope(...):`
    """Bind `bound` for the block; whatever is bound inside it (the agent, once known) is gone
    after it, so one request's context never reaches the next one handled by the same task.

    The context is one variable holding a dict that is never changed in place, so a scope is one
    `set` on the way in and its `reset` on the way out. It was structlog's context variables, one
    per key, which a scope had to compare one by one on the way out: a tools/call's three scopes
    and one bind took 7.0 us in isolation, now 2.2 (2026-12-05, issue 17)."""

    __slots__ = ("bound", "token")

    def __init__(self, **bound: Any) -> None:
        self.bound = bound

    def __enter__(self) -> None:
        self.token = _CONTEXT.set({**_CONTEXT.get(), **self.bound})

    def __exit__(self, *exc: object) -> None:
        _CONTEXT.reset(self.token)


# structlog's map_method_name: the level a logging method writes.
_LEVEL_OF = {"warn": "warning", "exception": "error"}


def _stamp(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    """What every line carries beside its own fields, structlog's and the standard library's
    alike: the bound context, the level, the logger's name, the time. One processor where four
    were (structlog's add_log_level and add_logger_name among them), since each costs a call on
    the two lines of every tools/call (issue 17)."""
    _merge_context(logger, method, event_dict)
    event_dict["level"] = _LEVEL_OF.get(method, method)
    record = event_dict.get("_record")
    event_dict["logger"] = logger.name if record is None else record.name
    return _timestamp(logger, method, event_dict)


def _merge_context(_: WrappedLogger, __: str, event_dict: EventDict) -> EventDict:
    """The bound context, under what the line itself says (structlog's merge_contextvars rule)."""
    for key, value in _CONTEXT.get().items():
        event_dict.setdefault(key, value)
    return event_dict


# Two lines are written per tools/call (its own and the HTTP request's). structlog's
# TimeStamper and JSONRenderer (datetime.isoformat, json.dumps) made a line cost 67 us on a busy
# 2-core machine, this stamp and orjson 26 us (2026-12-04, 20,000 lines to /dev/null, best of 3).
_second: tuple[int, str] = (0, "")


def _timestamp(_: WrappedLogger, __: str, event_dict: EventDict) -> EventDict:
    """ISO 8601 in UTC to the microsecond, as structlog's TimeStamper(fmt="iso", utc=True) writes
    it; the date and time of day are formatted once per second."""
    global _second
    now = time.time()
    whole = int(now)
    second = _second
    if second[0] != whole:
        second = _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    event_dict["timestamp"] = f"{second[1]}.{int((now - whole) * 1_000_000):06d}Z"
    return event_dict


def _json_line(_: WrappedLogger, __: str, event_dict: EventDict) -> str:
    """The event as one JSON line; what orjson cannot write (an integer past 64 bits) goes through
    the standard encoder, and values of other types are written as their repr, as structlog's
    JSONRenderer does."""
    try:
        return orjson.dumps(event_dict, default=repr, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(event_dict, default=repr, separators=(",", ":"), ensure_ascii=False)


def _drop_colours(_: WrappedLogger, __: str, event_dict: EventDict) -> EventDict:
    """uvicorn passes a terminal-coloured copy of its message as an extra; the message is enough."""
    event_dict.pop("color_message", None)
    return event_dict


def _no_bearer(_: WrappedLogger, __: str, event_dict: EventDict) -> EventDict:
    """Defence in depth: a bearer credential quoted by another library's message is masked.
    Facade's own call sites never log a token; the test suite checks the whole log for them."""
    for key, value in event_dict.items():
        if isinstance(value, str) and "earer" in value:
            event_dict[key] = _BEARER.sub(r"\1[redacted]", value)
    return event_dict


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    structlog.get_logger("facade").critical("process.uncaught", exc_info=(kind, value, tb))


def _log_thread_uncaught(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None:
        return
    structlog.get_logger("facade").error(
        "thread.uncaught",
        thread=getattr(args.thread, "name", None),
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )
