"""The pretrained explorer's scene outside Streamlit: its views at the defaults, the lesson
answer on the Pronoun preset, messages for bad input, the second sentence only when asked, and
a typed model loaded through the loader the page hands in."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.pretrained import scene as pretrained
from attnviz.topics.pretrained.params import TABLE
from attnviz.topics.pretrained.scene import LEAVE_EMPTY, SCENE, ModelError
from attnviz.topics.scene import SceneInputError


@pytest.fixture(scope="module")
def defaults():
    return SCENE.compute()


def test_views_at_the_defaults(defaults):
    result, figs = defaults
    first_screen = {"model_view", "pe_head_map", "qk_products", "qk_scores", "qk_softmax"}
    assert set(figs) == first_screen  # the folded sections' views: only while open
    assert figs["pe_head_map"].layout.title.text == "Layer 0, head 0"
    assert figs["model_view"].layout.title.text.startswith("Model view: 6 layers")
    opened = SCENE.views(result, SCENE.values(pe_open_layers=True, pe_open_proj=True))
    assert set(opened) == first_screen | {"rollout", "qk_scatter"}
    assert [tr.name for tr in opened["qk_scatter"].data] == ["queries", "keys"]


def test_pronoun_preset_answers_animal():
    values = SCENE.values(TABLE.presets["Pronoun coreference"])
    result = SCENE.run(SCENE.config(values))
    answer = SCENE.answers(result, values)["top_token"]
    assert answer.answer == "animal" and "[CLS]" in answer.options
    hidden = SCENE.answers(result, {**values, "pe_hide": True})["top_token"]
    assert hidden.answer == "animal" and "[CLS]" not in hidden.options


def test_hiding_specials_removes_them_from_the_maps(defaults):
    result, _ = defaults
    values = SCENE.values(pe_hide=True)
    figs = SCENE.views(result, values, only={"pe_head_map", "rollout"})
    for name in ("pe_head_map", "rollout"):
        labels = list(figs[name].data[0].x)
        assert "[CLS]" not in labels and "[SEP]" not in labels and "animal" in labels, name
    head_view = pretrained.head_view_input(result, values)
    assert head_view.query is None and "[CLS]" not in head_view.tokens


def test_empty_text_and_a_missing_model_folder_say_why():
    with pytest.raises(SceneInputError, match="empty"):
        SCENE.config(SCENE.values(pe_text="   "))
    with pytest.raises(ModelError) as raised:
        SCENE.run(SCENE.config(SCENE.values(pe_model="/no/such/model")))
    assert "opens a model folder only inside" in raised.value.reason  # outside the roots
    assert str(raised.value).endswith(LEAVE_EMPTY)


def test_the_second_sentence_only_when_asked(defaults):
    result, figs = defaults
    assert "diff" not in figs
    same = SCENE.views(result, SCENE.values(pe_other=SCENE.values()["pe_text"]), only={"diff"})
    assert np.abs(np.asarray(same["diff"].data[0].z)).max() == 0.0
    other = SCENE.views(result, SCENE.values(), only={"diff"})["diff"]
    assert other.layout.title.text.startswith("First − second, layer 0, head 0")
    assert "tired|wide" in list(other.data[0].y)
    assert SCENE.views(result, SCENE.values(pe_other=" "), only={"diff"}) == {}


def test_a_typed_model_is_loaded_through_the_loader_handed_in(monkeypatch):
    from attnviz.topics.pretrained.model import bundled_model

    asked = []
    monkeypatch.setattr(pretrained, "_loader", lambda name: asked.append(name) or bundled_model())
    SCENE.run(SCENE.config(SCENE.values(pe_model="  some/model  ", pe_text="hi")))
    assert asked == ["some/model"]


# the page's sections built only while open (pages/pretrained_page.py), by the start of the
# figure or label a lesson step names in them, and the table key that opens each
CLOSED_SECTIONS = {
    "Across layers and heads": "pe_open_layers",
    "Attention rollout": "pe_open_layers",
    "Queries and keys of one head": "pe_open_proj",
}


def test_a_lesson_step_pointing_into_a_closed_section_opens_it():
    """A step whose figure lies in a section closed by default sets the key that opens it (else
    presenter mode would point at nothing), and a preset that a Try-this sends to the rollout or
    the head table opens it too."""
    from attnviz.lessons.loader import bundled_lessons

    steps = [s for lesson in bundled_lessons().values() for s in lesson.steps]
    inside = [
        (step, key)
        for step in steps
        if step.page == "pretrained"
        for start, key in CLOSED_SECTIONS.items()
        if step.figure.startswith(start)
    ]
    assert inside, "the bundled lesson points into a closed section (the projection's)"
    for step, key in inside:
        assert step.params.get(key) is True, (step.title, key)
    for preset in ("Previous-token heads", "Rollout on a long sentence"):
        assert TABLE.preset(preset)["pe_open_layers"] is True, preset
