"""What a researcher already holds, made into what the pretrained page draws (issue 43): attention
weights as a Hugging Face model returns them (`output_attentions=True`: a tuple of per-layer
(B, H, T, T) tensors), one array or tensor of shape (L, H, T, T) or (H, T, T), TransformerLens's
per-layer patterns (`[cache["pattern", l] for l in range(L)]`), with their tokens; a Hugging Face
model (eager attention for the call) or folder on a text; and the checks that name a range
instead of clamping into it. No Streamlit."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from attnviz.topics import settings
from attnviz.topics.pretrained.model import Attended
from attnviz.topics.scene import SceneInputError


def _as_array(part: Any) -> np.ndarray:
    """A tensor (any device, with or without grad) or array-like as a float numpy array."""
    if hasattr(part, "detach"):
        part = part.detach().float().cpu().numpy()
    return np.asarray(part, dtype=np.float32)


def attention_array(attention: Any) -> np.ndarray:
    """Per-layer weights as one (L, H, T, T) array. Takes a tuple or list of layers, each
    (H, T, T) or (1, H, T, T) (a batch of one), or one array of shape (L, H, T, T), (H, T, T)
    (one layer) or (L, 1, H, T, T); anything else is refused with the shape it has."""
    if isinstance(attention, tuple | list):
        if not attention:
            raise SceneInputError("attention is an empty sequence: give one array per layer")
        layers = [_one_layer(_as_array(part), i) for i, part in enumerate(attention)]
        shapes = {layer.shape for layer in layers}
        if len(shapes) > 1:
            raise SceneInputError(f"the layers' shapes differ: {sorted(shapes)}")
        return np.stack(layers)  # (L, H, T, T)
    weights = _as_array(attention)
    if weights.ndim == 3:
        weights = weights[None]  # one layer
    if weights.ndim == 5 and weights.shape[1] == 1:
        weights = weights[:, 0]
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise SceneInputError(
            f"attention of shape {weights.shape}: expected (layers, heads, T, T), "
            "(heads, T, T), or a tuple of per-layer (1, heads, T, T) tensors"
        )
    return weights


def _one_layer(layer: np.ndarray, index: int) -> np.ndarray:
    if layer.ndim == 4:
        if layer.shape[0] != 1:
            raise SceneInputError(
                f"layer {index} holds a batch of {layer.shape[0]}: pass one example "
                "(e.g. tuple(a[i:i + 1] for a in attentions))"
            )
        layer = layer[0]
    if layer.ndim != 3 or layer.shape[-1] != layer.shape[-2]:
        raise SceneInputError(f"layer {index} has shape {layer.shape}: expected (heads, T, T)")
    return layer  # (H, T, T)


def attended_from(attention: Any, tokens: Sequence[str]) -> Attended:
    """An `Attended` (what the pretrained page draws) from weights and their tokens; queries and
    keys are not known here (the views that need them say so)."""
    weights = attention_array(attention)  # (L, H, T, T)
    tokens = [str(t) for t in tokens]
    if len(tokens) != weights.shape[-1]:
        raise SceneInputError(
            f"{len(tokens)} tokens for attention over {weights.shape[-1]} positions"
        )
    if not np.isfinite(weights).all():
        raise SceneInputError("the attention weights hold NaN or infinity")
    layers, heads, t = weights.shape[:3]
    empty = np.zeros((layers, heads, t, 0), dtype=np.float32)  # (L, H, T, 0)
    causal = bool(np.allclose(np.triu(weights, 1), 0.0)) and t > 1
    return Attended(tokens, weights, empty, empty, t, causal=causal)


def check_index(value: int | None, count: int, what: str) -> int | None:
    """`value` if it is a valid index among `count` (layers, heads, tokens), else a
    SceneInputError naming the range (never a quiet clamp)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise SceneInputError(f"{what} must be a whole number, not {value!r}")
    if not 0 <= value < count:
        raise SceneInputError(
            f"{what} {value} is out of range: there are {count} ({what} 0 to {count - 1})"
        )
    return int(value)


def check_selection(values: Sequence[int] | None, count: int, what: str) -> list[int]:
    """The indices `values` picks among `count` (every one when None), each checked as
    `check_index` does; an empty or repeating selection is refused by name."""
    if values is None:
        return list(range(count))
    if isinstance(values, int | np.integer):
        values = [values]
    picked = [check_index(value, count, what) for value in values]
    if not picked or len(set(picked)) < len(picked):
        raise SceneInputError(f"pick each {what} once, at least one: {list(values)!r}")
    return picked


def is_attention(thing: Any) -> bool:
    """Whether `thing` is attention weights (a tuple or list of per-layer arrays or tensors, or
    one array or tensor), not a model, a folder or None."""
    if isinstance(thing, tuple | list):
        return bool(thing) and all(hasattr(part, "shape") for part in thing)
    return hasattr(thing, "shape") and hasattr(thing, "ndim") and not hasattr(thing, "config")


