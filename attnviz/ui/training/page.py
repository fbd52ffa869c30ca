"""The skeleton every training page shares, so a page script reads as its own story:

    page = TrainingPage(SCENE, title, intro, ["Task", "Model"])
    with page.groups[0]: ...                      # the page's own settings groups
    values = page.settle(drawn)                   # + the training form, global seed and device
    ...                                           # the page's draw_live(run)
    page.panel(draw_live, curves_last=True)       # the live panel on the stage

It draws the intro and the training layout (the presets and Reset in a row above it in lecture
mode, else at the top of its column; the page's groups and a "Training" group with the form;
Start and the maps beside them, in the first screen), builds the values and the job that
Start submits (settings the scene cannot run on show its message and stop the page), and hands
the scene itself to the live panel."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.scene import Job, Scene, SceneInputError
from attnviz.ui.common import layout
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import preset_buttons, reset_button
from attnviz.ui.training.form import training_form
from attnviz.ui.training.panel import DrawLive, training_panel

TRAINING = "Training"  # the last settings group: optimizer, learning rate, steps, …


class TrainingPage:
    """A training page's header, values, job and live panel over its scene."""

    def __init__(self, scene: Scene, title: str, intro: str, groups: list[str]):
        layout.intro(title, intro)
        self.scene = scene
        lecture = settings().lecture
        if lecture:  # one wide row above: the first slider stays in a projector's first screen
            self._presets()
        self.places = layout.training_layout([*groups, TRAINING])
        if not lecture:  # above the settings, beside the maps: those rise by the row (issue 54)
            with self.places.head:
                self._presets()
        self.groups: list[Any] = self.places.groups[:-1]
        self.values: dict[str, Any] = {}
        self.job: Job | None = None

    def _presets(self) -> None:
        preset_buttons(self.scene.table)
        reset_button(self.scene.table)

    def settle(self, drawn: dict[str, Any]) -> dict[str, Any]:
        """The page's values: `drawn` (its own widgets), the training form's, the global seed
        and device; and the job Start submits (`self.job`)."""
        with self.places.groups[-1]:
            drawn = drawn | training_form(self.scene.table)
        glob = settings()
        self.values = self.scene.values(drawn, seed=glob.seed, device=glob.device)
        try:
            self.job = self.scene.config(self.values)
        except SceneInputError as err:
            st.error(str(err))
            st.stop()
        return self.values

    def untrained(self) -> Any:
        """The scene's result for the values: the untrained model's snapshot (step 0)."""
        return scene_run(self.scene, self.values)

    def panel(self, draw_live: DrawLive, **options: Any) -> None:
        """The live panel on the stage (its buttons in the first screen; `options` as
        training_panel takes them)."""
        with self.places.stage:
            buttons = self.places.buttons
            training_panel(self.scene, self.job, draw_live, buttons_in=buttons, **options)
