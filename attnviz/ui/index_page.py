"""The app's HTML page tells Streamlit's frontend where the server is, so that a deep link asks
nothing that is not there.

Opened at a page's address (`/soft-select`), Streamlit's frontend does not know the server's
base URL and guesses it from the address: it asks `/soft-select/_stcore/health` and
`/soft-select/_stcore/host-config` first (two 404s in the browser's console on every deep link),
then `/_stcore/…`. Its page reads `window.__streamlit.BACKEND_BASE_URL` when set (the setting a
host page gives it), and then asks there alone. `install()` makes the server's index page set it
to this origin and the server's `server.baseUrlPath` ("/" without one), before any script of
Streamlit's runs. Called by attnviz.ui.serve before the server starts.
"""

from __future__ import annotations

import json

from streamlit import config

from attnviz.ui import static_files

HEAD = b"<head>"
SCRIPT = "<script>window.__streamlit = {BACKEND_BASE_URL: location.origin + %s};</script>"


def base_path() -> str:
    """The server's base URL path as the frontend reads it: "/" or "/<baseUrlPath>/"."""
    base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/" if base else "/"


def with_base_url(page: bytes, base: str) -> bytes:
    """Streamlit's index page with a first script in its head that sets the backend's base URL
    to this origin + `base` (a JSON string literal: nothing of it is read as code)."""
    literal = json.dumps(base).replace("</", "<\\/")  # never ends the script
    script = SCRIPT % literal
    return page.replace(HEAD, HEAD + script.encode(), 1)


def install() -> None:
    """Serve the index page `with_base_url` (attnviz.ui.static_files)."""
    static_files.change(
        lambda name: name == "index.html",
        lambda path: with_base_url(path.read_bytes(), base_path()),
        "text/html",
    )
