"""What the language-model page reads out of its model, each computed once per model and input
and remembered (`memo`: a small table kept on the model object, so every session of a server
shares it and a test's tiny model keeps its own): the forward pass, the next tokens, generation,
the logit lens, the head scores, the sinks, the key/value cache's size, and the lesson answers.
"""

from __future__ import annotations

import html
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnviz.topics.language_model import flows, heads, lens, qk_parts
from attnviz.topics.language_model import forward as fw
from attnviz.topics.language_model.decoding import Decoding, chooser, top_tokens
from attnviz.topics.language_model.layout import frozen_final_norm
from attnviz.topics.pretrained.generation import Generation, end_ids, generate_ids
from attnviz.topics.pretrained.model import PretrainedModel

MEMO_SIZE = 16  # inputs remembered per kind of readout
_MEMO_LOCK = threading.Lock()


def memo(lm: PretrainedModel, kind: str, key: Hashable, compute: Callable[[], Any]) -> Any:
    """compute() once per (lm, kind, key), the MEMO_SIZE latest kept per kind."""
    with _MEMO_LOCK:
        table = lm.__dict__.setdefault("_readouts", {}).setdefault(kind, OrderedDict())
        if key in table:
            table.move_to_end(key)
            return table[key]
    value = compute()  # outside the lock: the model's own lock orders inference
    with _MEMO_LOCK:
        table[key] = value
        while len(table) > MEMO_SIZE:
            table.popitem(last=False)
    return value


def forward(lm: PretrainedModel, ids: list[int]) -> fw.Forward:
    return memo(lm, "forward", tuple(ids), lambda: fw.run(lm, ids))


@dataclass(frozen=True)
class NextTokens:
    labels: list[str]  # the 10 most likely, most likely first
    probs: np.ndarray  # (10,)
    chosen: str  # the token the decoding picks
    chosen_index: int | None  # its place among the 10 (None when it is not among them)
    exact: list[str]  # each one's id and bytes (PretrainedModel.exact), for the hover


def next_tokens(lm: PretrainedModel, fwd: fw.Forward, decoding: Decoding, k: int = 10):
    """The k most likely next tokens and the one `decoding` chooses (greedy: the first); the
    page, its view and its lesson answer ask on every rerun, so it is remembered."""
    return memo(lm, "next", (fwd.ids, decoding, k), lambda: _next_tokens(lm, fwd, decoding, k))


def _next_tokens(lm: PretrainedModel, fwd: fw.Forward, decoding: Decoding, k: int) -> NextTokens:
    ids, probs = top_tokens(fwd.last_logits, k)
    chosen = int(chooser(decoding)(torch.from_numpy(fwd.last_logits)))
    where = np.flatnonzero(ids == chosen)
    labels = lm.readable([int(i) for i in ids])
    chosen_label = lm.readable([chosen])[0]
    index = int(where[0]) if where.size else None
    return NextTokens(labels, probs, chosen_label, index, lm.exact([int(i) for i in ids]))


def generation(
    lm: PretrainedModel,
    ids: tuple[int, ...],
    n_new: int,
    decoding: Decoding,
    past_end: bool = False,
) -> Generation:
    """Up to `n_new` tokens after `ids` with each one's attention over time (Generation): it
    stops at the model's end of text or of its turn, unless `past_end`."""

    def compute() -> Generation:
        stop = frozenset() if past_end else end_ids(lm)  # a vocabulary read: on a miss only
        return generate_ids(lm, torch.tensor([list(ids)]), n_new, chooser(decoding), stop_ids=stop)

    return memo(lm, "generation", (ids, n_new, decoding, past_end), compute)


@dataclass(frozen=True)
class LensView:
    top: list[list[str]]  # (L, T) the top token's label
    probs: np.ndarray  # (L, T) its probability
    hover: list[list[str]]  # (L, T) its top 5 with probabilities, one per line


def head_vectors(lm: PretrainedModel, fwd: fw.Forward, layer: int) -> np.ndarray:
    """(H, T, D): each source's value through each head's part of W_O at `layer`
    (flows.head_vectors); the values are the layer's v_proj on its normed input, read off the
    cached residual stream."""

    def compute() -> np.ndarray:
        block = fw.decoder_layers(lm)[layer]
        with lm.lock, torch.no_grad():
            stream = torch.from_numpy(fwd.resid[layer]).to(lm.model.device)  # (T, D)
            v, w_o = _values_and_out(lm, block, stream)  # (T, G·d), (D, H·d)
        values = v.float().cpu().numpy().reshape(len(fwd.ids), lm.n_kv_heads, lm.head_dim)
        return flows.head_vectors(values, w_o, lm.n_heads)

    return memo(lm, "head vectors", (fwd.ids, layer), compute)


