"""The HTTP stack's one write per turn (facade/cli/httpstack.py), driven through uvicorn's own
protocol class as every server here runs it: a response's status line, headers and body leave
as one write, a stream's later parts as writes of their own in order, and a connection that
closes sends what it held first."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from facade.cli.httpstack import http_stack, one_write_per_turn

TURNS = 10_000  # a generous bound on the loop's turns before a write must have happened


class Recording(asyncio.Transport):
    """A transport that keeps what happens to it, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, bytes]] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        assert not self.closed, "written after close"
        self.events.append(("write", bytes(data)))

    def close(self) -> None:
        self.closed = True
        self.events.append(("close", b""))

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    @property
    def writes(self) -> list[bytes]:
        return [data for what, data in self.events if what == "write"]


async def served(app: Any, request: bytes, until: Any, http: str | None = None) -> Recording:
    """`request` through a fresh connection of the stack's protocol (or `http`'s), run until
    `until(transport)`."""
    protocol_class = one_write_per_turn(http or http_stack().http)
    config = uvicorn.Config(app, http=protocol_class, log_config=None, lifespan="off")
    config.load()
    transport = Recording()
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop())
    protocol.connection_made(transport)
    protocol.data_received(request)
    for _ in range(TURNS):
        if until(transport):
            break
        await asyncio.sleep(0)
    protocol.connection_lost(None)
    return transport


def answer(body: bytes, *, more: list[bytes] | None = None, between: asyncio.Event | None = None) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        length = [] if more is not None else [(b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"), *length]})
        await send({"type": "http.response.body", "body": body, "more_body": more is not None})
        for part in more or []:
            if between is not None:
                await between.wait()
            await send({"type": "http.response.body", "body": part, "more_body": part != more[-1]})

    return app


GET = b"GET /x HTTP/1.1\r\nhost: test\r\n\r\n"


class TestOneWritePerTurn:
    """What uvicorn wrote as two or more writes leaves as one per turn of the loop."""

    @pytest.mark.parametrize("http", ["httptools", "h11"])  # the stack's choice, and its fallback
    def test_a_response_is_one_write(self, http: str) -> None:
        async def main() -> Recording:
            return await served(answer(b"hello"), GET, lambda t: t.writes, http)

        transport = asyncio.run(main())
        assert len(transport.writes) == 1
        head, _, body = transport.writes[0].partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"content-length: 5" in head and body == b"hello"

    def test_a_streams_parts_leave_in_order_turn_by_turn(self) -> None:
        async def main() -> Recording:
            between = asyncio.Event()
            parts = [b"second", b"third"]

            def until(t: Recording) -> bool:
                if t.writes:
                    between.set()  # the first part is out: let the stream go on
                return b"0\r\n\r\n" in b"".join(t.writes)

            return await served(answer(b"first", more=parts, between=between), GET, until)

        transport = asyncio.run(main())
        assert len(transport.writes) >= 2  # the later parts wait for the first one's turn to end
        assert transport.writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and transport.writes[0].endswith(b"5\r\nfirst\r\n")
        sent = b"".join(transport.writes)
        assert sent.index(b"first") < sent.index(b"second") < sent.index(b"third") < sent.index(b"0\r\n\r\n")

    def test_a_closing_connection_sends_its_answer_before_it_closes(self) -> None:
        async def main() -> Recording:
            request = b"GET /x HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n"
            return await served(answer(b"bye"), request, lambda t: t.closed)

        transport = asyncio.run(main())
        assert [what for what, _ in transport.events][:2] == ["write", "close"] and len(transport.writes) == 1
        assert transport.writes[0].endswith(b"\r\n\r\nbye") and b"connection: close" in transport.writes[0]

    @pytest.mark.parametrize("scatters", [True, False])
    def test_held_pieces_are_joined_only_where_the_transport_cannot_scatter(self, scatters: bool, monkeypatch: pytest.MonkeyPatch) -> None:
        """A listing's array (6.8 MB at 10,449 tools) reaches uvloop's transport as it is, for one
        writev; any other transport gets one joined write (asyncio's `writelines` skipped flow
        control on some versions)."""
        from facade.cli import httpstack

        class Pieces(Recording):
            pieces: list[bytes] | None = None

            def writelines(self, data: Any) -> None:
                self.pieces = list(data)
                super().writelines(self.pieces)

        monkeypatch.setattr(httpstack, "_scattering", lambda: (Pieces,) if scatters else ())
        big = bytes(1 << 20)

        async def main() -> Pieces:
            transport = Pieces()
            turn = httpstack.OneWritePerTurn(transport, asyncio.get_running_loop())
            turn.write(b"head")
            turn.write(big)
            await asyncio.sleep(0)
            return transport

        transport = asyncio.run(main())
        assert transport.writes == [b"head" + big]
        assert (transport.pieces is not None and transport.pieces[1] is big) == scatters

    def test_uvloop_s_tcp_transport_scatters(self) -> None:
        uvloop = pytest.importorskip("uvloop")
        from facade.cli.httpstack import _scattering

        assert uvloop.loop.TCPTransport in _scattering()

    def test_nothing_is_written_to_a_closed_connection(self) -> None:
        from facade.cli.httpstack import OneWritePerTurn

        async def main() -> Recording:
            transport = Recording()
            turn = OneWritePerTurn(transport, asyncio.get_running_loop())
            turn.write(b"held")
            transport.close()  # the peer went away within the turn
            await asyncio.sleep(0)
            return transport

        assert asyncio.run(main()).writes == []
