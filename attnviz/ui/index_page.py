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
from pathlib import Path

from starlette.responses import FileResponse, Response
from streamlit import config
from streamlit.web.server.starlette import starlette_static_routes as routes

HEAD = b"<head>"
SCRIPT = "<script>window.__streamlit = {BACKEND_BASE_URL: location.origin + %s};</script>"
DROPPED = {"content-length", "content-type", "etag", "last-modified"}  # the file's, not ours


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
    """Make the static files' handler serve the index page `with_base_url` (a wrapper around
    Streamlit's own handler: every other file, and every header but the length, type and
    validators of the file, as it was)."""
    make = routes.create_streamlit_static_handler

    def handler(directory: str, base_url: str | None):
        static = make(directory, base_url)
        answer = static.get_response

        async def get_response(path: str, scope) -> Response:
            response = await answer(path, scope)
            if not (
                isinstance(response, FileResponse) and Path(response.path).name == "index.html"
            ):
                return response
            page = with_base_url(Path(response.path).read_bytes(), base_path())
            kept = {k: v for k, v in response.headers.items() if k.lower() not in DROPPED}
            return Response(
                page, status_code=response.status_code, headers=kept, media_type="text/html"
            )

        static.get_response = get_response
        return static

    routes.create_streamlit_static_handler = handler
