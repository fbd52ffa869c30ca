"""A page without Streamlit: the shape every page's scene has, and how values reach it.

A scene is a page's whole path from settings to figures, so tests, lessons, handouts, notebooks
and any server replica can run a page without Streamlit:

    values = scene.values(ss_temp=0.05)         # table defaults + global settings + overrides
    config = scene.config(values)               # -> the page's config dataclass
    result = scene.run(config)                  # -> the page's result (the UI caches it)
    figures = scene.views(result, values)       # -> {view name: plotly Figure}
    answers = scene.answers(result, values)     # -> {question name: Answer} for lessons

`config` raises `SceneInputError` with a message for a person (empty text, a table that cannot
be read); a page shows the message, a test asserts it. `views(result, values, only)` builds only
the views named in `only` (a page draws a folded section's figures only while it is open).

A training page's scene also has a `job` (`config` is then a `Job`: what Start submits) and its
`run` gives the untrained model's snapshot; `views` draw any snapshot, so the same code draws
the page before Start, every step of the timeline, and a run trained in a notebook.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from attnviz.topics import settings
from attnviz.topics.params import PageParams

Values = Mapping[str, Any]


class SceneInputError(ValueError):
    """Input a scene cannot run on. The message is written for the person who gave it."""


@dataclass(frozen=True)
class Answer:
    """A lesson question's answer computed from the scene, and the options to offer."""

    answer: str
    options: tuple[str, ...]

    @staticmethod
    def of(answer: str, options: Collection[str]) -> Answer:
        """The answer and the options, each option once, in order."""
        return Answer(answer, tuple(dict.fromkeys(options)))


@dataclass(frozen=True)
class Job:
    """What a training page's Start submits: the picklable spec (it builds the Trainable) and
    the run's TrainConfig."""

    spec: Any
    train: Any  # attnviz.training.trainer.TrainConfig


def wants(only: Collection[str] | None, name: str) -> bool:
    """Whether a view named `name` is asked for (`only` None: every view)."""
    return only is None or name in only


def _no_answers(result: Any, values: Values) -> dict[str, Answer]:
    return {}


@dataclass(frozen=True)
class Scene:
    """One page's settings → config → result → views, Streamlit-free."""

    url: str  # the page's url path (attnviz.ui.navigation)
    table: PageParams
    try_this: tuple[str, ...]
    config: Callable[[Values], Any]
    run: Callable[[Any], Any]
    views: Callable[..., dict[str, Any]]  # (result, values, only=None) -> {name: go.Figure}
    main_view: str  # the view a handout or a thumbnail shows
    answers: Callable[[Any, Values], dict[str, Answer]] = _no_answers
    # training pages: the trained result of a job, run to its end in this process
    train: Callable[[Job], Any] | None = None
    # settings kept in the URL as text but drawn by no widget of the table (a hand-edited table
    # of keys and values, a matrix): key -> default text ("" = the page's example)
    extras: Mapping[str, str] = field(default_factory=dict)
    # a result can be tens of MB (a real model's maps at 512 tokens): the UI keeps fewer
    large_results: bool = False

    def values(self, overrides: Values | None = None, **more: Any) -> dict[str, Any]:
        """Every value the scene reads: global settings (seed, device, …) and the page's table at
        their defaults, then `overrides` and `more`. An unknown key or an invalid value raises
        SceneInputError naming it."""
        values = settings.TABLE.defaults() | self.table.defaults() | dict(self.extras)
        for key, value in {**(overrides or {}), **more}.items():
            if key in self.extras:
                if not isinstance(value, str):
                    raise SceneInputError(f"{key!r} is text; got {value!r}")
                values[key] = value
                continue
            param = _param(self.table, key)
            if param is None:
                raise SceneInputError(f"{self.url} has no setting {key!r}")
            if param.widget == "pills" and isinstance(value, list):
                value = tuple(value)
            if not param.valid(value):
                raise SceneInputError(f"{value!r} is not a valid value for {key!r}")
            values[key] = value
        return values

    def values_from_query(self, query: Mapping[str, str | list[str]]) -> dict[str, Any]:
        """The values a link opens the page with: each URL parameter the page knows, read as its
        widget reads it; a value no widget could hold is ignored (as the page ignores it)."""
        read = {}
        for key, text in query.items():
            if key in self.extras:
                read[key] = text if isinstance(text, str) else text[-1]
                continue
            param = _param(self.table, key)
            if param is not None and param.url:
                value = param.from_url_text(text)
                if value is not None:
                    read[key] = value
        return self.values(read)

    def compute(self, values: Values | None = None, only: Collection[str] | None = None):
        """(result, views) for `values` (None: the defaults)."""
        values = self.values() if values is None else values
        result = self.run(self.config(values))
        return result, self.views(result, values, only)


def _param(table: PageParams, key: str):
    for source in (table, settings.TABLE):
        if key in source:
            return source[key]
    return None
