"""Lessons in AppTest: the Lessons page lists every bundled lesson and checks a lesson file (a
step on a page that does not exist, a question whose title gives its answer away, a narration
asking for a control its stage does not show);
the first, the fullest and the last step of every bundled lesson open from their links with the
presenter's bar and the step's settings in the page's widgets; a question blurs the figures
until Reveal, and a computed answer follows the live page (change the input, the answer
changes); students' links are absolute on the configured public URL, and a hostile one is
refused with a message."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.lessons.links import PUBLIC_URL_ENV
from attnviz.topics.registry import all_pages, page_tables
from attnviz.ui.lecture.position import lessons
from tests.support.apptest import no_exception, open_page
from tests.support.pages import ROOT

PATHS = {entry.url: entry.script for entry in all_pages()}


def open_step(slug: str, number: int, alone: bool = False) -> AppTest:
    """Step `number` of lesson `slug`, as from its link (app.py runs: the presenter's bar;
    `alone`: the link of a lesson played alone)."""
    step = lessons()[slug].steps[number - 1]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(PATHS[step.page])  # after a first run: through app.py's navigation
    at.query_params.update({"lesson": slug, "step": str(number)})
    if alone:
        at.query_params["alone"] = "true"
    return at.run()


def progress_text(at: AppTest) -> str:
    bars = at.get("progress")
    return " ".join(str(getattr(b, "proto", b).text) for b in bars)


def test_the_lessons_page_lists_every_bundled_lesson_and_checks_a_file():
    at = open_page("pages/lessons_page.py")
    no_exception(at)
    assert len(lessons()) >= 5
    for slug in lessons():
        assert at.button(key=f"present_{slug}")
    broken = 'title = "x"\nsummary = "y"\nseeds = []\n\n[[steps]]\npage = "nowhere"\n'
    at.text_area(key="lesson_text").set_value(broken).run()
    no_exception(at)
    assert any("line 6" in e.value and "nowhere" in e.value for e in at.error), [
        e.value for e in at.error
    ]
    at.text_area(key="lesson_text").set_value(GIVES_AWAY).run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any("line 5" in e and "'almost uniform'" in e for e in errors), errors
    at.text_area(key="lesson_text").set_value(OFF_STAGE).run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any("line 5" in e and "'head slider', a control" in e for e in errors), errors


GIVES_AWAY = """title = "x"
summary = "y"
seeds = []

[[steps]]
page = "vision-patches"
title = "Almost uniform before training"
narration = "Each small map is one head of one layer."
views = ["vi_head_maps"]
[steps.question]
prompt = "Before any training, how are the class token's weights spread?"
options = ["Nearly even over all patches", "All on the centre patch", "All on the corners"]
answer = "Nearly even over all patches"
"""  # the title says the answer in other words
OFF_STAGE = """title = "x"
summary = "y"
seeds = []

