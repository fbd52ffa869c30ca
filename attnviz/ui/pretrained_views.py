"""The pretrained explorer's data, cached per server, and its comparison view: the model (the
bundled MiniLM is warmed at server start), its attention for an input, rollout, the query–key
projection, the model view and the head table, each computed once per input."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.figures import base as plots
from attnviz.figures.pretrained import model_view
from attnviz.figures.text import shown
from attnviz.topics.pretrained import analysis
from attnviz.topics.pretrained.analysis import (
    difference,
    drop_tokens,
    head_table,
    rollout,
)
from attnviz.topics.pretrained.model import MAX_TOKENS, bundled_model, load
from attnviz.ui import downloads
from attnviz.ui.figures import show

SPECIALS = {"[CLS]", "[SEP]", "<s>", "</s>", "[PAD]"}


@st.cache_resource(show_spinner="Loading the model (once per server)…", max_entries=3)
def shared_model(name: str):
    return load(name) if name else bundled_model()  # the bundled one is warmed at server start


@st.cache_data(max_entries=32, show_spinner=False)
def attend(name: str, text: str):
    return shared_model(name).attend(text, MAX_TOKENS)


def shown_positions(tokens: list[str], hide: bool) -> np.ndarray:
    """(T,) bool: the positions on screen (all, or all but [CLS]/[SEP] when hiding them)."""
    keep = np.array([not hide or tok not in SPECIALS for tok in tokens])
    return keep if keep.any() else np.ones(len(tokens), dtype=bool)


def visible_attention(result, hide: bool) -> tuple[list[str], np.ndarray]:
    """Tokens and attentions (L, H, T, T), without [CLS]/[SEP] (rows renormalised) if `hide`."""
    keep = shown_positions(result.tokens, hide)
    if keep.all():
        return result.tokens, result.attentions
    return [t for t, k in zip(result.tokens, keep, strict=True) if k], drop_tokens(
        result.attentions, keep
    )


@st.cache_data(max_entries=16, show_spinner=False)
def cached_rollout(name: str, text: str):
    """Rollout (T, T) on the full maps, specials included (Abnar & Zuidema's definition)."""
    return rollout(attend(name, text).attentions)


@st.cache_data(max_entries=32, show_spinner="Projecting queries and keys (t-SNE takes seconds)…")
def cached_projection(name: str, text: str, layer: int, head: int, method: str):
    """(2T, 2) joint projection of one head's queries and keys, computed once per input."""
    result = attend(name, text)
    return analysis.project_queries_keys(  # looked up per call: tests count the calls
        result.queries[layer, head], result.keys[layer, head], method
    )


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_model_view(name: str, text: str, hide: bool):
    """The model view does not depend on the layer/head sliders: build its 72-subplot figure once
    per input (~50 ms) and share it read-only (ui.figures.show copies before scaling fonts)."""
    tokens, att = visible_attention(attend(name, text), hide)
    return model_view(att, tokens)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_head_table(name: str, text: str, hide: bool) -> pd.DataFrame:
    """What each head does: computed once per input, not on every layer/head move."""
    return pd.DataFrame(head_table(visible_attention(attend(name, text), hide)[1]))


def compare_with_second_sentence(name: str, other: str, result, layer: int, head: int) -> None:
    if not other.strip():
        return
    second = attend(name, other)
    diff = difference(result.attentions[layer, head], second.attentions[layer, head])
    pairs = zip(result.tokens, second.tokens[: diff.shape[0]], strict=False)
    labels = shown([a if a == b else f"{a}|{b}" for a, b in pairs])  # "tired|wide"
    title = f"First − second, layer {layer}, head {head} (common leading positions)"
    show(plots.heatmap(diff, labels, labels, title, colorscale="RdBu_r", zmin=-1, zmax=1), "diff")
    st.caption(
        "Position i of both sentences; where their tokens differ the label shows both "
        "(first|second). Red: the first sentence puts more weight there."
    )
    downloads.matrices(
        {"first minus second": diff},
        "attention_difference",
        "pe_dl_diff",
        labels={"first minus second": (labels, labels)},
    )
