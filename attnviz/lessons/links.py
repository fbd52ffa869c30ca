"""Students' links as absolute addresses: the app's base address (a configured public URL, or the
address the presenter's browser uses) checked, and a step's path joined to it.

Plain Python (no streamlit): the presenter's bar, the Lessons page and the tests use it. A base
address is `http(s)://host[:port][/path]`: no user, query or fragment, and none of the
characters that could end an attribute or a code span (quotes, `<`, `>`, backticks, spaces,
backslashes, control characters), so a link can be pasted into a chat or a slide as is and
never carries script (`javascript:` is refused).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

PUBLIC_URL_ENV = "ATTNVIZ_PUBLIC_URL"  # e.g. https://attention.example.edu/viz
MAX_LENGTH = 300
FORBIDDEN = set("\"'<>`\\ {}|^")


class BadAddress(ValueError):
    """An address that cannot be the base of a students' link; the message says why."""


def base_address(text: str) -> str:
    """`text` as a base address without its trailing slash (BadAddress when it is not one)."""
    text = text.strip()
    if not text:
        raise BadAddress("it is empty")
    if len(text) > MAX_LENGTH:
        raise BadAddress(f"it is longer than {MAX_LENGTH} characters")
    bad = sorted({ch for ch in text if ch in FORBIDDEN or ord(ch) < 0x20 or ord(ch) == 0x7F})
    if bad:
        shown = ", ".join(repr(ch) for ch in bad)
        raise BadAddress(f"it holds characters a link cannot hold as is: {shown}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (reading it raises ValueError for a port that is not a number)
    except ValueError as err:
        raise BadAddress(f"it is not an address ({err})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise BadAddress("it must start with http:// or https://")
    if not parts.hostname:
        raise BadAddress("it names no host")
    if parts.username is not None or parts.password is not None:
        raise BadAddress("it must not hold a user name or password")
    if parts.query or parts.fragment or "?" in text or "#" in text:
        raise BadAddress("it must not hold a query (?…) or a fragment (#…)")
    return text.rstrip("/")


def configured_base(environ: dict[str, str] | None = None) -> tuple[str | None, str | None]:
    """The public URL configured in ATTNVIZ_PUBLIC_URL: (base, None), (None, why it is refused)
    or (None, None) when none is set."""
    value = (os.environ if environ is None else environ).get(PUBLIC_URL_ENV, "")
    if not value.strip():
        return None, None
    try:
        return base_address(value), None
    except BadAddress as err:
        return None, f"{PUBLIC_URL_ENV} is not used: {err}."


def browser_base(url: str | None, page_url: str) -> str | None:
    """The app's base from the address the browser shows on page `page_url` (Streamlit's
    `st.context.url`: scheme, host, port and path, the page's own path last); None when there
    is none or it is not a usable base address."""
    if not url:
        return None
    url = url.rstrip("/")
    if page_url and url.endswith(f"/{page_url}"):
        url = url.removesuffix(f"/{page_url}")
    try:
        return base_address(url)
    except BadAddress:
        return None


def this_computer_only(base: str | None) -> str | None:
    """A note when `base` names this computer itself (localhost, 127.x, ::1, 0.0.0.0): a phone
    that opens it reaches itself, not the app; None for any other address."""
    if base is None:
        return None
    host = (urlsplit(base).hostname or "").lower()
    if not (
        host == "localhost"
        or host.endswith(".localhost")
        or host.startswith("127.")
        or host in ("::1", "0.0.0.0")
    ):
        return None
    return (
        f"This link points at {host}, this computer itself: phones cannot reach it. Open the "
        "app at this computer's network address (its IP or name on the room's network), or "
        f"start it with {PUBLIC_URL_ENV} set to the address students should use."
    )


def absolute_link(base: str | None, path: str) -> str:
    """`path` ("/<page>?<settings>") on the app at `base`; the path alone without one."""
    if base is None:
        return path
    return base + (path if path.startswith("/") else f"/{path}")
