"""The fairness check of a lesson's question (attnviz.lessons.fairness) on small steps written
here: a narration, title or pointer that tells the answer is caught; one that does not passes."""

from __future__ import annotations

import pytest

from attnviz.lessons.fairness import gives_away
from attnviz.lessons.model import Question, Step

OPTIONS = ("Nearly even over all patches", "All on the centre patch", "All on the corners")


def step(narration: str, title: str = "Untrained", point_at: str = "", computed=False) -> Step:
    answer = "computed:top_token" if computed else OPTIONS[0]
    question = Question("Where?", () if computed else OPTIONS, answer)
    return Step("vision-patches", title, narration, {}, point_at, question=question)


@pytest.mark.parametrize(
    ("narration", "title", "point_at"),
    [
        ("Before training the weights are random, so they are nearly even.", "Untrained", ""),
        ("Look at the maps. Predict first.", "Nearly even, untrained", ""),
        ("Look at the maps. Predict first.", "Untrained", "the nearly even maps"),
    ],
)
def test_a_text_that_tells_the_answer_is_caught(narration, title, point_at):
    assert "nearly even" in gives_away(step(narration, title, point_at), OPTIONS[0], OPTIONS, ())


def test_a_text_that_sets_the_scene_passes():
    said = step("Before training, W_q and W_k are random. Predict where the class token looks.")
    assert gives_away(said, OPTIONS[0], OPTIONS, ()) == ""
    assert gives_away(said, OPTIONS[0], OPTIONS, ["the weights are nearly even"]) != ""


def test_a_computed_token_named_alone_is_caught_but_a_quoted_sentence_is_not():
    tokens = ("the", "cat", "sat", "mat")
    alone = step('"it" looks at "cat" here. Predict first.', computed=True)
    quoted = step('"the cat sat on the mat". Predict first.', computed=True)
    assert "cat" in gives_away(alone, "cat", tokens, ())
    assert gives_away(quoted, "cat", tokens, ()) == ""
