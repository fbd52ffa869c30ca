"""The live classroom in Chromium: a presenter and three phones (390×844, touch) that join a
room by its link and land on the presenter's step, the question and its options above the fold
with no horizontal scrolling and buttons at least 44 px tall; one explores another page and
comes back; two rounds, every tap counted once; Reveal draws the class's taps beside the head's
row. The room is opened on the server's own database (the same ATTNVIZ_DATABASE_URL, or the
default SQLite file)."""

from __future__ import annotations

import contextlib
import re
import time
import warnings
from collections import Counter

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnviz.classroom import NoSuchRoom, Store
from attnviz.classroom.views import presenter_path
from attnviz.ui.lecture.position import lessons
from attnviz.ui.lecture.student import FOLLOW_S
from tests.support.browser import SHOTS, assert_no_exception, wait_idle

SLUG, STEP = "01_select_to_self_attention", 3  # soft select at T = 100, options in the file
PHONE = {"width": 390, "height": 844}
OPTIONS = "[class*='st-key-room_option_'] button"
PROBE = """() => ({
  scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  options: [...document.querySelectorAll('[class*="st-key-room_option_"] button')].map((b) => {
    const box = b.getBoundingClientRect();
    return {text: b.innerText.trim(), bottom: box.bottom, height: box.height};
  }),
})"""
TAP_SLUG = "03_tokens_positions_masks_heads"  # its predict-the-attention step, on the text page
TAP_STEP = next(
    i
    for i, step in enumerate(lessons()[TAP_SLUG].steps, 1)
    if step.question and step.question.taps_a_token
)
FIRST, SECOND = (1, 2, 12), (2, 3, 2)  # each phone's token, round 1 then round 2: one moves
# to the answer, one away from it, one was right and stays
DIALOG_ROWS = """() => {
  const plot = document.querySelector('[role=dialog] .js-plotly-plot');
  if (!plot || !plot.data) return null;
  const trace = plot._fullData[0];  // z decoded (data holds the base64 spec)
  const rows = Array.from(trace.z, (r) => Array.from(r));
  return {y: Array.from(trace.y), x: Array.from(trace.x), z: rows};
}"""


def tap(phone, index: int, number: int) -> str:
    """Tap the option at `index` on the ballot of round `number`; the option's text."""
    phone.wait_for_selector(f"[class*='st-key-room_option_{number}_'] button", timeout=60_000)
    wait_idle(phone)
    button = phone.locator(OPTIONS).nth(index)
    text = button.inner_text().strip()
    button.tap()
    try:
        phone.get_by_text("Your vote").wait_for(timeout=20_000)
    except PlaywrightTimeout:  # twice in CI (not in 48 taps here under load): tap again, as a
        # student would; the store refuses a second vote, and the counts below are checked
        _lost_tap(phone, index, number)
        button.tap()  # "already voted" if the first tap was counted but its message was not shown
        phone.get_by_text(re.compile("Your vote|You already voted")).wait_for(timeout=20_000)
    return text


def _lost_tap(phone, index: int, number: int) -> None:
    """Say in the run's warnings that a tap got no "Your vote" (with what the phone showed)."""
    path = SHOTS / f"classroom_lost_tap_{number}_{index}.png"
    phone.screenshot(path=str(path), full_page=True)
    shown = " | ".join(phone.locator("[data-testid='stMain']").inner_text().split("\n")[:12])
    message = f"round {number}, option {index}: no 'Your vote' in 20 s; shown: {shown}"
    warnings.warn(message, stacklevel=2)


def explore_and_come_back(phone, code: str) -> None:
    """Open another page from the sidebar, then "Back to the presenter's step"."""
    phone.locator("[data-testid='stExpandSidebarButton']").tap()
    phone.locator("[data-testid='stSidebar']").get_by_role("link", name="Soft select").tap()
    phone.wait_for_url(f"**/soft-select?room={code}*", timeout=30_000)
    phone.locator(".st-key-room_back button").tap()
    phone.wait_for_url(f"**/text?room={code}*", timeout=30_000)


