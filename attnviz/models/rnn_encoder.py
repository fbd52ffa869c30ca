"""The recurrent encoder and the decoder's alignment attention (seed 002; Bahdanau et al. 2015).

`Seq2SeqConfig` is the one config of the RNN encoder–decoder (models/rnn.py builds the model).
`RNNEncoder` reads padded token ids with their lengths through `nn.GRU` or `nn.LSTM` (uni- or
bidirectional, packed so padding never enters the recurrence) and returns every hidden state
(B, Tin, H_enc), H_enc = 2·d_hidden when bidirectional, through the hook point `hook_states`,
and a summary (the last forward state, concatenated with the backward state at position 0).
`AlignmentAttention` scores one decoder state against every encoder state with Bahdanau's
additive score or Luong's dot / general score through `HookedAttention.attend`, the one
attention path, so its hook points see q (B, 1, 1, Dq), k (B, 1, Tin, H_enc) and the scores
and weights (B, 1, 1, Tin) of each decoding step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attnviz.core.hooks import HookPoint
from attnviz.models.hooked_attention import HookedAttention

CELLS = ("gru", "lstm")
ATTENTIONS = ("additive", "dot", "general", "none")  # "none": the no-attention baseline


@dataclass(frozen=True)
class Seq2SeqConfig:
    vocab_size: int = 40
    d_embed: int = 32
    d_hidden: int = 64  # per direction in the encoder; the decoder's state size
    cell: str = "gru"  # one of CELLS
    bidirectional: bool = True
    attention: str = "additive"  # one of ATTENTIONS
    max_out: int = 12  # greedy decoding stops after this many tokens
    pad_id: int = 0

    @property
    def d_encoder(self) -> int:
        """H_enc, the width of one encoder state: 2·d_hidden when bidirectional."""
        return self.d_hidden * (2 if self.bidirectional else 1)

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot be built (empty if it can)."""
        out = []
        if self.cell not in CELLS:
            out.append(f"cell must be one of {', '.join(CELLS)}")
        if self.attention not in ATTENTIONS:
            out.append(f"attention must be one of {', '.join(ATTENTIONS)}")
        if min(self.vocab_size, self.d_embed, self.d_hidden, self.max_out) < 1:
            out.append("sizes must be at least 1")
        if not 0 <= self.pad_id < self.vocab_size:
            out.append(f"pad id {self.pad_id} is outside the vocabulary of {self.vocab_size}")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def check_lengths(x: Tensor, x_len: Tensor | list[int]) -> Tensor:
    """x_len as a (B,) int64 CPU tensor; every length in 1..Tin (an empty input has no states)."""
    lengths = torch.as_tensor(x_len, dtype=torch.int64).cpu()
    if lengths.shape != (x.shape[0],):
        raise ValueError(f"need one length per sequence: {x.shape[0]}, got {tuple(lengths.shape)}")
    if len(lengths) and (lengths.min() < 1 or lengths.max() > x.shape[1]):
        raise ValueError(f"lengths must lie in 1..{x.shape[1]}, got {lengths.tolist()}")
    return lengths


class RNNEncoder(nn.Module):
    """Token ids (B, Tin) with lengths (B,) -> states (B, Tin, H_enc), summary (B, H_enc).

    Hook point: `hook_states` (B, Tin, H_enc), the hidden state at every input position (forward
    half first, then backward half; 0 at padded positions). The summary comes from the cell's own
    final states, so replacing `hook_states` changes what attention sees, never the summary.
    """

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_embed, padding_idx=config.pad_id)
        rnn = nn.GRU if config.cell == "gru" else nn.LSTM
        self.rnn = rnn(
            config.d_embed, config.d_hidden, batch_first=True, bidirectional=config.bidirectional
        )
        self.hook_states = HookPoint()

    def forward(self, x: Tensor, x_len: Tensor | list[int]) -> tuple[Tensor, Tensor]:
        lengths = check_lengths(x, x_len)
        packed = pack_padded_sequence(
            self.embed(x), lengths, batch_first=True, enforce_sorted=False
        )
        out, final = self.rnn(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        h_n = final[0] if isinstance(final, tuple) else final  # (dirs, B, d_hidden)
        summary = torch.cat(list(h_n), dim=-1)  # (B, H_enc): last forward, first backward
        return self.hook_states(states), summary  # (B, Tin, H_enc), (B, H_enc)


class AlignmentAttention(HookedAttention):
    """One decoder state (B, Dq) attends over the encoder states (B, Tin, Dk) -> context (B, Dk).

    Scores: "additive" wᵀ tanh(W_q q + W_k k) (Bahdanau); "dot" qᵀk, with q first mapped to Dk
    by a learned linear map when Dq ≠ Dk (Luong); "general" qᵀ W k (Luong). Unscaled. Keys and
    values are the encoder states; padded positions are masked (weight exactly 0).
    """

    def __init__(self, score: str, d_query: int, d_key: int, d_attn: int | None = None):
        super().__init__()
        if score not in ("additive", "dot", "general"):
            raise ValueError(f"score must be additive, dot or general, got {score!r}")
        self.score_name = score
        d_attn = d_attn or d_key
        self.q_proj = nn.Identity()
        if score == "additive":
            self.w_q = nn.Linear(d_query, d_attn, bias=False)  # W_q (d_attn, Dq)
            self.w_k = nn.Linear(d_key, d_attn, bias=False)  # W_k (d_attn, Dk)
            self.w = nn.Parameter(torch.randn(d_attn) / d_attn**0.5)  # w (d_attn,)
        elif score == "general":
            self.w = nn.Parameter(torch.randn(d_query, d_key) / d_key**0.5)  # W (Dq, Dk)
        elif d_query != d_key:
            self.q_proj = nn.Linear(d_query, d_key, bias=False)

    def score_params(self, key_part: Tensor | None = None) -> dict[str, Tensor] | None:
        """The learned tensors of the score, as core.attention.score takes them (with the keys'
        part of the additive score, (B, 1, Tin, d_attn), when given)."""
        if self.score_name == "additive":
            found = {"w_q": self.w_q.weight, "w_k": self.w_k.weight, "w": self.w}
            return found if key_part is None else found | {"k_part": key_part}
        if self.score_name == "general":
            return {"w": self.w}
        return None

    def key_part(self, keys: Tensor) -> Tensor | None:
        """W_k k (B, Tin, d_attn) of the additive score: the same at every decoding step, so a
        decoder computes it once per sequence and passes it to each step. None otherwise."""
        return self.w_k(keys) if self.score_name == "additive" else None

    def forward(
        self, query: Tensor, keys: Tensor, key_mask: Tensor, key_part: Tensor | None = None
    ) -> Tensor:
        """query (B, Dq), keys (B, Tin, Dk), key_mask (B, Tin) True = real token, key_part
        (B, Tin, d_attn) from `key_part(keys)` or None. -> (B, Dk)"""
        q = self.q_proj(query)[:, None, None, :]  # (B, 1, 1, Dq)
        k = keys[:, None]  # (B, 1, Tin, Dk); values are the same states
        mask = key_mask[:, None, None, :]  # (B, 1, 1, Tin)
        params = self.score_params(None if key_part is None else key_part[:, None])
        out = self.attend(
            q, k, k, mask, scale=1.0, score_name=self.score_name, score_params=params
        )  # (B, 1, 1, Dk)
        return out[:, 0, 0]
