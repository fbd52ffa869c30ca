"""The presenter's stage of one script run, as a value: the lesson step it shows, the views it
shows alone, those veiled until Reveal, and the room the browser measured for them. Presenter
mode makes it once per run when it mounts the stage (attnviz.ui.lecture.stage), before the page
draws anything, and every view the page draws asks it (through attnviz.ui.common.here.stage) how
tall and wide to be drawn, and whether to be drawn at all: a view the stage does not show is not
drawn. Streamlit-free, so it is tested as plain code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attnviz.lessons.model import Step

VIEW_GAP_PX = 16  # between two views on a stage
MIN_VIEW_PX = 240  # a view is never drawn shorter, however small the room
# px across under which two or three views are drawn one under the other, not side by side
# (beside the lesson's text at 1280×720 the views have 810)
SIDE_BY_SIDE_MIN = 760
# at most this many views side by side (three small matrices, L1 s10's Q, K and V: stacked at
# 1280×720 each plot was 57 px tall)
MAX_ACROSS = 3


@dataclass(frozen=True)
class Room:
    """The room the browser measured for the step's views (stage.js, rounded to 20 px)."""

    height: int  # px under the first view's top, less what does not shrink with the views
    width: int  # px across the main area
    rows: int  # the rows the views were drawn in when it was measured (1: side by side)

    @classmethod
    def read(cls, reported: Any) -> Room | None:
        """The room the stage component reported ([height, width, rows]); None before it has
        reported one, or for anything else."""
        if not isinstance(reported, list | tuple) or len(reported) != 3:
            return None
        try:
            height, width, rows = (int(value) for value in reported)
        except (TypeError, ValueError):
            return None
        return cls(height, width, rows)

    def marker(self) -> str:
        """The room as the stage's settled marker names it: "<height>x<width>x<rows>"."""
        return f"{self.height}x{self.width}x{self.rows}"


def hidden_views(step: Step, revealed: bool) -> tuple[str, ...]:
    """The step's views veiled now: before Reveal, what its question hides (all its views when
    it says nothing); none after Reveal or without a question."""
    question = step.question
    if question is None or revealed:
        return ()
    return tuple(step.views if question.hides is None else question.hides)


@dataclass(frozen=True)
class Stage:
    """The step's views alone on the presenter's screen (the page's controls hidden)."""

    step: str  # "<lesson slug>:<step number>"
    views: tuple[str, ...]  # what it shows, in the step's order
    hidden: tuple[str, ...]  # of those, what is veiled until Reveal
    room: Room | None  # None until the browser has measured it

    @classmethod
    def of(cls, step: Step, where: str, revealed: bool, room: Room | None) -> Stage:
        return cls(where, tuple(step.views), hidden_views(step, revealed), room)

    def shows(self, name: str) -> bool:
        return name in self.views

    def shows_only(self, name: str) -> bool:
        return self.views == (name,)

    @property
    def side_by_side(self) -> bool:
        """Two or three views drawn in one row (the server's columns: attnviz.ui.common.here),
        where the room measured is wide enough; else one under the other."""
        wide = self.room is not None and self.room.width >= SIDE_BY_SIDE_MIN
        return wide and 2 <= len(self.views) <= MAX_ACROSS

    def height(self, name: str) -> int | None:
        """The height (px) to draw the view `name` at: its share of the room (views side by
        side share one row); None when the stage does not show it or the room is not known."""
        if self.room is None or not self.shows(name):
            return None
        rows = 1 if self.side_by_side else len(self.views)
        share = (self.room.height - VIEW_GAP_PX * (rows - 1)) // rows
        return max(MIN_VIEW_PX, share)

    def width(self, name: str) -> int | None:
        """The width (px) the view `name` spans (its column's, side by side); None when the
        stage does not show it or the room is not known."""
        if self.room is None or not self.shows(name):
            return None
        across = len(self.views) if self.side_by_side else 1
        return (self.room.width - VIEW_GAP_PX * (across - 1)) // across
