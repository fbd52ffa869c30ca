"""Handouts: a lesson as one static HTML file for students to take home: each step's title,
narration and what to point at, its question with the answer, and the step's main figure (its
page's scene's main view with the step's settings), interactive and offline (plotly.js is
embedded once).

    python -m attnviz.lessons.handout lessons/01_select_to_self_attention.toml handout.html

Each step's page runs as its scene (attnviz.topics.registry: no Streamlit, no AppTest) with the
step's settings, as the students' link opens it. Lesson text is Markdown with $…$ / $$…$$
LaTeX, rendered by attnviz.lessons.rich_text (raw HTML stays text; math becomes MathML, drawn by the
browser with nothing fetched). Figures are drawn at one fixed width with fixed margins that hold
their tick labels and axis titles (`handout_figure`), so no title sits on its ticks in any
window; a narrow window scrolls the figure in its own box.
"""

from __future__ import annotations

import copy
import html
import json
import math
import os
import re
import sys
import threading
import time
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from attnviz.lessons.loader import load_lesson
from attnviz.lessons.model import Lesson, LessonError, Step
from attnviz.lessons.rich_text import inline_html, markdown_html
from attnviz.lessons.typed import shown_answer
from attnviz.topics.registry import scene, scene_urls

STYLE = (
    "body{font-family:sans-serif;max-width:60rem;margin:2rem auto;line-height:1.45}"
    "section{border-top:1px solid #ccc;padding-top:1rem;margin-top:2rem}"
    ".point{color:#555;font-style:italic}.question{background:#f3f5f9;padding:0.6rem 1rem}"
    "math{font-size:1.1em}math[display=block]{margin:0.6rem 0}code.tex{color:#a00}"
    ".figure{overflow-x:auto}"
)
FIGURE_WIDTH = 900  # px: every figure is drawn at this width (the page's column is 960 px)
STANDOFF = 8  # px between an axis's tick labels and its title
CHAR_EM = 0.62  # a sans-serif character's width, in font sizes (digits and lower case)
AXIS = re.compile(r"[xy]axis\d*$")


def step_run(step: Step) -> tuple[dict | None, dict[str, str]]:
    """The step's main figure (as a dict; None for a step without a scene) and the answers its
    scene computes ({"top_key": "cherry"}: what a computed question's answer is; a typed
    question's as a student would type it, typed.shown_answer)."""
    if step.page not in scene_urls():
        return None, {}
    page = scene(step.page)
    values = page.values(step.params)
    result, views = page.compute(values, only={page.main_view})
    kind = "choice" if step.question is None else step.question.kind
    found = page.answers(result, values).items()
    answers = {name: shown_answer(kind, answer) for name, answer in found}
    return json.loads(views[page.main_view].to_json()), answers


def _font_size(layout: dict, axis: dict, key: str, scale: float = 1.0) -> float:
    base = (layout.get("font") or {}).get("size") or 12
    own = axis.get("title", {}).get("font", {}) if key == "title" else axis.get("tickfont", {})
    return own.get("size") or base * scale


def _tick_chars(figure: dict, name: str) -> int:
    """The longest tick label of axis `name` ("yaxis2"), in characters: its ticktext, else the
    text categories its traces put on it, else a number's 5."""
    axis = figure["layout"].get(name, {})
    if axis.get("showticklabels") is False:
        return 0
    labels = [str(t) for t in axis.get("ticktext") or []]
    ref = name[0] + name[5:]  # "y2"
    for trace in figure.get("data", []):
        values = trace.get(name[0])
        if trace.get(f"{name[0]}axis", name[0]) == ref and isinstance(values, list):
            labels += [v for v in values if isinstance(v, str)]
    return max((len(t) for t in labels), default=5)


def _axis_room(figure: dict, name: str) -> tuple[str, int]:
    """Which margin a titled axis needs and how many px: its tick labels (rotated as set), the
    standoff and its title's line."""
    layout, axis = figure["layout"], figure["layout"][name]
    tick, title = _font_size(layout, axis, "tick"), _font_size(layout, axis, "title", 1.2)
    long = _tick_chars(figure, name) * CHAR_EM * tick
    turn = math.radians(axis.get("tickangle") or 0)
    if name[0] == "x":  # horizontal labels: one line high; turned ones: their length's share
        need, side = abs(long * math.sin(turn)) + tick * (1.2 + abs(math.cos(turn))), "b"
    else:
        need, side = abs(long * math.cos(turn)) + tick * (1 + abs(math.sin(turn))), "l"
    if axis.get("side") in ("top", "right"):
        side = {"b": "t", "l": "r"}[side]
    return side, int(need + STANDOFF + 1.4 * title + 6)


