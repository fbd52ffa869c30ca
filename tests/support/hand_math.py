"""Attention and transformer pieces written out by hand in NumPy float64, from a layer's own
parameter tensors: the oracles the model tests compare the engine's modules with.

Nothing here calls the engine: LayerNorm is (x − mean)/√(var + ε)·γ + β, a linear map is
x Wᵀ + b, head h reads features h·Dh … (h+1)·Dh − 1, the weights are softmax(QKᵀ/√Dh) with
masked entries at −∞, GELU is the exact x·Φ(x)."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn


def f64(t: torch.Tensor | nn.Parameter) -> np.ndarray:
    return t.detach().double().cpu().numpy()


def layer_norm(x: np.ndarray, ln: nn.LayerNorm) -> np.ndarray:
    """(x − mean)/sqrt(var + eps)·γ + β over the last axis (biased variance)."""
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + ln.eps) * f64(ln.weight) + f64(ln.bias)


def linear(x: np.ndarray, layer: nn.Linear) -> np.ndarray:
    """x Wᵀ + b with the layer's weight (out, in) and bias."""
    out = x @ f64(layer.weight).T
    return out + f64(layer.bias) if layer.bias is not None else out


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU: x·Φ(x) = x/2·(1 + erf(x/√2))."""
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; −∞ entries get weight 0."""
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def split(x: np.ndarray, n_head: int) -> np.ndarray:
    """(B, T, D) -> (B, H, T, Dh): head h holds features h·Dh … (h+1)·Dh − 1."""
    b, t, d = x.shape
    return x.reshape(b, t, n_head, d // n_head).transpose(0, 2, 1, 3)


def merge(x: np.ndarray) -> np.ndarray:
    """(B, H, T, Dh) -> (B, T, H·Dh), head 0's features first."""
    b, h, t, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * dh)


def attention(
    module: nn.Module, x: np.ndarray, memory: np.ndarray, n_head: int, causal: bool = False
) -> dict[str, np.ndarray]:
    """Multi-head attention of queries from x (B, T, D) over keys and values from memory
    (B, S, D) with the module's q_proj, k_proj, v_proj, o_proj: Q = xW_qᵀ + b_q, K = mW_kᵀ + b_k,
    V = mW_vᵀ + b_v; weights softmax(QKᵀ/√Dh) per head (causal: key j > query i at −∞).
    -> {"q", "k" (B, H, ·, Dh), "weights" (B, H, T, S), "heads" (B, H, T, Dh) = weights·V,
    "out" (B, T, D) = merge(heads)W_oᵀ + b_o}."""
    q = split(linear(x, module.q_proj), n_head)  # (B, H, T, Dh)
    k = split(linear(memory, module.k_proj), n_head)  # (B, H, S, Dh)
    v = split(linear(memory, module.v_proj), n_head)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])  # (B, H, T, S)
    if causal:
        t, s = scores.shape[-2:]
        later = np.arange(s)[None, :] > np.arange(t)[:, None]  # (T, S): key after query
        scores = np.where(later, -np.inf, scores)
    weights = softmax(scores)
    heads = weights @ v  # (B, H, T, Dh)
    out = linear(merge(heads), module.o_proj)  # (B, T, D)
    return {"q": q, "k": k, "weights": weights, "heads": heads, "out": out}


def mlp(x: np.ndarray, seq: nn.Sequential) -> np.ndarray:
    """Linear, GELU, Linear (a trailing Dropout is the identity in eval mode)."""
    first, act, second = seq[0], seq[1], seq[2]
    assert isinstance(act, nn.GELU) and act.approximate == "none"
    return linear(gelu(linear(x, first)), second)


def unsettle(model: nn.Module, seed: int = 7) -> nn.Module:
    """The model with every bias and LayerNorm γ, β moved away from its init (0, 1) by seeded
    noise, so that an implementation that drops one of them differs from the hand one."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            is_norm = isinstance(model.get_submodule(name.rpartition(".")[0]), nn.LayerNorm)
            if name.endswith("bias") or is_norm:
                p.add_(torch.randn(p.shape, generator=gen) * 0.3)
    return model


def module_outputs(model: nn.Module, names: list[str], *args) -> dict[str, torch.Tensor]:
    """Run model(*args) with PyTorch's own forward hooks on the named submodules: their outputs
    (the engine's hook points stay empty, so the fused attention path may run)."""
    seen: dict[str, torch.Tensor] = {}
    modules = dict(model.named_modules())
    handles = [
        modules[n].register_forward_hook(lambda _m, _i, out, n=n: seen.__setitem__(n, out))
        for n in names
    ]
    try:
        with torch.no_grad():
            model(*args)
    finally:
        for handle in handles:
            handle.remove()
    return seen
