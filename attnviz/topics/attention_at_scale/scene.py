"""The Attention at scale page as a scene (issue 30): a text through the text page's untrained
layer (attnviz.topics.text.attention: seeded embeddings, positions, W_q, W_k, W_v), then the same
q, k, v under every mask of masks.MASKS through core.attention (the maps), the receptive field of
the chosen mask after L layers, softmax against linear attention, the scores each mask computes
as T grows, and FlashAttention's and the KV cache's views (flash_views). Views by the part shown
(`sc_part`); a view named in `only` is built whatever the part. Lesson answers: `scores_kept`
(the chosen mask's count of scores) and `reach` (how far back the last token reaches). Its
`ops`, the page's other engine calls: measure (one attention layer timed on this machine),
flash_notes and kv_notes (FlashAttention's and the KV cache's notes, from their runs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
import torch

from attnviz.core.attention import scaled_dot_product_attention, split_heads
from attnviz.core.hooks import run_with_cache
from attnviz.core.tokenizers import tokenize
from attnviz.figures.fonts import retitled
from attnviz.figures.scale import loglog_figure, mask_figure, reach_figure, row_compare_figure
from attnviz.figures.text import heads_grid, shown
from attnviz.models.text_layer import TextSelfAttention
from attnviz.topics.attention_at_scale import flash_views as flash
from attnviz.topics.attention_at_scale.cost import measure, slope
from attnviz.topics.attention_at_scale.linear import Comparison, compare
from attnviz.topics.attention_at_scale.masks import (
    MASKS,
    build_mask,
    count_scores,
    layers_to_reach,
    reach_back,
)
from attnviz.topics.attention_at_scale.params import (
    COST_PART,
    FLASH_PART,
    KV_PART,
    LINEAR_PART,
    MASKS_PART,
    TABLE,
    TRY_THIS,
)
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values
from attnviz.topics.text.attention import TextConfig, model_input
from attnviz.topics.views import Memo, View, grouped

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.attention_at_scale.cost import ALGORITHMS as ALGORITHMS
from attnviz.topics.attention_at_scale.cost import D_HEAD as D_HEAD
from attnviz.topics.attention_at_scale.cost import HEADS as HEADS
from attnviz.topics.attention_at_scale.cost import LENGTHS as LENGTHS
from attnviz.topics.attention_at_scale.cost import NAIVE_CPU_MAX as NAIVE_CPU_MAX
from attnviz.topics.attention_at_scale.cost import crossover_sentence as crossover_sentence
from attnviz.topics.attention_at_scale.cost import slopes as slopes
from attnviz.topics.attention_at_scale.params import DEFAULT_TEXT as DEFAULT_TEXT
from attnviz.topics.attention_at_scale.params import MAX_CHARS as MAX_CHARS
from attnviz.topics.attention_at_scale.params import MAX_TOKENS as MAX_TOKENS

LINEAR_NAMES = ["softmax(q·k/√d)", "linear: φ(q)·φ(k), φ = elu + 1"]


@dataclass(frozen=True)
class ScaleConfig:
    text: str
    mask: str  # one of MASKS
    causal: bool
    w: int  # window width
    r: int  # dilation
    g: int  # global tokens
    layers: int
    seed: int = 0

    def model(self) -> TextConfig:
        """The text page's layer at its defaults (word tokens, 32 wide, 4 heads, sinusoidal)."""
        return TextConfig(seed=self.seed)

    def mask_of(self, kind: str, t: int) -> torch.Tensor:
        """(T, T) bool: mask `kind` at these settings."""
        return build_mask(kind, t, self.w, self.r, self.g, self.causal)


@dataclass(frozen=True)
class ScaleOutcome:
    config: ScaleConfig
    tokens: list[str]
    truncated_from: int  # tokens before truncation to MAX_TOKENS
    masks: dict[str, np.ndarray]  # kind -> (T, T) bool
    maps: dict[str, np.ndarray]  # kind -> (H, T, T) weights under that mask
    first: np.ndarray  # (T, T) fewest layers for token i to reach j under the chosen mask
    linear: Comparison  # softmax vs linear on q, k, v (H, T, ·); causal when asked


def config(values: Values) -> ScaleConfig:
    text = str(values["sc_text"])
    if not text.strip():
        raise SceneInputError("Type some text above: it is empty or only spaces.")
    if not tokenize(text, "word").tokens:
        raise SceneInputError("The text has no word the tokenizer can read: type some words.")
    return ScaleConfig(
        text,
        str(values["sc_mask"]),
        bool(values["sc_causal"]),
        *(int(values[k]) for k in ("sc_w", "sc_r", "sc_g", "sc_layers")),
        seed=int(values["seed"]),
    )