def _values_and_out(lm: PretrainedModel, block, stream: torch.Tensor):
    """(the layer's values of `stream` (T, G·d), its output projection's weight (D, H·d) as
    NumPy): Llama's v_proj on the normed input and o_proj; GPT-2's c_attn's last third and its
    Conv1D c_proj (stored as (H·d, D))."""
    if fw.is_gpt2(lm):
        width = lm.n_heads * lm.head_dim
        v = block.attn.c_attn(block.ln_1(stream))[..., 2 * width :]
        return v, block.attn.c_proj.weight.T.float().cpu().numpy()
    v = block.self_attn.v_proj(block.input_layernorm(stream))
    return v, block.self_attn.o_proj.weight.float().cpu().numpy()


def flow_shares(lm: PretrainedModel, fwd: fw.Forward, layer: int) -> np.ndarray:
    """(H, T, T): what flows through each head of `layer` rather than where it looks, each
    source's ‖α_ij W_O^h v_j‖ normalised per row (attnviz.topics.language_model.flows)."""

    def compute() -> np.ndarray:
        return flows.value_weighted(fwd.attentions[layer], head_vectors(lm, fwd, layer))

    return memo(lm, "flows", (fwd.ids, layer), compute)


def why_parts(
    lm: PretrainedModel,
    fwd: fw.Forward,
    layer: int,
    head: int,
    cell: tuple[int, int],
    other: int | None = None,
) -> qk_parts.ScoreParts:
    """Head `head` of `layer`'s score at `cell` (query, key) taken apart by what built its query
    and its key, or (`other`: a second key) the difference of two: qk_parts.score_parts (one
    forward pass, what wrote the stream kept at those positions only)."""

    def compute() -> qk_parts.ScoreParts:
        at = tuple(sorted({*cell, *([] if other is None else [other])}))
        found = qk_parts.components(lm, list(fwd.ids), layer, at)
        return qk_parts.score_parts(lm, found, layer, head, cell, other)

    return memo(lm, "why", (fwd.ids, layer, head, cell, other), compute)


@dataclass(frozen=True)
class HeadWrites:
    """What one head writes at the last position, read directly as next-token logits."""

    promoted: list[tuple[str, float]]  # the tokens whose logits it raises most, most first
    suppressed: list[tuple[str, float]]  # those it lowers most, lowest first


def _labelled(lm: PretrainedModel, ids: np.ndarray, values: np.ndarray) -> list[tuple[str, float]]:
    return list(zip(lm.readable(ids.tolist()), values.tolist(), strict=True))


def head_writes(lm: PretrainedModel, fwd: fw.Forward, layer: int, head: int, k: int = 5):
    """Head `head` of `layer`'s output at the last position through the final norm (its
    division frozen at this run's) and the unembedding (flows.logit_effect): HeadWrites."""

    def compute() -> HeadWrites:
        last = len(fwd.ids) - 1
        output = flows.contributions(fwd.attentions[layer], head_vectors(lm, fwd, layer), last)
        norm = frozen_final_norm(lm, fwd.resid[-1, last])  # (D,): the stream there
        written = norm.centre(output[head].sum(0))  # (D,)
        unembed = lm.model.lm_head.weight.detach().float().cpu().numpy()  # (V, D)
        effect = flows.logit_effect(written, norm.gain, 1.0, unembed)  # (V,)
        ranked = (np.argsort(-effect)[:k], np.argsort(effect)[:k])  # raised most, lowered most
        return HeadWrites(*(_labelled(lm, ids, effect[ids]) for ids in ranked))

    return memo(lm, "writes", (fwd.ids, layer, head, k), compute)


def flow_first_shares(lm: PretrainedModel, fwd: fw.Forward) -> np.ndarray:
    """(L, H): each head's share of what it moves that comes from the first token, over queries
    1…T−1, as heads.first_token_share reads the weights (the sinks section, "what flows")."""

    def compute() -> np.ndarray:  # every layer once: more layers than the memo keeps maps of
        shares = [flow_shares(lm, fwd, layer) for layer in range(lm.n_layers)]  # (H, T, T) each
        return heads.first_token_share(np.stack(shares))  # (L, H)

    return memo(lm, "flows first", fwd.ids, compute)


def lens_view(lm: PretrainedModel, fwd: fw.Forward) -> LensView:
    def compute() -> LensView:
        result = lens.logit_lens(lm, fwd)
        vocab = sorted({int(i) for i in result.ids.ravel()})
        label = dict(zip(vocab, lm.readable(vocab), strict=True))
        exact = dict(zip(vocab, lm.exact(vocab), strict=True))  # 'id 7042 · bytes 20 50 …'
        top = [[label[int(i)] for i in row] for row in result.ids[..., 0]]
        hover = [
            [
                "<br>".join(
                    f"{html.escape(label[int(i)], quote=False)}: {p:.3f} ({exact[int(i)]})"
                    for i, p in zip(ids, ps, strict=True)
                )
                for ids, ps in zip(row_ids, row_ps, strict=True)
            ]
            for row_ids, row_ps in zip(result.ids, result.probs, strict=True)
        ]
        return LensView(top, result.probs[..., 0], hover)

    return memo(lm, "lens", fwd.ids, compute)


def probe_scores(lm: PretrainedModel) -> dict[str, np.ndarray]:
    """{kind: (L, H)} on the probe (heads.probe_scores), once per model."""
    return memo(lm, "probe", None, lambda: heads.probe_scores(lm))


