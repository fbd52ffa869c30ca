"""What a training page says about a run (issue 25, item 8): the settings changed since it, by
their labels (attnviz.topics.changes), and the metric's panel before the first evaluation
(attnviz.figures.training)."""

from types import SimpleNamespace

from attnviz.figures.training import curves_figure
from attnviz.topics.changes import SOME_SETTINGS, changed_settings
from attnviz.topics.registry import scene

KERNEL = scene("kernel-smoother")


def test_a_changed_model_setting_is_named_by_its_label_with_both_values():
    run = KERNEL.values()
    said = changed_settings(KERNEL, run, {**run, "ks_rank": 4})
    assert said == ["K (rows of θ) (was 2, now 4)"]


def test_settings_outside_the_model_are_not_named():
    run = KERNEL.values()
    now = {**run, "ks_rank": 1, "ks_lr": 0.3, "ks_qx": 0.0}  # training form, query: same model
    assert changed_settings(KERNEL, run, now) == ["K (rows of θ) (was 2, now 1)"]
    assert changed_settings(KERNEL, run, {**run, "ks_lr": 0.3}) == []


def test_toggles_choices_and_the_global_seed_read_as_the_page_shows_them():
    run = KERNEL.values()
    now = {**run, "ks_loo": False, "ks_data": "rings_2d", "seed": 7}
    assert changed_settings(KERNEL, run, now) == [
        "data set (was sine_1d, now rings_2d)",
        "leave-one-out (was on, now off)",
        "Global seed (was 0, now 7)",
    ]


def test_a_change_no_single_setting_explains_is_still_said_in_words():
    run = KERNEL.values()
    now = {key: value for key, value in run.items() if key != "ks_rank"}
    now["ks_n"], run = 100, {**run, "ks_n": 100, "ks_rank": 3}  # ks_rank unknown now
    assert changed_settings(KERNEL, run, now) == [SOME_SETTINGS]


def history(steps: list[int], evals: list[int]) -> SimpleNamespace:
    return SimpleNamespace(
        step=steps,
        train_loss=[1.0] * len(steps),
        eval_step=evals,
        val_loss=[1.0] * len(evals),
        train_metric=[0.5] * len(evals),
        val_metric=[0.5] * len(evals),
        extra=[{}] * len(evals),
    )


def test_before_the_first_evaluation_the_metric_panel_says_when_it_comes():
    layout = curves_figure(history([1, 2, 3], []), "exact match", eval_every=50).layout
    (note,) = layout.annotations
    assert "Exact match appears" in note.text and "every 50 steps" in note.text
    assert note.xref == "x2 domain" and note.yref == "y2 domain"
    assert tuple(layout.xaxis2.range) == (0, 50), "from step 0 to the first evaluation"
    low, high = layout.yaxis2.range
    assert -0.05 < low <= 0 and 1 <= high < 1.05 and layout.yaxis2.tickformat == ".0%"


def test_a_first_evaluation_is_a_visible_point_on_a_0_to_100_percent_axis():
    fig = curves_figure(history([1], [1]), "exact match", eval_every=1)  # one Step, evaluated
    assert not fig.layout.annotations
    metric = [t for t in fig.data if t.yaxis == "y2"]
    assert metric and all("markers" in t.mode for t in metric), "a lone point shows"
    low, high = fig.layout.yaxis2.range
    assert -0.05 < low <= 0 and 1 <= high < 1.05, "not Plotly's −1…1 around a 0 %"
    assert fig.layout.xaxis2.rangemode == "nonnegative", "no negative steps around step 0"


def test_r_squared_keeps_its_own_axis_once_evaluated():
    layout = curves_figure(history([1, 2], [1, 2]), "R²", eval_every=1).layout
    assert layout.yaxis2.range is None and not layout.yaxis2.tickformat
