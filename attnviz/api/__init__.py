"""The Python API (a notebook, a script): the names `import attnviz as av` gives, each loaded from
its module on first use, so that importing attnviz stays light (no torch, no plotly until used).
The top room of the engine: it may import every room below it; nothing in the engine imports it.

    scenes.py      av.pages, av.scene, av.page_link, av.SceneView: every page as a scene
    views.py       av.model_view, av.head_view: the attention you hold, drawn
    neuron.py      av.neuron_view, av.NeuronView: one query's row taken apart (BertViz's)
    generation.py  av.generate, av.Generated: the bundled language model writes on
    hooked.py      av.language_model: run_with_cache, activations named as TransformerLens does
    cache.py       av.ActivationCache: which modules each cached name is read from
    circuits.py    av.attention_heads, av.attention_patterns: CircuitsVis's names, drawn here
    cross.py       av.encoder_decoder, av.EncoderDecoderAttention: an encoder–decoder's attention
    inputs.py      what a researcher holds (weights, a model, a folder) read for the views
    cli.py         the `attnviz` command: serve the app, write a handout, export a page's view
"""

from __future__ import annotations

import importlib
from typing import Any

# every public name -> its module (no module is named as a public name: importing it would set
# the package's attribute of that name to the module)
PUBLIC = {
    "scene": "scenes",
    "pages": "scenes",
    "page_link": "scenes",
    "SceneView": "scenes",
    "model_view": "views",
    "head_view": "views",
    "neuron_view": "neuron",
    "NeuronView": "neuron",
    "generate": "generation",
    "Generated": "generation",
    "language_model": "hooked",
    "LanguageModel": "hooked",
    "ActivationCache": "cache",
    "attention_heads": "circuits",
    "attention_patterns": "circuits",
    "encoder_decoder": "cross",
    "EncoderDecoderAttention": "cross",
}
__all__ = list(PUBLIC)


def __getattr__(name: str) -> Any:
    if name in PUBLIC:
        return getattr(importlib.import_module(f"attnviz.api.{PUBLIC[name]}"), name)
    raise AttributeError(f"module 'attnviz.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
