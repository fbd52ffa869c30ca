"""attnviz.ui.no_delay: the connections Streamlit's server accepts send at once (TCP_NODELAY).

Checked the way the server gets its connections: Streamlit's own `_bind_socket` binds the
listening socket, asyncio (as uvicorn does) serves on it, and a client connects. Without the
change the accepted socket keeps Nagle's algorithm (TCP_NODELAY 0), and a reused connection
waited 44 ms for each static file's body."""

from __future__ import annotations

import asyncio
import socket

from streamlit.web.server.starlette import starlette_server

from attnviz.ui import no_delay


async def accepted_nodelay() -> int:
    """TCP_NODELAY of the server side of one connection to a socket bound by Streamlit."""
    listening = starlette_server._bind_socket("127.0.0.1", 0, 8)
    seen: asyncio.Future = asyncio.get_running_loop().create_future()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(serve, sock=listening)
    async with server:
        _, writer = await asyncio.open_connection(*listening.getsockname()[:2])
        value = await asyncio.wait_for(seen, 10)
        writer.close()
    return value


def test_the_servers_connections_send_at_once():
    no_delay.install()
    assert asyncio.run(accepted_nodelay()) != 0


def test_a_socket_that_is_not_tcp_is_left_as_it_is():
    left, right = socket.socketpair()
    with left, right:
        assert no_delay.as_tcp(left) is left
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    with tcp:
        assert no_delay.as_tcp(tcp) is tcp  # already says TCP
