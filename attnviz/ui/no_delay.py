"""Every connection to the server sends at once (TCP_NODELAY), as asyncio means it to.

Streamlit 1.67 binds its listening socket itself, as `socket.socket(family=…)`: protocol 0, not
IPPROTO_TCP. asyncio turns Nagle's algorithm off only on sockets whose protocol says TCP, and an
accepted socket takes the listening socket's, so on every connection the server's second write
of a reply (a file's body after its headers, a websocket message after another) waited for the
browser's delayed acknowledgement: 44 ms for each static file on a reused connection (a cold
page asks for ~100), measured with curl against a plain `streamlit run` too. `install()` gives
the listening socket its protocol; called by attnviz.ui.serve before the server starts.
"""

from __future__ import annotations

import socket

from streamlit.web.server.starlette import starlette_server


def as_tcp(sock: socket.socket) -> socket.socket:
    """The same listening socket, its protocol IPPROTO_TCP where it is a TCP socket (so that the
    sockets it accepts are too); any other socket as it is."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.proto:
        return sock
    tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    tcp.setblocking(False)
    tcp.set_inheritable(True)
    return tcp


def install() -> None:
    """Streamlit's server binds its socket `as_tcp`."""
    bind = starlette_server._bind_socket

    def bound(address: str, port: int, backlog: int) -> socket.socket:
        return as_tcp(bind(address, port, backlog))

    starlette_server._bind_socket = bound