@dataclass(frozen=True)
class SinkView:
    with_bos: np.ndarray  # (L, H)
    without_bos: np.ndarray  # (L, H)
    as_given: np.ndarray  # (L, H): the prompt as the page runs it
    first_token: str  # the first token as given (BOS or the prompt's own)
    first: str  # the prompt's own first token


def sinks(lm: PretrainedModel, ids: tuple[int, ...]) -> SinkView:
    """First-token shares of the prompt with the BOS token in front and without it."""
    start = fw.bos_id(lm)
    plain = list(ids[1:] if start is not None and ids[0] == start and len(ids) > 1 else ids)
    with_bos = [start, *plain] if start is not None else plain
    bare, front = forward(lm, plain), forward(lm, with_bos)
    given = forward(lm, list(ids))
    return SinkView(
        heads.first_token_share(front.attentions),
        heads.first_token_share(bare.attentions),
        heads.first_token_share(given.attentions),
        given.tokens[0],
        bare.tokens[0],
    )


def kv_bytes_rows(lm: PretrainedModel) -> list[tuple[str, int]]:
    """Bytes per token of the key/value cache: this model first (grouped-query, multi-head or
    multi-query, as its key/value heads say), then the other two kinds of the same width, at
    the model's dtype."""
    per_head = 2 * lm.n_layers * lm.head_dim * next(lm.model.parameters()).element_size()
    kinds = {lm.n_heads: f"multi-head: {lm.n_heads} KV heads", 1: "multi-query: 1 KV head"}
    own = kinds.get(lm.n_kv_heads, f"grouped-query: {lm.n_kv_heads} KV heads")
    rows = [(f"{own} (this model)", per_head * lm.n_kv_heads)]
    return rows + [(name, per_head * n) for n, name in kinds.items() if n != lm.n_kv_heads]


def kv_sentence(lm: PretrainedModel) -> str:
    """What the model's key/value cache keeps a token, said for its kind of attention."""
    per_head = kv_bytes_rows(lm)[0][1] // lm.n_kv_heads
    own, full = per_head * lm.n_kv_heads, per_head * lm.n_heads
    where = f"at the model's {lm.n_layers} layers"
    if lm.n_kv_heads == lm.n_heads:
        return (
            f"Multi-head attention: each of the {lm.n_heads} query heads has its own key/value "
            f"head, so the cache keeps {own:,} bytes a token {where}; sharing them between heads, "
            "as grouped-query and multi-query attention do, keeps fewer (the bars)."
        )
    kind = "Multi-query" if lm.n_kv_heads == 1 else "Grouped-query"
    shared = f"{lm.n_kv_heads} key/value head{'s' if lm.n_kv_heads > 1 else ''}"
    return (
        f"{kind} attention: the {lm.n_heads} query heads share {shared}, so the cache keeps "
        f"{own:,} bytes a token instead of {full:,} ({full / own:.3g}× less) {where}."
    )


def induction_question(lm: PretrainedModel) -> tuple[str, list[str]]:
    """("L18 H6", options): the head scoring highest as induction head on the probe, offered
    beside the best previous-token, first-token and local heads (each a different head)."""
    scores = probe_scores(lm)
    options: list[str] = []
    for kind in ("induction", "previous", "first", "local", "duplicate"):
        order = np.argsort(-np.nan_to_num(scores[kind], nan=-1.0), axis=None)
        for flat in order:
            layer, head = np.unravel_index(int(flat), scores[kind].shape)
            name = f"L{layer} H{head}"
            if name not in options:
                options.append(name)
                break
    return options[0], sorted(options[:4])


SHARES = ("under 25 %", "25–50 %", "50–75 %", "over 75 %")


def share_question(fwd: fw.Forward) -> tuple[str, list[str], float]:
    """The mean weight every head puts on the first token (queries after it), as a range, the
    ranges, and as a percentage (a number question's true value)."""
    share = float(heads.first_token_share(fwd.attentions).mean())
    return SHARES[min(int(share * 4), 3)], list(SHARES), 100 * share


FLOW_RATIOS = (  # the first token's share of what a head moves, against its share of the weight
    "under half",
    "half to 9/10",
    "about equal",
    "more",
)


def flow_question(
    lm: PretrainedModel, fwd: fw.Forward, layer: int, head: int
) -> tuple[str, list[str]]:
    """The first token's share of what head `head` of `layer` moves (‖α W_O v‖ per row, queries
    1…T−1) against its share of the weight, as one of FLOW_RATIOS (the lesson's "a sink moves
    little")."""
    pair = np.stack([fwd.attentions[layer, head], flow_shares(lm, fwd, layer)[head]])  # (2, T, T)
    weight, flow = heads.first_token_share(pair[None])[0]
    ratio = flow / weight if weight > 0 else 1.0
    bounds = np.searchsorted([0.5, 0.9, 1.1], ratio, side="right")
    return FLOW_RATIOS[int(bounds)], list(FLOW_RATIOS)
