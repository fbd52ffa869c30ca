"""The Lessons page's parts: the bundled lessons with Present and Learn alone buttons each,
checking a lesson file someone wrote (errors name the line). (The sidebar's "this view as a
lesson step": attnviz.ui.lecture.step_export.)"""

from __future__ import annotations

import streamlit as st

from attnviz.lessons.fairness import check_fair
from attnviz.lessons.loader import parse_lesson
from attnviz.lessons.model import Lesson, LessonError
from attnviz.lessons.stage_check import check_stage
from attnviz.lessons.views_check import check_views
from attnviz.topics.registry import all_pages
from attnviz.ui.lecture.links import link_base, show_link
from attnviz.ui.lecture.position import lessons
from attnviz.ui.lecture.presenter import request_step

TITLES = {entry.url: entry.title for entry in all_pages()}
HERE = next(entry for entry in all_pages() if entry.script == "pages/lessons_page.py")


def lesson_card(lesson: Lesson) -> None:
    """Title, summary, seeds, Present (to a room) and Learn alone (self-paced)."""
    with st.container(border=True):
        st.markdown(
            f"**{lesson.title}** · {len(lesson.steps)} steps · seeds {', '.join(lesson.seeds)}"
        )
        st.caption(lesson.summary)
        row = st.container(horizontal=True, key=f"lesson_buttons_{lesson.slug}")
        row.button(
            "Present",
            key=f"present_{lesson.slug}",
            icon=":material/slideshow:",
            type="primary",
            on_click=request_step,
            args=(lesson.slug, 1, False),
            help="To a room: lecture mode, the students' link, live votes.",
        )
        row.button(
            "Learn alone",
            key=f"alone_{lesson.slug}",
            icon=":material/school:",
            on_click=request_step,
            args=(lesson.slug, 1, True),
            help="At your own pace: predict, check your answer, read why.",
        )


def bundled() -> None:
    """A card per lesson, two to a row."""
    cards = list(lessons().values())
    for start in range(0, len(cards), 2):
        for column, lesson in zip(st.columns(2), cards[start : start + 2], strict=False):
            with column:
                lesson_card(lesson)


def look_inside() -> None:
    """Pick a lesson: every step's page, narration, what to point at and question, to prepare
    the lecture, and each step's students' link (absolute, with a copy button)."""
    names = {lesson.title: slug for slug, lesson in lessons().items()}
    title = st.selectbox("Look inside a lesson", list(names), key="lesson_pick")
    lesson = lessons()[names[title]]
    base, note = link_base(HERE)
    if note:
        st.caption(note)
    for number, step in enumerate(lesson.steps, 1):
        with st.expander(f"{number}. {step.title} ({TITLES.get(step.page, step.page)})"):
            st.markdown(step.narration)
            if step.point_at:
                st.caption(f"Point at: {step.point_at}")
            if step.question is not None:
                st.markdown(f"**Question:** {step.question.prompt}")
            st.caption("Students' link (this step without the presenter's bar):")
            show_link(step, base)


def check_a_lesson_file() -> None:
    """Upload (or paste) a lesson file: its steps, or what is wrong and on which line."""
    upload = st.file_uploader("A lesson file (.toml)", type=["toml"], key="lesson_upload")
    text = st.text_area("…or paste it here", key="lesson_text", height=160)
    source = upload.getvalue().decode("utf-8", errors="replace") if upload is not None else text
    if not source.strip():
        st.caption("Nothing to check yet.")
        return
    try:
        name = upload.name if upload is not None else "pasted lesson"
        lesson = parse_lesson(source, name)
        with st.spinner("Drawing each step's page to check the views it names…"):
            check_views(lesson, name)
            check_stage(lesson, name)
            check_fair(lesson, name)
    except LessonError as err:
        st.error(str(err), icon=":material/error:")
        return
    st.success(f"“{lesson.title}”: {len(lesson.steps)} steps, all valid.")
    st.markdown(
        "\n".join(
            f"{i}. {s.title} ({TITLES.get(s.page, s.page)})" for i, s in enumerate(lesson.steps, 1)
        )
    )
