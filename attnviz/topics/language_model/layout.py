"""Where each part of a causal LM lives, for the code that reads or edits its parts (the
interventions engine, `av.language_model`): Llama's layout (`model.model.layers`, each layer's
`self_attn.o_proj`, `embed_tokens`, a final RMSNorm) or GPT-2's (`transformer.h`, each block's
`attn.c_proj`, a Conv1D that stores its weight as (in, out), `wte` plus learned positions `wpe`,
a final LayerNorm). Also the final norm with its division frozen at one position: the logits are
then linear in what was written to the stream there (direct logit attribution).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hooks import module_hooks
from attnviz.topics.language_model.forward import decoder_layers, final_norm, is_gpt2, norm_scale
from attnviz.topics.pretrained.model import PretrainedModel


def out_proj(block: torch.nn.Module) -> torch.nn.Module:
    """The module whose input is every head's output side by side (B, T, H·d) and whose output
    is what the attention adds to the stream: Llama's o_proj, GPT-2's c_proj."""
    return block.attn.c_proj if hasattr(block, "attn") else block.self_attn.o_proj


def out_weight(block: torch.nn.Module) -> torch.Tensor:
    """W_O as (D, H·d), float32 on the CPU (GPT-2's Conv1D stores it as (H·d, D))."""
    weight = out_proj(block).weight.detach().float().cpu()
    return weight.T if hasattr(block, "attn") else weight


def out_bias(block: torch.nn.Module) -> torch.Tensor | None:
    """W_O's bias (D,), which belongs to no head (GPT-2 has one, Llama none)."""
    bias = getattr(out_proj(block), "bias", None)
    return None if bias is None else bias.detach().float().cpu()


def token_embedding(lm: PretrainedModel) -> torch.nn.Module:
    return lm.model.transformer.wte if is_gpt2(lm) else lm.model.model.embed_tokens


def stream_in(lm: PretrainedModel, ids: torch.Tensor) -> torch.Tensor:
    """The residual stream into the first layer for `ids` (B, T): (B, T, D) (GPT-2: the tokens'
    embeddings plus their positions')."""
    tokens = token_embedding(lm)(ids)
    if not is_gpt2(lm):
        return tokens
    return tokens + lm.model.transformer.wpe(torch.arange(ids.shape[1], device=ids.device))


@contextmanager
def from_layer(lm: PretrainedModel, start: int) -> Iterator[None]:
    """Only layers start.. in the model while inside (the caller holds the lock)."""
    owner, name = (lm.model.transformer, "h") if is_gpt2(lm) else (lm.model.model, "layers")
    whole = getattr(owner, name)
    setattr(owner, name, torch.nn.ModuleList(decoder_layers(lm)[start:]))
    try:
        yield
    finally:
        setattr(owner, name, whole)


@contextmanager
def stream_given(lm: PretrainedModel) -> Iterator[None]:
    """While inside, `inputs_embeds` is taken as the residual stream itself: GPT-2 adds its
    learned positions to it, which the stream already holds, so they are 0 here."""
    if not is_gpt2(lm):
        yield
        return
    with module_hooks([(lm.model.transformer.wpe, torch.zeros_like)]):
        yield


@dataclass(frozen=True)
class FrozenNorm:
    """The final norm at one position with its division frozen at that run's: norm(x) = the
    centred x (LayerNorm; RMSNorm leaves it) ⊙ gain + shift, linear in x."""

    gain: np.ndarray  # (D,): the learned scale over the frozen rms (RMSNorm) or std (LayerNorm)
    centred: bool  # LayerNorm subtracts the mean over D first
    shift: np.ndarray  # (D,): LayerNorm's bias, zeros for RMSNorm

    def centre(self, parts: np.ndarray) -> np.ndarray:
        """(…, D): vectors written to the stream as the norm reads them before its gain (LayerNorm
        takes each one's mean over D away; RMSNorm leaves them)."""
        return parts - parts.mean(-1, keepdims=True) if self.centred else parts

    def direction(self, unembed: np.ndarray) -> np.ndarray:
        """(…, D): what a vector x written to the stream is dotted with to give its part of
        `unembed`·norm(x) (unembed (…, D): a token's row, or the right minus the wrong one)."""
        return self.centre(unembed * self.gain)  # (x − mean x)·d = x·(d − mean d)


def frozen_final_norm(lm: PretrainedModel, final: np.ndarray) -> FrozenNorm:
    """The final norm frozen at `final` (D,), the stream at one position before it."""
    final = np.asarray(final, dtype=np.float64)
    norm = final_norm(lm)
    if is_gpt2(lm):
        weight = norm.weight.detach().double().cpu().numpy()
        std = np.sqrt(final.var() + norm.eps)
        return FrozenNorm(weight / std, True, norm.bias.detach().double().cpu().numpy())
    weight, eps = norm_scale(norm)
    rms = np.sqrt(np.mean(final**2) + eps)
    return FrozenNorm(weight.double().numpy() / rms, False, np.zeros_like(final))
