"""AppTest of the recurrence page: its settings change what is drawn, a short run trains both
models side by side (scores, curves, timeline), the sections after a run, settings changed after
a run, the live timing, and bad input in the date box."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics import live
from attnviz.topics.registry import scene
from tests.support.apptest import (
    figures,
    no_exception,
    plotly_array,
    train_until_done,
    training_page_fixture,
)
from tests.support.hand_seq2seq import hand_translate

PAGE = "pages/recurrent_page.py"


page = training_page_fixture(PAGE, "rn")  # opens the page; Reset in teardown


def titled(at, start: str) -> list[dict]:
    return [f for f in figures(at) if f["layout"]["title"]["text"].startswith(start)]


def figure(at, start: str) -> dict:
    found = titled(at, start)
    assert found, [f["layout"]["title"]["text"][:50] for f in figures(at)]
    return found[0]


def axis_text(fig: dict, axis: str) -> list[str]:
    """The axis's tick labels as read (zero-width spaces that keep repeats apart removed)."""
    return [t.replace("\u200b", "") for t in fig["layout"][axis]["ticktext"]]


def probe_map(at) -> list:
    return plotly_array(figure(at, "Alignment at")["data"][0]["z"]).tolist()


def untrained_page_model():
    """The attention model the page shows before Start: its default settings, at step 0."""
    page_scene = scene("recurrent")
    spec = page_scene.config(page_scene.values({})).spec
    return spec.restore(live.untrained(spec)).model


def assert_your_date_is_the_hand_translation(at, text: str, model) -> None:
    """The "your date" figure against tests/support/hand_seq2seq.py (greedy decoding written out
    from the weights): input characters across, the characters written down, and in each row the
    weights of the step that wrote that row's character."""
    hand = hand_translate(model, text)
    mine = figure(at, "Your date")
    assert axis_text(mine, "xaxis") == ["␣" if c == " " else c for c in text], "input across"
    assert axis_text(mine, "yaxis") == ["␣" if c == " " else c for c, _ in hand.written]
    z = plotly_array(mine["data"][0]["z"])
    np.testing.assert_allclose(z, np.stack([w for _, w in hand.written]), atol=1e-5)
    assert {m.label: m.value for m in at.metric}["with attention writes"] == hand.text


def test_the_date_box_translates_with_both_models_and_draws_its_alignment(page):
    at = page()
    no_exception(at)
    model = untrained_page_model()
    assert_your_date_is_the_hand_translation(at, "23 nov 2026", model)
    mine = figure(at, "Your date")
    assert mine["layout"]["yaxis"]["autorange"] == "reversed", "the first output row on top"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["the rule says"] == "2026-11-23"
    assert {"with attention writes", "no attention writes"} <= set(metrics)
    # untrained, the model writes BOS at 6 of its steps here (no character): rows stay with theirs
    at.text_input(key="rn_input").set_value("27.10.20").run()
    assert hand_translate(model, "27.10.20").specials_before_eos == 6
    assert_your_date_is_the_hand_translation(at, "27.10.20", model)
    at.text_input(key="rn_input").set_value("1/2/1999").run()
    assert axis_text(figure(at, "Your date"), "xaxis") == list("1/2/1999")
    assert {m.label: m.value for m in at.metric}["the rule says"] == "1999-02-01"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the box is empty"),
        ("9" * 500, "500 characters is too long"),
        ("23 nov 2026 ☃", "Not in the vocabulary"),
        ("31 feb 2026", "Not a date the task can read"),
        ("<script>alert(1)</script>", "Not in the vocabulary"),
    ],
)
def test_bad_dates_get_a_message_and_the_page_keeps_working(page, text, message):
    at = page()
    at.text_input(key="rn_input").set_value(text).run()
    no_exception(at)
    assert any(message in w.value for w in at.warning), [w.value for w in at.warning]
    assert titled(at, "Alignment at"), "the probe's alignment is still drawn"
    at.text_input(key="rn_input").set_value("2 may 2001").run()
    assert not at.warning and figure(at, "Your date")


