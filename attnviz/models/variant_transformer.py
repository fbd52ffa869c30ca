"""The tiny transformer (models/transformer.py) with one attention variant in every block
(models/variant_attention.py): same embeddings, positions, MLPs and head, so variants trained
side by side differ only in their attention. `run_with_cache` captures
`blocks.{i}.attn.hook_weights` (B, H, T, T) as for the tiny transformer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from attnviz.models.transformer import Block, TinyTransformer, TransformerConfig
from attnviz.models.variant_attention import VariantAttention, VariantConfig, cached_numbers


@dataclass(frozen=True)
class VariantModelConfig:
    model: TransformerConfig  # the tiny transformer's shape (its `attention` stays softmax)
    attention: VariantConfig  # the variant; d_model and n_heads are the model's

    def layer(self, layer: int) -> VariantConfig:
        """Layer `layer`'s attention: the sink variant's even layers are windowed."""
        windowed = self.attention.kind == "sink" and layer % 2 == 0
        return replace(
            self.attention,
            d_model=self.model.d_model,
            n_heads=self.model.n_head,
            window=self.attention.window if windowed else 0,
        )

    def problems(self) -> list[str]:
        return self.model.problems() + self.layer(0).problems()


class VariantTransformer(TinyTransformer):
    """Token ids (B, T) -> logits (B, T, vocab), every block's attention the chosen variant."""

    def __init__(self, config: VariantModelConfig):
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.variant = config
        super().__init__(config.model)

    def block(self, config: TransformerConfig, layer: int) -> Block:
        return Block(config, VariantAttention(self.variant.layer(layer)))


def cache_numbers_per_token(config: VariantModelConfig, context: int) -> float:
    """Numbers the KV cache holds per token of a `context`-token context, over every layer (a
    windowed layer keeps at most its window of tokens)."""
    total = 0
    for layer in range(config.model.n_layer):
        attn = config.layer(layer)
        kept = min(context, attn.window) if attn.window else context
        total += cached_numbers(attn) * kept
    return total / context