NO_WEIGHTS = (
    "the model returned no attention weights ({got}): transformers' default attention (`sdpa`) "
    'computes none. Load the model with attn_implementation="eager" '
    '(AutoModel.from_pretrained(name, attn_implementation="eager")) and call it with '
    "output_attentions=True; or pass the model itself: head_view(model, text, "
    "tokenizer=tokenizer) runs it with eager attention for the call"
)


def refuse_no_weights(thing: Any, text: Any) -> None:
    """What a model built the default way hands back with output_attentions=True (an empty
    tuple, or None beside its tokens) is refused with what happened and what to do: it would
    otherwise read as no model at all."""
    empty = isinstance(thing, tuple | list) and not thing
    if empty or (thing is None and not isinstance(text, str)):
        got = "an empty tuple" if isinstance(thing, tuple) else repr(thing)
        raise SceneInputError(NO_WEIGHTS.format(got=got))


def refuse_encoder_decoder(model: Any) -> None:
    """An encoder–decoder (BART, T5) gets a message saying what to pass instead."""
    config = getattr(model, "config", None)
    if getattr(config, "is_encoder_decoder", False):
        kind = getattr(config, "model_type", "encoder-decoder")
        raise SceneInputError(
            f"an encoder–decoder model ({kind}): its encoder, decoder and cross-attention come "
            "from encoder_decoder(model, source, target, tokenizer=tokenizer); or draw its "
            "encoder alone with model_view(model.get_encoder(), text, tokenizer=tokenizer)"
        )


@contextmanager
def eager_attention(model: Any) -> Iterator[None]:
    """Run `model` with eager attention for the call: `sdpa` and flash kernels (the default of
    transformers 5) return no weights. The model's own setting comes back afterwards."""
    config = getattr(model, "config", None)
    before = getattr(config, "_attn_implementation", None)
    switch = before not in (None, "eager") and hasattr(model, "set_attn_implementation")
    if switch:
        model.set_attn_implementation("eager")
    try:
        yield
    finally:
        if switch:
            model.set_attn_implementation(before)


# --- a Hugging Face model or folder, outside the app's sandbox (a notebook is your own machine)


def model_of(path_or_model: Any, tokenizer: Any = None):
    from attnviz.topics.pretrained.model import PretrainedModel, bundled_model

    if path_or_model is None or path_or_model == "":
        return bundled_model()
    if isinstance(path_or_model, PretrainedModel):
        return path_or_model
    if isinstance(path_or_model, str | Path):
        from transformers import AutoModel, AutoTokenizer

        folder = str(Path(path_or_model).expanduser())
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModel.from_pretrained(
            folder, attn_implementation="eager", local_files_only=True
        )
        return PretrainedModel(model, tokenizer, folder)
    if tokenizer is None:
        raise SceneInputError(
            "a model object needs its tokenizer: tokenizer=...; to draw attention you already "
            "have, pass the weights and their tokens: head_view(attentions, tokens)"
        )
    refuse_encoder_decoder(path_or_model)
    return PretrainedModel(path_or_model, tokenizer, type(path_or_model).__name__)


def attended_of(path_or_model: Any, text: Any, tokenizer: Any):
    """What is drawn: the weights a researcher passed with their tokens (`text`), or a model's
    (eager attention for the call) on `text`."""
    from attnviz.topics.pretrained.model import MAX_TOKENS

    refuse_no_weights(path_or_model, text)
    if is_attention(path_or_model):
        if isinstance(text, str):
            raise SceneInputError("with attention weights, pass their tokens: a list of strings")
        return attended_from(path_or_model, text)
    model = model_of(path_or_model, tokenizer)
    with eager_attention(model.model):
        return model.extract(str(text), MAX_TOKENS)


def pretrained_outcome(path_or_model: Any, text: Any, tokenizer: Any, **values: Any):
    """(the pretrained page's scene, its outcome on what was handed in, the values to draw it
    with): a layer, head or query outside what was handed in is refused by name."""
    from attnviz.topics.pretrained.scene import SCENE as page
    from attnviz.topics.pretrained.scene import PretrainedInput, PretrainedOutcome, rollout

    attended = attended_of(path_or_model, text, tokenizer)
    layers, heads, count = attended.attentions.shape[:3]
    check_index(values.get("layer"), layers, "layer")
    check_index(values.get("head"), heads, "head")
    check_index(values.get("query"), count, "query token")
    shown = " ".join(attended.tokens) if not isinstance(text, str) else text
    picked = page.table.defaults() | settings.TABLE.defaults() | {"pe_text": shown}
    picked |= {f"pe_{k}": v for k, v in values.items() if v is not None}
    out = PretrainedOutcome(PretrainedInput("", shown), attended, rollout(attended.attentions))
    return page, out, picked
