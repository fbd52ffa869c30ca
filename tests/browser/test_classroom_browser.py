"""The live classroom in Chromium: a phone (390×844, touch) joins a room by its link and lands
on the presenter's step, the question and its options above the fold with no horizontal
scrolling and buttons at least 44 px tall; one tap votes, and the presenter's page (its own
link into the room) counts that vote. The room is opened on the server's own database (the
same ATTNVIZ_DATABASE_URL, or the default SQLite file)."""

from __future__ import annotations

from attnviz.classroom import Store
from attnviz.classroom.views import presenter_path
from attnviz.ui.lecture.position import lessons
from tests.support.browser import assert_no_exception, wait_idle

SLUG, STEP = "01_select_to_self_attention", 3  # soft select at T = 100, options in the file
PHONE = {"width": 390, "height": 844}
PROBE = """() => ({
  scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  options: [...document.querySelectorAll('[class*="st-key-room_option_"] button')].map((b) => {
    const box = b.getBoundingClientRect();
    return {text: b.innerText.trim(), bottom: box.bottom, height: box.height};
  }),
})"""


def test_a_phone_joins_by_link_votes_in_one_tap_and_the_projector_counts_it(browser, app_url, page):
    store = Store.from_env()
    code, key = store.open_room(SLUG)
    store.set_step(code, key, STEP)
    options = list(lessons()[SLUG].steps[STEP - 1].question.options)
    store.open_round(code, key, STEP, options, 1)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        student = phone.new_page()
        student.goto(f"{app_url}/?room={code}")
        student.wait_for_selector("[class*='st-key-room_option_'] button", timeout=60_000)
        wait_idle(student)
        probe = student.evaluate(PROBE)
        assert probe["scroll"] <= 0, "no horizontal scrolling"
        assert [o["text"] for o in probe["options"]] == options
        assert all(o["bottom"] <= PHONE["height"] and o["height"] >= 44 for o in probe["options"])
        assert_no_exception(student, "classroom_phone")
        student.locator("[class*='st-key-room_option_'] button").nth(1).tap()
        student.get_by_text(f"Your vote: {options[1]}").wait_for(timeout=10_000)
    finally:
        phone.close()
    assert store.counts(code, STEP, 1) == {o: int(o == options[1]) for o in options}
    page.goto(app_url + presenter_path("soft-select", SLUG, STEP, code, key))
    page.wait_for_selector(".st-key-room_count", timeout=60_000)
    wait_idle(page)
    assert "1 vote" in page.locator(".st-key-room_count").inner_text()
    assert key not in page.url, "the presenter key leaves the address bar"
    store.close_room(code, key)
    store.dispose()


def test_a_student_who_opens_another_page_stays_in_the_room_and_taps_back(browser, app_url):
    """The sidebar drops the URL's settings, not the room; "Back to the presenter's step" sits
    in the room's polling fragment, whose own rerun moved nothing (AppTest reruns the whole app
    and never saw it)."""
    store = Store.from_env()
    code, key = store.open_room(SLUG)
    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        student = desk.new_page()
        student.goto(f"{app_url}/?room={code}")
        student.wait_for_selector(".st-key-room_panel", timeout=60_000)
        wait_idle(student)
        student.locator("[data-testid=stSidebarNav] a", has_text="Attention on text").click()
        student.wait_for_url(f"**/text?room={code}*", timeout=30_000)
        student.wait_for_selector(".st-key-room_back button", timeout=30_000)
        student.locator(".st-key-room_back button").click()
        student.wait_for_url("**/soft-select?room=*", timeout=30_000)
        assert_no_exception(student, "classroom_back")
    finally:
        desk.close()
        store.close_room(code, key)
        store.dispose()
