"""The one list of scenes, by page url: navigation, tests, lessons, handouts and benchmarks read
it. Each module defines `SCENE` (attnviz.topics.scene.Scene); importing one loads only its own
topic, so reading one page's table does not load torch for another."""

from __future__ import annotations

import importlib

from attnviz.topics.params import PageParams
from attnviz.topics.scene import Scene

# page url (attnviz.ui.navigation) -> the module holding its SCENE, in navigation order
SCENE_MODULES = {
    "soft-select": "attnviz.topics.soft_select.scene",
    "self-attention": "attnviz.topics.self_attention.scene",
    "kernel-smoother": "attnviz.topics.kernel.scene",
    "recurrent": "attnviz.topics.recurrent.scene",
    "text": "attnviz.topics.text.scene",
    "train-transformer": "attnviz.topics.transformer.scene",
    "watch-circuits": "attnviz.topics.circuits.scene",
    "attention-at-scale": "attnviz.topics.scale.scene",
    "vision-patches": "attnviz.topics.vision.scene",
    "captioning": "attnviz.topics.captioning.scene",
    "pretrained": "attnviz.topics.pretrained.scene",
}


def scene(url: str) -> Scene:
    """The scene of the page at `url` (KeyError: no page there has one)."""
    return importlib.import_module(SCENE_MODULES[url]).SCENE


def scenes() -> dict[str, Scene]:
    """Every scene, by page url."""
    return {url: scene(url) for url in SCENE_MODULES}


def params_module(url: str):
    """The module of the page's parameter table and Try-this list (`TABLE`, `TRY_THIS`), next
    to its scene; lighter to import than the scene (no figures)."""
    return importlib.import_module(SCENE_MODULES[url].removesuffix(".scene") + ".params")


def page_tables() -> dict[str, PageParams]:
    """Every page's parameter table, by page url."""
    return {url: params_module(url).TABLE for url in SCENE_MODULES}
