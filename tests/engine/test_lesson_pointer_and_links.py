"""Presenter mode without a browser: a step's `figure` (what the bar scrolls to and marks) is read
and checked by the loader, every bundled step names one, and students' links are absolute on a
checked base address (a hostile configured value is refused with a reason)."""

from __future__ import annotations

import pytest

from attnviz.lessons.links import (
    PUBLIC_URL_ENV,
    BadAddress,
    absolute_link,
    base_address,
    browser_base,
    configured_base,
    this_computer_only,
)
from attnviz.lessons.loader import bundled_lessons, parse_lesson
from attnviz.lessons.model import FIGURE_MAX, LessonError

LESSON = """title = "T"
summary = "S"
seeds = ["004"]

[[steps]]
page = "soft-select"
title = "Weights"
narration = "Look."
point_at = "the weight bars"
{figure}
[steps.params]
ss_temp = 0.5
"""


def test_a_step_names_its_figure_by_the_start_of_its_title():
    step = parse_lesson(LESSON.format(figure='figure = "  2. Weights "')).steps[0]
    assert step.figure == "2. Weights"
    assert parse_lesson(LESSON.format(figure="")).steps[0].figure == ""


@pytest.mark.parametrize(
    ("figure", "detail"),
    [
        (f'figure = "{"x" * (FIGURE_MAX + 1)}"', "at most"),
        ('figure = """two\nlines"""', "one line"),
        ("figure = 3", "must be a string"),
        ('figures = "2. Weights"', "unknown key 'figures'"),
    ],
)
def test_a_bad_figure_is_refused_on_its_line(figure, detail):
    with pytest.raises(LessonError) as err:
        parse_lesson(LESSON.format(figure=figure), "mine.toml")
    assert err.value.line == 10, str(err.value)
    assert detail in str(err.value)


def test_every_bundled_step_names_the_figure_it_points_at():
    steps = [step for lesson in bundled_lessons().values() for step in lesson.steps]
    assert len(steps) > 50
    missing = [step.title for step in steps if step.point_at and not step.figure]
    assert not missing, missing


@pytest.mark.parametrize(
    ("text", "base"),
    [
        ("https://class.example.org/viz/", "https://class.example.org/viz"),
        ("http://10.0.0.7:8501", "http://10.0.0.7:8501"),
        ("  HTTPS://Hall-3.uni.edu  ", "HTTPS://Hall-3.uni.edu"),
    ],
)
def test_a_base_address_is_an_http_address_without_its_last_slash(text, base):
    assert base_address(text) == base


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("javascript:alert(1)", "http"),
        ("data:text/html,<b>x</b>", "characters"),
        ('https://class.example.org/"onmouseover="alert(1)', "characters"),
        ("https://class.example.org/it's", "characters"),
        ("https://class.example.org/a b", "characters"),
        ("https://class.example.org/`x`", "characters"),
        ("https://evil.example@class.example.org", "user"),
        ("https://class.example.org/?lesson=x", "query"),
        ("https://class.example.org/#top", "fragment"),
        ("https://class.example.org:http/", "not an address"),
        ("https:///viz", "no host"),
        ("ftp://class.example.org", "http"),
        ("https://class.example.org/\n", ""),  # stripped: valid
        ("", "empty"),
        ("https://x.org/" + "a" * 400, "longer"),
    ],
)
def test_a_hostile_or_broken_base_address_is_refused_with_its_reason(text, reason):
    if text.strip() == "https://class.example.org/":
        assert base_address(text) == "https://class.example.org"
        return
    with pytest.raises(BadAddress) as err:
        base_address(text)
    assert reason in str(err.value)


def test_the_configured_public_url_wins_and_a_refused_one_says_why():
    assert configured_base({}) == (None, None)
    assert configured_base({PUBLIC_URL_ENV: " "}) == (None, None)
    assert configured_base({PUBLIC_URL_ENV: "https://a.org/b/"}) == ("https://a.org/b", None)
    base, why = configured_base({PUBLIC_URL_ENV: "javascript:alert(1)"})
    assert base is None and why.startswith(f"{PUBLIC_URL_ENV} is not used:")


def test_the_browsers_address_gives_the_base_without_the_pages_path():
    assert browser_base("http://localhost:8501/soft-select", "soft-select") == (
        "http://localhost:8501"
    )
    assert browser_base("https://h.org/viz/text/", "text") == "https://h.org/viz"
    assert browser_base("https://h.org/viz", "home") == "https://h.org/viz"  # home: no path
    assert browser_base(None, "text") is None
    assert browser_base('https://h.org/"x/text', "text") is None


def test_an_absolute_link_joins_base_and_path():
    path = "/soft-select?ss_temp=0.05&ss_q1=0.9"
    assert absolute_link("https://h.org/viz", path) == "https://h.org/viz" + path
    assert absolute_link("https://h.org", "text") == "https://h.org/text"
    assert absolute_link(None, path) == path


@pytest.mark.parametrize(
    ("base", "host"),
    [
        ("http://localhost:8501", "localhost"),
        ("http://127.0.0.1:8501/viz", "127.0.0.1"),
        ("http://[::1]:8501", "::1"),
        ("http://0.0.0.0:8501", "0.0.0.0"),
        ("http://app.localhost", "app.localhost"),
    ],
)
def test_a_link_to_this_computer_says_phones_cannot_reach_it(base, host):
    note = this_computer_only(base)
    assert note is not None and host in note and "ATTNVIZ_PUBLIC_URL" in note


@pytest.mark.parametrize(
    "base", [None, "http://192.168.1.20:8501", "https://attention.example.edu/viz", "http://lab-pc"]
)
def test_a_link_phones_can_reach_gets_no_note(base):
    assert this_computer_only(base) is None
