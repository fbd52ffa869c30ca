"""The captioner's two decoders, each writing words while attending over image regions.

`GRUCaptionDecoder` (Show, Attend and Tell; Xu et al. 2015): a GRUCell whose previous state
s_{t-1} is the query of `AlignmentAttention` (models/rnn_encoder.py: additive, dot or general)
over the regions; the context and the embedded previous word feed the cell, [s_t; c_t] predicts
word t. Hook points `decoder.attn.hook_*`, once per step: weights (B, 1, 1, R).

`TransformerCaptionDecoder`: pre-LayerNorm blocks of causal self-attention over the words so far
(`MultiHeadSelfAttention`), cross-attention from the words to the regions (`CrossAttention`) and
an MLP; learned positions. Hook points `decoder.blocks.{i}.self_attn.hook_weights` (B, H, T, T)
and `decoder.blocks.{i}.cross_attn.hook_weights` (B, H, T, R). Both attentions run the one
attention path, `HookedAttention.attend`.

Both decoders offer `start(regions) -> state` and `advance(prefix, state, regions) ->
(logits (B, V), state)` for decoding one word at a time (the GRU reads the prefix's last word
and its state; the transformer re-reads the whole prefix, its state is None), and
`forward(y_in, regions)` for teacher forcing.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnviz.core.attention import causal_mask, merge_heads, split_heads
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.hooked_attention import HookedAttention
from attnviz.models.rnn_encoder import AlignmentAttention


class CrossAttention(HookedAttention):
    """Words (B, T, D) attend over regions (B, R, D) -> (B, T, D): Q = xW_q + b_q, K = zW_k + b_k,
    V = zW_v + b_v, scaled dot product, heads merged and projected.

    Hook points: `hook_q` (B, H, T, Dh), `hook_k` (B, H, R, Dh), `hook_scores` and `hook_weights`
    (B, H, T, R), `hook_out` (B, H, T, Dh)."""

    def __init__(self, d_model: int, n_head: int):
        super().__init__()
        if d_model % n_head:
            raise ValueError(f"d_model={d_model} is not divisible by n_head={n_head}")
        self.n_head = n_head
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)

    def forward(self, x: Tensor, regions: Tensor) -> Tensor:
        q = split_heads(self.q_proj(x), self.n_head)  # (B, H, T, Dh)
        k = split_heads(self.k_proj(regions), self.n_head)  # (B, H, R, Dh)
        v = split_heads(self.v_proj(regions), self.n_head)  # (B, H, R, Dh)
        out = self.attend(q, k, v, scale=1 / math.sqrt(q.shape[-1]))  # (B, H, T, Dh)
        return self.o_proj(merge_heads(out))  # (B, T, D)


class DecoderBlock(nn.Module):
    """x + self_attn(LN(x), causal), then x + cross_attn(LN(x), regions), then x + MLP(LN(x))."""

    def __init__(self, d_model: int, n_head: int, d_ff: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.self_attn = MultiHeadSelfAttention(SelfAttentionConfig(d_model, n_head))
        self.ln2 = nn.LayerNorm(d_model)
        self.cross_attn = CrossAttention(d_model, n_head)
        self.ln3 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x: Tensor, regions: Tensor, mask: Tensor) -> Tensor:
        x = x + self.self_attn(self.ln1(x), mask)  # (B, T, D)
        x = x + self.cross_attn(self.ln2(x), regions)
        return x + self.mlp(self.ln3(x))


class TransformerCaptionDecoder(nn.Module):
    """Word ids (B, T) and regions (B, R, D) -> logits (B, T, V); causal over the words."""

    def __init__(self, vocab_size: int, d_model: int, n_layer: int, n_head: int, max_len: int):
        super().__init__()
        self.max_len = max_len
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Parameter(torch.randn(max_len, d_model) * 0.1)  # learned positions
        self.blocks = nn.ModuleList(
            DecoderBlock(d_model, n_head, 2 * d_model) for _ in range(n_layer)
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, vocab_size)

    def forward(self, y_in: Tensor, regions: Tensor) -> Tensor:
        t = y_in.shape[1]
        if t > self.max_len:
            raise ValueError(f"{t} words is longer than max_len {self.max_len}")
        x = self.embed(y_in) + self.pos[:t]  # (B, T, D)
        mask = causal_mask(t, device=y_in.device)  # (T, T): word i sees words 0..i
        for block in self.blocks:
            x = block(x, regions, mask)
        return self.out(self.ln_f(x))  # (B, T, V)

    def start(self, regions: Tensor) -> None:
        return None

    def advance(self, prefix: Tensor, state: None, regions: Tensor) -> tuple[Tensor, None]:
        """prefix (B, t) ids so far -> logits of the next word (B, V)."""
        return self(prefix, regions)[:, -1], None


class GRUCaptionDecoder(nn.Module):
    """One word at a time: (previous word, state, regions) -> (logits (B, V), state)."""

    def __init__(self, vocab_size: int, d_model: int, score: str):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.bridge = nn.Linear(d_model, d_model)  # mean region -> initial state
        self.attn = AlignmentAttention(score, d_model, d_model, d_attn=d_model)
        self.cell = nn.GRUCell(2 * d_model, d_model)
        self.out = nn.Linear(2 * d_model, vocab_size)

    def start(self, regions: Tensor) -> Tensor:
        """s_0 = tanh(W mean(regions) + b): (B, D)."""
        return torch.tanh(self.bridge(regions.mean(1)))

    def step(
        self, y_prev: Tensor, h: Tensor, regions: Tensor, key_part: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """y_prev (B,), h (B, D), regions (B, R, D), key_part (the attention's W_k regions, or
        None: computed here) -> logits (B, V), new state (B, D)."""
        h, read = self.recur(self.embed(y_prev), h, regions, key_part)
        return self.out(read), h

    def recur(
        self, embedded: Tensor, h: Tensor, regions: Tensor, key_part: Tensor | None
    ) -> tuple[Tensor, Tensor]:
        """One step of the recurrence from the embedded previous word (B, D): the new state s_t
        and what the output layer reads, [s_t; c_t] (B, 2D)."""
        every = torch.ones(regions.shape[:2], dtype=torch.bool, device=regions.device)  # (B, R)
        context = self.attn(h, regions, every, key_part)  # c_t (B, D)
        h = self.cell(torch.cat([embedded, context], -1), h)  # s_t (B, D)
        return h, torch.cat([h, context], -1)

    def advance(self, prefix: Tensor, state: Tensor, regions: Tensor) -> tuple[Tensor, Tensor]:
        return self.step(prefix[:, -1], state, regions)

    def forward(self, y_in: Tensor, regions: Tensor) -> Tensor:
        """Teacher forcing: y_in (B, T) -> logits (B, T, V); the embedding, the keys' part of
        the score and the output layer once over all words, the recurrence word by word."""
        h = self.start(regions)
        key_part = self.attn.key_part(regions)  # (B, R, d_attn) or None
        embedded = self.embed(y_in)  # (B, T, D)
        reads = []
        for word in embedded.unbind(1):  # one gradient for all words, not a zero-filled each
            h, read = self.recur(word, h, regions, key_part)
            reads.append(read)
        return self.out(torch.stack(reads, dim=1))  # (B, T, V)
