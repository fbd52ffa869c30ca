"""Typed answers in AppTest (issue 59): on lesson 8's numeric question (how many scores a causal
window keeps) the presenter opens the vote, three phones type numbers (a formula is refused with
a message, then a number with a decimal comma is taken; one says how sure), the live count says
3, and Reveal draws the class's histogram with the page's own count and the median marked; the
phones then see the histogram. Played alone, a typed guess is checked."""

from __future__ import annotations

import json
import statistics

from attnviz.ui.lecture.answers import FACTS
from tests.app.test_classroom_app import database, messages, session, voting_room  # noqa: F401
from tests.app.test_lessons_page import open_step
from tests.support.apptest import no_exception

SLUG = "08_attention_at_scale"
STEP = 3  # "How many scores does a causal window of width 3 compute for this sentence?"
PAGE = "pages/attention_at_scale.py"


def histogram(at) -> dict:
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        if "The class's numbers" in json.dumps(spec["layout"].get("title")):
            return spec
    raise AssertionError("no histogram of the class's numbers")


def send(at, text: str, sure: int | None = None):
    box = at.text_input(key="room_typed_text_1").input(text)
    if sure is not None:
        at.session_state[f"room_sure_{STEP}_1"] = sure
    at.button(key="FormSubmitter:room_typed_3_1-Send").click()
    return box, at.run()


def test_phones_type_numbers_and_reveal_draws_their_histogram(database):  # noqa: F811
    presenter, code = voting_room(SLUG, STEP, PAGE)
    assert database.join(code).open_round.kind == "number"
    phones = [session({"room": code}, page=PAGE, voter=c * 32) for c in "abc"]
    send(phones[0], " 30 ", sure=5)
    send(phones[1], "=1+1")
    send(phones[2], "34")
    for phone in phones:
        no_exception(phone)
    assert "Your answer: 30" in messages(phones[0])
    assert "Type a number" in messages(phones[1]), "a formula is refused with a message"
    assert database.counts(code, STEP, 1) == {"30": 1, "34": 1}
    send(phones[1], "33,5")  # the box is there again: a decimal comma is read
    assert "Your answer: 33,5" in messages(phones[1])
    assert database.counts(code, STEP, 1) == {"30": 1, "34": 1, "33.5": 1}
    presenter.run()
    assert any("3 votes**" in m.value for m in presenter.markdown), "the live count"
    truth = presenter.session_state[FACTS]["scores_kept"].value
    presenter.button(key="lesson_reveal").click().run()
    no_exception(presenter)
    drawn = histogram(presenter)
    assert sorted(drawn["data"][0]["x"]) == [30.0, 33.5, 34.0]
    marks = sorted(shape["x0"] for shape in drawn["layout"]["shapes"])
    assert marks == sorted([float(truth), statistics.median([30, 33.5, 34])])
    assert any("True value" in m.value for m in presenter.markdown)
    phones[2].run()
    assert sorted(histogram(phones[2])["data"][0]["x"]) == [30.0, 33.5, 34.0], "phones see it"
    assert [b.sure for b in database.ballots(code, STEP)] == [5, None, None]


def test_a_number_question_played_alone_checks_the_typed_guess():
    """A student alone types a guess: the page's own count (or within 10 % of it) is right."""
    for offset, box, line in ((0, "success", "Right: "), (1000, "info", "Not quite: ")):
        at = open_step(SLUG, STEP, alone=True)
        truth = at.session_state[FACTS]["scores_kept"].value
        assert at.button(key="lesson_reveal").label == "Check my answer"
        at.text_input(key=f"lesson_guess_{SLUG}_{STEP}").input(str(truth + offset)).run()
        at.button(key="lesson_reveal").click().run()
        no_exception(at)
        said = [b.value for b in getattr(at, box)]
        assert any(s.startswith(line) and f"**{truth}**" in s for s in said), (offset, said)
