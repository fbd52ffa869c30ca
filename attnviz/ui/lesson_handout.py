"""Handouts: a lesson as one static HTML file for students to take home: each step's title,
narration and what to point at, its question with the answer, and the step's main figure (its
page's scene's main view with the step's settings), interactive and offline (plotly.js is
embedded once).

    python -m attnviz.ui.lesson_handout lessons/01_select_to_self_attention.toml handout.html

Each step's page runs as its scene (attnviz.topics.registry: no Streamlit, no AppTest) with the
step's settings, as the students' link opens it. Narration is written as text (HTML-escaped;
LaTeX stays as $…$).
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from attnviz.topics.registry import SCENE_MODULES, scene
from attnviz.ui.lessons.loader import load_lesson
from attnviz.ui.lessons.model import Lesson, Step

STYLE = (
    "body{font-family:sans-serif;max-width:60rem;margin:2rem auto;line-height:1.45}"
    "section{border-top:1px solid #ccc;padding-top:1rem;margin-top:2rem}"
    ".point{color:#555;font-style:italic}.question{background:#f3f5f9;padding:0.6rem 1rem}"
)


def step_run(step: Step) -> tuple[dict | None, dict[str, str]]:
    """The step's main figure (as a dict; None for a step without a scene) and the answers its
    scene computes ({"top_key": "cherry"}: what a computed question's answer is)."""
    if step.page not in SCENE_MODULES:
        return None, {}
    page = scene(step.page)
    values = page.values(step.params)
    result, views = page.compute(values, only={page.main_view})
    answers = {name: found.answer for name, found in page.answers(result, values).items()}
    return json.loads(views[page.main_view].to_json()), answers


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in text.strip().split("\n\n") if b.strip()]
    return "".join(f"<p>{html.escape(b)}</p>" for b in blocks)


def _step_html(
    number: int, step: Step, figure: dict | None, first_figure: bool, answers: dict[str, str]
) -> str:
    parts = [f"<section><h2>{number}. {html.escape(step.title)}</h2>", _paragraphs(step.narration)]
    if step.point_at:
        parts.append(f'<p class="point">Look at: {html.escape(step.point_at)}</p>')
    if step.question is not None:
        q = step.question
        answer = answers.get(q.computed, "see the figure") if q.computed else q.answer
        parts.append(f'<div class="question"><b>Predict:</b> {html.escape(q.prompt)}<br>'
                     f"<b>Answer:</b> {html.escape(answer)}<br>{html.escape(q.explain)}</div>")  # fmt: skip
    if figure is not None:
        parts.append(pio.to_html(go.Figure(figure), full_html=False,
                                 include_plotlyjs=first_figure, config={"displaylogo": False}))  # fmt: skip
    parts.append("</section>")
    return "".join(parts)


def handout_html(
    lesson: Lesson, figures: list[dict | None], answers: list[dict[str, str]] | None = None
) -> str:
    """The whole handout; `figures[i]` is step i+1's main figure (None: the step has none),
    `answers[i]` the answers its page published."""
    body, embedded = [], False
    answers = answers or [{} for _ in lesson.steps]
    for number, (step, figure) in enumerate(zip(lesson.steps, figures, strict=True), 1):
        first = figure is not None and not embedded
        body.append(_step_html(number, step, figure, first, answers[number - 1]))
        embedded = embedded or figure is not None
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(lesson.title)}"
        f"</title><style>{STYLE}</style></head><body><h1>{html.escape(lesson.title)}</h1>"
        f"<p>{html.escape(lesson.summary)}</p>{''.join(body)}</body></html>"
    )


def write_handout(lesson: Lesson, out: Path) -> int:
    """Run every step's page, write the handout; returns the number of figures in it."""
    runs = [step_run(step) for step in lesson.steps]
    figures = [figure for figure, _ in runs]
    out.write_text(
        handout_html(lesson, figures, [answers for _, answers in runs]), encoding="utf-8"
    )
    return sum(f is not None for f in figures)


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m attnviz.ui.lesson_handout LESSON.toml OUT.html")
    lesson = load_lesson(Path(argv[0]))
    count = write_handout(lesson, Path(argv[1]))
    print(f"{argv[1]}: {len(lesson.steps)} steps, {count} figures")


if __name__ == "__main__":
    main(sys.argv[1:])
