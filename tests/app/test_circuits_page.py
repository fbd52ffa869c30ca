"""AppTest of the Watching circuits form page: a short induction run, the timeline and the
ablation tool; each experiment's views and its honest notes from a link. (Every page's common
checks, the presets and the URL come from tests/app/test_every_page.py and test_param_tables.py;
the presets' claims from tests/engine/test_circuits_try_this.py.)"""

from __future__ import annotations

import numpy as np

from attnviz.topics.watch_circuits.scene import BOS_NOTE, GROKKING_NOTE, ONE_LAYER, SINK_NOTES
from tests.support.apptest import figures, no_exception, open_page, plotly_array, train_until_done

PAGE = "pages/watch_circuits.py"


def titles(at) -> list[str]:
    return [f["layout"]["title"]["text"].replace("<br>", " ") for f in figures(at)]


def test_a_short_induction_run_its_timeline_and_the_ablation_tool():
    at = open_page(PAGE, {"ci_steps": "100"})
    at.button(key="ci_start").click().run()
    train_until_done(at)
    shown = zip(figures(at), titles(at), strict=True)
    ablation = next(f for f, t in shown if "one head zeroed" in t)
    losses = plotly_array(ablation["data"][0]["y"])
    assert len(losses) == 4 and np.isfinite(losses).all()
    at.selectbox(key="ci_ablate").set_value("L0H1").run()
    no_exception(at)
    metric = next(m for m in at.metric if "without L0H1" in m.label)
    assert metric.value == f"{losses[1]:.2f} nats"  # the bar of the head picked
    timeline = at.select_slider(key="ci_timeline")
    assert timeline.options[0] == "0" and timeline.options[-1] == "100"
    timeline.set_value(timeline.options[0]).run()
    assert any(t.startswith("Layer 1 at step 0") for t in titles(at)), titles(at)
    at.button(key="ci_reset").click().run()
    no_exception(at)


def notes(at) -> list[str]:
    return [info.value for info in at.info]


def test_each_experiment_draws_its_views_and_says_what_was_measured():
    cases = {
        (("ci_layers", "1"),): ([ONE_LAYER], "Loss: a segment's first copy"),
        (("ci_exp", "Grokking"),): ([GROKKING_NOTE], "Accuracy: training vs validation"),
        (("ci_exp", "Attention sinks"), ("ci_attn", "sigmoid"), ("ci_bos", "true")): (
            [SINK_NOTES["sigmoid"], BOS_NOTE],
            "Each head's attention on the BOS token",
        ),
    }
    for query, (wanted, first_title) in cases.items():
        at = open_page(PAGE, dict(query))
        no_exception(at)
        assert all(note in notes(at) for note in wanted), notes(at)
        assert titles(at)[0].startswith(first_title), titles(at)
