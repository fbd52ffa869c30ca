"""Two instant readings of which parts carry the answer, from one or two runs instead of a sweep.

Attribution patching: the gradient of the corrupted run's logit difference with respect to each
activation, times the clean minus the corrupted activation, is the first-order estimate of what
patching that activation would bring back (Nanda, "Attribution patching", 2023).

Direct logit attribution: the last position's residual stream is the sum of the embedding, every
head's output and every MLP's output (and, in GPT-2, each attention's output bias). With the final
norm's division frozen at the clean run's value (RMSNorm's rms; LayerNorm's std, its centring
and bias kept: layout.FrozenNorm), the logit difference is linear in that sum, so it splits into
one part per component that add up to the whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hooks import module_cache
from attnviz.core.threads import fitted
from attnviz.topics.interventions.acts import Acts, layers
from attnviz.topics.interventions.pairs import Pair
from attnviz.topics.language_model.layout import (
    frozen_final_norm,
    out_bias,
    out_proj,
    out_weight,
    token_embedding,
)
from attnviz.topics.pretrained.model import PretrainedModel


@dataclass(frozen=True)
class Attribution:
    resid: np.ndarray  # (L, T): estimated logit-difference change per residual patch
    heads: np.ndarray  # (L, H): per head-output patch (all positions)


def _in_graph(tensor: torch.Tensor) -> torch.Tensor:
    return tensor  # not detached: the gradient is taken with respect to it


def _grads(lm: PretrainedModel, pair: Pair) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """d(logit difference)/d(activation) on the corrupted run: each layer's input (T, D) and each
    layer's heads' outputs (T, H * d)."""
    inputs = {
        "resid": layers(lm),  # (1, T, D) each
        "z": [out_proj(layer) for layer in layers(lm)],  # (1, T, H * d) each
    }
    with lm.lock, torch.enable_grad():
        ids = torch.tensor([list(pair.corrupt)], device=lm.model.device)
        embeds = token_embedding(lm)(ids).detach().requires_grad_(True)  # (1, T, D)
        with module_cache(inputs=inputs, keep=_in_graph) as cache:
            logits = lm.model(inputs_embeds=embeds, use_cache=False, logits_to_keep=1).logits
        metric = logits[0, -1, pair.right] - logits[0, -1, pair.wrong]
        resid, z = cache["resid"], cache["z"]
        grads = torch.autograd.grad(metric, resid + z)
    g = [x[0].float().cpu() for x in grads]
    return g[: len(resid)], g[len(resid) :]


@fitted
def attribution(lm: PretrainedModel, pair: Pair, clean: Acts, corrupt: Acts) -> Attribution:
    """First-order estimates of every residual and head patch (one forward, one backward)."""
    g_resid, g_z = _grads(lm, pair)
    n = len(g_resid)
    delta = clean.resid[:n] - corrupt.resid[:n]  # (L, T, D)
    resid = (delta * torch.stack(g_resid)).sum(-1)  # (L, T)
    gz = torch.stack(g_z).view(clean.z.shape)  # (L, T, H, d)
    heads = ((clean.z - corrupt.z) * gz).sum(dim=(1, 3))  # (L, H)
    return Attribution(resid.numpy(), heads.numpy())


@dataclass(frozen=True)
class Dla:
    heads: np.ndarray  # (L, H): each head's part of the logit difference
    mlps: np.ndarray  # (L,): each MLP's part
    embed: float  # the token embedding's part (GPT-2: with its positions')
    whole: float  # the model's logit difference
    bias: float = 0.0  # what belongs to no component: GPT-2's final LayerNorm bias, W_O's biases

    @property
    def total(self) -> float:
        return float(self.heads.sum() + self.mlps.sum() + self.embed + self.bias)


def head_outputs(lm: PretrainedModel, z: torch.Tensor, layer: int) -> torch.Tensor:
    """(H, D): each head's output at one position (z: (H, d)) through its slice of o_proj."""
    w_o = out_weight(layers(lm)[layer])  # (D, H * d)
    h, d = z.shape
    return torch.einsum("hd,mhd->hm", z, w_o.view(-1, h, d))


@fitted
def direct_logit_attribution(lm: PretrainedModel, acts: Acts, pair: Pair) -> Dla:
    """Split the logit difference at the last position into the parts of the embedding, each
    head and each MLP (the final norm's division frozen; lm_head carries no bias), and what is
    left to biases that belong to no component."""
    norm = frozen_final_norm(lm, acts.resid[-1, -1].numpy())  # the last position's stream (D,)
    unembed = lm.model.lm_head.weight.detach().double().cpu().numpy()  # (V, D)
    toward = unembed[pair.right] - unembed[pair.wrong]  # (D,)
    direction = torch.from_numpy(norm.direction(toward)).float()  # (D,)
    biases = [out_bias(block) for block in layers(lm)]
    bias = float(norm.shift @ toward) + sum(float(b @ direction) for b in biases if b is not None)
    heads = torch.stack(
        [head_outputs(lm, acts.z[layer, -1], layer) @ direction for layer in range(acts.z.shape[0])]
    )  # (L, H)
    mlps = acts.mlp[:, -1] @ direction  # (L,)
    embed = float(acts.resid[0, -1] @ direction)
    return Dla(heads.numpy(), mlps.numpy(), embed, acts.diff(pair.right, pair.wrong), bias)
