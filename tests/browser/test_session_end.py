"""Closing the browser tab stops that session's training job (its worker process goes away)."""

from __future__ import annotations

import re
import time

import pytest

from tests.support.browser import open_app_page
from tests.support.server import descendants

pytestmark = pytest.mark.browser


def test_closing_the_tab_ends_the_job(browser, app_server):
    context = browser.new_context()
    page = context.new_page()
    open_app_page(
        page, app_server.url, "kernel-smoother", "?ks_steps=20000&ks_n=200&ks_data=rings_2d"
    )
    before = set(descendants(app_server.pid))
    page.get_by_role("button", name=re.compile(r"^Start\b")).click()
    page.wait_for_function(
        "() => /running — step [1-9]/.test(document.body.innerText)", timeout=90_000
    )
    tree = descendants(app_server.pid)
    new = set(tree) - before
    # the job's worker: a new process whose parent is the fork server (itself below the server)
    workers = {pid for pid in new if tree[pid] != app_server.pid and tree[pid] in tree}
    assert workers, f"a worker process runs the job (new processes: {new})"
    status = page.get_by_text(re.compile(r"step \d+ of 20000")).first.inner_text()
    assert "running" in status
    context.close()
    closed = time.time()
    # 20,000 steps take minutes at this n, so an exit within the deadline is the session ending
    while time.time() < closed + 30 and workers & set(descendants(app_server.pid)):
        time.sleep(0.5)
    assert not workers & set(descendants(app_server.pid)), "the worker outlived its browser session"
    print(f"worker gone {time.time() - closed:.1f} s after the tab closed")
