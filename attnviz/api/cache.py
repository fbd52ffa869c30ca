"""The activations av.language_model's `run_with_cache` keeps (attnviz.api.hooked): which modules
of a Llama-style model (or of GPT-2: LayerNorms for the RMSNorms, a GELU MLP with no up
projection, so no `mlp_pre_linear`) are tapped for each name (through the engine's one hook
mechanism, attnviz.core.hooks.module_cache), and the `ActivationCache` that hands them out as
NumPy arrays, `cache[name, layer]`, or `cache["ln_final"]` for what comes after the last layer.

Every number of one block, as "Inside one block of a real model" shows it step by step, is here
for every layer: the stream in, the first RMSNorm, q, k, v, the weights, z, W_O's output, the
stream between, the second RMSNorm, the SwiGLU MLP's gate, up and product, its output, the stream
out, and the final norm. The rotated queries and keys and the scores before softmax are computed
inside the attention function, not by a module: the scene of "Inside one block of a real model"
(av.scene, with that page's url) gives them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnviz.topics.scene import SceneInputError

# name -> what it holds at layer l (T tokens, D the model's width, F its MLP's, H query heads,
# G key/value heads, d the head size)
NAMES = {
    "resid_pre": "(T, D) the residual stream into layer l",
    "ln1": "(T, D) its RMSNorm before attention, x / rms ⊙ γ: what q, k and v are made from",
    "q": "(T, H, d) the queries, before rotary positions",
    "k": "(T, G, d) the keys, before rotary positions",
    "v": "(T, G, d) the values",
    "pattern": "(H, T, T) the attention weights: row i is query i's softmax over keys",
    "z": "(T, H, d) each head's weighted sum of values, before o_proj",
    "attn_out": "(T, D) what layer l's attention adds to the stream (after o_proj)",
    "resid_mid": "(T, D) the stream between: resid_pre + attn_out",
    "ln2": "(T, D) its RMSNorm before the MLP",
    "mlp_pre": "(T, F) the MLP's gate projection, before SiLU",
    "mlp_pre_linear": "(T, F) the MLP's up projection",
    "mlp_post": "(T, F) SiLU(gate) ⊙ up, what the down projection reads",
    "mlp_out": "(T, D) what layer l's MLP adds to the stream",
    "resid_post": "(T, D) the residual stream out of layer l (before the final norm)",
}
FINAL = {"ln_final": "(T, D) the final RMSNorm of the last layer's stream: what the logits read"}
HEADS = {"q": "n_heads", "k": "n_kv_heads", "v": "n_kv_heads", "z": "n_heads"}  # split (T, n, d)


@dataclass(frozen=True)
class ActivationCache:
    """One prompt's activations: `cache[name, layer]` with `name` from NAMES, or `cache[name]`
    with `name` from FINAL."""

    tokens: list[str]  # the prompt's tokens, as the views write them (␣ for a space)
    ids: tuple[int, ...]
    layers: Mapping[str, np.ndarray]  # name -> every layer's, stacked: (L, ...)
    final: Mapping[str, np.ndarray]  # name -> after the last layer: (T, D)

    def __getitem__(self, key: tuple[str, int] | str) -> np.ndarray:
        if isinstance(key, str) and key in self.final:
            return self.final[key]
        if not (isinstance(key, tuple) and len(key) == 2):
            raise SceneInputError(f"ask for cache[name, layer], e.g. cache['pattern', 0]: {key!r}")
        name, layer = key
        if name not in self.layers:
            raise SceneInputError(f"no activation {name!r}: {_kept(self)}")
        count = len(self.layers[name])
        if isinstance(layer, bool) or not isinstance(layer, int | np.integer):
            raise SceneInputError(f"a layer is a whole number: {layer!r}")
        if not -count <= layer < count:
            raise SceneInputError(
                f"layer {layer} is out of range: there are {count} (layer 0 to {count - 1})"
            )
        return self.layers[name][layer]

    def keys(self) -> list[str]:
        return [*self.layers, *self.final]


def _kept(cache: ActivationCache) -> str:
    return f"the names kept are {', '.join(cache.keys())}"


def wanted(names: Iterable[str] | None) -> list[str]:
    """The names asked for, in NAMES' then FINAL's order (all when None); a clear message for
    a name there is not."""
    every = [*NAMES, *FINAL]
    if names is None:
        return every
    asked = [names] if isinstance(names, str) else list(names)
    unknown = [name for name in asked if name not in every]
    if unknown:
        raise SceneInputError(f"no activation {unknown[0]!r}: the names are {', '.join(every)}")
    return [name for name in every if name in asked]


def taps(model: Any, layers: list, names: list[str]) -> tuple[dict, dict]:
    """(modules whose outputs are kept, modules whose first inputs are kept), by name, for
    `names` (the stream's names need the embedding and each layer's output)."""
    outputs, inputs = _gpt2_modules(model, layers) if _is_gpt2(model) else _modules(model, layers)
    if {"q", "k", "v"} & set(names) and "qkv" in outputs:
        names = [*names, "qkv"]
    stream = {"resid_pre", "resid_post"} & set(names)
    keep = set(names) | ({"embed", "resid_post"} if stream else set())
    return (
        {name: found for name, found in outputs.items() if name in keep},
        {name: found for name, found in inputs.items() if name in keep},
    )


def _is_gpt2(model: Any) -> bool:
    return hasattr(getattr(model, "transformer", None), "h")


def _gpt2_modules(model: Any, layers: list) -> tuple[dict, dict]:
    """GPT-2's blocks: LayerNorms ln_1 and ln_2, q, k and v in thirds of one c_attn, W_O in
    c_proj, a GELU MLP (c_fc, then c_proj; no up projection beside a gate)."""
    outputs = {
        "embed": [model.transformer.drop],  # tokens plus positions: the stream into layer 0
        "resid_post": layers,
        "ln1": [block.ln_1 for block in layers],
        "qkv": [block.attn.c_attn for block in layers],  # (T, 3 D): q | k | v
        "attn_out": [block.attn.c_proj for block in layers],
        "ln2": [block.ln_2 for block in layers],
        "mlp_pre": [block.mlp.c_fc for block in layers],
        "mlp_out": [block.mlp for block in layers],
        "ln_final": [model.transformer.ln_f],
    }
    inputs = {
        "z": [block.attn.c_proj for block in layers],
        "resid_mid": [block.ln_2 for block in layers],
        "mlp_post": [block.mlp.c_proj for block in layers],
    }
    return outputs, inputs


def _modules(model: Any, layers: list) -> tuple[dict, dict]:
    """Llama's layers (see NAMES)."""
    outputs = {
        "embed": [model.model.embed_tokens],
        "resid_post": layers,
        "ln1": [layer.input_layernorm for layer in layers],
        "q": [layer.self_attn.q_proj for layer in layers],
        "k": [layer.self_attn.k_proj for layer in layers],
        "v": [layer.self_attn.v_proj for layer in layers],
        "attn_out": [layer.self_attn.o_proj for layer in layers],
        "ln2": [layer.post_attention_layernorm for layer in layers],
        "mlp_pre": [layer.mlp.gate_proj for layer in layers],
        "mlp_pre_linear": [layer.mlp.up_proj for layer in layers],
        "mlp_out": [layer.mlp for layer in layers],
        "ln_final": [model.model.norm],
    }
    inputs = {
        "z": [layer.self_attn.o_proj for layer in layers],
        "resid_mid": [layer.post_attention_layernorm for layer in layers],
        "mlp_post": [layer.mlp.down_proj for layer in layers],
    }
    return outputs, inputs


