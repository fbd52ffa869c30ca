"""One forward pass of a causal language model with everything the LLM page shows: each layer's
attention weights, the residual stream between layers, the keys of each key/value head and the
next-token logits.

The model is a `PretrainedModel` wrapping a Hugging Face Llama-style `*ForCausalLM` (the bundled
SmolLM2, or a tiny random one in tests) with eager attention, so `output_attentions` returns the
weights. The residual stream and keys are read through `core.hooks.module_cache` (the outputs of
the embedding, of each decoder layer and of each layer's `k_proj`), hooked for the call only; the
model's lock is held throughout, so one model object serves every session.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hooks import module_cache
from attnviz.core.threads import fitted
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


def is_gpt2(lm: PretrainedModel) -> bool:
    """GPT-2's layout: its blocks at transformer.h, q, k and v in thirds of one Conv1D c_attn,
    learned positions added to the embedding, LayerNorm."""
    return hasattr(getattr(lm.model, "transformer", None), "h")


def decoder_layers(lm: PretrainedModel) -> list[torch.nn.Module]:
    return list(lm.blocks)  # the whole model's, even while a part of it runs (PretrainedModel)


def embedding(lm: PretrainedModel) -> torch.nn.Module:
    """The module whose output is the stream into the first layer (GPT-2: tokens + positions,
    after its dropout; Llama: the token embedding)."""
    return lm.model.transformer.drop if is_gpt2(lm) else lm.model.model.embed_tokens


def final_norm(lm: PretrainedModel) -> torch.nn.Module:
    return lm.model.transformer.ln_f if is_gpt2(lm) else lm.model.model.norm


def _keys(lm: PretrainedModel) -> list[torch.nn.Module]:
    """Per layer, the module whose output holds the keys (GPT-2: c_attn, keys its middle third)."""
    if is_gpt2(lm):
        return [block.attn.c_attn for block in decoder_layers(lm)]
    return [layer.self_attn.k_proj for layer in decoder_layers(lm)]


def _on_cpu(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach()[0].cpu()  # (1, T, ·) -> (T, ·), on the CPU


@fitted
def run(lm: PretrainedModel, ids: list[int]) -> Forward:
    """Attention weights, residual stream, keys and next-token logits for `ids` (see Forward)."""
    taps = {
        "stream": [embedding(lm), *decoder_layers(lm)],  # (T, D) each
        "keys": _keys(lm),  # (T, G * d_head) each (GPT-2: (T, 3 D))
    }
    with lm.lock, torch.no_grad(), module_cache(outputs=taps, keep=_on_cpu) as cache:
        out = lm.model(
            input_ids=torch.tensor([ids], device=lm.model.device),
            output_attentions=True,
            use_cache=False,
            logits_to_keep=1,  # the next token's only: (1, 1, V), not (1, T, V)
        )
    t = len(ids)
    k = torch.stack(cache["keys"])  # (L, T, G * d_head)
    if is_gpt2(lm):
        width = lm.n_heads * lm.head_dim
        k = k[..., width : 2 * width]  # c_attn's middle third
    k = k.view(k.shape[0], t, -1, lm.head_dim).permute(0, 2, 1, 3)  # (L, G, T, d_head)
    return Forward(
        tuple(ids),
        lm.readable(list(ids)),
        torch.stack(out.attentions)[:, 0].float().cpu().numpy(),  # (L, H, T, T)
        torch.stack(cache["stream"]).float().numpy(),  # (L + 1, T, D)
        k.float().numpy(),
        out.logits[0, -1].float().cpu().numpy(),  # (V,)
    )


def norm_scale(norm: torch.nn.Module) -> tuple[torch.Tensor, float]:
    """(the learned scale an RMSNorm multiplies by (D,), its epsilon): Llama's norms multiply
    by their weight, Gemma's by 1 + weight."""
    weight = norm.weight.detach().float().cpu()
    eps = getattr(norm, "variance_epsilon", None) or getattr(norm, "eps", 1e-6)
    return (1.0 + weight if "Gemma" in type(norm).__name__ else weight), float(eps)


def direct_problem(lm: PretrainedModel) -> str | None:
    """Why a head's direct part of the logits cannot be read off this model (None: it can):
    Gemma 2 and 3 normalise each attention output before adding it to the stream. (GPT-2's final
    LayerNorm, frozen at one position, is linear too: layout.FrozenNorm centres the parts.)"""
    if lm.blocks and hasattr(lm.blocks[0], "pre_feedforward_layernorm"):
        return (
            "it normalises each attention output before adding it to the stream (as Gemma 2 "
            "and 3 do), so a head's direct part of the logits is not a sum of parts"
        )
    return None


def group_of(lm: PretrainedModel, head: int) -> int:
    """The key/value head a query head reads (heads are grouped in order, as `repeat_kv` does)."""
    return head // (lm.n_heads // lm.n_kv_heads)
