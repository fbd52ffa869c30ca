"""A researcher's own causal language model on the language-model and interventions pages (and
`attnviz.language_model(folder)`), issue 56: a Hugging Face folder inside a folder the server
lists in ATTNVIZ_MODEL_DIRS, or a Hub name already in the local cache, under the pretrained
page's rules (`pretrained.sources`: resolved paths, one message for anything outside, nothing
downloaded), loaded with eager attention once per process and kept (the `KEEP` latest).

The pages read a decoder layer as Llama's: `self_attn` with q_proj, k_proj, v_proj and o_proj,
`input_layernorm`, `mlp`, and the model's `embed_tokens`, `norm` and `lm_head`. Llama, Mistral,
Qwen2, Qwen3, Gemma, Gemma 2, Gemma 3 (text) and SmolLM folders are laid out so; grouped-query
heads, rotary positions, sliding windows and a chat template are read from the folder. A Phi-3
folder is read into a Llama of its shape (`phi3`: its fused q/k/v and gate/up matrices split). A
GPT-2 folder is read as GPT-2 (`forward.is_gpt2`; where its parts live: `layout`), on both pages
and by the Python handle. Anything else (GPT-NeoX's fused query_key_value) gets a
message that names its family and where it can be opened instead (the pretrained page).
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from pathlib import Path

from attnviz.topics.language_model.forward import is_gpt2
from attnviz.topics.language_model.phi3 import PartialRotary, phi3_as_llama
from attnviz.topics.pretrained.model import PretrainedModel, load
from attnviz.topics.pretrained.sources import SourceError, literal, locate, unusable

KEEP = 2  # own models kept loaded per process (the bundled one is kept apart)
SIZE_ENV = "ATTNVIZ_MAX_MODEL_MB"  # the most weights a folder may hold, in MB (whoever runs
MAX_MB = 3_000  # the server may raise it): a 1B model in bfloat16 is about 2,500 MB
WEIGHTS = ("*.safetensors", "*.bin", "*.pt", "*.pth")
FAMILIES = "Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma 2, Gemma 3 (text), Phi-3, SmolLM and GPT-2"
PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
# families known to be laid out otherwise: refused from config.json, before any weight is read
OTHER_LAYOUTS = {
    "gpt_neox": "it fuses q, k and v in one query_key_value",
}

_LOCK = threading.Lock()
_kept: OrderedDict[tuple[str, str], PretrainedModel] = OrderedDict()
_loading: dict[tuple[str, str], threading.Lock] = {}  # folders being loaded


class OwnModelError(ValueError):
    """A folder or name that these pages cannot open; the message quotes user text as code."""


def layout_problem(lm: PretrainedModel) -> str | None:
    """What keeps the pages from reading this model's layers (None: nothing)."""
    inner = getattr(lm.model, "model", None)
    if not lm.causal:
        return "it is not a causal language model (an encoder: open it on the pretrained page)"
    if is_gpt2(lm):
        return None  # read as GPT-2 (forward.is_gpt2, layout)
    if not lm.blocks or inner is None or not hasattr(inner, "embed_tokens"):
        return "its decoder layers are not at `model.layers` as Llama's are"
    attn = getattr(lm.blocks[0], "self_attn", None)
    missing = [name for name in PROJECTIONS if not hasattr(attn, name)]
    if missing:
        return f"its attention has no {', '.join(missing)} (it fuses them, or names them otherwise)"
    if not hasattr(lm.blocks[0], "input_layernorm") or not hasattr(lm.blocks[0], "mlp"):
        return "its layers have no `input_layernorm` and `mlp` as Llama's do"
    return None


def refused(source: str, family: str, problem: str) -> OwnModelError:
    return OwnModelError(
        f"{literal(source)} is a {literal(family)} model, and {problem}. These pages read the "
        f"layers of {FAMILIES} models; the pretrained page opens the others."
    )


def _family(folder: str) -> str:
    """The model_type its config.json names ("?" when it cannot be read)."""
    try:
        return str(json.loads((Path(folder) / "config.json").read_text()).get("model_type", "?"))
    except (OSError, ValueError, AttributeError):
        return "?"


def max_mb() -> float:
    """The server's bound on a folder's weights, in MB (SIZE_ENV, else MAX_MB)."""
    try:
        return float(os.environ.get(SIZE_ENV, MAX_MB))
    except ValueError:
        return float(MAX_MB)


def weights_mb(folder: str) -> float:
    """The size of the weight files in `folder`, in MB (read from the file system only)."""
    files = {path for pattern in WEIGHTS for path in Path(folder).glob(pattern)}
    return sum(path.stat().st_size for path in files if path.is_file()) / 1e6


def _load(source: str, folder: str, device: str) -> PretrainedModel:
    size, bound = weights_mb(folder), max_mb()
    if size > bound:  # memory and time bounded before a byte of weights is read
        raise OwnModelError(
            f"{literal(source)} holds {size:,.0f} MB of weights; this server opens models of "
            f"up to {bound:,.0f} MB (whoever runs it can raise that with {SIZE_ENV})"
        )
    family = _family(folder)
    if family in OTHER_LAYOUTS:
        raise refused(source, family, OTHER_LAYOUTS[family])
    try:
        lm = _phi3(source, folder) if family == "phi3" else load(source)
    except SourceError as err:
        raise OwnModelError(str(err)) from None
    problem = layout_problem(lm)
    if problem is not None:
        raise refused(source, family, problem)
    lm.model.to(device)
    return lm


def _phi3(source: str, folder: str) -> PretrainedModel:
    """A Phi-3 folder read into a Llama of its shape (`phi3`: its fused matrices split)."""
    try:
        model, tokenizer = phi3_as_llama(folder)
    except PartialRotary as err:
        raise refused(source, "phi3", str(err)) from None
    except Exception as err:  # transformers raises many types; all mean "cannot load this"
        raise unusable(locate(source), err, "load") from None
    return PretrainedModel(model, tokenizer, locate(source).label, causal=True)


def own_llm(source: str, device: str = "cpu") -> PretrainedModel:
    """The model in `source` (a folder inside ATTNVIZ_MODEL_DIRS or a cached Hub name) on
    `device`, loaded once and shared; OwnModelError with the reason when it cannot be used."""
    try:
        folder = locate(source).folder
    except SourceError as err:
        raise OwnModelError(str(err)) from None
    key = (folder, device)
    with _LOCK:  # held for the table only: a load does not stop sessions on loaded models
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
        loading = _loading.setdefault(key, threading.Lock())
    with loading:  # one load per folder at a time; a second asker waits for it
        with _LOCK:
            if key in _kept:
                return _kept[key]
        try:
            lm = _load(source, folder, device)
        finally:
            with _LOCK:
                _loading.pop(key, None)
        with _LOCK:
            _kept[key] = lm
            while len(_kept) > KEEP:
                _kept.popitem(last=False)
        return lm
