"""Browser-test fixtures: the real app served by `streamlit run`, Chromium from Debian.

`app_url` starts one server for the whole test session; pytest-playwright's `page` fixture
gives a fresh page per test, launched with /usr/bin/chromium (browsers cannot be downloaded).
Screenshots go to artifacts/screenshots (ignored by git).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.pages import ROOT

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
SERVER: dict[str, int] = {}  # the pid of the streamlit server started by `app_url`


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (README's test command does)"
        )
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": ["--no-sandbox"]}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


@pytest.fixture(scope="session")
def app_url(browser):
    port = _free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log = (ROOT / "artifacts" / "streamlit.log").open("w")  # noqa: SIM115 (closed below)
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy()
    )
    url = f"http://127.0.0.1:{port}"
    SERVER["pid"] = proc.pid
    try:
        _wait_healthy(url, proc)
        _warm_up(browser, url)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"streamlit exited with {proc.returncode}; see artifacts/streamlit.log"
            )
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("streamlit did not become healthy in time")


def _warm_up(browser, url: str) -> None:
    """Run the app once so the navigation is known: a deep link into a server that has never
    run app.py shows Streamlit's "Page not found" dialog (a first-start race)."""
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("[data-testid='stMain']", timeout=90_000)
    wait_idle(page, timeout=90_000)
    page.close()


def page_url(url_path: str) -> str:
    """The default page (home) lives at "/", the others at their url path."""
    return "" if url_path == "home" else url_path


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until a rerun has finished: the app reports notRunning twice in a row, 300 ms apart,
    and no placeholder skeleton is left (a just-triggered rerun gets time to start)."""
    deadline = time.time() + timeout / 1000
    calm = 0
    page.wait_for_timeout(300)
    while calm < 2:
        if time.time() > deadline:
            raise TimeoutError("the app kept running")
        idle = page.locator(IDLE).count() == 1
        skeletons = page.locator("[data-testid='stSkeleton']").count()
        calm = calm + 1 if idle and not skeletons else 0
        page.wait_for_timeout(300)


def open_app_page(page, app_url: str, url_path: str, query: str = "") -> None:
    page.goto(f"{app_url}/{page_url(url_path)}{query}")
    page.wait_for_selector("[data-testid='stMain']", timeout=60_000)
    wait_idle(page)


def assert_no_exception(page, name: str) -> None:
    assert page.get_by_text("Page not found").count() == 0, "Streamlit could not find the page"
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    errors = page.locator("[data-testid='stException']")
    assert errors.count() == 0, errors.first.inner_text()[:2000]


def descendants(pid: int) -> dict[int, int]:
    """{process: its parent} for every process below `pid`, read from ps."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = (int(x) for x in line.split())
        children.setdefault(parent, []).append(child)
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for kid in children.get(parent, []):
            found[kid] = parent
            todo.append(kid)
    return found
