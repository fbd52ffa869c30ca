"""The Self-attention, step by step page as a scene (seed 004): an input z and the layer's six
parameters (seeded, or edited by hand and kept in the URL as text), every intermediate of
softmax(QKᵀ/√e)V (steps.compute_steps), the figures of the steps revealed so far, what the
browser's live query-row view computes from (`live_row_data`), and the lesson answer `top_key`
(the patch query i weights most)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.steps import step_figure, weight_figures
from attnviz.io.matrix_text import decode_matrix
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values
from attnviz.topics.self_attention.params import TABLE, TRY_THIS
from attnviz.topics.self_attention.steps import (
    LayerWeights,
    Step,
    compute_steps,
    random_input,
    random_weights,
)
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.self_attention.params import MATRIX_URL_KEYS as MATRIX_URL_KEYS
from attnviz.topics.self_attention.params import STEP_NAMES as STEP_NAMES
from attnviz.topics.self_attention.steps import step_labels as step_labels

# the step keys each reveal stage adds (one stage per name of STEP_NAMES)
STAGES = (("z",), ("Q", "K", "V"), ("QK",), ("scaled",), ("masked",), ("weights",), ("out",))
# the hand-edited matrices by URL key (as MATRIX_URL_KEYS): the name in messages and figures
MATRIX_NAMES = dict(
    zip(MATRIX_URL_KEYS, ("z", "W_q", "B_q", "W_k", "B_k", "W_v", "B_v"), strict=True)
)
BIAS_KEYS = ("sa_bq", "sa_bk", "sa_bv")


@dataclass(frozen=True)
class SelfAttentionConfig:
    m: int  # patches (rows of z)
    d: int  # features per patch
    e: int  # query/key width
    d2: int  # value width
    causal: bool
    scaled: bool
    bias: bool  # biases B on (off: zeros, their hand edits ignored)
    seed: int = 0
    edits: tuple[str, ...] = ("",) * len(MATRIX_URL_KEYS)  # URL text per MATRIX_URL_KEYS; ""=seeded


@dataclass(frozen=True)
class SelfAttentionOutcome:
    config: SelfAttentionConfig
    z: np.ndarray  # (m, d)
    weights: LayerWeights
    steps: dict[str, Step]  # by step key, in the layer's order


def seeded(m: int, d: int, e: int, d2: int, seed: int, bias: bool) -> dict[str, np.ndarray]:
    """The seeded input and parameters by URL key: what an unedited grid holds."""
    w = random_weights(d, e, d2, seed, bias)
    found = (random_input(m, d, seed), w.w_q, w.b_q, w.w_k, w.b_k, w.w_v, w.b_v)
    return dict(zip(MATRIX_URL_KEYS, found, strict=True))


def seeded_for(values: Values) -> dict[str, np.ndarray]:
    """`seeded` at the sizes, seed and bias switch of `values`."""
    sizes = (int(values[k]) for k in ("sa_m", "sa_d", "sa_e", "sa_d2"))
    return seeded(*sizes, int(values["seed"]), bool(values["sa_bias"]))


def layer_inputs(cfg: SelfAttentionConfig) -> tuple[np.ndarray, LayerWeights]:
    """z (m, d) and the weights: each hand-edited text read at its seeded matrix's shape;
    SceneInputError names a text that cannot be read."""
    start = seeded(cfg.m, cfg.d, cfg.e, cfg.d2, cfg.seed, cfg.bias)
    found = {}
    for key, text in zip(MATRIX_URL_KEYS, cfg.edits, strict=True):
        if not text or (key in BIAS_KEYS and not cfg.bias):
            found[key] = start[key]
            continue
        try:
            found[key] = decode_matrix(text, start[key].shape)
        except ValueError as err:
            raise SceneInputError(
                f"The hand-edited {MATRIX_NAMES[key]} was not read: {err}."
            ) from err
    return found["sa_z"], LayerWeights(*(found[k] for k in MATRIX_URL_KEYS[1:]))


def config(values: Values) -> SelfAttentionConfig:
    cfg = SelfAttentionConfig(
        *(int(values[k]) for k in ("sa_m", "sa_d", "sa_e", "sa_d2")),
        *(bool(values[k]) for k in ("sa_causal", "sa_scaled", "sa_bias")),
        seed=int(values["seed"]),
        edits=tuple(str(values[k]) for k in MATRIX_URL_KEYS),
    )
    layer_inputs(cfg)  # a text that cannot be read is the input's fault: said here
    return cfg


def run(config: SelfAttentionConfig) -> SelfAttentionOutcome:
    z, weights = layer_inputs(config)
    steps = compute_steps(z, weights, causal=config.causal, scaled=config.scaled)
    return SelfAttentionOutcome(config, z, weights, {s.key: s for s in steps})


def stages(values: Values) -> tuple[tuple[str, ...], ...]:
    """The reveal stages shown: every stage up to the one `sa_reveal` names."""
    return STAGES[: STEP_NAMES.index(values["sa_reveal"]) + 1]


def query_index(out: SelfAttentionOutcome, values: Values) -> int:
    """The query patch i, within 0..m−1."""
    return min(int(values["sa_i"]), out.config.m - 1)


def _revealed(key: str, values: Values) -> bool:
    return any(key in keys for keys in stages(values))


# px a step's matrix gets at least in lecture mode, where the page is on a projector: its wide
# column beside the controls is 807 px at 1280×720 with the sidebar folded (about 570 with it
# open) and 1,250 at 1920×1080. Its numbers are fitted to cells of this width at lecture mode's
# font; fitted to the default (a 300 px column) they shrank back to 12 px beside 19 px ticks
LECTURE_COLUMN_PX = 560


def _step(key: str, **where) -> View:
    """Step `key`'s matrix (one query row only in row mode), once its stage is revealed; none
    for the mask or the scaling switched off, whose matrix would be the one above it again (one
    chart fewer on every move: ~28 ms in Chromium)."""

    def build(out: SelfAttentionOutcome, values: Values) -> go.Figure | None:
        step = out.steps[key]
        if not _revealed(key, values) or not step.changes:  # switched off: no copy of above
            return None
        row = query_index(out, values) if values["sa_row"] else None
        wide = LECTURE_COLUMN_PX if values.get("lecture") else None  # None: a page column
        return step_figure(key, step.matrix, step.title, row, width_px=wide)

    return View(f"step_{key}", build, **where)


def _parameter(name: str) -> View:
    """A parameter behind Q, K, V (`W_q`, `B_q`, …), in the folded section `sa_open_w`, once
    Q, K, V are revealed."""

    def build(out: SelfAttentionOutcome, values: Values) -> go.Figure | None:
        if not _revealed("Q", values):
            return None
        return weight_figures({name: getattr(out.weights, name.lower())})[0]

    return View(name, build, section="sa_open_w")


VIEWS = (
    _step("z", main=True),  # the one step every reveal shows
    *(_step(key) for key in STAGES[1]),
    *(_parameter(f"{kind}_{letter}") for letter in "qkv" for kind in "WB"),  # W beside its B
    *(_step(key) for keys in STAGES[2:] for (key,) in [keys]),
)


def live_row_data(out: SelfAttentionOutcome, values: Values) -> dict:
    """What the browser's live query-row view (attnviz/ui/parts/self_attention.py) recomputes row
    i of the layer from, JSON-ready: Q (m, e), K (m, e) and V (m, d₂) as the engine computed
    them, the causal flag, the factor the scores are multiplied by (1/√e, or 1 unscaled), the
    query row i and how far the reveal has got (an index into STEP_NAMES)."""
    cfg = out.config
    return {
        "q": out.steps["Q"].matrix.tolist(),  # (m, e)
        "k": out.steps["K"].matrix.tolist(),  # (m, e)
        "v": out.steps["V"].matrix.tolist(),  # (m, d2)
        "causal": cfg.causal,
        "scaled": cfg.scaled,
        "e": cfg.e,
        "scale": 1.0 / math.sqrt(cfg.e) if cfg.scaled else 1.0,
        "row": query_index(out, values),
        "reveal": STEP_NAMES.index(values["sa_reveal"]),
    }


def answers(out: SelfAttentionOutcome, values: Values) -> dict[str, Answer]:
    """`top_key`: the patch that query patch i weights most."""
    patches = [f"patch {j}" for j in range(out.config.m)]
    row = out.steps["weights"].matrix[query_index(out, values)]
    return {"top_key": Answer.of(patches[int(row.argmax())], patches)}


def problems(state: Values) -> list[tuple[str, str]]:
    """A lesson step's settings that do not fit each other: the query patch past m."""
    if state["sa_i"] >= state["sa_m"]:
        return [("sa_i", f"query patch {state['sa_i']} of m = {state['sa_m']} patches")]
    return []


SCENE = Scene(
    url="self-attention",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    answers=answers,
    answer_names=("top_key",),
    problems=problems,
    extras=dict.fromkeys(MATRIX_URL_KEYS, ""),
)
