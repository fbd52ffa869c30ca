"""The server asks nobody for its own addresses: Streamlit's address lookups, turned off.

Streamlit looks up the machine's addresses in two places. At start, to print its URLs, a
headless server asks checkip.amazonaws.com for its external IP and opens a UDP socket towards
8.8.8.8 for its internal one. And when a websocket comes from another origin whose host is
neither localhost, 127.0.0.1 nor `browser.serverAddress` (the CORS fallback,
`streamlit.web.server.server_util.is_url_from_allowed_origins`), it looks both up to accept an
origin that names one of the machine's addresses. Offline, the external lookup is two blocking
1-s timeouts and a warning in the log, and the CORS fallback repeats it on the server's event
loop for every such websocket (a failed lookup is not remembered): any web page a visitor opens
could make the server ask, and stall it.

- At start: `.streamlit/config.toml` sets `browser.serverAddress` (to its default,
  "localhost"), and Streamlit then prints that one URL without looking anything up.
- The CORS fallback: `forbid_address_lookups()` (app.py; cheap and idempotent, so every run
  calls it) makes both lookups answer None, so such an origin is refused at once unless
  `server.corsAllowedOrigins` lists it. A same-origin websocket (a browser on the app's own
  address, the normal case, also behind deploy/start.sh's HAProxy) never gets there. Streamlit
  has no option for this: `server.enableCORS = false` would accept every origin (and is
  overridden while XSRF protection is on), and `corsAllowedOrigins` is read after the lookups.
  Until the app's first run a cross-origin websocket could still cause one lookup;
  deploy/start.sh runs the app once on every replica before HAProxy opens.
"""

from __future__ import annotations

from streamlit import net_util


def _no_address() -> None:
    return None


def forbid_address_lookups() -> None:
    """Make Streamlit's external and internal IP lookups answer None without asking anyone."""
    net_util.get_external_ip = _no_address
    net_util.get_internal_ip = _no_address
