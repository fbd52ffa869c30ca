"""The students' link as a QR code, drawn offline (segno): an SVG string to show large on the
projector. Nothing is fetched; the link is only encoded, never rendered as HTML."""

from __future__ import annotations

import io

import segno

from attnviz.classroom.errors import BadInput

MAX_URL = 1000  # a room link is ~60 characters; a QR code at level M holds ~2,300
QUIET_ZONE = 4  # modules of light margin the QR standard asks for


def qr_svg(url: str) -> str:
    """An SVG of `url`'s QR code (error correction M, the smallest version that fits): black
    modules on white, one user unit per module, a `viewBox` and no fixed size (it scales to its
    container; set the width in CSS)."""
    if not isinstance(url, str) or not url.strip() or len(url) > MAX_URL:
        raise BadInput(f"A room link is text of 1 to {MAX_URL} characters.")
    code = segno.make_qr(url.strip(), error="m", boost_error=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=1,
        border=QUIET_ZONE,
        dark="#000",
        light="#fff",
        omitsize=True,
        svgclass="room-qr",
        xmldecl=False,
        nl=False,
    )
    return out.getvalue().decode("utf-8")
