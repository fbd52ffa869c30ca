"""A throwaway page, made the way ARCHITECTURE.md says a page is added: a topic folder (params.py,
scene.py), a page script and one entry in the page table (`registry.register`); all of it
written under a temporary folder, so no file of the repository is touched."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from attnviz.topics import registry
from tests.support.pages import ROOT

URL, TOPIC = "throwaway", "throwaway_topic"
PARAMS = '''"""The throwaway page's settings."""

from attnviz.topics.params import PageParams, Param

TABLE = PageParams(
    prefix="tw",
    params=(Param("tw_n", "rows n", "slider", 4, low=2, high=8, step=1),),
    presets={"Two rows": {"tw_n": 2}, "Eight rows": {"tw_n": 8}},
)
TRY_THIS = ["Move **rows n** to 8: the map has 8 rows, each summing to 1."]
'''
SCENE = '''"""The throwaway page's scene: softmax rows of an n × n score table."""

import numpy as np

from attnviz.figures.base import heatmap
from attnviz.topics.scene import Answer, Scene
from attnviz.topics.views import View
from throwaway_topic.params import TABLE, TRY_THIS


def config(values):
    return int(values["tw_n"])


def run(n):
    scores = (np.add.outer(np.arange(n), 2 * np.arange(n)) % 5).astype(np.float32)
    weights = np.exp(scores)
    return weights / weights.sum(axis=1, keepdims=True)  # (n, n)


def names(weights):
    return [f"k{j}" for j in range(len(weights))]


def weights_map(weights, values):
    n = len(weights)
    return heatmap(weights, names(weights), [f"q{i}" for i in range(n)], f"Weights ({n} × {n})")


def answers(weights, values):
    return {"top_key": Answer.of(names(weights)[int(weights[0].argmax())], names(weights))}


SCENE = Scene(
    url="throwaway",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=(View("tw_map", weights_map, main=True),),
    answers=answers,
    answer_names=("top_key",),
)
'''
SCRIPT = '''"""The throwaway page: layout over its scene."""

from throwaway_topic.scene import SCENE

from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish

layout.intro("Throwaway", "A page added in one topic folder, one script and one table entry.")
preset_buttons(SCENE.table)
reset_button(SCENE.table)
glob = settings()
values = SCENE.values({"tw_n": draw(SCENE.table, "tw_n")}, seed=glob.seed, device=glob.device)
result = scene_run(SCENE, values)
show(SCENE.views(result, values)["tw_map"], "tw_map")
publish(SCENE.answers(result, values))
layout.try_this(SCENE.try_this)
'''
LESSON = """title = "A lesson on the throwaway page"
summary = "One step on a page the app did not have."
seeds = []

[[steps]]
page = "throwaway"
title = "Six rows"
narration = "Each row is a softmax over the keys. Which key does the first query weigh most?"
[steps.params]
tw_n = 6
[steps.question]
prompt = "Which key does query q0 weigh most?"
options = []
answer = "computed:top_key"
explain = "The key with the largest score in row 0."
"""


def product_status() -> str:
    """`git status` of the product's files (app.py, pages/, attnviz/, lessons/)."""
    paths = ["app.py", "pages", "attnviz", "lessons"]
    done = subprocess.run(
        ["git", "status", "--porcelain", "--", *paths], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout


@contextmanager
def throwaway_page(folder: Path) -> Iterator[registry.Page]:
    """The throwaway page registered, its files under `folder`; removed again on exit."""
    topic = folder / TOPIC
    topic.mkdir(parents=True, exist_ok=True)
    (topic / "__init__.py").write_text('"""A throwaway topic."""\n')
    (topic / "params.py").write_text(PARAMS)
    (topic / "scene.py").write_text(SCENE)
    script = folder / "throwaway_page.py"
    script.write_text(SCRIPT)
    sys.path.insert(0, str(folder))
    entry = registry.Page(
        url=URL,
        title="Throwaway",
        section="Start",
        icon=":material/delete:",
        blurb="A page added by a test.",
        script=str(script),
        topic=f"{TOPIC}.scene",
    )
    try:
        yield registry.register(entry)
    finally:
        registry.unregister(URL)
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == TOPIC or m.startswith(TOPIC + ".")]:
            del sys.modules[name]
