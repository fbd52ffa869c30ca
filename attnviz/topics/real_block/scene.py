"""Inside one block of a real model, as a scene: a short prompt (up to 12 tokens) through one
chosen block of the bundled SmolLM2-135M (the language-model page's model, Llama architecture),
step by step, each step a view with its real numbers and shape (attnviz.topics.real_block.block
computes them from the block's weights): the stream in, RMSNorm, Q, K and V of one query head
and the key/value head it shares, the rotary rotation and what it does to the scores, QKᵀ/√d
under the causal mask, softmax, ·V, W_O over the heads, the SwiGLU MLP, the residual stream in +
attention + MLP = out; on the last block, the next token with temperature and top-p. One row
first: the matrices show the query token's row until "whole matrices" is on.

Lesson answers: `largest_rms` (the token whose stream has the largest rms), `next_token` (the
last block's top token, with three others of the ten likeliest). The model comes from the
language-model page's `model(device)` (tests hand in a tiny random Llama there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures import real_block as fig
from attnviz.figures.text import shown
from attnviz.topics.fair_options import fair_order, kin_first
from attnviz.topics.language_model.forward import encode
from attnviz.topics.language_model.scene import model
from attnviz.topics.real_block.block import Block, trace
from attnviz.topics.real_block.params import LAST_TOKEN, MAX_TOKENS, SECTIONS, TABLE, TRY_THIS
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values, token_labels
from attnviz.topics.views import ACROSS, View


@dataclass(frozen=True)
class BlockInput:
    text: str
    layer: int
    head: int
    device: str = "cpu"


@dataclass(frozen=True)
class BlockOutcome:
    config: BlockInput
    block: Block
    tokens: list[str]  # as a reader sees them (␣ a space)
    cut: bool  # the prompt had more than MAX_TOKENS tokens


def config(values: Values) -> BlockInput:
    text = values["rb_text"]
    if not text.strip():
        raise SceneInputError("Type a prompt above (it is empty).")
    return BlockInput(text, int(values["rb_layer"]), int(values["rb_head"]), values["device"])


def run(config: BlockInput) -> BlockOutcome:
    lm = model(config.device)
    try:
        ids, _ = encode(lm, config.text)
    except ValueError:
        raise SceneInputError("The prompt has no tokens: type a word or two.") from None
    layer = min(config.layer, lm.n_layers - 1)
    block = trace(lm, ids[:MAX_TOKENS], layer, min(config.head, lm.n_heads - 1))
    return BlockOutcome(config, block, lm.readable(ids[:MAX_TOKENS]), len(ids) > MAX_TOKENS)


@dataclass(frozen=True)
class Shown:
    """What the views read besides the block: the labels, the query and the rows shown."""

    labels: list[str]
    query: int
    rows: tuple[int, ...]
    token: str  # the query's label, quoted


def seen(out: BlockOutcome, values: Values) -> Shown:
    labels = shown(out.tokens)
    asked = int(values["rb_query"])
    query = len(labels) - 1 if asked == LAST_TOKEN else min(asked, len(labels) - 1)
    rows = tuple(range(len(labels))) if values["rb_whole"] else (query,)
    return Shown(labels, query, rows, f"'{labels[query]}'")


def stream_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    title = f"1. The residual stream into block {b.layer}"
    return fig.vectors(b.stream_in, s.labels, s.rows, title, b.stream_in.shape[1])


def rms_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    series = {"before attention": b.norm1.rms, "before the MLP": b.norm2.rms}
    if b.final is not None:
        series["final norm"] = b.final.rms
    return fig.rms_bars(series, s.labels, s.query, b.layer)


def normed_view(out: BlockOutcome, values: Values) -> go.Figure:
    """The query's x / rms, γ and their product (one row first); every token's normed row
    under γ (whole matrices)."""
    s, b = seen(out, values), out.block
    norm, q = b.norm1, s.query
    if values["rb_whole"]:
        parts = np.vstack([norm.scale[None], norm.out])  # (1 + T, D)
        names, rows = ["γ (learned)", *s.labels], "token"
    else:
        parts = np.stack([b.stream_in[q] / norm.rms[q], norm.scale, norm.out[q]])  # (3, D)
        names, rows = [f"x / rms at {s.token}", "γ (learned)", "= x / rms ⊙ γ"], "step"
    title = "2. x / rms ⊙ γ: the normed stream"
    return fig.vectors(parts, names, range(len(names)), title, norm.out.shape[1], rows)


def qkv_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    sharing = ", ".join(str(h) for h in b.sharing)
    names = (f"Q, head {b.head}", f"K, kv head {b.kv_head}", f"V, kv head {b.kv_head}")
    title = f"3. Q, K, V (64 dims each): query heads {sharing} share kv head {b.kv_head}"
    q, k, v = b.q[b.head], b.k[b.kv_head], b.v[b.kv_head]
    return fig.qkv_figure(q, k, v, s.labels, s.rows, names, title)


def rope_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    before, after = b.q[b.head, s.query], b.q_rot[b.head, s.query]
    return fig.rope_arrows(before, after, b.angles[s.query], f"{s.token} (position {s.query})")


def rope_scores_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    d = b.q.shape[-1]
    keys = slice(0, s.query + 1)  # the keys the causal mask leaves the query
    plain = b.k[b.kv_head, keys] @ b.q[b.head, s.query] / np.sqrt(d)
    turned = b.k_rot[b.kv_head, keys] @ b.q_rot[b.head, s.query] / np.sqrt(d)
    return fig.rope_scores(plain, turned, s.labels[keys], s.token)


def scores_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    return fig.scores_figure(b.scores[b.head], s.labels, s.rows, b.head, weights=False)


def weights_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    return fig.scores_figure(b.weights[b.head], s.labels, s.rows, b.head, weights=True)


def head_out_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    title = f"8. weights · V: head {b.head}'s output"
    return fig.vectors(b.heads_out[b.head], s.labels, s.rows, title, b.heads_out.shape[-1])


def attn_out_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    title = f"9. The {b.heads_out.shape[0]} heads concatenated, through W_O"
    return fig.vectors(b.attn_out, s.labels, s.rows, title, b.attn_out.shape[1])


def mlp_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    parts = np.stack([m[s.query] for m in (b.gate, b.act, b.up, b.product)])  # (4, F)
    names = ["gate", "SiLU(gate)", "up", "SiLU(gate) ⊙ up"]
    title = f"10. SwiGLU MLP at {s.token}"
    return fig.vectors(parts, names, range(4), title, b.gate.shape[1], "step")


def residual_view(out: BlockOutcome, values: Values) -> go.Figure:
    s, b = seen(out, values), out.block
    parts = np.stack(
        [m[s.query] for m in (b.stream_in, b.attn_out, b.stream_mid, b.mlp_out, b.stream_out)]
    )  # (5, D)
    names = ["stream in", "+ attention", "= middle", "+ MLP", "= stream out"]
    title = f"11. The residual stream at {s.token}"
    return fig.vectors(parts, names, range(5), title, b.stream_in.shape[1], "step")


def nucleus(logits: np.ndarray, temperature: float, top_p: float) -> tuple[np.ndarray, int]:
    """(probabilities at `temperature`, sorted high to low (V,); how many the top-p nucleus
    keeps: the fewest whose probabilities sum to `top_p` or more)."""
    z = logits.astype(np.float64) / temperature
    probs = np.exp(z - z.max())
    probs = np.sort(probs / probs.sum())[::-1]
    return probs, int(np.searchsorted(np.cumsum(probs), top_p) + 1)


def next_view(out: BlockOutcome, values: Values) -> go.Figure | None:
    """The next token (the last block only): the ten likeliest at the temperature, the top-p
    nucleus marked."""
    logits = out.block.logits
    if logits is None:
        return None
    t, p = float(values["rb_temp"]), float(values["rb_topp"])
    probs, kept = nucleus(logits, t, p)
    return fig.next_token_bars(probs[:10], shown(ranked(out)), kept, t, p)


def ranked(out: BlockOutcome) -> list[str]:
    """The ten likeliest next tokens after the last block, likeliest first, as a reader sees
    them."""
    order = np.argsort(-out.block.logits.astype(np.float64), kind="stable")[:10]
    return model(out.config.device).readable([int(i) for i in order])


NORM, QKV, ROPE, SCORES, OUT = SECTIONS  # the folded steps' open toggles, in the page's order
VIEWS = (
    View("rb_stream", stream_view, section=NORM, folded=True, span=ACROSS),
    View("rb_rms", rms_view, section=NORM, folded=True, span=ACROSS),
    View("rb_normed", normed_view, section=NORM, folded=True, span=ACROSS),
    View("rb_qkv", qkv_view, section=QKV, folded=True, span=ACROSS),
    View("rb_rope", rope_view, section=ROPE, folded=True, span=ACROSS),
    View("rb_rope_scores", rope_scores_view, section=ROPE, folded=True, span=ACROSS),
    View("rb_scores", scores_view, section=SCORES, folded=True, span=ACROSS),
    View("rb_weights", weights_view, main=True, span=ACROSS),
    View("rb_head_out", head_out_view, section=SCORES, folded=True, span=ACROSS),
    View("rb_attn_out", attn_out_view, section=OUT, folded=True, span=ACROSS),
    View("rb_mlp", mlp_view, section=OUT, folded=True, span=ACROSS),
    View("rb_residual", residual_view, section=OUT, folded=True, span=ACROSS),
    View("rb_next", next_view, span=ACROSS),
)


def answers(out: BlockOutcome, values: Values) -> dict[str, Answer]:
    """`largest_rms`: the token whose stream into the block has the largest rms (every token an
    option); on the last block `next_token`: the top token with three others of the ten
    likeliest, shuffled."""
    labels = token_labels(out.tokens)
    largest = labels[int(np.argmax(out.block.norm1.rms))]
    found = {"largest_rms": Answer.of(largest, labels)}
    if out.block.logits is not None:
        likeliest = ranked(out)
        top = token_labels(kin_first(likeliest[0], likeliest, 4))
        found["next_token"] = Answer.of(top[0], fair_order(top, " ".join(likeliest)))
    return found


SCENE = Scene(
    url="real-block",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    answers=answers,
    answer_names=("largest_rms", "next_token"),
)
