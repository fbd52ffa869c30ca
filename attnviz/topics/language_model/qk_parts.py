"""Why a head looks where it looks (QK attribution, issue 57): one cell's pre-softmax score taken
apart by what built its query and its key.

The residual stream into layer l at a position is a sum of what wrote it: the token embedding,
every earlier head's output (its slice of o_proj), every earlier MLP. With the RMSNorm division of
each position frozen at this run's (its learned scale is linear), the query of head h at i is
Σ_a RoPE_i(W_Q^h (scale ⊙ c_a(i) / rms_i)) and the key at j likewise with W_K of h's key/value
head, so the score q_i·k_j/√d is Σ_a Σ_b of the parts q_a(i)·k_b(j)/√d: a (query component × key
component) matrix that sums to the score. Rotary positions are the model's own (its rotary
module and its `apply_rotary_pos_emb`); a projection's bias is one more component. Models that
normalise q and k per head (Qwen3, Gemma 3: `q_norm`) are not linear there and are refused.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hooks import module_cache
from attnviz.topics.language_model.forward import decoder_layers, group_of, is_gpt2
from attnviz.topics.pretrained.model import PretrainedModel

EMBEDDING, BIAS, REST = "embedding", "bias", "the rest"


@dataclass(frozen=True)
class Components:
    """What wrote the residual stream into one layer, at every position."""

    names: list[str]  # "embedding", then per earlier layer "L0 H0" … "L0 H8", "L0 MLP", …
    vectors: np.ndarray  # (K, P, D): component k's write at each kept position (float64)
    stream: np.ndarray  # (P, D): the stream into the layer as the model had it (their sum)
    positions: tuple[int, ...]  # (P,): the positions kept

    def at(self, position: int) -> int:
        """The index of `position` among those kept."""
        return self.positions.index(position)


def components(
    lm: PretrainedModel, ids: list[int], layer: int, positions: tuple[int, ...] | None = None
) -> Components:
    """One forward pass of `ids`, kept up to `layer` at `positions` (default: every one): the
    embedding, each earlier head's output (o_proj's input slice through its weight slice) and
    each earlier MLP's output."""
    positions = tuple(range(len(ids))) if positions is None else tuple(positions)
    picked = list(positions)

    def _on_cpu(tensor: torch.Tensor) -> torch.Tensor:  # (1, T, ·) -> (P, ·)
        return tensor.detach()[0, picked].double().cpu()

    blocks = decoder_layers(lm)
    outputs = {"embedding": [lm.model.model.embed_tokens], "mlp": [b.mlp for b in blocks[:layer]]}
    inputs = {"z": [b.self_attn.o_proj for b in blocks[:layer]]}
    inputs["stream"] = [blocks[layer].input_layernorm]  # its input: the stream into `layer`
    taps = module_cache(outputs=outputs, inputs=inputs, keep=_on_cpu)
    with lm.lock, torch.no_grad(), taps as kept:
        lm.model(input_ids=torch.tensor([ids], device=lm.model.device), use_cache=False)
    names, parts = [EMBEDDING], [kept["embedding"][0].numpy()]  # (T, D)
    d = lm.head_dim
    for number, block in enumerate(blocks[:layer]):
        w_o = block.self_attn.o_proj.weight.detach().double().cpu().numpy()  # (D, H·d)
        z = kept["z"][number].numpy()  # (T, H·d)
        for h in range(lm.n_heads):
            names.append(f"L{number} H{h}")
            parts.append(z[:, h * d : (h + 1) * d] @ w_o[:, h * d : (h + 1) * d].T)  # (T, D)
        names.append(f"L{number} MLP")
        parts.append(kept["mlp"][number].numpy())
    return Components(names, np.stack(parts), kept["stream"][0].numpy(), positions)


@dataclass(frozen=True)
class ScoreParts:
    """One cell's score (or two cells' difference) taken apart: `parts[a, b]` is what query
    component a and key component b add; the parts sum to `score`."""

    parts: np.ndarray  # (Kq, Kk)
    query_names: list[str]  # what built the query (rows)
    key_names: list[str]  # what built the key (columns)
    score: float  # the pre-softmax score q·k/√d (or the difference of two)
    what: str

    def top(self, n: int = 8) -> ScoreParts:
        """The n − 1 rows and columns that add most (by |sum|), the others summed into one
        row and one column named REST: the same total."""
        rows, cols = _keep(self.parts.sum(1), n), _keep(self.parts.sum(0), n)
        parts = _fold(_fold(self.parts, rows, axis=0), cols, axis=1)
        return ScoreParts(
            parts,
            [self.query_names[a] for a in rows] + [REST] * (len(rows) < len(self.query_names)),
            [self.key_names[b] for b in cols] + [REST] * (len(cols) < len(self.key_names)),
            self.score,
            self.what,
        )

    def side(self, key: bool) -> tuple[str, float]:
        """(component, what it adds summed over the other side's parts) of the query's (or,
        `key`, the key's) component that adds most to the score."""
        sums, names = (
            (self.parts.sum(0), self.key_names) if key else (self.parts.sum(1), self.query_names)
        )
        best = int(np.argmax(sums * np.sign(self.score or 1)))
        return names[best], float(sums[best])

    def largest(self) -> tuple[str, str, float]:
        """(query component, key component, part) of the part that adds most to the score."""
        a, b = np.unravel_index(np.argmax(self.parts * np.sign(self.score or 1)), self.parts.shape)
        return self.query_names[a], self.key_names[b], float(self.parts[a, b])


