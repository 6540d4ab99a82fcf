"""Reading a request body once for the readers that need it whole (facade/mcp/gate.py read_body,
BodyLimit): in one piece, in chunks, over the limit, cut off by a disconnect."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from facade.mcp.gate import BodyTooLarge, read_body


def _receiver(messages: list[dict[str, Any]]) -> Any:
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    return receive


def _read(messages: list[dict[str, Any]], limit: int | None = None) -> tuple[bytes, list[dict[str, Any]]]:
    async def run() -> tuple[bytes, list[dict[str, Any]]]:
        body, receive = await read_body(_receiver(messages), limit)
        return body, [await receive(), await receive()]

    return anyio.run(run)


def test_one_piece_is_passed_on_as_it_came() -> None:
    body, replayed = _read([{"type": "http.request", "body": b'{"a":1}', "more_body": False}])
    assert body == b'{"a":1}'
    assert replayed == [{"type": "http.request", "body": b'{"a":1}', "more_body": False}, {"type": "http.disconnect"}]


def test_chunks_are_joined_and_replayed_as_one() -> None:
    chunks = [{"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.request", "body": b"cd"}]
    body, replayed = _read(chunks)
    assert body == b"abcd"
    assert replayed[0] == {"type": "http.request", "body": b"abcd", "more_body": False}


@pytest.mark.parametrize(
    "messages",
    [
        [{"type": "http.request", "body": b"x" * 11}],
        [{"type": "http.request", "body": b"x" * 6, "more_body": True}, {"type": "http.request", "body": b"x" * 6, "more_body": True}],
    ],
)
def test_over_the_limit_stops_reading(messages: list[dict[str, Any]]) -> None:
    with pytest.raises(BodyTooLarge) as raised:
        _read(messages, limit=10)
    assert raised.value.size > 10


def test_exactly_the_limit_is_read() -> None:
    assert _read([{"type": "http.request", "body": b"x" * 10}], limit=10)[0] == b"x" * 10


def test_a_disconnect_mid_body_is_replayed_not_a_partial_request() -> None:
    body, replayed = _read([{"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.disconnect"}])
    assert body == b"ab"
    assert replayed[0] == {"type": "http.disconnect"}
