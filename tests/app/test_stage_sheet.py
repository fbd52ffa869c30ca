"""The presenter's stage as the server writes it (attnviz.ui.lecture.stage): the sheet that
hides the page's other blocks names the step's views, its asked controls and its page's run
buttons, and nothing a lesson file could use to write CSS of its own (a lecturer's lesson is
uploaded: its names are data). What the sheets do in Chromium: tests/browser/test_stage_walk.py
and test_lessons_browser.py."""

from __future__ import annotations

import re

from attnviz.ui.lecture.stage import controls_sheet, stage_sheet

HOSTILE = (
    "x{} body{display:none}",
    "a, html",
    "v</style><script>alert(1)</script>",
    "ks_curves\n",
    "",
)


def selectors(sheet: str) -> set[str]:
    return set(re.findall(r"\.st-key-([A-Za-z0-9_-]+)", sheet))


def test_the_stage_sheet_keeps_the_views_the_controls_and_the_runs_buttons_it_is_given():
    sheet = stage_sheet(("ks_curves", "kernel_fit"), ("ks_width",), "ks", run=True)
    named = selectors(sheet)
    assert {"view_ks_curves", "view_kernel_fit", "ks_width", "presenter_bar"} <= named
    assert {"ks_start", "ks_pause", "ks_step", "ks_stop", "ks_status", "ks_measure"} <= named
    assert sheet.startswith("<style>") and sheet.endswith("</style>")
    assert sheet.count("<") == 2  # the two tags and nothing else


def test_a_step_apart_from_its_run_keeps_measure_and_not_start():
    named = selectors(stage_sheet(("vi_real",), (), "vi", run=False))
    assert "vi_measure" in named and "vi_start" not in named and "vi_status" not in named


def test_names_that_are_not_plain_keys_are_left_out_of_both_sheets():
    sheet = stage_sheet(HOSTILE, HOSTILE, "vi{}", run=True)
    asked = controls_sheet(HOSTILE)
    for written in (sheet, asked):
        assert "script" not in written and "body{" not in written and "html," not in written
        assert written.count("<style>") == 1 and written.count("</style>") == 1
    assert selectors(sheet) == {"presenter_bar", "stage_row"}  # the bar and the row: no name


def test_the_controls_sheet_leaves_the_asked_widgets_shown_and_only_them():
    asked = controls_sheet(("tt_lr", "tt_layers"))
    assert ".st-key-tt_lr *, .st-key-tt_layers *" in asked
    assert "[data-stage-asked]" not in asked
    none = controls_sheet(())
    assert ":not(*)" in none and "[data-stage-asked]" not in none
