"""The soft-select page's live query view (issue 26) in Chromium: arrow keys on the handle change
the weights in the page with no rerun, the weights equal an oracle written out here in torch
from the parameters the engine exports (and the table), Σα = 1, and after the gesture's sync the
server's weights figure shows the same numbers; no key's name sits under another key, another
name or the query (issue 54: the query covered "apple", apple's dot "lemon"). A mutant of
live_select.js without the temperature fails the oracle (checked by hand when this test was
written); the names as placed before issue 54 fail the names' check (cherry, grape, apple)."""

from __future__ import annotations

import math

import pytest
import torch

from attnviz.topics.soft_select.select import example_table, score_arguments_json
from tests.support.browser import (
    assert_no_exception,
    open_app_page,
    plotly_traces,
    wait_idle,
)

HANDLE = "[data-testid='liveSelectHandle']"
# the view lives in a shadow root: its nodes are read through it
SHADOW_ALPHAS = """() => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector('.lsv'));
  return [...host.shadowRoot.querySelectorAll('.lsv-alpha')].map((e) => e.textContent);
}"""

# an ArrowRight on the handle and the weights read back in the same task: no server can answer
PRESS_AND_READ = """() => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector('.lsv'));
  const handle = host.shadowRoot.querySelector('[data-testid="liveSelectHandle"]');
  handle.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  return [...host.shadowRoot.querySelectorAll('.lsv-alpha')].map((e) => e.textContent);
}"""


# every name's box, every key's dot and the query's circle, as drawn (screen pixels)
BOXES = """() => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector('.lsv'));
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const all = (sel) => [...host.shadowRoot.querySelectorAll(sel)].map(box);
  return {labels: all('.lsv-label'), dots: all('.lsv-dot'), query: all('.lsv-q')[0],
    names: [...host.shadowRoot.querySelectorAll('.lsv-label')].map((e) => e.textContent)};
}"""


def overlap(a: list[float], b: list[float]) -> float:
    """The area two boxes share (px²)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def covered_names(page) -> list[str]:
    """Names of keys whose label a dot of another key, another name or the query covers (more
    than 2 px² of it: a halo may touch)."""
    seen = page.evaluate(BOXES)
    found = []
    for i, (name, label) in enumerate(zip(seen["names"], seen["labels"], strict=True)):
        others = [d for j, d in enumerate(seen["dots"]) if j != i]
        others += [b for j, b in enumerate(seen["labels"]) if j != i] + [seen["query"]]
        if any(overlap(label, other) > 2 for other in others):
            found.append(name)
    return found


def oracle(q: tuple[float, float], temperature: float, seed: int = 0) -> list[float]:
    """softmax(wᵀ tanh(W_q q + W_k k_j) / T) for the example table, written out in torch."""
    table = example_table()
    keys = torch.tensor(table[["key 1", "key 2"]].to_numpy(), dtype=torch.float64)
    p = {
        k: torch.tensor(v, dtype=torch.float64)
        for k, v in score_arguments_json("additive", 2, seed).items()
    }
    query = torch.tensor(q, dtype=torch.float64)
    scores = torch.stack([p["w"] @ torch.tanh(p["w_q"] @ query + p["w_k"] @ k) for k in keys])
    return torch.softmax(scores / temperature, dim=0).tolist()


def alphas(page) -> list[float]:
    return [float(x) for x in page.evaluate(SHADOW_ALPHAS)]


@pytest.mark.timeout(60)
def test_arrow_keys_move_the_query_in_the_browser_and_the_server_follows(page, app_url):
    open_app_page(page, app_url, "soft-select", "?ss_score=additive&ss_temp=0.5")
    handle = page.locator(HANDLE)
    handle.focus()  # (waits for the view to be drawn)
    assert covered_names(page) == [], "a name sits under a dot, another name or the query"
    before = alphas(page)
    assert before == pytest.approx(oracle((0.5, 0.5), 0.5), abs=6e-4)
    same_task = [float(x) for x in page.evaluate(PRESS_AND_READ)]
    assert same_task != before, "the weights did not change within the key's own event"
    for key in ("ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
    moved = alphas(page)
    assert moved == pytest.approx(oracle((0.7, 0.4), 0.5), abs=6e-4)
    assert math.fsum(moved) == pytest.approx(1.0, abs=3e-3)

    page.wait_for_timeout(400)  # the sync goes out, the page reruns with q = (0.7, 0.4)
    wait_idle(page)
    assert_no_exception(page, "live-select")
    figure = plotly_traces(page, "2. Weights")
    assert [round(y, 3) for y in figure[0]["y"]] == pytest.approx(moved, abs=1e-9)
    slider = page.locator("input[type='range'][aria-label='query q, dimension 1']")
    assert float(slider.input_value()) == pytest.approx(0.7)
    slider.focus()  # a slider moved on the server moves the handle ...
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    assert alphas(page) == pytest.approx(oracle((0.8, 0.4), 0.5), abs=6e-4)
    handle.focus()  # ... and the handle moves on from there
    page.keyboard.press("ArrowUp")
    assert alphas(page) == pytest.approx(oracle((0.8, 0.5), 0.5), abs=6e-4)
