"""The interventions page's scene on a tiny random Llama handed in with `use_model` (no real
model load): settings to views, the sections only while open, the lesson answers from the page's
own numbers, and the messages for pairs and heads it cannot use."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.interventions import readouts
from attnviz.topics.interventions.scene import SCENE, changes, columns
from attnviz.topics.language_model import bundled
from attnviz.topics.language_model import scene as llm_scene
from attnviz.topics.scene import SceneInputError
from tests.support.tiny_llama import tiny_llama

CLEAN = "the cat sat on the mat and the cat sat on the log"
CORRUPT = "the cat sat on the mat and the mat sat on the log"
SECTIONS = ("ip_open_heads", "ip_open_dla", "ip_open_ablate", "ip_open_circuit")
MAIN = {"ip_diff", "ip_resid", "ip_cell"}


@pytest.fixture(scope="module")
def tiny():
    model = tiny_llama()
    llm_scene.use_model(lambda device: model)
    yield model
    llm_scene.use_model(bundled.bundled_llm)


def values(**more):
    return SCENE.values({"ip_clean": CLEAN, "ip_corrupt": CORRUPT, "ip_ablate": "L1 H2"} | more)


def test_main_views_then_each_open_sections_own(tiny):
    out = SCENE.run(SCENE.config(values()))
    assert set(SCENE.views(out, values())) == MAIN
    opened = values(**{key: True for key in SECTIONS}, ip_exact=True)
    every = set(SCENE.views(out, opened)) - MAIN
    assert every == {name for names in SCENE.section_views.values() for name in names}
    assert "ip_heads" not in SCENE.views(out, values(ip_open_heads=True))  # exact: on demand


def test_the_logit_differences_are_the_models(tiny):
    out = SCENE.run(SCENE.config(values()))
    clean, corrupt = readouts.acts(tiny, out.pair)
    logits = clean.logits.numpy()
    assert out.diffs[0] == pytest.approx(float(logits[out.pair.right] - logits[out.pair.wrong]))
    assert out.pair.right == int(logits.argmax())  # blank answers: each run's top token
    first, second = corrupt.logits.topk(2).indices.tolist()
    assert first == out.pair.right  # the tiny model: both runs' top is the same token, so
    assert out.pair.wrong == second  # the wrong answer is the corrupted run's next, said so
    assert "Both answers are" in out.pair.notes[0]
    bars = SCENE.views(out, values(), only={"ip_diff"})["ip_diff"].data[0].y
    np.testing.assert_allclose(bars, out.diffs, rtol=1e-6)


def test_the_picked_cell_is_boxed_and_its_run_shown(tiny):
    v = values(ip_layer=1, ip_pos=12)
    out = SCENE.run(SCENE.config(v))
    figs = SCENE.views(out, v, only={"ip_resid", "ip_cell"})
    box = figs["ip_resid"].layout.shapes[0]
    assert (box.x0 + 0.5, box.y0 + 0.5) == (12, 1)
    sweep = readouts.resid_sweep(tiny, out.pair)
    np.testing.assert_allclose(figs["ip_cell"].data[0].y, sweep.top_probs[1, 12], rtol=1e-6)
    assert "Layer 1, position 12 patched" in figs["ip_cell"].layout.title.text


def test_answers_are_the_pages_own_numbers(tiny):
    out = SCENE.run(SCENE.config(values()))
    answers = SCENE.answers(out, values())
    share = readouts.shares(tiny, out.pair, readouts.resid_sweep(tiny, out.pair).diff)
    best = int(share[:1].mean(0).argmax())  # the first third of 2 layers: layer 0
    assert answers["early_position"].answer == f"{out.clean_tokens[best]} (position {best})"
    assert best in out.pair.differ  # at the embeddings only the changed token can matter
    parts = readouts.dla(tiny, out.pair).heads
    layer, head = divmod(int(parts.argmax()), parts.shape[1])
    assert answers["top_head"].answer == f"L{layer} H{head}"
    knocked = readouts.knocked(tiny, out.pair, ((1, 2),), "zero")
    flips = "No" if knocked.top == out.pair.right else "Yes"
    assert answers["knock_out_flips"].answer == flips


@pytest.mark.parametrize(
    ("more", "message"),
    [
        ({"ip_corrupt": "the dog"}, "same number of tokens"),
        ({"ip_corrupt": CLEAN}, "are the same"),
        ({"ip_clean": "  "}, "Type the clean prompt"),
        ({"ip_clean": "cat " * 60, "ip_corrupt": "mat " * 60}, "more than 40 tokens"),
    ],
)
def test_pairs_it_cannot_use_get_a_message(tiny, more, message):
    with pytest.raises(SceneInputError, match=message):
        SCENE.run(SCENE.config(values(**more)))


def test_equal_typed_answers_are_told_apart_with_a_note(tiny):
    out = SCENE.run(SCENE.config(values(ip_right=" cat", ip_wrong=" cat")))
    assert out.pair.right != out.pair.wrong
    assert any("Both answers are" in note for note in out.pair.notes)


def test_unreadable_heads_get_a_message_and_the_lesson_answer_survives(tiny):
    v = values(ip_ablate="L9 H0", ip_open_ablate=True)
    out = SCENE.run(SCENE.config(v))
    with pytest.raises(SceneInputError, match="layers 0–1, heads 0–3"):
        SCENE.views(out, v, only={"ip_ablation"})
    assert SCENE.answers(out, v)["knock_out_flips"].answer == "No"


def test_many_changed_positions_are_named_three_and_counted(tiny):
    out = SCENE.run(
        SCENE.config(
            values(
                ip_clean="the cat and the cat and the cat and the cat",
                ip_corrupt="the mat and the mat and the mat and the mat",
            )
        )
    )
    differ = out.pair.differ
    assert len(differ) > 3
    named = changes(out)
    assert named.endswith(f" and {len(differ) - 3} more") and named.count("→") == 3
    assert [c.endswith("*") for c in columns(out)] == [
        i in differ for i in range(len(out.pair.clean))
    ]
