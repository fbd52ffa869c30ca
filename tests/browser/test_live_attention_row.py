"""The self-attention page's live query-row view (issue 26) in Chromium: arrow keys on the row
picker change row i's weights and output in the page with no rerun, and they equal an oracle
written out here in torch from Q, K, V that this test computes itself from z and the weights the
engine's public seeded matrices give (not the view's own data); Σ = 1, the keys a causal mask
removes weigh exactly 0, and after the gesture's sync the server's weights figure row i equals
the DOM and the `sa_i` slider moved there; a change on the server (the causal switch, the
slider) updates the view. A mutant of live_attention_row.js without the 1/√e scaling fails the
oracle (checked by hand when this test was written)."""

from __future__ import annotations

import math

import pytest
import torch

from attnviz.topics.self_attention.scene import seeded
from tests.support.browser import assert_no_exception, open_app_page, wait_idle

PICKER = "[data-testid='liveAttentionPicker']"
# the view lives in a shadow root: its nodes are read through it
READ = """() => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector('.lar'));
  const root = host.shadowRoot, num = (t) => Number(t.replace('−', '-'));
  const out = root.querySelector('.lar-output').textContent;
  return {
    weights: [...root.querySelectorAll('.lar-alpha[data-key]')].map((e) => Number(e.textContent)),
    output: out.slice(out.lastIndexOf('(') + 1, -1).split(', ').map(num),
    row: Number(root.querySelector('.lar-chip.lar-on').textContent),
  };
}"""
# a key on the picker and the row read back in the same task: no server can answer in between
PRESS_AND_READ = """(key) => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector('.lar'));
  host.shadowRoot.querySelector('[data-testid="liveAttentionPicker"]')
    .dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, composed: true}));
  return [...host.shadowRoot.querySelectorAll('.lar-alpha[data-key]')].map((e) => e.textContent);
}"""
# the full-matrix weights heatmap the server drew: its z
WEIGHTS_FIGURE = """() => {
  const found = [...document.querySelectorAll('.js-plotly-plot')].filter((el) => el._fullData
    && ((el.layout.title || {}).text || '').replace(/<[^>]*>/g, '').startsWith('softmax(·)'));
  return found.length ? found[found.length - 1]._fullData[0].z.map((r) => Array.from(r)) : null;
}"""
M, D, E, D2, SEED = 5, 4, 4, 3, 0  # the "Causal, 5 tokens" preset's sizes, seed 0


def oracle(i: int, causal: bool) -> tuple[list[float], list[float]]:
    """Row i of softmax(mask(QKᵀ/√e))V, written out in torch from the seeded z and weights."""
    p = {
        k: torch.tensor(v, dtype=torch.float64) for k, v in seeded(M, D, E, D2, SEED, True).items()
    }
    q = p["sa_z"] @ p["sa_wq"] + p["sa_bq"]  # (m, e)
    k = p["sa_z"] @ p["sa_wk"] + p["sa_bk"]
    v = p["sa_z"] @ p["sa_wv"] + p["sa_bv"]  # (m, d2)
    scores = (k @ q[i]) / math.sqrt(E)  # (m,)
    if causal:
        scores[i + 1 :] = -math.inf
    weights = torch.softmax(scores, dim=0)
    return weights.tolist(), (weights @ v).tolist()


@pytest.mark.timeout(60)
def test_arrow_keys_move_the_query_row_in_the_browser_and_the_server_follows(page, app_url):
    query = f"?sa_m={M}&sa_d={D}&sa_e={E}&sa_d2={D2}&sa_causal=true"
    open_app_page(page, app_url, "self-attention", query)
    page.locator(PICKER).focus()
    first = page.evaluate(READ)
    assert first["row"] == 0
    assert first["weights"] == pytest.approx(oracle(0, True)[0], abs=6e-4)
    same_task = page.evaluate(PRESS_AND_READ, "ArrowRight")  # row 1, within the key's own event
    assert [float(x) for x in same_task] == pytest.approx(oracle(1, True)[0], abs=6e-4)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # row 3
    seen = page.evaluate(READ)
    weights, output = oracle(3, True)
    assert seen["row"] == 3
    assert seen["weights"] == pytest.approx(weights, abs=6e-4)
    assert seen["output"] == pytest.approx(output, abs=6e-4)
    assert math.fsum(seen["weights"]) == pytest.approx(1.0, abs=3e-3)
    assert seen["weights"][4] == 0  # the causal mask: key 4 lies ahead of query 3

    page.keyboard.press("ArrowLeft")  # row 2; the page's ← (previous step) must not hear it
    page.wait_for_timeout(400)  # the sync goes out; the page reruns with sa_i = 2
    wait_idle(page)
    assert_no_exception(page, "self-attention live row")
    assert page.locator("input[type='range'][aria-label='query patch i']").input_value() == "2"
    assert "sa_i=2" in page.url and "sa_reveal" not in page.url  # still at the last step
    seen = page.evaluate(READ)
    assert seen["row"] == 2  # the rerun did not jump the view back
    server_row = page.evaluate(WEIGHTS_FIGURE)[2]
    assert [round(w, 3) for w in server_row] == pytest.approx(seen["weights"], abs=1e-9)

    page.get_by_text("causal mask", exact=True).click()  # a server-side change updates the view
    wait_idle(page)
    weights, output = oracle(2, False)
    seen = page.evaluate(READ)
    assert (seen["row"], seen["weights"]) == (2, pytest.approx(weights, abs=6e-4))
    assert seen["output"] == pytest.approx(output, abs=6e-4)
    page.locator("input[type='range'][aria-label='query patch i']").focus()
    page.keyboard.press("ArrowRight")  # the slider moved on the server moves the view's row
    wait_idle(page)
    assert page.evaluate(READ)["weights"] == pytest.approx(oracle(3, False)[0], abs=6e-4)