def test_settings_change_the_untrained_models_and_the_task(page):
    at = page()
    before = probe_map(at)
    at.select_slider(key="rn_hidden").set_value(32).run()
    assert probe_map(at) != before, "another model, another (untrained) alignment"
    at.selectbox(key="rn_score").set_value("general").run()
    no_exception(at)
    at.radio(key="rn_task").set_value("reverse").run()
    probe = figure(at, "Alignment at")
    text, target = probe["layout"]["title"]["text"].split("“")[1:3]
    assert target.split("”")[0] == text.split("”")[0][::-1], "reverse: the target is backwards"
    assert {m.label: m.value for m in at.metric}["the rule says"] == "6202 von 32"


def test_a_short_run_trains_both_models_and_the_sections_open(page):
    at = page()
    at.slider(key="rn_steps").set_value(50).run()
    before = probe_map(at)
    at.button(key="rn_start").click().run()
    train_until_done(at, 180)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["with attention"].endswith("%")
    assert metrics["no attention"].endswith("%")
    names = [t["name"] for t in figure(at, "Loss and")["data"]]
    assert "with attention validation exact match" in names
    assert "no attention validation exact match" in names, names
    assert probe_map(at) != before, "the trained model's alignment, not step 0's"
    assert "step 50" in figure(at, "Alignment at")["layout"]["title"]["text"]
    timeline = at.select_slider(key="rn_timeline")
    timeline.set_value(timeline.options[0]).run()
    assert "step 0" in figure(at, "Alignment at")["layout"]["title"]["text"]
    assert np.allclose(probe_map(at), before), "step 0 of the run is the model shown before Start"
    at.session_state["rn_open_length"] = True
    at.session_state["rn_open_states"] = True
    at.run()
    no_exception(at)
    lengths = figure(at, "Unseen dates by input length")
    assert [t["name"] for t in lengths["data"]] == [
        "with attention: characters right",
        "with attention: dates exact",
        "no attention: characters right",
        "no attention: dates exact",
    ]
    assert lengths["layout"]["xaxis"]["title"]["text"] == "input length (characters)"
    assert len(titled(at, "forward")) == 2 and len(titled(at, "backward")) == 2


def test_a_setting_changed_after_a_run_shows_the_new_untrained_model(page):
    at = page()
    at.slider(key="rn_steps").set_value(50).run()
    at.button(key="rn_start").click().run()
    train_until_done(at, 120)
    at.toggle(key="rn_bi").set_value(False).run()
    no_exception(at)
    assert any("Settings changed" in w.value for w in at.warning)
    assert "step 0" in figure(at, "Alignment at")["layout"]["title"]["text"]
    assert {m.label: m.value for m in at.metric}["with attention"] == "–"
    at.session_state["rn_open_states"] = True
    at.run()
    assert len(titled(at, "forward")) == 2 and not titled(at, "backward"), "one-way now"


def test_the_timing_is_measured_live_and_said_in_a_sentence(page):
    at = page({"rn_open_timing": "true"})
    assert not titled(at, "One forward pass")
    at.button(key="rn_measure").click().run()
    no_exception(at)
    fig = figure(at, "One forward pass")
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["yaxis"]["type"] == "log"
    assert [t["name"] for t in fig["data"]] == ["RNN encoder", "self-attention layer"]
    assert plotly_array(fig["data"][0]["x"]).tolist() == [16, 32, 64, 128, 256, 512, 1024]
    steps = figure(at, "Steps that must run")
    assert plotly_array(steps["data"][0]["y"]).tolist() == [16, 32, 64, 128, 256, 512, 1024]
    assert plotly_array(steps["data"][1]["y"]).tolist() == [1] * 7
    assert any("one RNN forward pass takes" in m.value for m in at.markdown)
