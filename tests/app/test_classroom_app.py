"""The live classroom in AppTest, a presenter session and student sessions on one SQLite file:
the presenter opens a room on a lesson's question step, a student joins by link and follows,
votes once, saying how sure (a second vote from the same device is refused), the presenter's
page counts it, round 2 after discussing, Reveal shows the grouped bars whose heights are the
votes cast here and how the sure did, Next moves the student; a student's link with presenter
junk in it steers nothing."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.classroom import NoSuchRoom, Store, StoreConfig
from attnviz.classroom.config import URL_VARIABLE, sqlite_url
from attnviz.classroom.views import ROOM
from attnviz.ui.lecture.answers import FACTS
from attnviz.ui.lecture.joined import ROOM_PARAM
from attnviz.ui.lecture.position import lessons
from attnviz.ui.lecture.room import ROOMS
from attnviz.ui.lecture.voter_id import SESSION_ID
from tests.support.apptest import no_exception, plotly_array
from tests.support.pages import ROOT

SLUG = "01_select_to_self_attention"  # step 1: soft select, a computed question; step 2: T = 1
VOTER = "ab" * 16


@pytest.fixture
def database(monkeypatch, tmp_path) -> Store:
    url = sqlite_url(tmp_path / "classroom.sqlite3")
    monkeypatch.setenv(URL_VARIABLE, url)
    made = Store(StoreConfig(url=url))
    yield made
    made.dispose()


def session(query: dict[str, str], page: str = "pages/soft_select.py", voter: str = "") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if voter:
        at.session_state[SESSION_ID] = voter
    at.run()
    at.switch_page(page)
    at.query_params.update(query)
    return at.run()


def voting_room(slug: str, step: int, page: str) -> tuple[AppTest, str]:
    """A presenter on a lesson's step who opened a room and its first round; the room's code."""
    presenter = session({"lesson": slug, "step": str(step)}, page=page)
    presenter.button(key="room_open").click().run()
    code, _ = presenter.session_state[ROOMS][slug]
    presenter.button(key="room_vote_1").click().run()
    no_exception(presenter)
    return presenter, code


def labels(at: AppTest) -> list[str]:
    return [button.label for button in at.main.button]


def vote(at: AppTest, option: str) -> AppTest:
    next(b for b in at.main.button if b.label == option).click().run()
    no_exception(at)
    return at


def messages(at: AppTest) -> str:
    return " ".join(str(el.value) for kind in ("success", "warning") for el in at.get(kind))


def charts(at: AppTest, title: str) -> list[dict]:
    """The Plotly figures drawn in `at` whose title holds `title`."""
    spec = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    return [f for f in spec if title in json.dumps(f.get("layout", {}).get("title"))]


def bars(at: AppTest) -> dict[str, list[int]]:
    found = charts(at, "room's answers")
    assert found, "the room's answers are drawn"
    lengths = {
        t["name"]: t["x"] if t.get("orientation") == "h" else t["y"] for t in found[0]["data"]
    }
    return {name: [int(n) for n in values] for name, values in lengths.items()}


def test_a_room_follows_the_presenter_counts_votes_once_and_reveals_them(database):
    presenter = session({"lesson": SLUG, "step": "1"})
    presenter.button(key="room_open").click().run()
    no_exception(presenter)
    code, _ = presenter.session_state[ROOMS][SLUG]
    assert any(code in str(h.proto.body) for h in presenter.get("html")), "the code, large"
    assert presenter.get("image"), "the QR code"
    student = session({"room": code}, voter=VOTER)  # AppTest drops the URL on a page switch
    no_exception(student)
    assert "lesson_next" not in [b.key for b in student.button]
    assert any(f"Room {code}" in str(m.value) for m in student.markdown)
    presenter.button(key="room_vote_1").click().run()  # the options the live page computed
    options = list(presenter.radio(key=f"lesson_guess_{SLUG}_1").options)
    student.run()
    assert set(options) <= set(labels(student)), labels(student)
    student.session_state["room_sure_1_1"] = 5  # "certain", before the tap (optional)
    vote(student, options[0])
    assert f"Your vote: {options[0]}" in messages(student)
    again = session({"room": code}, voter=VOTER)  # a reload: the same device, a new session
    assert f"Your vote: {options[0]}" in messages(again), "the reloaded phone shows its vote"
    assert not set(options) & set(labels(again)), "and no buttons to vote again"
    presenter.run()
    assert any("1 vote**" in m.value for m in presenter.markdown), "the live count"
    presenter.button(key="room_vote_2").click().run()
    student.run()
    student.session_state["room_sure_1_2"] = 4
    vote(student, options[1])
    presenter.run()
    for at in (presenter, student):  # hidden until Reveal: the count shows, not the answers
        assert not charts(at, "room's answers") and not charts(at, "Who moved")
    presenter.button(key="lesson_reveal").click().run()
    no_exception(presenter)
    expected_1 = [1 if option == options[0] else 0 for option in options]
    expected_2 = [1 if option == options[1] else 0 for option in options]
    assert list(bars(presenter).values()) == [expected_1, expected_2]
    moved = [[int(a == options[0] and b == options[1]) for b in options] for a in options]
    shift = plotly_array(charts(presenter, "Who moved")[0]["data"][0]["z"])
    assert shift.tolist() == moved, "the shift chart"
    assert any("1 of 1 student who voted twice changed" in m.value for m in presenter.markdown)
    answer = presenter.session_state[FACTS]["top_key"].answer
    said = " ".join(m.value.replace("\\", "") for m in presenter.markdown)
    assert f"Right, by how sure: sure (4–5) {int(options[1] == answer)} of 1." in said
    assert "Changed their answer, by how sure in round 1: sure (4–5) 1 of 1." in said
    student.run()
    assert list(bars(student).values()) == [expected_1, expected_2], "phones see it too"
    presenter.button(key="lesson_next").click().run()
    student.run()
    no_exception(student)
    assert student.session_state["ss_temp"] == lessons()[SLUG].steps[1].params["ss_temp"]
    assert any("step 2 of" in str(m.value) for m in student.markdown)


def test_presenter_junk_in_a_students_link_steers_nothing(database):
    code, key = database.open_room(SLUG)
    junk = {"room": code, "room_key": "x" * 43, "key": key[:-1] + "A"}
    student = session(junk)
    no_exception(student)
    assert not {"lesson_next", "lesson_reveal", "room_vote_1", "room_close"} & {
        b.key for b in student.button
    }
    stolen = session(junk | {"lesson": SLUG, "step": "5"})  # presenter mode, a wrong key
    no_exception(stolen)
    assert "Only the presenter can do this" in messages(stolen)
    assert "room_close" not in [b.key for b in stolen.button]
    assert database.join(code).step == 0, "the room did not move"


def test_closing_a_room_asks_once_and_keep_it_open_keeps_it(database):
    presenter = session({"lesson": SLUG, "step": "1"})
    presenter.button(key="room_open").click().run()
    code, _ = presenter.session_state[ROOMS][SLUG]
    presenter.button(key="room_close").click().run()
    no_exception(presenter)
    assert database.join(code).code == code, "one press closes nothing"
    assert "Close the room for every student?" in messages(presenter)
    presenter.button(key="room_close_no").click().run()
    assert database.join(code).code == code, "kept open"
    presenter.button(key="room_show").click().run()  # the dialog again: it asks nothing now
    assert "room_close_yes" not in [b.key for b in presenter.button]
    presenter.button(key="room_close").click().run()
    presenter.button(key="room_close_yes").click().run()
    no_exception(presenter)
    with pytest.raises(NoSuchRoom):
        database.join(code)


def test_a_student_who_opens_another_page_stays_in_the_room(database):
    code, key = database.open_room(SLUG)
    student = session({"room": code}, voter=VOTER)
    student.switch_page("pages/text_page.py").run()  # the sidebar: AppTest drops the URL
    no_exception(student)
    assert student.query_params.get(ROOM_PARAM) == code, "the address names the room again"
    assert any(f"Room {code}" in str(m.value) for m in student.markdown), "the room's panel"
    assert "room_back" in [b.key for b in student.button], "one tap back"
    student.button(key="room_back").click().run()
    no_exception(student)
    assert student.session_state["ss_temp"] == lessons()[SLUG].steps[0].params["ss_temp"]


def test_the_light_room_check_names_the_stores_url_parameter():
    assert ROOM_PARAM == ROOM
