"""The hook points that interventions read and write on a causal LM (Llama's layout or GPT-2's:
language_model.layout): the residual
stream into each decoder layer (`resid`), each head's output before the output projection (`z`,
the head's mix of values), each MLP's output, and runs that start at a layer from a given residual
stream with heads' outputs edited on the way.

Every run holds the model's lock (one model object serves every session). A run from layer l
hands the model its residual stream as `inputs_embeds` with only layers l.. in place (they are
put back after the call), so the layers before l are not computed again: the model's own code
does the rest (rotary positions, causal mask, final norm, unembedding; GPT-2's learned positions
are already in the stream: `layout.stream_given`). The modules are read and edited through
`core.hooks` (module_cache, module_hooks), for the one call only.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from attnviz.core.hf_import import HF_LOCK
from attnviz.core.hooks import module_cache, module_hooks
from attnviz.topics.language_model.forward import decoder_layers, final_norm
from attnviz.topics.language_model.layout import from_layer, out_proj, stream_given, stream_in
from attnviz.topics.pretrained.model import PretrainedModel

if TYPE_CHECKING:
    from transformers import DynamicCache

ZEdit = Callable[[torch.Tensor], torch.Tensor]  # (B, T, H * d) -> the same, edited


@dataclass(frozen=True)
class Acts:
    """One prompt's activations (T tokens, L layers, H heads of size d, width D)."""

    ids: tuple[int, ...]  # (T,)
    resid: torch.Tensor  # (L + 1, T, D): each layer's input, then the last one's output
    z: torch.Tensor  # (L, T, H, d): each head's output before o_proj (GPT-2: c_proj)
    mlp: torch.Tensor  # (L, T, D): each layer's MLP output
    logits: torch.Tensor  # (V,): the next token's logits after the last position

    def diff(self, right: int, wrong: int) -> float:
        """The logit difference of the right answer over the wrong one."""
        return float(self.logits[right] - self.logits[wrong])


def layers(lm: PretrainedModel) -> list[torch.nn.Module]:
    return decoder_layers(lm)  # the whole model's, even while from_layer runs a part of it


def _on_cpu(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach()[0].float().cpu()  # (1, T, ·) -> (T, ·), float32 on the CPU


def capture(lm: PretrainedModel, ids: list[int] | tuple[int, ...]) -> Acts:
    """Run `ids` once, keeping every hook point (see Acts)."""
    inputs = {
        "resid": [*layers(lm), final_norm(lm)],  # each layer's input, the last one's output
        "z": [out_proj(layer) for layer in layers(lm)],  # heads' outputs before o_proj
    }
    outputs = {"mlp": [layer.mlp for layer in layers(lm)]}
    taps = module_cache(outputs=outputs, inputs=inputs, keep=_on_cpu)
    with lm.lock, torch.no_grad(), taps as cache:
        out = lm.model(
            input_ids=torch.tensor([list(ids)], device=lm.model.device),
            use_cache=False,
            logits_to_keep=1,
        )
    zs = torch.stack(cache["z"])  # (L, T, H * d)
    return Acts(
        tuple(ids),
        torch.stack(cache["resid"]),  # (L + 1, T, D)
        zs.view(*zs.shape[:2], lm.n_heads, lm.head_dim),
        torch.stack(cache["mlp"]),  # (L, T, D)
        out.logits[0, -1].float().cpu(),
    )


def prefix_cache(lm: PretrainedModel, ids: tuple[int, ...], length: int) -> DynamicCache:
    """Every layer's keys and values of the first `length` tokens of `ids`: runs that differ from
    `ids` only from there on reuse them (a causal model's earlier positions never read later
    ones)."""
    with HF_LOCK:  # transformers' lazy import, raced by the server's warm-up, failed at import
        from transformers import DynamicCache
    cache = DynamicCache(config=lm.model.config)
    with lm.lock, torch.no_grad():
        lm.model(
            input_ids=torch.tensor([list(ids[:length])], device=lm.model.device),
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
    return cache


def run_from(
    lm: PretrainedModel,
    hidden: torch.Tensor,
    start: int = 0,
    edits: dict[int, ZEdit] | None = None,
    cache: DynamicCache | None = None,
) -> torch.Tensor:
    """The next token's logits (B, V) when `hidden` (B, T, D) enters layer `start`, each layer in
    `edits` having its heads' outputs (B, T − P, H * d) at positions P.. passed through its edit
    before o_proj. `cache` (prefix_cache, P tokens): the first P positions, equal in every row,
    unedited and the cached run's own, are not run again; only positions P.. are."""
    every, device = layers(lm), lm.model.device
    b, t = hidden.shape[:2]
    done = 0 if cache is None else cache.get_seq_length()
    if cache is not None:
        cache = copy.deepcopy(cache)  # the model appends to it
        cache.batch_repeat_interleave(b)
    o_projs = [(out_proj(every[layer]), edit) for layer, edit in (edits or {}).items()]
    hooked = module_hooks(o_projs, "input")
    with lm.lock, torch.no_grad(), hooked, from_layer(lm, start), stream_given(lm):
        out = lm.model(
            inputs_embeds=hidden[:, done:].to(device),
            past_key_values=cache,
            use_cache=cache is not None,
            position_ids=torch.arange(done, t, device=device)[None].expand(b, -1),
            logits_to_keep=1,
        )
    return out.logits[:, -1].float().cpu()  # (B, V)


def run_edited(lm: PretrainedModel, ids: tuple[int, ...], edits: dict[int, ZEdit]) -> torch.Tensor:
    """The next token's logits (V,) for `ids` with heads' outputs edited (see run_from)."""
    with torch.no_grad():
        hidden = stream_in(lm, torch.tensor([list(ids)], device=lm.model.device))  # (1, T, D)
    return run_from(lm, hidden, 0, edits)[0]