[[steps]]
page = "text"
title = "Several heads"
narration = "Four heads of 8 dimensions. Step through them with the head slider."
views = ["query_row"]
"""  # the stage shows the row alone: no head slider


def binding_steps(lesson) -> list[int]:
    """The steps whose links the app test opens: the first, the one that sets the most
    parameters, and the last (every step's settings run on its scene without Streamlit:
    tests/engine/test_lessons.py)."""
    most = max(range(len(lesson.steps)), key=lambda i: len(lesson.steps[i].params))
    return sorted({1, most + 1, len(lesson.steps)})


@pytest.mark.parametrize("slug", list(lessons()))
def test_a_step_opens_with_its_settings(slug):
    lesson = lessons()[slug]
    for number in binding_steps(lesson):
        step = lesson.steps[number - 1]
        at = open_step(slug, number)
        no_exception(at)
        assert f"step {number} of {len(lesson.steps)}" in progress_text(at), (slug, number)
        for key, value in step.params.items():  # (defaults a setting narrows may narrow too)
            assert key in at.session_state, (slug, number, key)
            held = at.session_state[key]
            held = tuple(held) if isinstance(held, list) else held
            assert held == value, (slug, number, key, held, value)
        assert at.session_state["lecture"], "presenter mode is lecture mode"


def first_computed_step(name: str) -> tuple[str, int]:
    for slug, lesson in lessons().items():
        for number, step in enumerate(lesson.steps, 1):
            if step.question is not None and step.question.computed == name:
                return slug, number
    pytest.skip(f"no bundled lesson asks a computed {name!r} question")


def stage_data(at: AppTest) -> dict:
    """What the presenter's stage was told to show and veil (its component's data)."""
    (stage,) = [c for c in at.get("bidi_component") if "views" in (c.proto.json or "")]
    return json.loads(stage.proto.json)


def test_a_question_hides_the_figures_until_reveal_and_its_answer_follows_the_page():
    slug, number = first_computed_step("top_key")
    at = open_step(slug, number)
    no_exception(at)
    guess = at.radio(key=f"lesson_guess_{slug}_{number}")
    assert len(guess.options) >= 2
    assert stage_data(at)["hidden"] == list(lessons()[slug].steps[number - 1].views)  # veiled
    at.button(key="lesson_reveal").click().run()
    no_exception(at)
    assert stage_data(at)["hidden"] == [], "revealed"
    answers = [s.value for s in at.success if s.value.startswith("Answer:")]
    assert answers, [s.value for s in at.success]
    step = lessons()[slug].steps[number - 1]
    if step.page == "soft-select":  # move the query to another corner: another key wins
        before = answers[0]
        at.toggle(key="lesson_controls").set_value(True).run()  # the sliders: the page's own
        q1, q2 = at.session_state["ss_q1"], at.session_state["ss_q2"]
        at.slider(key="ss_q1").set_value(-q1 if q1 else -1.0).run()
        at.slider(key="ss_q2").set_value(-q2 if q2 else 1.0).run()
        after = [s.value for s in at.success if s.value.startswith("Answer:")]
        assert after and after[0] != before, "the answer is computed from the live page"


def test_the_students_link_is_absolute_on_the_configured_public_url(monkeypatch):
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://class.example.org/viz/")
    slug, lesson = next(iter(lessons().items()))
    step = lesson.steps[0]
    at = open_step(slug, 1)
    no_exception(at)
    links = [c.value for c in at.code if "://" in c.value]
    assert len(links) == 1, [c.value for c in at.code]
    parts = urlsplit(links[0])
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "class.example.org",
        f"/viz/{step.page}",
    )
    table = page_tables()[step.page]
    changed = {key for key, value in step.params.items() if value != table[key].default}
    assert changed and changed <= set(parse_qs(parts.query)), (changed, parts.query)


@pytest.mark.parametrize("value", ["javascript:alert(1)", 'https://class.example.org/"><b>x'])
def test_a_hostile_public_url_is_refused_with_a_message(monkeypatch, value):
    """The Lessons page's list: every step's link stays a path, and the page says why."""
    monkeypatch.setenv(PUBLIC_URL_ENV, value)
    at = open_page("pages/lessons_page.py")
    no_exception(at)
    first = next(iter(lessons().values()))
    links = [c.value for c in at.code if c.language != "toml"]
    assert len(links) == len(first.steps), links
    assert all(link.startswith("/") and "javascript" not in link for link in links), links
    notes = [c.value for c in at.caption if c.value.startswith(f"{PUBLIC_URL_ENV} is not used")]
    assert notes, [c.value for c in at.caption]


def test_a_rerun_sent_before_the_browser_saw_next_does_not_undo_it():
    """The browser sends each rerun with the address it shows, and a newer rerun replaces a
    pending one, address included: a rerun sent before the browser saw Next (live curves, the
    stage's room) carries the step just left. It is drawn at the step moved to, with that
    step's settings; once the browser has shown the new step, an address is followed again."""
    slug, lesson = next(iter(lessons().items()))
    first, second = lesson.steps[0], lesson.steps[1]
    assert first.page == second.page and first.params != second.params, "a step on one page"
    at = open_step(slug, 1)
    at.button(key="lesson_next").click().run()
    assert "step 2 of" in progress_text(at) and at.query_params["step"] == "2"
    at.query_params["step"] = "1"  # the stale rerun: the address of the step just left
    at.run()
    no_exception(at)
    assert "step 2 of" in progress_text(at), progress_text(at)
    assert at.query_params["step"] == "2"
    for key, value in second.params.items():
        held = at.session_state[key]
        assert (tuple(held) if isinstance(held, list) else held) == value, key
    at.run().run()  # the browser's own reruns at step 2: the move is settled
    at.query_params["step"] = "1"  # a person's own way back (a link, Back): followed
    at.run()
    assert "step 1 of" in progress_text(at), progress_text(at)


def test_a_widget_sent_back_at_the_last_steps_value_takes_the_steps_again():
    """The browser's widget state can lag a rerun behind a step change: a rerun it sends then
    carries the last step's value (L1 s11's page drew s10's `Q, K, V` and its stage stayed
    empty). With the page's controls hidden, such an echo is replaced by the step's value; a
    value the presenter sets with the controls shown stands."""
    slug = "01_select_to_self_attention"
    steps = lessons()[slug].steps
    number = next(n for n, s in enumerate(steps, 1) if s.params.get("sa_reveal") == "Q, K, V")
    assert steps[number - 2].params["sa_reveal"] == "z"  # the step before
    at = open_step(slug, number - 1)
    at.button(key="lesson_next").click().run()
    assert at.session_state["sa_reveal"] == "Q, K, V"
    at.select_slider(key="sa_reveal").set_value("z").run()  # the last step's value, late
    assert at.session_state["sa_reveal"] == "Q, K, V"
    at.toggle(key="lesson_controls").set_value(True).run()
    at.select_slider(key="sa_reveal").set_value("z").run()  # the presenter's own move
    assert at.session_state["sa_reveal"] == "z"
    no_exception(at)


def written_question() -> tuple[str, int, str, str]:
    """The first bundled step asking a question with written options: (slug, number, the
    answer, another option)."""
    for slug, lesson in lessons().items():
        for number, step in enumerate(lesson.steps, 1):
            question = step.question
            if question is not None and question.computed is None and question.options:
                other = next(o for o in question.options if o != question.answer)
                return slug, number, question.answer, other
    pytest.fail("no bundled lesson asks a question with written options")


def test_learn_alone_opens_the_first_step_played_alone():
    at = open_page("pages/lessons_page.py")
    slug = next(iter(lessons()))
    at.button(key=f"alone_{slug}").click().run()
    no_exception(at)
    assert at.query_params["lesson"] == slug and at.query_params["step"] == "1"
    assert at.query_params["alone"] == "true"
    assert "step 1 of" in progress_text(at)
    assert not at.session_state["lecture"], "played alone: the page keeps its own sizes"


def test_a_lesson_played_alone_checks_each_answer_and_has_no_room():
    slug, number, answer, other = written_question()
    for picked, box, line in ((answer, "success", "Right: "), (other, "info", "Not quite: ")):
        at = open_step(slug, number, alone=True)
        no_exception(at)
        assert not at.session_state["lecture"]
        captions = " ".join(c.value for c in at.caption)
        assert "without the presenter's bar" not in captions, "no students' link when alone"
        reveal = at.button(key="lesson_reveal")
        assert reveal.label == "Check my answer"
        at.radio(key=f"lesson_guess_{slug}_{number}").set_value(picked).run()
        at.button(key="lesson_reveal").click().run()
        no_exception(at)
        said = [b.value.replace("\\", "") for b in getattr(at, box)]  # as read (no escapes)
        assert any(s.startswith(line) and f"**{answer}**" in s for s in said), (picked, said)
    at.button(key="lesson_next").click().run()  # the next step is played alone too
    no_exception(at)
    assert at.query_params["alone"] == "true" and at.query_params["step"] == str(number + 1)