def token_count(text: str) -> int:
    """How many tokens of `text` the page uses (word tokens, at most MAX_TOKENS)."""
    return min(len(tokenize(text, "word").tokens), MAX_TOKENS)


def qkv(tokens: list[str], cfg: TextConfig) -> tuple[torch.Tensor, ...]:
    """The text layer's q, k (after its positions, from its hook points) and v, each (H, T, Dh)."""
    layer = TextSelfAttention(cfg.layer())
    x = torch.from_numpy(model_input(tokens, cfg).astype(np.float32))  # (1, T, D)
    _, cache = run_with_cache(layer, x, names=lambda n: n in ("hook_q", "hook_k"))
    v = split_heads(x @ layer.w_v + layer.b_v, cfg.n_heads)  # (1, H, T, Dh)
    return cache["hook_q"][0], cache["hook_k"][0], v[0]


def run(config: ScaleConfig) -> ScaleOutcome:
    found = tokenize(config.text, "word").tokens
    tokens = found[:MAX_TOKENS]
    t = len(tokens)
    q, k, v = qkv(tokens, config.model())  # (H, T, Dh)
    masks, maps = {}, {}
    for kind in MASKS:
        mask = config.mask_of(kind, t)
        _, weights = scaled_dot_product_attention(q, k, v, mask)  # (H, T, T)
        masks[kind], maps[kind] = mask.numpy(), weights.numpy()
    first = layers_to_reach(torch.from_numpy(masks[config.mask]), config.layers).numpy()
    return ScaleOutcome(
        config, tokens, len(found), masks, maps, first, compare(q, k, v, config.causal)
    )


def _head(values: Values) -> int:
    return min(int(values["sc_head"]), 3)


def query_index(out: ScaleOutcome, values: Values) -> int:
    """The query token shown, within 0..T−1."""
    return min(int(values["sc_query"]), len(out.tokens) - 1)


def mask_title(out: ScaleOutcome) -> str:
    cfg, t = out.config, len(out.tokens)
    kept = int(out.masks[cfg.mask].sum())
    causal = ", causal" if cfg.causal and cfg.mask != "causal" else ""
    return f"{cfg.mask} mask{causal}: {kept} of {t * t} scores ({kept / (t * t):.0%})"


def reach_title(out: ScaleOutcome) -> str:
    cfg = out.config
    back = int(reach_back(torch.from_numpy(out.masks[cfg.mask]), cfg.layers)[-1])
    return (
        f"Receptive field after {cfg.layers} layer{'s' * (cfg.layers > 1)} of the {cfg.mask} mask: "
        f"the last token draws on {back} token{'s' * (back != 1)} before it"
    )


def maps_view(out: ScaleOutcome, values: Values) -> go.Figure:
    head = _head(values)
    stack = np.stack([out.maps[kind][head] for kind in MASKS])  # (5, T, T)
    fig = heads_grid(stack, out.tokens, names=list(MASKS))
    return retitled(fig, f"Head {head}'s weights under each mask (same q, k, v)")


def _linear_pair(out: ScaleOutcome, values: Values) -> np.ndarray:
    """(2, T, T): the head's softmax weights and its linear attention's."""
    lin, head = out.linear, _head(values)
    return np.stack([lin.softmax_weights[head].numpy(), lin.linear_weights[head].numpy()])


def linear_maps_view(out: ScaleOutcome, values: Values) -> go.Figure:
    pair = _linear_pair(out, values)
    top = max(0.01, float(np.ceil(pair.max() * 100) / 100))  # flat rows need the contrast
    fig = heads_grid(pair, out.tokens, names=LINEAR_NAMES, columns=2, zmax=top)
    title = f"Head {_head(values)}: softmax beside linear attention (colours 0 to {top:.2f})"
    return retitled(fig, title)


def linear_row_view(out: ScaleOutcome, values: Values) -> go.Figure:
    pair, i = _linear_pair(out, values), query_index(out, values)
    title = f"Query {shown(out.tokens)[i]} (token {i}): its weights over the keys, both ways"
    return row_compare_figure(pair[0, i], pair[1, i], out.tokens, title)