def on_cpu(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach()[0].float().cpu()  # (1, T, ·) -> (T, ·)


def named(kept: dict, attentions: tuple | None, names: list[str], sizes: Any) -> tuple[dict, dict]:
    """(every layer's kept tensors by name, in NAMES' order and shapes; FINAL's). `sizes`: the
    model's head counts (HEADS' attribute names)."""
    stacked = {name: torch.stack(found).numpy() for name, found in kept.items()}
    if "qkv" in stacked:  # GPT-2's c_attn: (L, T, 3 D), q | k | v
        stacked["q"], stacked["k"], stacked["v"] = np.split(stacked.pop("qkv"), 3, axis=-1)
    if "embed" in stacked:
        stream = np.concatenate([stacked.pop("embed"), stacked["resid_post"]])  # (L + 1, T, D)
        stacked["resid_pre"], stacked["resid_post"] = stream[:-1], stream[1:]
    if attentions is not None:
        stacked["pattern"] = torch.stack(attentions)[:, 0].float().cpu().numpy()  # (L, H, T, T)
    for name, count in HEADS.items():
        if name in stacked:
            n_layers, t = stacked[name].shape[:2]
            stacked[name] = stacked[name].reshape(n_layers, t, getattr(sizes, count), -1)
    layers = {name: stacked[name] for name in NAMES if name in names and name in stacked}
    return layers, {name: stacked[name][0] for name in FINAL if name in names}
