"""Streamlit's static files, some of them served changed: one wrapper around Streamlit's own
handler of its files, with a list of (which file, how it changes) that the app's modules add to
before the server starts (attnviz.ui.index_page: the index page names the server's base URL;
attnviz.ui.plotly_once: a new chart is drawn once).

Every other file, and every header of a changed one but its length, type and validators (the
file's, not the changed bytes'), is served as Streamlit serves it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.responses import FileResponse, Response
from streamlit.web.server.starlette import starlette_static_routes as routes

DROPPED = {"content-length", "content-type", "etag", "last-modified"}  # the file's, not ours
Change = Callable[[Path], bytes | None]  # the file → what to serve instead (None: the file)
_CHANGES: list[tuple[Callable[[str], bool], Change, str]] = []


def change(matches: Callable[[str], bool], served: Change, media_type: str) -> None:
    """Serve the files whose name `matches` as `served` makes them (`media_type`); the wrapper is
    installed with the first change."""
    if not _CHANGES:
        _install()
    _CHANGES.append((matches, served, media_type))


def changed(path: Path) -> tuple[bytes, str] | None:
    """What to serve for Streamlit's file at `path`, and its media type; None: the file."""
    for matches, served, media_type in _CHANGES:
        if matches(path.name):
            body = served(path)
            if body is not None:
                return body, media_type
    return None


def _install() -> None:
    make = routes.create_streamlit_static_handler

    def handler(directory: str, base_url: str | None):
        static = make(directory, base_url)
        answer = static.get_response

        async def get_response(path: str, scope) -> Response:
            response = await answer(path, scope)
            if not isinstance(response, FileResponse):
                return response
            found = changed(Path(response.path))
            if found is None:
                return response
            kept = {k: v for k, v in response.headers.items() if k.lower() not in DROPPED}
            body, media_type = found
            return Response(
                body, status_code=response.status_code, headers=kept, media_type=media_type
            )

        static.get_response = get_response
        return static

    routes.create_streamlit_static_handler = handler
