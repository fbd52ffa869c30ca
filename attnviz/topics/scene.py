"""A page without Streamlit: the shape every page's scene has, and how values reach it.

A scene is a page's whole path from settings to figures, so tests, lessons, handouts, notebooks
and any server replica can run a page without Streamlit:

    values = scene.values(ss_temp=0.05)         # table defaults + global settings + overrides
    config = scene.config(values)               # -> the page's config dataclass
    result = scene.run(config)                  # -> the page's result (the UI caches it)
    figures = scene.views(result, values)       # -> {view name: plotly Figure}
    # (each scene declares its views once: `View(name, build, main=…, section=…)`)
    answers = scene.answers(result, values)     # -> {question name: Answer} for lessons
    scene.ops.generate(...)                     # the page's other engine calls, named once

`config` raises `SceneInputError` with a message for a person (empty text, a table that cannot
be read); a page shows the message, a test asserts it. `views(result, values, only)` builds only
the views named in `only` (a page draws a folded section's figures only while it is open).

A training page's scene also has a `job` (`config` is then a `Job`: what Start submits) and its
`run` gives the untrained model's snapshot; `views` draw any snapshot, so the same code draws
the page before Start, every step of the timeline, and a run trained in a notebook.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from attnviz.topics import settings
from attnviz.topics import views as declaration
from attnviz.topics.operations import Operations
from attnviz.topics.params import PageParams
from attnviz.topics.views import View

Values = Mapping[str, Any]


class SceneInputError(ValueError):
    """Input a scene cannot run on. The message is written for the person who gave it."""


@dataclass(frozen=True)
class Answer:
    """A lesson question's answer computed from the scene, and the options to offer."""

    answer: str
    options: tuple[str, ...]
    # predict the attention: the head's weight on each option (a token), in order; else None
    weights: tuple[float, ...] | None = None
    # a typed question (attnviz.lessons.typed_answers): the model's likeliest next tokens with
    # probabilities, most likely first (words), or the true value (number)
    ranked: tuple[tuple[str, float], ...] = ()
    value: float | None = None
    # words: the model's probability of each typed word coming next (None: no model here)
    chances: Callable[[Sequence[str]], dict[str, float]] | None = field(
        default=None, compare=False, repr=False
    )

    @staticmethod
    def of(answer: str, options: Collection[str], value: float | None = None) -> Answer:
        """The answer and the options, each option once, in order (and a number question's
        true value, when the answer is one)."""
        return Answer(answer, tuple(dict.fromkeys(options)), value=value)

    @staticmethod
    def of_row(tokens: Sequence[str], row: Sequence[float]) -> Answer:
        """Predict the attention: every token is an option (`token_labels`), the answer is the
        one `row` (the query's weights over `tokens`) weights most, and `weights` is `row`."""
        labels = token_labels(tokens)
        weights = tuple(float(w) for w in row)
        if len(weights) != len(labels):
            raise ValueError(f"{len(weights)} weights for {len(labels)} tokens")
        best = max(range(len(weights)), key=weights.__getitem__)
        return Answer(labels[best], labels, weights)


def token_labels(tokens: Sequence[str]) -> tuple[str, ...]:
    """Tokens as distinct option labels a phone can show and the classroom store keeps: spaces
    (and the labels' ␣) trimmed (a blank token is "␣", a newline "⏎"), at most 30
    characters, and a token that occurs more than once followed by its position ("the (0)",
    "the (7)")."""
    shown = []
    for token in tokens:
        text = token.replace("\n", "⏎").replace("␣", " ").replace("▁", " ").strip() or "␣"
        shown.append(text if len(text) <= 30 else text[:29] + "…")
    seen = {text: shown.count(text) for text in shown}
    return tuple(t if seen[t] == 1 else f"{t} ({i})" for i, t in enumerate(shown))


@dataclass(frozen=True)
class Job:
    """What a training page's Start submits: the picklable spec (it builds the Trainable) and
    the run's TrainConfig."""

    spec: Any
    train: Any  # attnviz.training.trainer.TrainConfig


def _no_answers(result: Any, values: Values) -> dict[str, Answer]:
    return {}


def _no_problems(state: Values) -> list[tuple[str, str]]:
    return []


def _last_snapshot(trained: Any) -> Any:
    return trained.snapshot


