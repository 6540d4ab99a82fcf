"""The splice that puts a view's precomputed tools array into a `tools/list` response."""

from __future__ import annotations

import json

import anyio

from facade.mcp.splice import Splice, defer_array

ARRAY = json.dumps([{"name": "projects.project_get", "description": "Get a project — by id"}], ensure_ascii=False).encode()


def run(app_body: list[bytes], *, register: bool = True, length: bool = True) -> tuple[dict, bytes]:
    """Drives `Splice` around an app that answers with `app_body` chunks (its JSON around the
    placeholder when `register`), and returns the start message and the body that left."""
    sent = messages(app_body, register=register, length=length)
    return sent[0], b"".join(m.get("body", b"") for m in sent[1:])


def messages(app_body: list[bytes], *, register: bool = True, length: bool = True) -> list[dict]:
    """The messages that left `Splice` (see `run`)."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        body = [chunk.replace(b"@", json.dumps(defer_array(scope, ARRAY)).encode()) if register and b"@" in chunk else chunk for chunk in app_body]
        headers = [(b"content-type", b"application/json")]
        if length:
            headers.append((b"content-length", str(sum(map(len, body))).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for i, chunk in enumerate(body):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < len(body) - 1})

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    anyio.run(Splice(app), {"type": "http", "headers": []}, receive, send)
    return sent


def test_the_array_replaces_its_placeholder_and_the_length_follows() -> None:
    start, body = run([b'{"result":{"tools":@,"resultType":"complete"}}'])
    assert json.loads(body)["result"]["tools"] == json.loads(ARRAY)
    assert int(dict(start["headers"])[b"content-length"]) == len(body)


def test_an_event_stream_chunk_is_spliced_too_in_one_message() -> None:
    """A stream's event stays one message: a ping sent between two parts would split it."""
    event = b'event: message\r\ndata: {"result":{"tools":@}}\r\n\r\n'
    sent = messages([b": ping\r\n\r\n", event, b""], length=False)
    bodies = [m["body"] for m in sent[1:]]
    data = bodies[1].split(b"data: ", 1)[1].strip()
    assert len(bodies) == 3 and json.loads(data)["result"]["tools"] == json.loads(ARRAY)


def test_a_response_with_nothing_registered_passes_untouched() -> None:
    text = b'{"result":{"content":[{"type":"text","text":"facade-tools-00000000000000000000000000000000"}]}}'
    start, body = run([text], register=False)
    assert body == text and int(dict(start["headers"])[b"content-length"]) == len(text)


def test_the_array_leaves_as_its_own_part_uncopied() -> None:
    """At 10,449 tools the array is 6.8 MB: joined into the body it was copied on every listing."""
    sent = messages([b'{"result":{"tools":@,"resultType":"complete"}}'])
    bodies = [m for m in sent[1:] if m["type"] == "http.response.body"]
    assert [m.get("more_body", False) for m in bodies] == [True, True, False]
    assert bodies[1]["body"] is ARRAY
