"""An RNN encoder–decoder with attention (Bahdanau et al. 2015) and its no-attention baseline.

The encoder (models/rnn_encoder.py) reads the input once; the decoder, a GRUCell or LSTMCell,
writes the output one token at a time. At step t its previous state s_{t-1} is the query of
`AlignmentAttention` over the encoder states (keys = values, padding masked); the context c_t
and the embedded previous token feed the cell, and [s_t; c_t] predicts token t. With attention
"none" (Sutskever et al. 2014) the decoder sees only the encoder's summary, through its initial
state: the bottleneck that attention removes. `alignment` stacks the captured weights of every
step, (B, Tout, Tin); `greedy_decode` translates and returns its alignment. Conventions: PAD is
`config.pad_id`; the decoder input is y[:, :-1] (starting with BOS), the targets y[:, 1:].
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from attnviz.core.hooks import hooks_attached
from attnviz.models.hooked_attention import HOOK_NAMES
from attnviz.models.rnn_encoder import (
    ATTENTIONS,
    CELLS,
    AlignmentAttention,
    RNNEncoder,
    Seq2SeqConfig,
    check_lengths,
)

__all__ = [
    "ATTENTIONS",
    "CELLS",
    "AttentionDecoder",
    "Seq2Seq",
    "Seq2SeqConfig",
    "alignment",
    "attention_steps",
    "greedy_decode",
]
State = Tensor | tuple[Tensor, Tensor]  # GRU: h (B, d_hidden); LSTM: (h, c)
Lengths = Tensor | list[int]  # (B,) true input lengths, each in 1..Tin
ATTENTION_PREFIX = "decoder.attn."


class AttentionDecoder(nn.Module):
    """One step at a time: (previous token, state, encoder states) -> (logits (B, V), state)."""

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        self.config = config
        d_enc, d_hid = config.d_encoder, config.d_hidden
        self.uses_attention = config.attention != "none"
        d_context = d_enc if self.uses_attention else 0
        self.embed = nn.Embedding(config.vocab_size, config.d_embed, padding_idx=config.pad_id)
        self.bridge = nn.Linear(d_enc, d_hid)  # encoder summary -> initial decoder state
        cell = nn.GRUCell if config.cell == "gru" else nn.LSTMCell
        self.cell = cell(config.d_embed + d_context, d_hid)
        self.attn = (
            AlignmentAttention(config.attention, d_hid, d_enc, d_attn=d_hid)
            if self.uses_attention
            else None
        )
        self.out = nn.Linear(d_hid + d_context, config.vocab_size)

    def initial_state(self, summary: Tensor) -> State:
        """s_0 = tanh(W summary + b); an LSTM's cell state starts at 0."""
        h = torch.tanh(self.bridge(summary))  # (B, d_hidden)
        return (h, torch.zeros_like(h)) if self.config.cell == "lstm" else h

    def key_part(self, states: Tensor) -> Tensor | None:
        """What every step's score needs of the encoder states, computed once (additive: W_k k,
        (B, Tin, d_hidden)); None otherwise."""
        return None if self.attn is None else self.attn.key_part(states)

    def step(
        self,
        y_prev: Tensor,
        state: State,
        states: Tensor,
        mask: Tensor,
        key_part: Tensor | None = None,
    ) -> tuple[Tensor, State]:
        """y_prev (B,) ids, states (B, Tin, H_enc), mask (B, Tin), key_part from `key_part`
        (or None: computed here). -> logits (B, V), new state."""
        state, read = self.recur(self.embed(y_prev), state, states, mask, key_part)
        return self.out(read), state  # (B, V)

    def recur(
        self,
        embedded: Tensor,
        state: State,
        states: Tensor,
        mask: Tensor,
        key_part: Tensor | None = None,
    ) -> tuple[State, Tensor]:
        """One step of the recurrence from the embedded previous token (B, d_embed): the new
        state and what the output layer reads, [s_t; c_t] (B, d_hidden + d_context)."""
        h = state[0] if isinstance(state, tuple) else state  # s_{t-1} (B, d_hidden)
        inputs = [embedded]
        if self.attn is not None:
            inputs.append(self.attn(h, states, mask, key_part))  # c_t (B, H_enc)
        state = self.cell(torch.cat(inputs, dim=-1), state)
        h = state[0] if isinstance(state, tuple) else state  # s_t
        return state, torch.cat([h, *inputs[1:]], dim=-1)

    def forward(self, y_in: Tensor, summary: Tensor, states: Tensor, mask: Tensor) -> Tensor:
        """Teacher forcing: y_in (B, Tout) -> logits (B, Tout, V). Every input token is known,
        so the embedding and the output layer run once over all steps (a training step of the
        Reverse preset 108 -> 95-99 ms on one core: fewer small operations and gradient sums);
        only the recurrence goes one step at a time."""
        state = self.initial_state(summary)
        key_part = self.key_part(states)
        embedded = self.embed(y_in)  # (B, Tout, d_embed)
        reads = []
        for step in embedded.unbind(1):  # one gradient for all steps, not a zero-filled each
            state, read = self.recur(step, state, states, mask, key_part)
            reads.append(read)
        return self.out(torch.stack(reads, dim=1))  # (B, Tout, V)


