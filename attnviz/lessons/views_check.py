"""The views a lesson step names, checked against what its page draws in the step's settings.

A step's `views` are the names its presenter's stage shows (attnviz.ui.lecture.stage). Each must
be a view the step's page draws for the step's settings: one of its scene's views (run on the
step's settings, Streamlit-free; a view drawn in another's place, `view_aliases`, goes by that
one's name), one the page draws itself (`page_views`: the text page's table of tokens), the
head view of a page that has one, or a training page's loss curves (`<prefix>_curves`, drawn
once a run starts). Any other name, or a view in a folded section the step leaves closed,
would leave the stage empty in front of the class. This runs
the step's scene, so it is not part of reading a file (the server reads the bundled lessons at
start): the Lessons page's checker and the suite call it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import plotly.graph_objects as go

from attnviz.lessons.model import Lesson, LessonError, Step
from attnviz.topics.registry import HOME, scene

HEAD_VIEW = "head_view"  # the head view's name (attnviz.ui.common.head_view draws it)


def known_views(step: Step) -> set[str]:
    """Every view name the step's page can draw for the step's settings (a folded section's
    views too, open or not: `closed_views` tells those apart)."""
    if step.page == HOME.url:
        return set()
    page = scene(step.page)
    names = {page.stands_for(name) for name in _drawn(step.page, step.params)}
    names |= set(page.page_views)
    names |= {name for section in page.section_views.values() for name in section}
    names |= set(page.run_views)
    if page.head_view is not None:
        names.add(HEAD_VIEW)
    if page.trains:
        names.add(f"{page.table.prefix}_curves")
    return names


_DRAWN: dict[tuple[str, str], dict[str, go.Figure]] = {}  # the last few steps' views (the checks
# of a step share one scene run)


def _figures(url: str, params: dict[str, Any]) -> dict[str, go.Figure]:
    """{view: its figure} of what the page draws unasked for these parameters."""
    key = (url, json.dumps(params, sort_keys=True, default=str))
    if key not in _DRAWN:
        page = scene(url)
        _, views = page.compute(page.values(params))
        while len(_DRAWN) >= 8:
            _DRAWN.pop(next(iter(_DRAWN)))
        _DRAWN[key] = {
            name: figure if isinstance(figure, go.Figure) else go.Figure(figure)
            for name, figure in views.items()
        }
    return _DRAWN[key]


def _drawn(url: str, params: dict[str, Any]) -> dict[str, str]:
    """{view: its title} of what the page draws unasked for these parameters."""
    return {name: _title(figure) for name, figure in _figures(url, params).items()}


def staged_figures(step: Step) -> list[go.Figure]:
    """The figures of the step's views that its page's scene draws for the step's settings (a
    view its page draws itself, or a run's curves, is not among them)."""
    page = scene(step.page)
    drawn = {page.stands_for(name): fig for name, fig in _figures(step.page, step.params).items()}
    return [drawn[name] for name in step.views if name in drawn]


def _title(figure: go.Figure) -> str:
    """A figure's title as text (markup dropped)."""
    title = figure.layout.title.text or ""
    return re.sub(r"<[^>]+>", " ", title.replace("<br>", " ")).strip()


def drawn_views(step: Step) -> tuple[dict[str, str | None], dict[str, str]]:
    """({each view the step's stage shows: its title, None when not known here (a view its
    page draws, or one drawn only when asked)}, {each other view the page draws: its title})."""
    page = scene(step.page)
    drawn = {page.stands_for(name): title for name, title in _drawn(step.page, step.params).items()}
    shown = {name: drawn.get(name) for name in step.views}
    return shown, {name: title for name, title in drawn.items() if name not in shown}


def closed_views(step: Step) -> dict[str, str]:
    """The step's named views that sit in a folded section its settings leave closed:
    name -> the section's open toggle."""
    if step.page == HOME.url:
        return {}
    page = scene(step.page)
    values = page.values(step.params)
    return {
        name: toggle
        for toggle, names in page.section_views.items()
        for name in names
        if name in step.views and not values.get(toggle, False)
    }


def unknown_views(step: Step) -> list[str]:
    """The step's named views its page does not draw in the step's settings (in order)."""
    if not step.views:
        return []
    known = known_views(step)
    return [name for name in step.views if name not in known]


def check_views(lesson: Lesson, name: str) -> None:
    """Raise LessonError, on the step's line, for the first step that names a view its page
    does not draw, or one in a section its settings leave closed."""
    for step in lesson.steps:
        unknown, closed = unknown_views(step), closed_views(step)
        if unknown:
            known = ", ".join(sorted(known_views(step))) or "none"
            detail = f"the page {step.page!r} does not draw in this step's settings; it draws: "
            raise LessonError(name, step.line, f"'views' names {unknown} that {detail}{known}")
        if closed:
            view, toggle = next(iter(closed.items()))
            raise LessonError(
                name,
                step.line,
                f"'views' names {view!r}, in a section this step leaves closed: "
                f"set {toggle} = true in its params",
            )
