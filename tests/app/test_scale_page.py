"""The Attention at scale page's live measurement: Measure times the three algorithms here and
draws both log–log figures with each algorithm's slope in its legend (at three short lengths,
so the test costs a fraction of a second)."""

from __future__ import annotations

from attnviz.ui.parts import attention_at_scale as scale_parts
from tests.support.apptest import figures, no_exception, open_page, plotly_array

PAGE = "pages/attention_at_scale.py"


def title(fig: dict) -> str:
    return fig["layout"]["title"]["text"].replace("<br>", " ")  # wrapped for narrow columns


def test_measure_draws_time_and_memory_with_each_slope(monkeypatch):
    monkeypatch.setattr(scale_parts, "LENGTHS", (64, 128, 256))
    at = open_page(PAGE, {"sc_part": "Cost"})
    at.session_state["sc_open_cost"] = True
    at.run()
    titles = [title(f) for f in figures(at)]
    assert not any("time against tokens" in t for t in titles), "nothing measured before Measure"
    at.button(key="sc_measure").click().run()
    no_exception(at)
    drawn = {title(f): f for f in figures(at)}
    time_fig = next(f for t, f in drawn.items() if "time against tokens" in t)
    names = [trace["name"] for trace in time_fig["data"]]
    assert [n.split(" (slope ")[0] for n in names] == ["naive", "SDPA", "linear"], names
    assert all(" (slope " in n for n in names)
    assert plotly_array(time_fig["data"][0]["x"]).tolist() == [64, 128, 256]
    assert any("Peak memory against tokens T (computed: CPU)" in t for t in drawn)