def scores_figure(cfg: ScaleConfig) -> go.Figure:
    """Scores a layer computes per head against T (log–log), each mask at these settings."""
    lengths = np.asarray(LENGTHS)
    counts = {
        kind: [count_scores(kind, int(t), cfg.w, cfg.r, cfg.g, cfg.causal) for t in lengths]
        for kind in MASKS
    }
    fitted = {kind: slope(lengths, c) for kind, c in counts.items()}  # (slopes: the timing's)
    return loglog_figure(
        dict.fromkeys(MASKS, lengths),
        counts,
        fitted,
        f"Scores one head computes against tokens T (w = {cfg.w}, r = {cfg.r}, g = {cfg.g})",
        "scores per head and layer",
        "scores",
    )


def _in_part(name: str) -> Callable[[Values], bool]:
    """Drawn unasked while its part is shown, but for the part's first view (it is `sc_main`)."""
    return lambda values: name in PART_VIEWS[values["sc_part"]][1:]


def _of_part(views: tuple[View, ...]) -> tuple[View, ...]:
    return tuple(replace(view, when=_in_part(view.name)) for view in views)


def main_view(memo: Memo, values: Values) -> go.Figure | None:
    """The part's first view (the mask picture, the two weight maps, the tiles, the work per
    token, the scores)."""
    first = PART_VIEWS[values["sc_part"]][0]
    view = next(view for view in PARTS if view.name == first)
    return view.build(memo, values)


def _outcome(name: str, build: Callable[[ScaleOutcome, Values], go.Figure]) -> View:
    return View(name, lambda memo, values: build(memo.result, values))


def mask_view(out: ScaleOutcome, values: Values) -> go.Figure:
    return mask_figure(out.masks[out.config.mask], out.tokens, mask_title(out))


def reach_view(out: ScaleOutcome, values: Values) -> go.Figure:
    return reach_figure(out.first, out.tokens, out.config.layers, reach_title(out))


# a named view is built whatever the part; builders read the call's Memo (FlashAttention's
# views are built together, as are the KV cache's)
PARTS = _of_part(
    (
        _outcome("sc_mask_map", mask_view),
        _outcome("sc_maps", maps_view),
        _outcome("sc_reach", reach_view),
        _outcome("sc_linear_maps", linear_maps_view),
        _outcome("sc_linear_row", linear_row_view),
        _outcome("sc_scores", lambda out, _: scores_figure(out.config)),
        *grouped(flash.FLASH_VIEWS, lambda _, values: flash.flash_views(values)),
        *grouped(flash.KV_VIEWS, lambda _, values: flash.kv_views(values)),
    )
)
PART_VIEWS = {  # each part's views, its first one the page's main view (`sc_main`)
    MASKS_PART: ("sc_mask_map", "sc_maps", "sc_reach"),
    LINEAR_PART: ("sc_linear_maps", "sc_linear_row"),
    FLASH_PART: flash.FLASH_VIEWS,
    KV_PART: flash.KV_VIEWS,
    COST_PART: ("sc_scores",),
}
COST = "sc_open_cost"  # the measured cost's section: the page measures and draws it (cost_views)
MAIN_SPAN = 2.3 / 3.3  # of the page's width: the part's main figure, beside its settings
VIEWS = (
    *PARTS,
    View("sc_main", main_view, main=True, span=MAIN_SPAN),
    View("sc_cost_ms", page=True, section=COST),
    View("sc_cost_bytes", page=True, section=COST),
)


def answers(out: ScaleOutcome, values: Values) -> dict[str, Answer]:
    """`scores_kept`: the chosen mask's count of scores (options: every mask's; a number
    question's true value: the count); `reach`: how many tokens back the last token draws on
    after L layers."""
    cfg, t = out.config, len(out.tokens)
    counts = [f"{int(out.masks[kind].sum())} scores" for kind in MASKS]
    kept = int(out.masks[cfg.mask].sum())
    back = int(reach_back(torch.from_numpy(out.masks[cfg.mask]), cfg.layers)[-1])
    reaches = sorted({back, cfg.w - 1, cfg.layers, t - 1, min(t - 1, 2 * back + 1)})
    return {
        "scores_kept": Answer.of(
            f"{kept} scores", sorted(counts, key=lambda s: int(s.split()[0])), kept
        ),
        "reach": Answer.of(f"{back} tokens", [f"{n} tokens" for n in reaches]),
    }


SCENE = Scene(
    url="attention-at-scale",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=Memo,
    answers=answers,
    answer_names=("scores_kept", "reach"),  # the chosen mask's count of scores; how far back
    typed_answers={"scores_kept": "number"},
    ops=Operations(measure=measure, flash_notes=flash.flash_notes, kv_notes=flash.kv_notes),
)
