"""The fairness check of a lesson's question (attnviz.lessons.fairness) on small steps written
here: a narration, title or pointer that tells the answer is caught; one that does not passes."""

from __future__ import annotations

import pytest

from attnviz.lessons.fairness import gives_away
from attnviz.lessons.loader import bundled_lessons
from attnviz.lessons.model import Question, Step
from attnviz.topics.fair_options import alone_of_its_kind, fair_order, kin_first

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


@pytest.mark.parametrize(
    ("narration", "title", "said"),
    [
        ("Look at the maps. Predict first.", "Almost uniform, untrained", "almost uniform"),
        ("Untrained, the weights come out roughly flat.", "Untrained", "roughly flat"),
        ("Predict first.", "About even before training", "about even"),
    ],
)
def test_the_answer_in_other_words_is_caught(narration, title, said):
    """ "Nearly even" said as "almost uniform", "roughly flat", "about even": the answer's
    words by meaning (the check compared the words as written before, and passed all three)."""
    found = gives_away(step(narration, title), OPTIONS[0], OPTIONS, ())
    assert f"it says {said!r}" in found, found


def test_inflected_words_tell_the_answer_too():
    options = ("The validation loss climbs back up", "Both fall together", "Both stay flat")
    narration = "Watch the validation losses climbing once the kernel may look itself up."
    found = gives_away(step(narration), options[0], options, ())
    assert "it says 'validation losses'" in found, found


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


@pytest.mark.parametrize(
    ("answer", "options", "kind"),
    [
        ("Undefined: n(x) = 0", ("Undefined: n(x) = 0", "Zero", "The mean"), "number"),
        ("Mary", ("Mary", "the", "his", "her"), "name"),
        ("␣Mary", ("␣the", "␣Mary", "␣a"), "name"),
        ("Ask Bob", ("Ask Bob", "Ask again", "Wait"), "name"),
    ],
)
def test_an_answer_alone_of_its_kind_is_caught(answer, options, kind):
    said = step("Predict first.")
    assert gives_away(said, answer, options, ()) == (
        f"the answer {answer!r} is the only option with a {kind}"
    )


@pytest.mark.parametrize(
    ("answer", "options"),
    [
        ("Undefined", ("Undefined", "Zero", "The mean of the labels")),  # sentence case
        ("Mary", ("Mary", "John", "the")),
        ("1/5", ("1/5", "1", "0")),
    ],
)
def test_options_of_one_kind_pass(answer, options):
    assert gives_away(step("Predict first."), answer, options, ()) == ""


def test_a_models_ranked_tokens_become_options_of_the_answers_kind_in_a_drawn_order():
    ranked = ["␣Mary", "␣the", "␣them", "␣John", "␣her", "␣Elizabeth", "␣a"]
    found = kin_first(ranked[0], ranked, 4)
    assert found[0] == "␣Mary" and set(found) == {"␣Mary", "␣John", "␣Elizabeth", "␣the"}
    assert alone_of_its_kind("␣Mary", found) == ""
    assert alone_of_its_kind("␣Mary", ranked[:3]) != ""  # the top three: the one name
    shown = fair_order(found, "key")
    assert shown == fair_order(found[::-1], "key") and sorted(shown) == sorted(found)


def test_bundled_questions_do_not_show_the_answer_first_as_written():
    """Authors wrote the answer first in 20 of the 24 fixed questions; shown in an order drawn
    from each prompt, it is first in about a third of them."""
    fixed = [
        s.question
        for lesson in bundled_lessons().values()
        for s in lesson.steps
        if s.question and not s.question.computed
    ]
    first = sum(q.options[0] == q.answer for q in fixed)
    assert len(fixed) >= 20 and first <= len(fixed) // 2, (first, len(fixed))
