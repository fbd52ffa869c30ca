"""Lessons: guided stories across the pages for the lecture hall (presenter mode), checking a
lesson file, and how to write one."""

import streamlit as st

from attnviz.lessons.loader import step_toml
from attnviz.topics.registry import scene_pages
from attnviz.ui.common import layout
from attnviz.ui.lecture.library import bundled, check_a_lesson_file, look_inside

layout.intro(
    "Lessons",
    "A lesson walks a room through the pages, one step at a time: each step opens a page with "
    "its settings, says what to look at, and may ask the class to **predict before it "
    "reveals** the figure. **Present** starts it in lecture mode for a room; **Learn alone** "
    "plays it at your own pace (you predict, check your answer, read why). → and ← move between "
    "steps; "
    "the address bar always holds the current step, so a link opens the same step.",
)
st.subheader("Bundled lessons")
bundled()
look_inside()

st.subheader("Check a lesson file")
check_a_lesson_file()

EXAMPLE = scene_pages()[0]  # the first page with a scene: the example step's page
st.subheader("Write your own")
st.markdown(
    "A lesson is a TOML file in the `lessons/` folder: a `title`, a `summary`, the `seeds` it "
    "follows, then one `[[steps]]` table per step with the `page` (its address, e.g. "
    f"`{EXAMPLE.url}`), a `title`, the `narration` (Markdown, LaTeX between `$`), optionally "
    "`point_at`, the page's settings under `[steps.params]` (any you leave out keep their "
    "defaults) and a `[steps.question]` (prompt, options, answer, explain). The sidebar of "
    "every page has **This view as a lesson step**: the current settings as a block to paste. "
    "A handout for students (one HTML file with each step's narration and figure): "
    "`python -m attnviz.lessons.handout lessons/<file>.toml handout.html`."
)
st.code(
    step_toml(EXAMPLE.url, {}, EXAMPLE.title, "What to say about it, in 2 to 5 sentences."),
    language="toml",
)