class Seq2Seq(nn.Module):
    """(x (B, Tin), x_len (B,), y_in (B, Tout)) -> logits (B, Tout, V), teacher-forced.

    Hook points: `encoder.hook_states` (B, Tin, H_enc); with attention, `decoder.attn.hook_q`,
    `hook_k`, `hook_scores`, `hook_weights` (B, 1, 1, Tin) and `hook_out`, once per output step
    (`run_with_cache` keeps the last step; `attention_steps` keeps them all).
    """

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        self.encoder = RNNEncoder(config)
        self.decoder = AttentionDecoder(config)

    def encode(self, x: Tensor, x_len: Lengths) -> tuple[Tensor, Tensor, Tensor]:
        """-> states (B, Tin, H_enc), summary (B, H_enc), key mask (B, Tin) True = real token."""
        lengths = check_lengths(x, x_len)
        states, summary = self.encoder(x, lengths)
        mask = torch.arange(x.shape[1], device=x.device)[None, :] < lengths.to(x.device)[:, None]
        return states, summary, mask

    def forward(self, x: Tensor, x_len: Lengths, y_in: Tensor) -> Tensor:
        states, summary, mask = self.encode(x, x_len)
        return self.decoder(y_in, summary, states, mask)  # (B, Tout, V)


@contextmanager
def recording_steps(model: Seq2Seq, names=HOOK_NAMES) -> Iterator[dict[str, list[Tensor]]]:
    """Record every step's tensor at the decoder attention's hook points `names`."""
    kept: dict[str, list[Tensor]] = {name: [] for name in names}

    def keep(tensor: Tensor, name: str) -> None:
        kept[name.removeprefix(ATTENTION_PREFIX)].append(tensor.detach())

    with hooks_attached(model, {ATTENTION_PREFIX + name: keep for name in names}):
        yield kept


def attention_steps(model: Seq2Seq, x: Tensor, x_len: Lengths, y_in: Tensor) -> dict[str, Tensor]:
    """Teacher-forced run keeping every step of every attention hook point, steps stacked on
    dim 1: hook_q (B, Tout, Dq), hook_k (B, Tout, Tin, Dk), hook_scores and hook_weights
    (B, Tout, Tin), hook_out (B, Tout, Dk). Empty for the no-attention baseline."""
    if model.decoder.attn is None:
        return {}
    with recording_steps(model) as kept, torch.no_grad():
        model(x, x_len, y_in)
    return {
        name: torch.stack([_one_head(t, name) for t in steps], dim=1)
        for name, steps in kept.items()
    }


def _one_head(tensor: Tensor, name: str) -> Tensor:
    """Drop the head axis, and the query axis (one query per step): hook_k (B, 1, Tin, Dk) ->
    (B, Tin, Dk); the others (B, 1, 1, D) -> (B, D)."""
    return tensor[:, 0] if name == "hook_k" else tensor[:, 0, 0]


def alignment(model: Seq2Seq, x: Tensor, x_len: Lengths, y_in: Tensor) -> Tensor | None:
    """Teacher-forced alignment (B, Tout, Tin): row t = the weights used to predict token t
    (padding 0, rows sum to 1). None for the no-attention baseline."""
    return attention_steps(model, x, x_len, y_in).get("hook_weights")


def greedy_decode(
    model: Seq2Seq, x: Tensor, x_len: Lengths, bos: int, eos: int, max_out: int | None = None
) -> tuple[Tensor, Tensor | None]:
    """Translate by always taking the most likely token. -> ids (B, T), alignment (B, T, Tin).

    ids start after BOS and include the EOS a row emits; after it the row holds PAD and its
    alignment rows are 0. Decoding stops when every row has emitted EOS, or after `max_out`
    (default `config.max_out`) tokens. The alignment is None for the no-attention baseline.
    """
    max_out = model.config.max_out if max_out is None else max_out
    names = ("hook_weights",) if model.decoder.attn is not None else ()
    with recording_steps(model, names) as kept, torch.no_grad():
        states, summary, mask = model.encode(x, x_len)
        state = model.decoder.initial_state(summary)
        key_part = model.decoder.key_part(states)
        token = torch.full((x.shape[0],), bos, dtype=torch.long, device=x.device)
        done = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
        ids, finished = [], []
        for _ in range(max_out):
            logits, state = model.decoder.step(token, state, states, mask, key_part)
            token = logits.argmax(-1).masked_fill(done, model.config.pad_id)  # (B,)
            ids.append(token)
            finished.append(done)
            done = done | (token == eos)
            if bool(done.all()):
                break
    out = torch.stack(ids, dim=1) if ids else x.new_zeros((x.shape[0], 0))
    if not names:
        return out, None
    if not ids:
        return out, x.new_zeros((x.shape[0], 0, x.shape[1]), dtype=torch.float)
    weights = torch.stack([w[:, 0, 0] for w in kept["hook_weights"]], dim=1)  # (B, T, Tin)
    weights = weights.masked_fill(torch.stack(finished, dim=1)[..., None], 0.0)
    return out, weights
