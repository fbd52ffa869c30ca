"""A guided lesson as data: an ordered list of steps, each a page, the parameters it sets, a
narration, what to point at (and the figure that is: the presenter scrolls to it and marks it),
and optionally a predict-then-reveal question.

Plain Python (no streamlit): the loader, the tests and the presenter all read these. A step's
complete state is its page's table defaults overlaid with the parameters it sets; its URL query is
that state as the page's widgets write it (`Param.url_text`), non-default values only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attnviz.topics import registry
from attnviz.topics.params import PageParams
from attnviz.topics.registry import page_tables, scenes

HOME = registry.HOME.url  # the one page a step may name that has no parameter table
MIN_STEPS, MAX_STEPS = 1, 30
COMPUTED_PREFIX = "computed:"
ATTENTION_ROW = "attention_row"  # the computed answer of a predict-the-attention question
FIGURE_MAX = 100
FIGURE_HELP = (  # what a step's `figure` may name, as the loader's errors say it
    "text from a figure's title, a heading, a section's label or a bold lead on the step's "
    "page (the first that starts with it, else the first that holds it; case and spaces "
    "ignored)"
)


class LessonError(ValueError):
    """A lesson file that cannot be played: the message names the file and, if known, the line."""

    def __init__(self, name: str, line: int | None, detail: str):
        self.name = name
        self.line = line
        self.detail = detail
        where = f"{name}, line {line}" if line is not None else name
        super().__init__(f"{where}: {detail}")


def tables() -> dict[str, PageParams]:
    """Every page's parameter table (imported once: attnviz.topics.registry)."""
    return page_tables()


def computed_names() -> dict[str, tuple[str, ...]]:
    """Each computed answer's name -> the pages whose scene publishes it (Scene.answer_names)."""
    found: dict[str, tuple[str, ...]] = {}
    for url, scene in scenes().items():
        for name in scene.answer_names:
            found[name] = (*found.get(name, ()), url)
    return found


def control_keys(page: str) -> set[str]:
    """The widgets of `page` a step's stage may show (`controls`): its parameters' keys, and a
    training page's run timeline (`<prefix>_timeline`)."""
    if page == HOME:
        return set()
    table = tables()[page]
    keys = {param.key for param in table.params}
    found = scenes().get(page)
    if found is not None and found.trains:
        keys.add(f"{table.prefix}_timeline")
    return keys


def page_names() -> tuple[str, ...]:
    """The pages a step may name: every page with a parameter table, and home."""
    return (HOME, *tables())


@dataclass(frozen=True)
class Question:
    """Predict, then reveal: students choose among `options` before the figure is shown."""

    prompt: str  # Markdown
    options: tuple[str, ...]  # empty: an open question, or a computed answer's live options
    answer: str  # the right option's text, or "computed:<name>" (a name the page's scene
    # publishes: Scene.answer_names)
    explain: str = ""  # Markdown shown on reveal
    # the step's views that would give the answer away, hidden until Reveal (None: all of them)
    hides: tuple[str, ...] | None = None
    # the answer is the trained model: Reveal shows the step's recorded run at its end
    # (attnviz.lessons.recordings), not the untrained model the page shows before Start
    trained: bool = False
    # "choice" (tap an option), "words" or "number" (typed on the phones: attnviz.lessons.typed)
    kind: str = "choice"

    @property
    def typed(self) -> bool:
        """Whether students type the answer (a word, a number) instead of tapping an option."""
        return self.kind != "choice"

    @property
    def computed(self) -> str | None:
        """The computed answer's name ("top_key"), or None for an answer written in the file."""
        if self.answer.startswith(COMPUTED_PREFIX):
            return self.answer.removeprefix(COMPUTED_PREFIX)
        return None

    @property
    def taps_a_token(self) -> bool:
        """Predict the attention: each student taps the token they think the head's query
        weights most; on Reveal the class's taps are drawn beside the head's row."""
        return self.computed == ATTENTION_ROW


@dataclass(frozen=True)
class Step:
    """One stop of a lesson: a page in a given state, and what to say about it."""

    page: str  # a page's url: one of attnviz.topics.registry with a scene, or HOME
    title: str
    narration: str  # Markdown with LaTeX ($…$)
    params: dict[str, Any]  # only the parameters the step sets, typed and validated
    point_at: str = ""
    figure: str = ""  # text of the title of the figure point_at names (FIGURE_HELP)
    # the views the step shows on the presenter's stage, by name (a scene's view, or one its page
    # draws: a training page's `<prefix>_curves`, `head_view`); a question's hidden until Reveal
    views: tuple[str, ...] = ()
    # the page's widgets (their keys) the stage shows beside the views, for a step that asks
    # the presenter to move one (the rest of the page's controls stay hidden)
    controls: tuple[str, ...] = ()
    question: Question | None = None
    line: int = 0  # the line of this step's [[steps]] header in its file

    def table(self) -> PageParams | None:
        """The page's parameter table (None for home)."""
        return None if self.page == HOME else tables()[self.page]

    def state(self) -> dict[str, Any]:
        """The complete parameter state: the table's defaults overlaid with this step's params."""
        table = self.table()
        return {} if table is None else table.defaults() | self.params

    def query(self) -> dict[str, str | list[str]]:
        """The state as URL texts (as the page's widgets write them), values != default only."""
        table = self.table()
        if table is None:
            return {}
        return {
            p.key: p.url_text(value)
            for p in table.params
            if p.url and (value := self.params.get(p.key, p.default)) != p.default
        }


@dataclass(frozen=True)
class Lesson:
    """A story across pages, read from lessons/<slug>.toml."""

    slug: str  # the file's stem
    title: str
    summary: str
    seeds: tuple[str, ...]  # lecture notes it follows, e.g. ("004", "001")
    steps: tuple[Step, ...]