def handout_figure(figure: dict) -> dict:
    """`figure` at the handout's fixed width, with fixed margins that leave every titled axis
    room for its tick labels and title (its title `STANDOFF` px off the labels), so no title
    sits on the ticks at any window width; a figure that sets its own width keeps it."""
    layout = figure.setdefault("layout", {})
    layout["width"] = layout.get("width") or FIGURE_WIDTH
    layout["autosize"] = False
    margin = layout.setdefault("margin", {})
    for name in [k for k in layout if AXIS.match(k)]:
        axis = layout[name]
        title = axis.get("title")
        if not (isinstance(title, dict) and title.get("text")):
            continue
        side, need = _axis_room(figure, name)
        margin[side] = max(margin.get(side, 0), need)
        title.setdefault("standoff", STANDOFF)
    return figure


def _step_html(
    number: int, step: Step, figure: dict | None, first_figure: bool, answers: dict[str, str]
) -> str:
    parts = [
        f"<section><h2>{number}. {inline_html(step.title)}</h2>",
        markdown_html(step.narration),
    ]
    if step.point_at:
        parts.append(f'<p class="point">Look at: {inline_html(step.point_at)}</p>')
    if step.question is not None:
        q = step.question  # a computed answer is the scene's text (a token): escaped, not Markdown
        answer = html.escape(answers.get(q.computed, "see the figure")) if q.computed else None
        parts.append(
            f'<div class="question"><b>Predict:</b> {inline_html(q.prompt)}<br>'
            f"<b>Answer:</b> {answer or inline_html(q.answer)}<br>"
            f"{markdown_html(q.explain)}</div>"
        )
    if figure is not None:
        drawn = go.Figure(handout_figure(copy.deepcopy(figure)))
        parts.append(
            '<div class="figure">'
            + pio.to_html(
                drawn,
                full_html=False,
                include_plotlyjs=first_figure,
                config={"displaylogo": False, "responsive": False},
            )
            + "</div>"
        )
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
        f"</title><style>{STYLE}</style></head><body><h1>{inline_html(lesson.title)}</h1>"
        f"{markdown_html(lesson.summary)}{''.join(body)}</body></html>"
    )


def write_handout(lesson: Lesson, out: Path) -> int:
    """Run every step's page, write the handout; returns the number of figures in it."""
    runs = [step_run(step) for step in lesson.steps]
    figures = [figure for figure, _ in runs]
    out.write_text(
        handout_html(lesson, figures, [answers for _, answers in runs]), encoding="utf-8"
    )
    return sum(f is not None for f in figures)


def settle_threads(timeout: float = 120.0) -> list[str]:
    """Wait (up to `timeout` s) for the daemon threads still running, and name those left.

    Python kills daemon threads where they stand when the interpreter finalises; one inside
    torch's C++ then aborts the process after the handout is written ("terminate called without
    an active exception", exit 134, every time). The AppTest-based handout ran app.py, whose
    warm-up thread loads and runs the pretrained model: an abort whenever the build ended first.
    Scenes start no thread; this keeps it so if one ever does. tqdm's monitor only sleeps in
    Python: skipped.
    """
    deadline = time.monotonic() + timeout
    waiting = [t for t in threading.enumerate() if t.daemon and type(t).__name__ != "TMonitor"]
    for thread in waiting:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [t.name for t in waiting if t.is_alive()]


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m attnviz.lessons.handout LESSON.toml OUT.html")
    try:
        lesson = load_lesson(Path(argv[0]))
    except LessonError as err:
        raise SystemExit(f"no handout: {err}") from None
    try:
        count = write_handout(lesson, Path(argv[1]))
    except OSError as err:
        raise SystemExit(f"no handout: cannot write {argv[1]}: {err.strerror or err}") from None
    print(f"{argv[1]}: {len(lesson.steps)} steps, {count} figures")
    if left := settle_threads():  # the last resort: the file is written and closed
        print(f"still running after the build: {', '.join(left)}; exiting now", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
