"""A greedy translation of one text written out by hand from an RNN encoder–decoder's weights: the
oracle of the recurrent page's "your date" (what each step wrote, and the attention weights it
wrote it with).

Nothing here calls the project's decoding, attention or slicing. The encoder's recurrence is
`torch.nn.GRU`/`nn.LSTM` (the model's own layer, run on the text alone, unpadded and unpacked);
the rest is the formulas, in float64, from the model's parameters:

    s_0 = tanh(W_b summary + b_b)      summary = [last forward state; first backward state]
    additive  e_j = wᵀ tanh(W_q s + W_k k_j)        general  e_j = sᵀ W k_j
    dot       e_j = sᵀ k_j (one-way) or (P s)ᵀ k_j (two-way: k_j is twice as wide as s)
    a = softmax(e),  c = Σ_j a_j k_j,  s' = cell([embed(y); c], s),  y' = argmax(W_o [s'; c] + b_o)

Token ids come from the vocabulary table (`VOCAB`), by position; a step that writes PAD or BOS
writes no character, UNK is shown as '�', and the first EOS ends the text.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.data.dates import VOCAB

PAD_ID, BOS_ID, EOS_ID, UNK_ID = (
    VOCAB.index(name) for name in ("<pad>", "<bos>", "<eos>", "<unk>")
)


@dataclass(frozen=True)
class HandStep:
    token: int  # the id this step wrote
    weights: np.ndarray | None  # (Tin,) its attention weights; None without attention


@dataclass(frozen=True)
class HandTranslation:
    steps: list[HandStep]  # every decoding step, up to and including the first EOS

    @property
    def written(self) -> list[tuple[str, np.ndarray | None]]:
        """(character, weights) of each step that wrote a character of the output text."""
        out = []
        for step in self.steps:
            if step.token == EOS_ID:
                break
            if step.token in (PAD_ID, BOS_ID):
                continue
            out.append(("\ufffd" if step.token == UNK_ID else VOCAB[step.token], step.weights))
        return out

    @property
    def text(self) -> str:
        return "".join(c for c, _ in self.written)

    @property
    def specials_before_eos(self) -> int:
        """Steps before the first EOS that wrote PAD or BOS (no character): where a slicing by
        count would shift every later row."""
        tokens = [s.token for s in self.steps]
        end = tokens.index(EOS_ID) if EOS_ID in tokens else len(tokens)
        return sum(t in (PAD_ID, BOS_ID) for t in tokens[:end])


def _encoder_states(model, ids: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(Tin, H_enc) states of the text alone and the summary [last forward; first backward]."""
    enc = model.encoder
    emb = enc.embed.weight[torch.tensor(ids)][None]  # (1, Tin, E)
    states = enc.rnn(emb)[0][0]  # (Tin, H_enc): no padding, nothing packed
    h = model.config.d_hidden
    if model.config.bidirectional:
        return states, torch.cat([states[-1, :h], states[0, h:]])
    return states, states[-1]


def _scores(attn, s: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """(Tin,) scores of decoder state s (Dq,) against keys (Tin, Dk), by the formulas above."""
    if attn.score_name == "additive":
        return torch.tanh(attn.w_q.weight @ s + keys @ attn.w_k.weight.T) @ attn.w
    if attn.score_name == "general":
        return keys @ (s @ attn.w)
    q = attn.q_proj.weight @ s if isinstance(attn.q_proj, torch.nn.Linear) else s
    assert q.shape == keys.shape[1:], "dot: q compared with keys of its own width"
    return keys @ q


def hand_translate(model, text: str) -> HandTranslation:
    """Greedy decoding of `text`, one step at a time, by the formulas of the module docstring."""
    model = copy.deepcopy(model).double().eval()
    dec, cfg = model.decoder, model.config
    steps = []
    with torch.no_grad():
        keys, summary = _encoder_states(model, [VOCAB.index(c) for c in text])
        s = torch.tanh(dec.bridge.weight @ summary + dec.bridge.bias)
        state = (s[None], torch.zeros_like(s)[None]) if cfg.cell == "lstm" else s[None]
        token = BOS_ID
        for _ in range(cfg.max_out):
            inputs, weights = [dec.embed.weight[token]], None
            if dec.attn is not None:
                e = _scores(dec.attn, s, keys)
                a = torch.exp(e - e.max())
                weights = a / a.sum()
                inputs.append(weights @ keys)  # the context c
            state = dec.cell(torch.cat(inputs)[None], state)
            s = (state[0] if cfg.cell == "lstm" else state)[0]
            logits = dec.out.weight @ torch.cat([s, *inputs[1:]]) + dec.out.bias
            token = int(logits.argmax())
            steps.append(HandStep(token, None if weights is None else weights.numpy()))
            if token == EOS_ID:
                break
    return HandTranslation(steps)