@dataclass(frozen=True)
class Scene:
    """One page's settings → config → result → views, Streamlit-free."""

    url: str  # the page's url path (its entry in attnviz.topics.registry)
    table: PageParams
    try_this: tuple[str, ...]
    config: Callable[[Values], Any]
    run: Callable[[Any], Any]
    # the views, declared once (attnviz.topics.views.View); the metadata below derives from them
    declared: tuple[View, ...]
    answers: Callable[[Any, Values], dict[str, Answer]] = _no_answers
    # the names of the answers `answers` publishes (a lesson's `computed:<name>` may name them)
    answer_names: tuple[str, ...] = ()
    # those a typed question may ask, and how: name -> "words" (the Answer has `ranked`, the
    # model's next tokens) or "number" (it has `value`), attnviz.lessons.typed
    typed_answers: Mapping[str, str] = field(default_factory=dict)
    # a lesson step's settings that do not fit each other: state -> [(parameter key, reason)]
    problems: Callable[[Values], list[tuple[str, str]]] = _no_problems
    # the head view's data as the page draws it (pages with one): (result, values) -> dict
    head_view: Callable[[Any, Values], dict] | None = None
    # training pages: the trained result of a job, run to its end in this process
    # (attnviz.topics.live.TrainedRun), and what the views draw of it (its last snapshot)
    train: Callable[[Job], Any] | None = None
    trained_result: Callable[[Any], Any] = _last_snapshot
    # settings kept in the URL as text but drawn by no widget of the table (a hand-edited table
    # of keys and values, a matrix): key -> default text ("" = the page's example)
    extras: Mapping[str, str] = field(default_factory=dict)
    # a result can be tens of MB (a real model's maps at 512 tokens): the UI keeps fewer
    large_results: bool = False
    # settings whose range follows the result (the model read, the text's tokens), as the page's
    # sliders do: key -> (what it counts, result -> how many); the table's high is the default's
    ranges: Mapping[str, tuple[str, Callable[[Any], int]]] = field(default_factory=dict)
    # what every view of one `views` call reads, computed once for the call: (result, values,
    # **extra) -> what the builders get in place of the result; `extra` is a page's own input
    # (a person's image, the run's timeline, the step shown)
    prepare: Callable[..., Any] | None = None
    # the engine calls the page makes besides its views (generate, save, load, measure, upload),
    # named once here so that a notebook makes the same call: `SCENE.ops.generate(...)`
    ops: Operations = field(default_factory=Operations)

    def __post_init__(self) -> None:
        declaration.check(self.declared, self.url)

    def views(
        self, result: Any, values: Values, only: Collection[str] | None = None, **extra: Any
    ) -> dict[str, Any]:
        """{view name: figure} of the declared views asked for (`only`: those named; None: those
        drawn unasked, folded sections' while open), in declaration order."""
        return declaration.build(self.declared, self.prepare, result, values, only, extra)

    @property
    def main_view(self) -> str:
        """The view a handout or a thumbnail shows."""
        return next(view.name for view in self.declared if view.main)

    @property
    def view_aliases(self) -> dict[str, str]:
        """Views drawn in another view's place under their own name -> the view they stand for
        (a run's maps in place of the untrained model's)."""
        return {v.name: v.stands_for for v in self.declared if v.stands_for is not None}

    @property
    def page_views(self) -> tuple[str, ...]:
        """Views the page draws itself, outside `views` (a table of tokens): a lesson step may
        name them (attnviz.lessons.views_check)."""
        return tuple(view.name for view in self.declared if view.page)

    @property
    def apart_views(self) -> tuple[str, ...]:
        """A training page's views a run does not change: a lesson step showing only these
        leaves out Start, Pause and Step."""
        return tuple(view.name for view in self.declared if view.apart)

    @property
    def section_views(self) -> dict[str, tuple[str, ...]]:
        """Views of a folded section, drawn only while it is open: its open toggle -> names."""
        return declaration.sections(self.declared)

    @property
    def run_views(self) -> tuple[str, ...]:
        """A training page's views drawn from a run's snapshots only (none before Start)."""
        return tuple(view.name for view in self.declared if view.run_only)

    @property
    def trains(self) -> bool:
        """A training page: Start trains its job live (its panel is keyed by the table's
        prefix)."""
        return self.train is not None

    def span(self, view: str) -> float | None:
        """The share of the page's width `view`'s place takes (View.span; an alias's is the
        view's it stands for), None where it does not say."""
        name = self.stands_for(view)
        return next((v.span for v in self.declared if v.name == name), None)

    def stands_for(self, view: str) -> str:
        """The view whose place `view` is drawn in (itself unless it is an alias)."""
        return self.view_aliases.get(view, view)

    def check_ranges(self, result: Any, values: Values) -> None:
        """A SceneInputError naming the range when a setting in `ranges` is outside the model
        or text that `result` holds (never a quiet clamp)."""
        for key, (what, counted) in self.ranges.items():
            value, count = values[key], counted(result)
            if not 0 <= value < count:
                raise SceneInputError(
                    f"{what} {value} is out of range: there are {count} ({what} 0 to {count - 1})"
                )

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
            if key in self.ranges:  # its high follows the model: `check_ranges` once it is run
                param = replace(param, high=math.inf)
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

    def trained(self, values: Values | None = None, only: Collection[str] | None = None):
        """(trained run, views): a training page's job for `values` trained to its end in this
        process (seconds to minutes), and the views of the trained model (`only`: those named,
        or standing for them)."""
        if self.train is None:
            raise SceneInputError(f"{self.url} is not a training page")
        values = self.values() if values is None else values
        run = self.train(self.config(values))
        if only is not None:  # a view asked for by the name it stands for (a run's maps)
            only = set(only) | {name for name, main in self.view_aliases.items() if main in only}
        return run, self.views(self.trained_result(run), values, only)

    def compute(self, values: Values | None = None, only: Collection[str] | None = None):
        """(result, views) for `values` (None: the defaults)."""
        values = self.values() if values is None else values
        result = self.run(self.config(values))
        self.check_ranges(result, values)
        return result, self.views(result, values, only)


def _param(table: PageParams, key: str):
    for source in (table, settings.TABLE):
        if key in source:
            return source[key]
    return None
