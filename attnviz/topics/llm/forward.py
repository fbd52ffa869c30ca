"""One forward pass of a causal language model with everything the LLM page shows: each layer's
attention weights, the residual stream between layers, the keys of each key/value head and the
next-token logits.

The model is a `PretrainedModel` wrapping a Hugging Face Llama-style `*ForCausalLM` (the bundled
SmolLM2, or a tiny random one in tests) with eager attention, so `output_attentions` returns the
weights. The residual stream and keys are read through hook points (forward hooks on the
embedding, on each decoder layer and on each layer's `k_proj`), registered for the call and
removed after it; the model's lock is held throughout, so one model object serves every session.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.topics.pretrained.model import PretrainedModel

MAX_TOKENS = 256  # the page's prompts, at most (a forward pass at 256 tokens: ~0.4 s on a CPU)


@dataclass(frozen=True)
class Forward:
    """A prompt through the model (T tokens, L layers, H query heads, G key/value heads)."""

    ids: tuple[int, ...]  # (T,)
    tokens: list[str]  # readable labels, one per id
    attentions: np.ndarray  # (L, H, T, T), the upper triangle exactly 0
    resid: np.ndarray  # (L + 1, T, D): the embeddings, then each layer's output (pre final norm)
    keys: np.ndarray  # (L, G, T, d_head): k_proj's output per key/value head (before RoPE)
    last_logits: np.ndarray  # (V,): the next token's logits after the last position


def bos_id(lm: PretrainedModel) -> int | None:
    """The model's beginning-of-sequence token id (None if it declares none)."""
    tok_id = lm.tokenizer.bos_token_id
    return None if tok_id is None else int(tok_id)


def encode(lm: PretrainedModel, text: str, bos: bool = False) -> tuple[list[int], bool]:
    """(ids, cut): the text's token ids without the tokenizer's own additions, after the BOS
    token when `bos`, cut to MAX_TOKENS (cut True then). ValueError for a text of no tokens."""
    ids = list(lm.tokenizer(text, add_special_tokens=False)["input_ids"])
    start = bos_id(lm)
    if bos and start is not None:
        ids = [start, *ids]
    if not ids:
        raise ValueError("the prompt has no tokens")
    return ids[:MAX_TOKENS], len(ids) > MAX_TOKENS


def _layers(lm: PretrainedModel) -> list[torch.nn.Module]:
    return list(lm.model.model.layers)


def _first(out) -> torch.Tensor:
    """A module's output tensor (a decoder layer may return a tuple)."""
    return out[0] if isinstance(out, tuple) else out


def run(lm: PretrainedModel, ids: list[int]) -> Forward:
    """Attention weights, residual stream, keys and next-token logits for `ids` (see Forward)."""
    inner = lm.model.model
    stream: list[torch.Tensor] = []
    keys: list[torch.Tensor] = []
    hooks = [(inner.embed_tokens, stream)]
    hooks += [(layer, stream) for layer in _layers(lm)]
    hooks += [(layer.self_attn.k_proj, keys) for layer in _layers(lm)]

    def keeper(into: list[torch.Tensor]):
        return lambda _module, _inputs, out: into.append(_first(out).detach()[0].cpu())

    with lm.lock, torch.no_grad():
        handles = [module.register_forward_hook(keeper(into)) for module, into in hooks]
        try:
            out = lm.model(
                input_ids=torch.tensor([ids], device=lm.model.device),
                output_attentions=True,
                use_cache=False,
                logits_to_keep=1,  # the next token's only: (1, 1, V), not (1, T, V)
            )
        finally:
            for handle in handles:
                handle.remove()
    t = len(ids)
    k = torch.stack(keys)  # (L, T, G * d_head)
    k = k.view(k.shape[0], t, -1, lm.head_dim).permute(0, 2, 1, 3)  # (L, G, T, d_head)
    return Forward(
        tuple(ids),
        lm.readable(list(ids)),
        torch.stack(out.attentions)[:, 0].float().cpu().numpy(),  # (L, H, T, T)
        torch.stack(stream).float().numpy(),  # (L + 1, T, D)
        k.float().numpy(),
        out.logits[0, -1].float().cpu().numpy(),  # (V,)
    )


def group_of(lm: PretrainedModel, head: int) -> int:
    """The key/value head a query head reads (heads are grouped in order, as `repeat_kv` does)."""
    return head // (lm.n_heads // lm.n_kv_heads)
