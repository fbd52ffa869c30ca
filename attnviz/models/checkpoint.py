"""Save and load trained tiny transformers as safetensors weights plus a JSON config, and carry
any model's weights as NumPy arrays (snapshots).

Never pickle: a file that is not a valid safetensors blob, or a config that does not describe
a TransformerConfig, is refused with a readable ValueError.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TypeVar

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors
from torch import nn

from attnviz.models.transformer import TinyTransformer, TransformerConfig

M = TypeVar("M", bound=nn.Module)

MAX_BYTES = 20 * 1024 * 1024


def state_arrays(model: nn.Module) -> dict[str, np.ndarray]:
    """A model's weights as NumPy copies (what snapshots carry from a worker to the page)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}


def load_arrays(model: M, arrays: dict[str, np.ndarray]) -> M:
    """`model` with the weights of `state_arrays`, in eval mode."""
    model.load_state_dict({k: torch.as_tensor(v) for k, v in arrays.items()})
    return model.eval()


def save_model(model: TinyTransformer, extra: dict | None = None) -> tuple[bytes, str]:
    """(safetensors bytes, JSON text) for a model; `extra` (e.g. the task spec) goes in the JSON."""
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    config = {"model": model.config.to_dict(), **(extra or {})}
    return save_tensors(tensors), json.dumps(config, indent=1)


def parse_config(text: str | bytes) -> tuple[TransformerConfig, dict]:
    """The model config and the remaining JSON fields; ValueError says what is wrong."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"the config is not valid JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError('the config must be a JSON object with a "model" object')
    fields = {f.name: f.type for f in dataclasses.fields(TransformerConfig)}
    unknown = set(data["model"]) - set(fields)
    if unknown:
        raise ValueError(f"the config has unknown model fields: {', '.join(sorted(unknown))}")
    try:
        config = TransformerConfig(**data["model"])
    except TypeError as err:
        raise ValueError(f"the model config is incomplete ({err})") from None
    problems = config.problems()
    if problems:
        raise ValueError("; ".join(problems))
    return config, {k: v for k, v in data.items() if k != "model"}


def load_model(weights: bytes, config_text: str | bytes) -> tuple[TinyTransformer, dict]:
    """Rebuild a model from save_model's output; refuses pickles and mismatched files."""
    if len(weights) > MAX_BYTES:
        raise ValueError(f"the weights file is larger than {MAX_BYTES // 2**20} MB")
    config, extra = parse_config(config_text)
    try:
        tensors = load_tensors(weights)
    except (SafetensorError, ValueError, RuntimeError) as err:
        raise ValueError(f"not a safetensors file ({str(err)[:120]})") from None
    model = TinyTransformer(config)
    try:
        model.load_state_dict(tensors, strict=True)
    except RuntimeError as err:
        raise ValueError(f"the weights do not fit the config: {str(err)[:200]}") from None
    model.eval()
    return model, extra
