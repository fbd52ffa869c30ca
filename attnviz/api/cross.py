"""An encoder–decoder's attention from Python (issue 43): a Hugging Face encoder–decoder (BART,
T5, Marian, …) run once, with eager attention for the call, on a source text and a target text
gives its encoder's self-attention over the source, its decoder's causal self-attention over the
target and the decoder's cross-attention from each target token to the source, per layer and
head; one layer's head of each is drawn as a heatmap. The target's tokens are the decoder's input
as the tokenizer writes them (BertViz's convention), not shifted. No Streamlit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from attnviz.api.inputs import check_index, eager_attention
from attnviz.topics.scene import SceneInputError

KINDS = ("encoder", "decoder", "cross")


@dataclass(frozen=True)
class EncoderDecoderAttention:
    """The three kinds of attention of one run, and one layer's head of each drawn."""

    source: list[str]  # S tokens
    target: list[str]  # T tokens
    encoder: np.ndarray  # (L_enc, H, S, S): rows sum to 1
    decoder: np.ndarray  # (L_dec, H, T, T): causal, rows sum to 1
    cross: np.ndarray  # (L_dec, H, T, S): each target token over the source, rows sum to 1
    figures: dict[str, go.Figure]  # {"encoder", "decoder", "cross"}: the layer's head


def _stack(per_layer: Any) -> np.ndarray:
    """A tuple of per-layer (1, H, Tq, Tk) tensors as one (L, H, Tq, Tk) float32 array."""
    return np.stack([layer[0].detach().float().cpu().numpy() for layer in per_layer])


def _run(model: Any, tokenizer: Any, source: str, target: str) -> tuple[dict, Any]:
    """The tokenizer's inputs (source and target ids) and the model's output with attentions."""
    import torch

    enc = tokenizer(source, return_tensors="pt")
    dec = tokenizer(text_target=target, return_tensors="pt")
    with eager_attention(model), torch.no_grad():
        out = model(
            input_ids=enc["input_ids"],
            attention_mask=enc.get("attention_mask"),
            decoder_input_ids=dec["input_ids"],
            output_attentions=True,
        )
    return {"source": enc["input_ids"][0], "target": dec["input_ids"][0]}, out


def _whole(model: Any) -> bool:
    """Whether `model` holds a decoder besides its encoder (its encoder alone shares the config
    that says encoder–decoder, and transformers' generic get_decoder returns the model itself)."""
    get = getattr(model, "get_decoder", None)
    return callable(get) and get() is not model


def _figure(weights: np.ndarray, rows: list[str], cols: list[str], title: str) -> go.Figure:
    from attnviz.figures.base import heatmap

    query, key = ("target token", "source token") if "Cross" in title else ("query", "key")
    return heatmap(weights, cols, rows, title, x_title=key, y_title=query, zmin=0.0, zmax=1.0)


def encoder_decoder(
    model: Any, source: str, target: str, *, tokenizer: Any, layer: int = 0, head: int = 0
) -> EncoderDecoderAttention:
    """Encoder, decoder and cross-attention of an encoder–decoder `model` on `source` → `target`
    (`layer` and `head`: the ones drawn; outside the model, an error naming the range). For
    example `encoder_decoder(bart, "the cat sat", "le chat", tokenizer=tok).cross.shape` is
    (decoder layers, heads, target tokens, source tokens), and `.figures["cross"]` draws one."""
    if not (_whole(model) and getattr(getattr(model, "config", None), "is_encoder_decoder", False)):
        raise SceneInputError(
            "not an encoder–decoder model: draw it with model_view(model, text, tokenizer=...)"
        )
    ids, out = _run(model, tokenizer, source, target)
    att = {
        "encoder": _stack(out.encoder_attentions),
        "decoder": _stack(out.decoder_attentions),
        "cross": _stack(out.cross_attentions),
    }
    for kind in KINDS:
        check_index(layer, att[kind].shape[0], f"{kind} layer")
        check_index(head, att[kind].shape[1], f"{kind} head")
    src = tokenizer.convert_ids_to_tokens(ids["source"].tolist())
    tgt = tokenizer.convert_ids_to_tokens(ids["target"].tolist())
    names = {"encoder": (src, src), "decoder": (tgt, tgt), "cross": (tgt, src)}
    titles = {"encoder": "Encoder self-attention", "decoder": "Decoder self-attention"}
    titles["cross"] = "Cross-attention (decoder → encoder)"
    figures = {
        kind: _figure(
            att[kind][layer, head], *names[kind], f"{titles[kind]}, layer {layer} head {head}"
        )
        for kind in KINDS
    }
    return EncoderDecoderAttention(src, tgt, att["encoder"], att["decoder"], att["cross"], figures)
