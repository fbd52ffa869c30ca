"""One decoder block of a real 2025-style model (Llama architecture: SmolLM2), every number of it
computed here from the block's weights, step by step, as the page shows them: the residual stream
in, RMSNorm, Q, K and V of one query head and the key/value head it shares, the rotary rotation,
QKᵀ/√d under the causal mask, softmax, ·V, the heads concatenated through W_O, the residual add,
the second RMSNorm, the SwiGLU MLP (gate, up, SiLU, product, down) and the residual out; after
the last block, the final norm and the next token's logits.

Only the stream into the block is read from the model's own forward pass (a hook on each block's
first norm, `core.hooks`: one pass keeps the stream into every block, so a move to another block
or head of the same prompt runs no model); everything after it is recomputed from the weights in
float32, in the model's order of operations. tests/engine/test_real_block.py holds each step
against the model's forward pass (its modules' outputs, its attention weights, its logits).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hooks import module_cache
from attnviz.topics.language_model.forward import decoder_layers
from attnviz.topics.pretrained.model import PretrainedModel


@dataclass(frozen=True)
class Norm:
    """An RMSNorm applied to a (T, D) stream: x / √(mean x² + ε) ⊙ γ."""

    rms: np.ndarray  # (T,) √(mean x² + ε) of each token
    scale: np.ndarray  # (D,) the learned γ
    out: np.ndarray  # (T, D)


@dataclass(frozen=True)
class Block:
    """Every number of one block on one prompt (T tokens, model width D, head size d)."""

    layer: int
    head: int  # the query head shown
    kv_head: int  # the key/value head it reads
    sharing: tuple[int, ...]  # the query heads that read that key/value head
    stream_in: np.ndarray  # (T, D)
    norm1: Norm
    q: np.ndarray  # (H, T, d) every query head, before RoPE
    k: np.ndarray  # (G, T, d) every key/value head's keys, before RoPE
    v: np.ndarray  # (G, T, d)
    angles: np.ndarray  # (T, d/2) position × frequency of each pair (i, i + d/2)
    q_rot: np.ndarray  # (H, T, d) after RoPE
    k_rot: np.ndarray  # (G, T, d)
    scores: np.ndarray  # (H, T, T) q·k/√d; the masked future is -inf
    weights: np.ndarray  # (H, T, T) softmax of each row
    heads_out: np.ndarray  # (H, T, d) weights · V
    attn_out: np.ndarray  # (T, D) the heads concatenated, through W_O
    stream_mid: np.ndarray  # (T, D) stream_in + attn_out
    norm2: Norm
    gate: np.ndarray  # (T, F)
    up: np.ndarray  # (T, F)
    act: np.ndarray  # (T, F) SiLU(gate)
    product: np.ndarray  # (T, F) SiLU(gate) ⊙ up
    mlp_out: np.ndarray  # (T, D) product through W_down
    stream_out: np.ndarray  # (T, D) stream_mid + mlp_out
    final: Norm | None  # the final RMSNorm of every token's stream out: last block only
    logits: np.ndarray | None  # (V,) at the last token, after the final norm: last block only


def rms_norm(x: torch.Tensor, norm: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    """(rms (T,), x / rms ⊙ γ (T, D)) as the model's RMSNorm computes them."""
    eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", 1e-6))
    rms = torch.sqrt(x.pow(2).mean(-1) + eps)  # (T,)
    return rms, _weight(norm) * (x / rms[:, None])


def _norm(x: torch.Tensor, norm: torch.nn.Module) -> tuple[Norm, torch.Tensor]:
    rms, out = rms_norm(x, norm)
    return Norm(_np(rms), _np(_weight(norm)), _np(out)), out


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy()


