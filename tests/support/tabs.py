"""Tabs reused from one browser test to the next. A new tab costs Chromium about twice what a page
opened in a tab that already exists costs (a new renderer each time: 5.2 s against 2.5 s of
Chromium's CPU per app page here, 3.7 s against 1.9 s of wall time), so the tests' `page` and the
page probes' tabs are tabs earlier tests left, reset as a new one would be: on about:blank (the
app's session ends with its document, as when a tab closes), the app origin's storage cleared,
the viewport and the mouse where a new tab has them. A tab on which a test changed what a reset
cannot undo (a listener, a route, an init script, emulated media, a default timeout, extra
headers) is closed instead, as every tab was before."""

from __future__ import annotations

from tests.support.browser import IDLE_PROBE

LASTING = (  # Page methods whose effect outlives a navigation
    "on",
    "once",
    "route",
    "route_from_har",
    "route_web_socket",
    "add_init_script",
    "expose_function",
    "expose_binding",
    "emulate_media",
    "set_extra_http_headers",
    "add_locator_handler",
    "set_default_timeout",
    "set_default_navigation_timeout",
)
KEPT = "_attnviz_kept_state"  # set on a tab whose test called one of LASTING


def watched(tab):
    """`tab`, marked as not reusable once a test calls one of LASTING on it (IDLE_PROBE, which
    `instrument` adds and which is harmless on any later page, does not count)."""
    for name in LASTING:
        original = getattr(tab, name)

        def marked(*args, _original=original, _name=name, **kwargs):
            if not (_name == "add_init_script" and args == (IDLE_PROBE,)):
                setattr(tab, KEPT, True)
            return _original(*args, **kwargs)

        setattr(tab, name, marked)
    return tab


def reset(tab, viewport: dict) -> bool:
    """Make `tab` as a new tab of its context would be; False (and the tab is to be closed) when
    it is closed, kept state (`watched`), or cannot be reset."""
    if tab.is_closed() or getattr(tab, KEPT, False):
        return False
    try:
        if tab.url.startswith("http"):  # the app's origin: its stored sidebar state, the tab's
            tab.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        tab.goto("about:blank")
        if tab.viewport_size != viewport:
            tab.set_viewport_size(viewport)
        tab.mouse.move(0, 0)  # where a new tab's pointer is: no hover left on the next page
    except Exception:  # a crashed or wedged page: close it, as before
        return False
    return True
