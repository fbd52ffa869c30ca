"""AppTest of the kernel-smoother page: views follow the widgets; Start grows the history."""

from __future__ import annotations

import time

import numpy as np

from tests.support.apptest import figures, no_exception, open_page, plotly_array

PAGE = "pages/kernel_smoother.py"


def status(at) -> str:
    return next((m.value for m in at.markdown if "**" in m.value and "step" in m.value), "")


def curve_points(at) -> int:
    for fig in figures(at):
        if fig["layout"]["title"]["text"].startswith("Loss and"):
            return len(plotly_array(fig["data"][0]["x"]))
    return 0


def test_untrained_views_show_and_follow_the_data_set():
    at = open_page(PAGE)
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any(t.startswith("Data and the fitted") for t in titles)
    at.selectbox(key="ks_data").set_value("rings_2d").run()
    no_exception(at)
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any(t.startswith("f_θ over the plane") for t in titles)
    ellipse = [tr for f in figures(at) for tr in f["data"] if tr.get("name") == "‖θ(x − x_s)‖ = 1"]
    assert ellipse, "Mahalanobis shows its metric ellipse"


def test_query_slider_moves_the_weights():
    at = open_page(PAGE)

    def weights():
        fig = next(
            f for f in figures(at) if f["layout"]["title"]["text"].startswith("The query's weight")
        )
        return plotly_array(fig["data"][0]["y"])

    before = weights()
    at.slider(key="ks_qx").set_value(0.5).run()
    assert not np.allclose(before, weights())
    np.testing.assert_allclose(weights().sum(), 1.0, atol=1e-5)


def test_start_grows_the_history_then_pause_step_reset():
    at = open_page(PAGE)
    at.slider(key="ks_steps").set_value(3000).run()
    at.button(key="ks_start").click().run()
    counts = []
    deadline = time.time() + 60
    while time.time() < deadline and len(set(counts)) < 3:
        time.sleep(0.4)
        at.run()
        no_exception(at)
        counts.append(curve_points(at))
    assert len(set(counts)) >= 3 and counts[-1] > counts[0], counts
    at.button(key="ks_pause").click().run()
    deadline = time.time() + 20
    while "paused" not in status(at) and time.time() < deadline:
        time.sleep(0.2)
        at.run()
    assert "paused" in status(at)
    labels = [el.proto.label for el in at.get("download_button")]
    assert "Download the history (CSV)" in labels, labels
    step_before = int(status(at).split("step ")[1].split(" ")[0])
    at.button(key="ks_step").click().run()
    assert f"step {step_before + 1} of" in status(at)
    at.button(key="ks_reset").click().run()
    assert status(at) == ""
    assert any("Press **Start**" in i.value for i in at.info)


def test_divergence_is_reported_on_the_page():
    at = open_page(PAGE)
    at.radio(key="ks_g").set_value("linear").run()
    at.selectbox(key="ks_opt").set_value("sgd").run()
    at.select_slider(key="ks_lr").set_value(1000.0).run()
    at.button(key="ks_start").click().run()
    deadline = time.time() + 60
    while time.time() < deadline and not any("diverged" in e.value for e in at.error):
        time.sleep(0.4)
        at.run()
    assert any("diverged" in e.value and "learning rate" in e.value for e in at.error)
    no_exception(at)
    at.button(key="ks_reset").click().run()  # teardown: drop the job
    assert not at.error
