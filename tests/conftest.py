"""Shared pytest setup. Helpers live in tests/support/ (AppTest, pages, browser, server, trained).

- One torch thread per test process (and per training worker it starts): on a 2-core machine two
  xdist workers asking torch for 2 threads each spin against each other (the suite ran 10× slower).
- A page's exception stays an exception (ATTNVIZ_RAISE_ERRORS=1), not the app's plain message.
- Every test under tests/app/ runs whole pages through AppTest (seconds each), so it is marked
  `slow` here; `python -m pytest -m "not slow and not browser"` is the quick loop.
- Two xdist workers on two cores. The browser tests share one server and one Chromium, the
  deploy tests their replicas: each set is one xdist group, so `--dist loadgroup` runs it on one
  worker while the other takes the rest. The marks are added before xdist reads them (tryfirst:
  added after, they were ignored and each worker started its own server and Chromium), and the
  longest units are queued first. (Three workers, or two browser groups, measured slower
  here: two servers and two Chromiums beside the trainings overloaded the two cores, and a
  browser test timed out. Three workers with the non-browser ones at nice 5 measured slower
  too: 626 s, the browser group alone 606 s against about 440 s beside one worker.)
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"
os.environ["ATTNVIZ_RAISE_ERRORS"] = "1"  # a page's failure stays a traceback for the tests
# app.py's warm-up in AppTests and deploy replicas: no language model (the tests that need it load
# it once per worker); the browser tests' server warms up as a served app does (all)
os.environ.setdefault("ATTNVIZ_WARM_UP", "light")
os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"  # a served app's messages: whole

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

import tests.support.apptest  # noqa: E402, F401  (every AppTest waits for its run without polling)
from tests.support.trained import trained  # noqa: E402, F401  (the session's trained presets)
from tests.support.where_time_goes import WhereTimeGoes  # noqa: E402

TESTS = Path(__file__).parent
APP_TESTS = TESTS / "app"
BROWSER, DEPLOY = TESTS / "browser", TESTS / "deploy"
# Test files whose tests share trained runs (the `trained` fixture): one group each, so that one
# worker trains a run and its tests follow, instead of the other worker waiting on the file lock.
SHARED_RUNS = {
    "test_recurrent_try_this.py": "recurrent-runs",
    "test_vision_presets.py": "vision-runs",
    "test_caption_task.py": "captioning-runs",
    "test_captioning_try_this.py": "captioning-runs",
    "test_transformer_try_this.py": "transformer-runs",
    "test_circuits_try_this.py": "circuits-runs",
    "test_llm_try_this.py": "llm-real",  # the bundled language model, loaded once
    "test_patching_try_this.py": "llm-real",
    "test_api_generate.py": "llm-real",
    "test_warm_up_pages.py": "llm-real",
    "test_classroom_words_app.py": "llm-real",
    # not trained runs, but one Ray head per module: split over the two workers, each started its
    # own head and waited on its teardown (the suite paid both twice)
    "test_ray_backend.py": "ray",
}


def pytest_configure(config):
    import torch
    from streamlit import config as streamlit_config

    torch.set_num_threads(1)
    streamlit_config.set_option("client.showErrorDetails", "full")  # AppTest's too
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) prints it
        config.pluginmanager.register(WhereTimeGoes(SHARED_RUNS), "where-time-goes")


def _group(item: pytest.Item) -> str | None:
    if BROWSER in item.path.parents:
        return "browser"
    if DEPLOY in item.path.parents:
        return "deploy"
    return SHARED_RUNS.get(item.path.name)


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the xdist_group marks
def pytest_collection_modifyitems(items):
    """Marks (slow, xdist groups), then the longest units first: the browser group (one worker
    for its whole length), the deploy group and the shared trainings, then the rest, which
    both workers share and which evens out the end (xdist's loadgroup queues the groups by
    their number of tests, which puts the browser group first too)."""
    for item in items:
        if APP_TESTS in item.path.parents:
            item.add_marker(pytest.mark.slow)
        if (group := _group(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    order = {"browser": 0, "deploy": 1}
    items.sort(key=lambda item: order.get(_group(item) or "", 2 if _group(item) else 3))
