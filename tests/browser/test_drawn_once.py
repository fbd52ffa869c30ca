"""A move that changes charts draws each new chart once, at its frame's width, and shows it
(attnviz.ui.plotly_once: Streamlit drew each twice, first hidden at no width)."""

from __future__ import annotations

import pytest

from tests.support.browser import open_app_page, wait_drawn, wait_idle

pytestmark = pytest.mark.browser

COUNT_DRAWS = """() => {  // each chart's draws (Plotly's plotly_afterplot), from now on
  window.__draws = new Map();
  const hook = (gd) => {
    if (gd.__counted || !gd.on) return;
    gd.__counted = true;
    window.__draws.set(gd, 0);
    gd.on('plotly_afterplot', () => window.__draws.set(gd, window.__draws.get(gd) + 1));
  };
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(hook))
    .observe(document.body, {subtree: true, childList: true, attributes: true});
}"""
SEEN = """() => [...window.__draws].filter(([gd]) => gd.isConnected).map(([gd, n]) => {
  const frame = gd.closest("[data-testid='stFullScreenFrame']").getBoundingClientRect();
  return {title: (gd.querySelector('.gtitle') || {}).textContent || '?', draws: n,
          width: gd._fullLayout.width, frame: frame.width,
          shown: getComputedStyle(gd.parentElement).visibility !== 'hidden'};
})"""


def test_a_move_draws_each_new_chart_once(page, app_url):
    """The number of patches m changes every matrix of the self-attention page."""
    open_app_page(page, app_url, "self-attention")
    page.evaluate(COUNT_DRAWS)
    page.locator("[data-testid='stSlider'] input[aria-label='m patches']").focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page)
    wait_drawn(page)
    charts = page.evaluate(SEEN)
    assert len(charts) >= 6, charts  # the matrices z, Q, K, V, the scores, the weights…
    assert [c for c in charts if c["draws"] != 1] == []
    assert [c for c in charts if abs(c["width"] - c["frame"]) > 1 or not c["shown"]] == []
