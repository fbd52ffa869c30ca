"""AppTest of the vision page: its settings change what is drawn, a short run trains both models
side by side, the timeline, the sections after a run, and bad input (a wrong model folder)."""

from __future__ import annotations

import re

from tests.support.apptest import (
    figures,
    no_exception,
    plotly_array,
    train_until_done,
    training_page_fixture,
)

PAGE = "pages/vision_patches.py"


page = training_page_fixture(PAGE, "vi")  # opens the page; Reset in teardown


def figure(at, title_start: str) -> dict:
    found = [f for f in figures(at) if f["layout"]["title"]["text"].startswith(title_start)]
    assert found, [f["layout"]["title"]["text"][:40] for f in figures(at)]
    return found[0]


def head_maps(at) -> list:
    fig = figure(at, "Where the")
    return [plotly_array(t["z"]).tolist() for t in fig["data"] if t.get("hovertemplate")]


def test_settings_change_the_drawn_maps(page):
    at = page()
    no_exception(at)
    deltas = [m.delta for m in at.metric if m.delta]  # a delta is cut past ~12 characters at 1280
    assert deltas and all(len(d) <= 12 for d in deltas), deltas
    assert any(re.fullmatch(r"Parameters: ViT [\d,]+, CNN [\d,]+\.", c.value) for c in at.caption)
    grid = figure(at, "Image 0")
    assert len(grid["layout"]["annotations"]) == 16, "8×8 digits in patches of 2: 16 numbered"
    maps = head_maps(at)
    assert len(maps) == 2 * 4, "2 layers × 4 heads"
    at.selectbox(key="vi_query").set_value("patch 5").run()
    assert head_maps(at) != maps, "another query, other maps"
    at.slider(key="vi_image").set_value(7).run()
    assert figure(at, "Image 7")
    at.select_slider(key="vi_heads").set_value(2).run()
    assert len(head_maps(at)) == 2 * 2
    at.selectbox(key="vi_data").set_value("mnist").run()
    no_exception(at)
    assert at.select_slider(key="vi_patch").options == ["4", "7", "14"]
    assert at.select_slider(key="vi_patch").value == 4, "the 2-px patch fell back to one that fits"
    grid = figure(at, "Image")
    assert len(grid["layout"]["annotations"]) == 49, "28 px in patches of 4: 7 × 7"
    at.select_slider(key="vi_patch").set_value(7).run()
    assert len(figure(at, "Image")["layout"]["annotations"]) == 16


def test_a_short_run_trains_both_models_and_the_sections_open(page):
    at = page()
    at.slider(key="vi_steps").set_value(100).run()
    before = head_maps(at)
    at.button(key="vi_start").click().run()
    train_until_done(at, 120)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ViT accuracy"].endswith("%")
    assert metrics["CNN accuracy"].endswith("%")
    curves = figure(at, "Loss and accuracy")
    names = [t["name"] for t in curves["data"]]
    assert "ViT validation accuracy" in names and "CNN validation accuracy" in names
    assert head_maps(at) != before, "the trained model's maps, not step 0's"
    assert figure(at, "ViT vs CNN")
    assert figure(at, "Mean attention distance")
    trained = head_maps(at)
    timeline = at.select_slider(key="vi_timeline")
    timeline.set_value(timeline.options[0]).run()
    assert head_maps(at) != trained, "scrubbing the timeline shows an earlier model"
    timeline.set_value(timeline.options[-1]).run()
    at.session_state["vi_open_mistakes"] = True
    at.session_state["vi_open_shuffle"] = True
    at.run()
    no_exception(at)
    assert figure(at, "Misclassified validation images") or at.success
    assert figure(at, "The same patches in another order")
    shuffled = [m for m in at.metric if m.label.endswith("accuracy, shuffled")]
    assert len(shuffled) == 2 and all(m.value.endswith("%") for m in shuffled)
    at.select_slider(key="vi_patch").set_value(4).run()  # other models than the run's (2 px)
    no_exception(at)
    assert any("Settings changed since this run" in w.value for w in at.warning)
    scores = {m.label: m.value for m in at.metric if m.label in ("ViT accuracy", "CNN accuracy")}
    assert scores == {"ViT accuracy": "–", "CNN accuracy": "–"}, "the old run's, over step 0"


def test_a_wrong_model_folder_gets_a_message(page, tmp_path, monkeypatch):
    at = page({"vi_open_real": "true"})
    at.text_input(key="vi_real_path").set_value(str(tmp_path / "nothing")).run()
    assert any("opens a model folder only inside" in e.value for e in at.error)  # outside
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))  # inside a root: what is wrong
    at.text_input(key="vi_real_path").set_value(str(tmp_path / "nothing")).run()
    no_exception(at)
    assert any("no model folder" in e.value for e in at.error), [e.value for e in at.error]
    at.text_input(key="vi_real_path").set_value(str(tmp_path)).run()
    assert any("config.json" in e.value for e in at.error)


def test_a_local_vit_folder_draws_its_class_token_per_head(page, tmp_path, monkeypatch):
    from transformers import ViTConfig, ViTModel

    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))  # model folders only inside a root

    ViTModel(
        ViTConfig(
            image_size=32,
            patch_size=8,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
        )
    ).save_pretrained(tmp_path)
    at = page({"vi_open_real": "true"})
    at.text_input(key="vi_real_path").set_value(str(tmp_path)).run()
    no_exception(at)
    titles = [
        f
        for f in figures(at)
        if "the class token's attention in the last layer"
        in f["layout"]["title"]["text"].replace("<br>", " ")
    ]
    assert titles, [f["layout"]["title"]["text"][:60] for f in figures(at)]
    fig = titles[0]
    overlays = [t for t in fig["data"] if t.get("hovertemplate")]
    assert len(overlays) == 2, "one map per head of the last layer"
    assert plotly_array(overlays[0]["z"]).shape == (4, 4)


def test_a_rerun_that_changes_neither_model_runs_neither_again(page, monkeypatch):
    from dataclasses import replace

    import attnviz.topics.vision_patches.scene as scene
    import attnviz.ui.parts.vision_patches as part
    from attnviz.topics.operations import Operations

    calls = []

    def counted(name, real):
        return lambda *a: calls.append(name) or real(*a)

    ops = dict(part.SCENE.ops)  # the page's scene op, counted (a scene's ops are fixed)
    ops["shuffled_accuracy"] = counted("shuffled_accuracy", ops["shuffled_accuracy"])
    monkeypatch.setattr(part, "SCENE", replace(part.SCENE, ops=Operations(**ops)))
    monkeypatch.setattr(scene, "mistakes_figure", counted("mistakes_figure", scene.mistakes_figure))
    at = page({"vi_open_shuffle": "true", "vi_open_mistakes": "true"})
    shown = [(m.label, m.value, m.delta) for m in at.metric]
    first = len(calls)  # 0 when an earlier test of this process left them in the caches
    at.run()
    at.selectbox(key="vi_query").set_value("patch 5").run()  # the maps change, not the models
    no_exception(at)
    assert len(calls) == first, calls[first:]
    assert [(m.label, m.value, m.delta) for m in at.metric] == shown