def test_a_class_votes_twice_and_reveal_shows_the_taps_beside_the_head(browser, app_url, page):
    """The issue's walk: a presenter (1280×720) and three phones (five until the suite had to
    fit 10 minutes: each phone is a page load); the phones follow, one explores
    another page and comes back; two rounds; every tap counted once; the results stay hidden
    until Reveal, which draws both rounds' taps beside the real head's row."""
    store = Store.from_env()
    code, key = store.open_room(TAP_SLUG)
    store.set_step(code, key, TAP_STEP)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(app_url + presenter_path("text", TAP_SLUG, TAP_STEP, code, key))
    page.wait_for_selector(".st-key-room_vote_1 button", timeout=60_000)
    wait_idle(page)
    page.locator(".st-key-room_vote_1 button").click()
    contexts = [browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True) for _ in FIRST]
    try:
        phones = [context.new_page() for context in contexts]
        for phone in phones:
            phone.goto(f"{app_url}/?room={code}")
        taps = {1: [], 2: []}
        for i, phone in enumerate(phones):
            if i == 0:
                phone.wait_for_selector(OPTIONS, timeout=60_000)
                probe = phone.evaluate(PROBE)
                assert probe["scroll"] <= 0, "no horizontal scrolling"
                assert all(o["bottom"] <= PHONE["height"] for o in probe["options"]), probe
                assert all(o["height"] >= 44 for o in probe["options"]), "tappable"
            if i == len(FIRST) - 1:
                explore_and_come_back(phone, code)
            taps[1].append(tap(phone, FIRST[i], 1))
        counted = f"{len(FIRST)} votes"
        page.wait_for_function(
            f"document.querySelector('.st-key-room_count').innerText.includes('{counted}')"
        )
        assert not page.locator("[role=dialog]").count(), "nothing shown before Reveal"
        page.locator(".st-key-room_vote_2 button").click()
        for i, phone in enumerate(phones):
            taps[2].append(tap(phone, SECOND[i], 2))
        for number in (1, 2):  # every tap counted once, for the token tapped
            counted = {o: n for o, n in store.counts(code, TAP_STEP, number).items() if n}
            assert counted == dict(Counter(taps[number])), number
        page.locator(".st-key-lesson_reveal button").click()
        page.wait_for_function(f"({DIALOG_ROWS})() !== null", timeout=30_000)
        wait_idle(page)
        drawn = page.evaluate(DIALOG_ROWS)
        assert drawn["y"] == ["round 1's taps", "round 2's taps", "the head's weights"]
        for row, number in ((0, 1), (1, 2)):
            shares = [taps[number].count(t.removesuffix(" ✓")) / len(FIRST) for t in drawn["x"]]
            assert drawn["z"][row] == pytest.approx(shares)
        assert "most popular wrong guess" in page.locator("[role=dialog]").inner_text()
        page.screenshot(path=str(SHOTS / "classroom_projector_reveal.png"))
        phones[0].wait_for_selector(".js-plotly-plot", timeout=30_000)
        phones[0].screenshot(path=str(SHOTS / "classroom_phone_reveal.png"))
        for phone in [*phones, page]:
            assert_no_exception(phone, "classroom_walk")
    finally:
        for context in contexts:
            context.close()
        store.close_room(code, key)
        store.dispose()


def test_a_student_who_opens_another_page_stays_in_the_room_and_taps_back(browser, app_url):
    """The sidebar drops the URL's settings, not the room; the browser's Back returns to the
    page before in one press; "Back to the presenter's step" sits
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
        entries = student.evaluate("history.length")
        student.locator("[data-testid=stSidebarNav] a", has_text="Attention on text").click()
        student.wait_for_url(f"**/text?room={code}*", timeout=30_000)
        student.wait_for_selector(".st-key-room_back button", timeout=30_000)
        wait_idle(student)
        student.wait_for_timeout(FOLLOW_S * 1200)  # the room's poll has run: it writes no entry
        assert student.evaluate("history.length") == entries + 1, "one page, one entry"
        student.go_back()  # one press of Back: the page before (it took 6)
        student.wait_for_url("**/soft-select?room=*", timeout=30_000)
        student.get_by_role("heading", name="Soft select").wait_for(timeout=30_000)
        student.go_forward()
        student.wait_for_url(f"**/text?room={code}*", timeout=30_000)
        student.wait_for_selector(".st-key-room_back button", timeout=30_000)
        student.locator(".st-key-room_back button").click()
        student.wait_for_url("**/soft-select?room=*", timeout=30_000)
        assert_no_exception(student, "classroom_back")
        closed_room_is_said(store, student, code, key)
    finally:
        desk.close()
        with contextlib.suppress(NoSuchRoom):  # closed by the test already
            store.close_room(code, key)
        store.dispose()


TOLD_MS = 2500  # a phone hears of a move, a vote or the room's end (measured idle: p95 1.1 s)
BLURRED = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
  .filter((el) => getComputedStyle(el).filter.includes('blur')).length"""


def closed_room_is_said(store, student, code: str, key: str) -> None:
    """The presenter moves on, then a vote opens (the figures blur), then the presenter closes
    the room: the device shows the step, then blurs, then says the room has closed (its ballot
    gone, its figures clear again), each within TOLD_MS (issue 59: the phones showed nothing,
    and a move reached them at their next 2-second poll)."""
    store.set_step(code, key, 2)  # a move: the phone hears of it within 2 s (the room's pulse;
    student.get_by_text("step 2 of").wait_for(timeout=TOLD_MS)  # its own poll: 5 s)
    store.set_step(code, key, 1)
    store.open_round(code, key, 1, ["a", "b"])
    student.wait_for_function(f"({BLURRED})() > 0", timeout=TOLD_MS)
    store.close_room(code, key)
    told_by = time.monotonic() + TOLD_MS / 1000
    student.get_by_text(f"Room {code} has closed").wait_for(timeout=TOLD_MS)
    # the page's run goes on after the notice: the old panel and the blur leave as it does
    left_ms = max(1.0, (told_by - time.monotonic()) * 1000)
    student.locator(".st-key-room_panel").wait_for(state="detached", timeout=left_ms)
    left_ms = max(1.0, (told_by - time.monotonic()) * 1000)
    student.wait_for_function(f"({BLURRED})() == 0", timeout=left_ms)
    assert student.get_by_role("link", name="Join another room").count() == 1
