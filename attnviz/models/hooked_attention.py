"""The one attention path shared by every attention layer, and its hook points.

`HookedAttention` is the base class of every attention module (models/attention_layer.py,
models/text_layer.py). It owns the five hook points every model exposes under the same names,
`hook_q`, `hook_k` (B, H, T, Dh), `hook_scores`, `hook_weights` (B, H, T, T) and `hook_out`
(B, H, T, Dv, each head's output before the heads are merged), and the one place that decides
between the explicit path (`core.attention.scaled_dot_product_attention`, whose weights the
hooks see) and PyTorch's fused kernel (dot score, nothing captured, no attention dropout).
"""

from __future__ import annotations

from torch import Tensor, nn

from attnviz.core.attention import fused_attention, scaled_dot_product_attention
from attnviz.core.hooks import HookPoint, model_is_capturing

HOOK_NAMES = ("hook_q", "hook_k", "hook_scores", "hook_weights", "hook_out")


class HookedAttention(nn.Module):
    """Base of the attention layers: the hook points and `attend`, the one attention path."""

    def __init__(self) -> None:
        super().__init__()
        self.hook_q, self.hook_k = HookPoint(), HookPoint()
        self.hook_scores, self.hook_weights = HookPoint(), HookPoint()
        self.hook_out = HookPoint()

    def can_fuse(self, score_name: str, dropout: nn.Module | None) -> bool:
        """The fused kernel computes the same output only for the dot score, and it shows no
        weights: so it runs only when no hook point of this layer is attached."""
        dropping = dropout is not None and self.training and getattr(dropout, "p", 0.0) > 0
        return score_name == "dot" and not dropping and not model_is_capturing(self)

    def attend(
        self,
        q: Tensor,
        k: Tensor,
        v: Tensor,
        mask: Tensor | None = None,
        *,
        scale: float | None = None,
        temperature: float = 1.0,
        score_name: str = "dot",
        score_params: dict | None = None,
        dropout: nn.Module | None = None,
        normalise: str = "softmax",
        sink: Tensor | None = None,
    ) -> Tensor:
        """q, k (B, H, T, Dh), v (B, H, T, Dv); mask broadcastable to (B, H, T, T), True = may
        attend. `score_params` are the learned tensors of the "additive" and "general" scores
        (core.attention.score); `normalise` one of core.attention.NORMALISERS (the fused kernel
        runs for softmax only, without a `sink`: a learned logit per head, (H, 1, 1), of
        core.attention.softmax_with_sink). Returns each head's output (B, H, T, Dv) after
        `hook_out`."""
        q, k = self.hook_q(q), self.hook_k(k)
        if normalise == "softmax" and sink is None and self.can_fuse(score_name, dropout):
            fused_scale = (q.shape[-1] ** -0.5 if scale is None else scale) / temperature
            return self.hook_out(fused_attention(q, k, v, mask, fused_scale))  # (B, H, T, Dv)
        out, _ = scaled_dot_product_attention(
            q,
            k,
            v,
            mask,
            scale,
            score_name=score_name,
            temperature=temperature,
            score_params=score_params,
            on_scores=self.hook_scores,
            on_weights=self.hook_weights,
            dropout=dropout,
            normalise=normalise,
            sink=sink,
        )  # (B, H, T, Dv)
        return self.hook_out(out)