def _keep(sums: np.ndarray, n: int) -> list[int]:
    """The indices of the n − 1 largest |sums| (all of them when there are n or fewer)."""
    if len(sums) <= n:
        return list(range(len(sums)))
    return sorted(np.argsort(-np.abs(sums))[: n - 1].tolist())


def _fold(parts: np.ndarray, kept: list[int], axis: int) -> np.ndarray:
    """`parts` with only the `kept` rows (axis 0) or columns (axis 1), the rest summed last."""
    if len(kept) == parts.shape[axis]:
        return parts
    rest = np.delete(parts, kept, axis=axis).sum(axis=axis, keepdims=True)
    return np.concatenate([np.take(parts, kept, axis=axis), rest], axis=axis)


def _projected(lm: PretrainedModel, comps: Components, layer: int, at: int, proj) -> np.ndarray:
    """(K, d) or (K + 1, d): each component at position `at` through the layer's RMSNorm (its
    division frozen at the stream's) and `proj`'s rows (the head's slice), its bias last."""
    weight, bias = proj
    norm = decoder_layers(lm)[layer].input_layernorm
    scale = norm.weight.detach().double().cpu().numpy()  # (D,)
    stream = comps.stream[comps.at(at)]
    rms = np.sqrt(np.mean(stream**2) + norm.variance_epsilon)
    out = (comps.vectors[:, comps.at(at)] * (scale / rms)) @ weight.T  # (K, d)
    return out if bias is None else np.concatenate([out, bias[None]])


def _rotated(lm: PretrainedModel, layer: int, vectors: np.ndarray, at: int) -> np.ndarray:
    """(K, d): each vector turned as the model turns a query or key at position `at` (its own
    rotary module and `apply_rotary_pos_emb`)."""
    attn = decoder_layers(lm)[layer].self_attn
    apply = sys.modules[type(attn).__module__].apply_rotary_pos_emb
    x = torch.from_numpy(vectors)[None, :, None, :]  # (1, K, 1, d)
    cos, sin = lm.model.model.rotary_emb(x.float(), torch.tensor([[at]]))  # (1, 1, d)
    turned, _ = apply(x, x, cos.double(), sin.double())
    return turned[0, :, 0].numpy()


def _slice(linear, rows: slice):
    weight = linear.weight.detach().double().cpu().numpy()[rows]  # (d, D)
    bias = None if linear.bias is None else linear.bias.detach().double().cpu().numpy()[rows]
    return weight, bias


def _names(comps: Components, proj) -> list[str]:
    return comps.names + [BIAS] * (proj[1] is not None)


def refusal(lm: PretrainedModel) -> str | None:
    """Why this model's scores cannot be taken apart here (None: they can): q and k normalised
    per head (Qwen3, Gemma 3), scores soft-capped (Gemma 2), or Gemma's scaled embeddings and
    (1 + weight) norms, which the parts above do not model."""
    config = lm.model.config
    if is_gpt2(lm):
        return "its layers are GPT-2's (LayerNorm, learned positions), not read here yet"
    if getattr(decoder_layers(lm)[0].self_attn, "q_norm", None) is not None:
        return "it normalises each head's query and key (as Qwen3 and Gemma 3 do)"
    if getattr(config, "attn_logit_softcapping", None):
        return "it soft-caps its scores with a tanh (as Gemma 2 does)"
    if str(getattr(config, "model_type", "")).startswith("gemma"):
        return "it scales its embeddings and norms as Gemma does"
    return None


def query_key(lm: PretrainedModel, comps: Components, layer: int, head: int):
    """(the query's and the key's (K, d) parts as functions of a position, their names)."""
    attn = decoder_layers(lm)[layer].self_attn
    if getattr(attn, "q_norm", None) is not None:
        raise ValueError("this model normalises each head's q and k: its score does not split")
    d, group = lm.head_dim, group_of(lm, head)
    wq = _slice(attn.q_proj, slice(head * d, (head + 1) * d))
    wk = _slice(attn.k_proj, slice(group * d, (group + 1) * d))

    def q(i: int) -> np.ndarray:
        return _rotated(lm, layer, _projected(lm, comps, layer, i, wq), i)

    def k(j: int) -> np.ndarray:
        return _rotated(lm, layer, _projected(lm, comps, layer, j, wk), j)

    return q, k, _names(comps, wq), _names(comps, wk), attn.scaling


def score_parts(
    lm: PretrainedModel,
    comps: Components,
    layer: int,
    head: int,
    cell: tuple[int, int],
    other_key: int | None = None,
) -> ScoreParts:
    """Head `head` of `layer`'s score at `cell` (query i, key j) taken apart (the module text);
    with `other_key` j′, the difference score(i, j) − score(i, j′): why j and not j′. `comps`:
    `components(lm, ids, layer)`."""
    i, j = cell
    q, k, q_names, k_names, scaling = query_key(lm, comps, layer, head)
    keys = k(j) if other_key is None else k(j) - k(other_key)  # (Kk, d)
    parts = (q(i) @ keys.T) * scaling  # (Kq, d) @ (d, Kk)
    what = f"L{layer} H{head}: query {i}, key {j}" + (
        "" if other_key is None else f" − key {other_key}"
    )
    return ScoreParts(parts, q_names, k_names, float(parts.sum()), what)
