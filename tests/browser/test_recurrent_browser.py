"""The recurrence page in Chromium: type your own date (and one it cannot read), a short run that
trains both models with their curves on one chart, and the live timing with its sentence."""

from __future__ import annotations

import pytest

from tests.support.browser import assert_no_exception, open_app_page, plotly_traces, wait_idle

pytestmark = pytest.mark.browser


def chart(page, title_part: str):
    return page.locator(".js-plotly-plot", has_text=title_part).last


def x_ticks(page, title_part: str) -> list[str]:
    """The drawn x tick labels of a chart, as read (zero-width spaces removed)."""
    ticks = chart(page, title_part).locator("g.xtick text").all_text_contents()
    return [t.replace("\u200b", "") for t in ticks]


def type_date(page, text: str) -> None:
    box = page.get_by_label("your date")
    box.fill(text)
    box.press("Enter")
    wait_idle(page)


def test_your_own_date_is_translated_and_drawn_and_a_bad_one_gets_a_message(page, app_url):
    open_app_page(page, app_url, "recurrent")
    assert x_ticks(page, "Your date") == list("23␣nov␣2026")
    type_date(page, "1/2/1999")
    assert x_ticks(page, "Your date") == list("1/2/1999")
    assert page.get_by_text("1999-02-01", exact=True).count() >= 1, "what the rule says"
    type_date(page, "<b>31 feb</b>")
    page.get_by_text("Not in the vocabulary").wait_for(timeout=15_000)
    assert page.locator("b", has_text="31 feb").count() == 0, "typed text is never HTML"
    assert_no_exception(page, "recurrent-date")


def test_a_short_run_draws_both_models_curves_and_the_alignment(page, app_url):
    open_app_page(page, app_url, "recurrent", "?rn_steps=50")
    page.get_by_role("button", name="Start").first.click()
    page.get_by_text("done —", exact=False).first.wait_for(timeout=120_000)
    wait_idle(page)
    names = [t.get("name") for t in plotly_traces(page, "Loss and") or []]
    assert "with attention validation exact match" in names, names
    assert "no attention validation exact match" in names, names
    assert "step 50" in chart(page, "Alignment at").locator(".gtitle").text_content()
    assert_no_exception(page, "recurrent-run")


def test_the_timing_is_measured_in_the_browser_session(page, app_url):
    open_app_page(page, app_url, "recurrent", "?rn_open_timing=true")
    page.get_by_role("button", name="Measure").click()
    chart(page, "One forward pass").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_text("one RNN forward pass takes", exact=False).count() == 1
    assert_no_exception(page, "recurrent-timing")
