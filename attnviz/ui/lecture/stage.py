"""Presenter mode's stage: a lesson step shows the views it names (`views` in the lesson file)
and the widgets its narration asks the presenter to move (`controls`), and nothing else of its
page, full width and sized to the screen under the lesson's bar; a question's answer-bearing
views (`hides`, else all the step's views) are veiled until Reveal, the room they take showing
the question.

The server lays the stage out: it opens a place for each view before the page draws
(attnviz.ui.common.here.open_places: side by side where the room is wide), and a sheet hides
the rest of the page (`stage_sheet`). static/stage.js, a components-v2
component (in the app's page, offline, no iframe), measures and veils: it reports the room the
views have, which the server draws them to, leaving an empty marker keyed with that room, so
the script can mark the page settled (`data-stage-settled`) once what is drawn matches what it
measures; it fits the views to the screen, and veils what the question hides. The names and
the question reach the script as data, never as code or HTML. "Page controls"
turns the stage off: the whole page, as without a lesson."""

from __future__ import annotations

import re
from functools import cache

import streamlit as st

from attnviz.lessons.math_text import plain
from attnviz.lessons.model import Step
from attnviz.lessons.stage import Room, Stage, hidden_views
from attnviz.topics import registry
from attnviz.ui.common import here
from attnviz.ui.common.here import STAGE_ROW, VIEW_PREFIX
from attnviz.ui.common.sidebar import STATIC, css

STAGE = st.components.v2.component(
    "attnviz_stage", js=(STATIC / "stage.js").read_text(encoding="utf-8")
)


DRAWN_PREFIX = "stage_drawn_"  # the marker's key: stage_drawn_<height>x<width>x<rows>
# The sheets name keys only when they are plain keys (letters, digits, `_`, `-`): a lesson file
# names its views and controls, and nothing in it is written into a sheet as CSS.
PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,80}")
MAIN = '[data-testid="stMainBlockContainer"]'
BLOCKS = (
    '[data-testid="stElementContainer"]',
    '[data-testid="stLayoutWrapper"]',
    '[data-testid="stColumn"]',
)
ALWAYS = (".st-key-presenter_bar", '[class*="st-key-lesson_"]')  # the lesson's bar and its parts
# a training page's Start, Pause / Resume, Step and Stop, its status line and how a recorded run
# is replayed (its Reset and the page's own Reset stay with the page's controls)
RUN = ("start", "pause", "resume", "step", "stop", "status", "replay")
MEASURE = "measure"  # a live timing's Measure: no run, kept on any step
ASKED_MARK = "[data-stage-asked] *"  # hide_controls.css's place for the asked widgets


def measured_room() -> Room | None:
    """The room the stage component last reported (its state), which this run's views are drawn
    to: once it equals what the stage measures, the stage has settled."""
    state = st.session_state.get(here.STAGE_KEY) or {}
    return Room.read(state.get("room") if hasattr(state, "get") else None)


def stage(step: Step, where: str, on: bool, revealed: bool) -> None:
    """Mount the stage of `step` (`where`: "<slug>:<n>", a new step folds the sidebar); `on`:
    the page's controls are hidden, so the stage shows the views alone. This run's Stage value
    (its views, what is veiled, the room the browser last measured) is made here, once, for the
    views the page draws next."""
    st.html(css("stage"))  # static CSS, never user text
    prompt = plain(step.question.prompt) if step.question is not None else ""
    apart = registry.scene(step.page).apart_views if registry.has_scene(step.page) else ()
    data = {
        "views": list(step.views),
        "controls": list(step.controls),
        "hidden": list(hidden_views(step, revealed)),
        "question": f"Predict first: {prompt}" if prompt else "",
        "step": where,
        "on": on and bool(step.views),
        # a training page's Start, Pause and Step, unless the step shows only views apart from
        # its run (the vision page's real ViT)
        "run": not (step.views and set(step.views) <= set(apart)),
    }
    shown = Stage.of(step, where, revealed, measured_room()) if data["on"] else None
    here.set_stage(shown)
    STAGE(data=data, key=here.STAGE_KEY, on_room_change=lambda: None)
    if shown is not None:  # the server's layout: the rest of the page hidden, the views' places
        prefix = registry.scene(step.page).table.prefix if registry.has_scene(step.page) else ""
        st.html(stage_sheet(step.views, step.controls, prefix, data["run"]))  # plain keys only
        here.open_places(shown)


def mark_drawn() -> None:
    """After the page (app.py, however the page's script ended): an empty marker naming the room
    this run's views were drawn for, when this run's stage shows views alone. Left at the top,
    before the views, it told the stage it had settled while the last room's views still showed
    (the walk caught L7 s2's heads cut at 1130 of 1080 px after a resize)."""
    shown = here.stage()
    if shown is not None and shown.room is not None:
        marker = st.container(key=DRAWN_PREFIX + shown.room.marker())
        marker.html("<span></span>")  # static: an empty container is not drawn at all


def plain_keys(keys: tuple[str, ...] | list[str]) -> list[str]:
    """The keys that may be written into a selector, in order; anything else is left out."""
    return [key for key in keys if PLAIN_KEY.fullmatch(key)]


def shown(views: tuple[str, ...], controls: tuple[str, ...], prefix: str, run: bool) -> str:
    """A selector list of what the stage shows: the bar, the views, the asked widgets, the page's
    Measure and, when the step shows its run (`run`), the run's buttons and status."""
    named = [f".st-key-{VIEW_PREFIX}{name}" for name in plain_keys(views)]
    named += [f".st-key-{key}" for key in plain_keys(controls)]
    if PLAIN_KEY.fullmatch(prefix):
        named += [f".st-key-{prefix}_{what}" for what in (*(RUN if run else ()), MEASURE)]
    return ", ".join((*ALWAYS, *named))


def stage_sheet(views: tuple[str, ...], controls: tuple[str, ...], prefix: str, run: bool) -> str:
    """The step's stage as a <style> block: every block of the page's main area that holds
    nothing shown, is nothing shown and is inside nothing shown is hidden; a page column that
    holds something shown spans the page (the stage's own row of views keeps its columns)."""
    keep = shown(views, controls, prefix, run)
    blocks = f"{MAIN} :is({', '.join(BLOCKS)})"
    return (
        "<style>"
        f"{blocks}:not(:has({keep})):not({keep}):not(:is({keep}) *) {{ display: none !important; }}"
        f'{MAIN} [data-testid="stColumn"]:has({keep}):not(.st-key-{STAGE_ROW} *) {{'
        " width: 100% !important; max-width: 100% !important; flex: 1 1 100% !important;"
        " min-width: 0 !important; }"
        "</style>"
    )


@cache
def _hide_controls() -> str:
    """static/hide_controls.css, read once per process (the sheet is written on every rerun)."""
    return (STATIC / "hide_controls.css").read_text(encoding="utf-8")


def controls_sheet(controls: tuple[str, ...]) -> str:
    """static/hide_controls.css as a <style> block, the widgets `controls` (a step's asked
    controls) left shown."""
    text = _hide_controls()
    asked = ", ".join(f".st-key-{key} *" for key in plain_keys(controls)) or ":not(*)"
    return f"<style>{text.replace(ASKED_MARK, asked)}</style>"
