"""A scene's views, declared once: each `View` names a view, how to build its figure and where it
sits (the main view, a folded section, a training run only, apart from the run, drawn by the
page itself, drawn in another view's place). The Scene derives everything else from the
declaration: which views `views(result, values, only)` builds and in what order, its main view,
aliases and sections, which the lesson checker (attnviz.lessons.views_check), the presenter's
stage, the figures' summary line, handouts and the notebook API read.

A builder is `(drawn, values) -> go.Figure | None`: `drawn` is the scene's result, or what the
scene's `prepare(result, values, **extra)` read from it once for the whole call (a snapshot's
restored models, shared by every view of the call); None means "nothing to draw for these
settings" (no mistakes to show, a timeline of one step). Views computed together read one
per-call `Memo` (`grouped`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

Values = Mapping[str, Any]
Builder = Callable[[Any, Values], Any]  # (drawn, values) -> go.Figure | None


TRAINING_STAGE = 2 / 3  # of the page's width: a training page's live views, beside its settings
# (attnviz.ui.common.layout.training_layout)
ACROSS = 1.0  # the page's whole width


@dataclass(frozen=True)
class View:
    """One view of a scene, declared once."""

    name: str
    build: Builder | None = None  # None: the page draws it itself (`page`)
    main: bool = False  # the view a handout or a thumbnail shows (exactly one per scene)
    # the open toggle of the folded section it sits in: unasked, it is drawn while that is on
    section: str | None = None
    folded: bool = False  # drawn only when named in `only` (never unasked)
    # whether it is drawn unasked in these settings (exact patching on, the part shown)
    when: Callable[[Values], bool] | None = None
    run_only: bool = False  # a training page's view of a run's snapshots only (none before Start)
    apart: bool = False  # a training page's view a run does not change (Start is not shown)
    page: bool = False  # the page draws it itself, outside `views` (a table of tokens)
    stands_for: str | None = None  # drawn in that view's place (a run's maps for Step 0's)
    # the share of the page's width its place takes, where a lecture-mode title may run (None:
    # a third of it, attnviz.ui.common.figures.TITLE_WIDTH, or what its builder says)
    span: float | None = None


def check(declared: tuple[View, ...], url: str) -> None:
    """ValueError naming the fault unless the names are unique, exactly one view is the main
    one, every alias stands for a declared view and page-drawn views have no builder."""
    names = [view.name for view in declared]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{url}: views declared twice: {twice}")
    mains = [view.name for view in declared if view.main]
    if len(mains) != 1:
        raise ValueError(f"{url}: exactly one main view is needed; declared {mains or 'none'}")
    for view in declared:
        if view.stands_for is not None and view.stands_for not in names:
            raise ValueError(f"{url}: {view.name!r} stands for {view.stands_for!r}, not declared")
        if view.page and view.build is not None:
            raise ValueError(f"{url}: {view.name!r} is drawn by the page but has a builder")


def sections(declared: tuple[View, ...]) -> dict[str, tuple[str, ...]]:
    """Each folded section's open toggle -> its views' names, in declaration order."""
    found: dict[str, tuple[str, ...]] = {}
    for view in declared:
        if view.section is not None:
            found[view.section] = (*found.get(view.section, ()), view.name)
    return found


def asked(view: View, values: Values, only: Collection[str] | None) -> bool:
    """Whether `view` is built: named in `only`, or (`only` None) drawn unasked in `values`."""
    if only is not None:
        return view.name in only
    if view.page or view.folded:
        return False
    if view.section is not None and not values[view.section]:
        return False
    return view.when is None or bool(view.when(values))


def build(
    declared: tuple[View, ...],
    prepare: Callable[..., Any] | None,
    result: Any,
    values: Values,
    only: Collection[str] | None,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """The asked views' figures in declaration order; `prepare` (if any) runs once, and only
    when some asked view has a builder."""
    wanted = [v for v in declared if v.build is not None and asked(v, values, only)]
    if not wanted:
        return {}
    if prepare is not None:
        drawn = prepare(result, values, **extra)
    elif extra:
        raise TypeError(f"views() got {sorted(extra)} but the scene has no prepare to read them")
    else:
        drawn = result
    figures = {}
    for view in wanted:
        figure = view.build(drawn, values)
        if figure is not None:
            figures[view.name] = figure
    return figures


Group = Callable[[Any, Values], dict]  # (result, values) -> {name: figure} of views built together


class Memo:
    """A per-call memo for views built together (`grouped`): a scene's `prepare`, each group's
    figures built once per call, whichever of its views are asked for."""

    def __init__(self, result: Any, values: Values):
        self.result, self.values = result, values
        self.built: dict[Group, dict] = {}

    def figure(self, group: Group, name: str) -> Any:
        if group not in self.built:
            self.built[group] = group(self.result, self.values)
        return self.built[group].get(name)


def grouped(names: tuple[str, ...], group: Group, **where: Any) -> tuple[View, ...]:
    """The views `group` builds together, read from the call's Memo (one `group` does not draw
    for these settings, e.g. a long input's top-k, is not drawn)."""
    return tuple(
        View(name, lambda memo, _, name=name: memo.figure(group, name), **where) for name in names
    )