def rotate(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """(…, T, d) turned pair by pair: the pair (x_i, x_{i+d/2}) by angles[:, i] (T, d/2)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    cos, sin = torch.cos(angles), torch.sin(angles)
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def rope_angles(lm: PretrainedModel, positions: int) -> torch.Tensor:
    """(T, d/2) position × frequency, the frequencies the model's rotary module holds."""
    rotary = lm.model.model.rotary_emb
    inv_freq = rotary.inv_freq.detach().float().cpu()  # (d/2,)
    return torch.arange(positions, dtype=torch.float32)[:, None] * inv_freq[None, :]


def stream_into(lm: PretrainedModel, ids: list[int], layer: int) -> torch.Tensor:
    """(T, D) the residual stream into `layer` in the model's own forward pass."""
    return _streams(lm, tuple(ids))[layer]


@functools.lru_cache(maxsize=4)  # a few prompts: 30 layers × 12 tokens × 576 floats each
def _streams(lm: PretrainedModel, ids: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """((T, D) the stream into each layer), from one forward pass of the model."""
    norms = [block.input_layernorm for block in decoder_layers(lm)]
    taps = module_cache(inputs={"stream": norms}, keep=lambda t: t.detach()[0].float().cpu())
    with lm.lock, torch.no_grad(), taps as kept:
        lm.model(input_ids=torch.tensor([ids], device=lm.model.device), use_cache=False)
    return tuple(kept["stream"])


def trace(lm: PretrainedModel, ids: list[int], layer: int, head: int) -> Block:
    """Block `layer` on `ids`, every step computed from its weights (head `head` shown)."""
    x = stream_into(lm, ids, layer)  # (T, D)
    block = decoder_layers(lm)[layer]
    with torch.no_grad():
        return _through(lm, block, x, layer, head)


def _weight(module: torch.nn.Module) -> torch.Tensor:
    return module.weight.detach().float().cpu()


def _through(lm: PretrainedModel, block, x: torch.Tensor, layer: int, head: int) -> Block:
    norm1, h = _norm(x, block.input_layernorm)
    attention = _attention(lm, block.self_attn, h)
    mid = x + attention["attn_out"]
    norm2, h2 = _norm(mid, block.post_attention_layernorm)
    mlp = _mlp(block.mlp, h2)
    out = mid + mlp["mlp_out"]
    group = lm.n_heads // lm.n_kv_heads
    kv = head // group
    final, logits = _final(lm, out) if layer == lm.n_layers - 1 else (None, None)
    return Block(
        layer=layer,
        head=head,
        kv_head=kv,
        sharing=tuple(range(kv * group, (kv + 1) * group)),
        stream_in=_np(x),
        norm1=norm1,
        stream_mid=_np(mid),
        norm2=norm2,
        stream_out=_np(out),
        final=final,
        logits=logits,
        **{name: _np(value) for name, value in (attention | mlp).items()},
    )


def _attention(lm: PretrainedModel, att: torch.nn.Module, h: torch.Tensor) -> dict:
    """Q, K, V, the rotation, the scores, the weights, ·V and W_O of one block's attention on
    its normed input h (T, D)."""
    d, group, n = lm.head_dim, lm.n_heads // lm.n_kv_heads, len(h)

    def heads(linear: torch.nn.Module) -> torch.Tensor:  # (T, n·d) -> (n, T, d)
        return (h @ _weight(linear).T).reshape(n, -1, d).transpose(0, 1)

    q, k, v = heads(att.q_proj), heads(att.k_proj), heads(att.v_proj)
    angles = rope_angles(lm, n)  # (T, d/2)
    scale = float(getattr(lm.model.model.rotary_emb, "attention_scaling", 1.0))
    q_rot, k_rot = rotate(q, angles) * scale, rotate(k, angles) * scale
    keys = k_rot.repeat_interleave(group, dim=0)  # (H, T, d): each query head's key head
    scores = q_rot @ keys.transpose(1, 2) / d**0.5  # (H, T, T)
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    scores = scores.masked_fill(future, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    heads_out = weights @ v.repeat_interleave(group, dim=0)  # (H, T, d)
    concat = heads_out.transpose(0, 1).reshape(n, -1)  # (T, H·d), head by head
    return {
        "q": q,
        "k": k,
        "v": v,
        "angles": angles,
        "q_rot": q_rot,
        "k_rot": k_rot,
        "scores": scores,
        "weights": weights,
        "heads_out": heads_out,
        "attn_out": concat @ _weight(att.o_proj).T,  # (T, D)
    }


def _mlp(mlp: torch.nn.Module, h: torch.Tensor) -> dict:
    """The SwiGLU MLP on its normed input h (T, D): down(SiLU(gate(h)) ⊙ up(h))."""
    gate, up = h @ _weight(mlp.gate_proj).T, h @ _weight(mlp.up_proj).T  # (T, F)
    act = torch.nn.functional.silu(gate)
    product = act * up
    return {
        "gate": gate,
        "up": up,
        "act": act,
        "product": product,
        "mlp_out": product @ _weight(mlp.down_proj).T,
    }


def _final(lm: PretrainedModel, out: torch.Tensor) -> tuple[Norm, np.ndarray]:
    """The final norm of every token's stream (T, D), and the next token's logits (V,): the
    last token's normed stream through the unembedding."""
    final, normed = _norm(out, lm.model.model.norm)
    return final, _np(normed[-1:] @ _weight(lm.model.lm_head).T)[0]
