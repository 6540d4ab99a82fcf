"""Logging: structlog to stderr (stdout belongs to the stdio transport), JSON when not on a
terminal. Call sites log names and outcomes, never arguments: arguments can carry tokens."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(json_output: bool | None = None, level: int = logging.INFO) -> None:
    as_json = (not sys.stderr.isatty()) if json_output is None else json_output
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    # The SDK and uvicorn log through the standard library; keep them on stderr and quieter.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
