"""AppTest of the kernel-smoother page: views follow the widgets; Start grows the history."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.apptest import figures, no_exception, open_page, plotly_array, train_until_done
from tests.support.apptest import run_status as status

PAGE = "pages/kernel_smoother.py"
CHANGED = "Settings changed since this run"


@pytest.fixture
def page() -> Iterator[Callable[[], AppTest]]:
    """Opens the page; every job a test started is reset (stopped) in teardown."""
    opened: list[AppTest] = []

    def open_() -> AppTest:
        opened.append(open_page(PAGE))
        return opened[-1]

    yield open_
    for at in opened:
        reset = at.button(key="ks_reset")
        if not reset.disabled:
            reset.click().run()


def preset(at: AppTest, name: str) -> None:
    next(b for b in at.button if b.label == name).click().run()


def fit_figure(at: AppTest) -> dict:
    """The data-and-fit figure (1-D curve or 2-D surface)."""
    titles = ("Data and the fitted", "f_θ over the plane")
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(titles))


def changed_warning(at: AppTest) -> str:
    return next((w.value for w in at.warning if CHANGED in w.value), "")


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


def test_start_grows_the_history_then_pause_step_reset(page):
    at = page()
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
    assert at.button(key="ks_resume").label == "Resume", "Pause and Resume are two buttons"
    labels = [el.proto.label for el in at.get("download_button")]
    assert "Download the history (CSV)" in labels, labels
    step_before = int(status(at).split("step ")[1].split(" ")[0])
    at.button(key="ks_step").click().run()
    assert f"step {step_before + 1} of" in status(at)
    at.button(key="ks_reset").click().run()
    assert status(at) == ""
    assert any("Press **Start** to train" in m.value for m in at.markdown)


def test_divergence_is_reported_on_the_page(page):
    at = page()
    at.radio(key="ks_g").set_value("linear").run()
    at.selectbox(key="ks_optimizer").set_value("sgd").run()
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


def untrained_fit(setup: Callable[[AppTest], None]) -> dict:
    """The fit figure of a fresh page (no run) after `setup`."""
    at = open_page(PAGE)
    setup(at)
    no_exception(at)
    return fit_figure(at)


def test_a_finished_run_is_bound_to_its_settings(page):
    """Repro (issue 9): Mahalanobis on rings → Start → done → Overfit without leave-one-out
    raised `RuntimeError: output with shape [2, 1] doesn't match the broadcast shape [2, 2]`;
    and ("try this" #4) K from 2 to 1 after the same run raised the same error. One run serves
    both (they were two tests, each training the preset: about 9 s each)."""
    at = page()
    preset(at, "Mahalanobis on rings")
    at.button(key="ks_start").click().run()
    train_until_done(at)
    assert not changed_warning(at)
    trained = fit_figure(at)
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    fit = next(i for i, t in enumerate(titles) if t.startswith("f_θ over the plane"))
    curves = next(i for i, t in enumerate(titles) if t.startswith("Loss and"))
    assert fit < curves, "after a run the result comes first, the curves under the views"
    preset(at, "Overfit without leave-one-out")
    no_exception(at)
    assert "Start trains a new one" in changed_warning(at)
    said = changed_warning(at)  # by the labels the page shows, never an internal field name
    assert "data set (was rings_2d, now sine_1d)" in said, said
    assert "leave-one-out (was on, now off)" in said and "data.name" not in said
    assert "learning rate" not in said, "a training setting does not change the model"
    assert "done" in status(at), "the old run's status stays, labelled by the warning"

    def same_clicks(a: AppTest) -> None:  # presets set only some widgets: repeat the order
        preset(a, "Mahalanobis on rings")
        preset(a, "Overfit without leave-one-out")

    assert fit_figure(at) == untrained_fit(same_clicks), "the untrained model, not the run's"
    preset(at, "Mahalanobis on rings")  # back to the run's own settings: its model is shown
    no_exception(at)
    assert not changed_warning(at)
    assert fit_figure(at) == trained
    _moving_k_shows_the_untrained_model(at)


def _moving_k_shows_the_untrained_model(at: AppTest) -> None:
    """K from 2 to 1 after the run on rings: a warning by the slider's label, the untrained
    model of K = 1 drawn."""
    at.slider(key="ks_rank").set_value(1).run()
    no_exception(at)
    said = changed_warning(at)
    assert "Changed: K (rows of θ) (was 2, now 1)." in said and "model.rank" not in said

    def rank_one(a: AppTest) -> None:
        preset(a, "Mahalanobis on rings")
        a.slider(key="ks_rank").set_value(1).run()

    assert fit_figure(at) == untrained_fit(rank_one)


def test_switching_to_2d_after_a_1d_run_never_draws_the_old_model(page):
    """Repro (issue 9): 1-D run, then a 2-D data set showed the 1-D model on the new data."""
    at = page()
    at.slider(key="ks_steps").set_value(100).run()
    at.button(key="ks_start").click().run()
    train_until_done(at)
    at.selectbox(key="ks_data").set_value("rings_2d").run()
    no_exception(at)
    assert "data set (was sine_1d, now rings_2d)" in changed_warning(at)

    def rings(a: AppTest) -> None:
        a.slider(key="ks_steps").set_value(100).run()
        a.selectbox(key="ks_data").set_value("rings_2d").run()

    assert fit_figure(at) == untrained_fit(rings)
    at.button(key="ks_step").click().run()  # Step starts a run with the new settings
    no_exception(at)
    assert not changed_warning(at) and "step 1 of 100" in status(at)


def weights_figure(at: AppTest) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("The query's"))


@pytest.mark.try_this("kernel-smoother", 5)
def test_undefined_f_is_a_gap_with_counts_never_a_zero_that_sums_to_1():
    """Repro (issue 16 item 2): boxcar at h = 0.05 drew f = 0 at 18 of 60 plotted points, and
    the weight panel summed to 0 under a "sums to 1" title."""
    at = open_page(PAGE)
    at.selectbox(key="ks_kernel").set_value("boxcar").run()
    at.select_slider(key="ks_width").set_value(0.05).run()
    at.slider(key="ks_qx").set_value(6.0).run()  # beyond the data: nothing in reach
    no_exception(at)
    notes = [m.value for m in (*at.warning, *at.info)]
    left_out = "24 of 60 training points have no sample in reach: left out of the loss"
    assert any(left_out in n for n in notes), notes
    assert any("f is undefined at 18 of 60 plotted points" in n for n in notes), notes
    fit = fit_figure(at)
    curve = next(tr for tr in fit["data"] if tr["name"] == "f_θ(x)")
    assert np.isnan(plotly_array(curve["y"])).sum() == 18, "a gap, not a drawn 0"
    assert "gaps: no sample in reach" in fit["layout"]["title"]["text"]
    weights = weights_figure(at)
    title = weights["layout"]["title"]["text"].replace("<br>", " ")  # lines of a narrow column
    assert "sums to 1" not in title
    assert "no sample in reach of this query: f is undefined here" in title
    assert plotly_array(weights["data"][0]["y"]).sum() == 0
    at.select_slider(key="ks_width").set_value(1.0).run()  # wide: every point in reach
    at.slider(key="ks_qx").set_value(0.0).run()  # amid the data
    no_exception(at)
    assert "sums to 1" in weights_figure(at)["layout"]["title"]["text"]
    assert not any("no sample in reach" in m.value for m in (*at.warning, *at.info))
    np.testing.assert_allclose(plotly_array(weights_figure(at)["data"][0]["y"]).sum(), 1, atol=1e-5)
