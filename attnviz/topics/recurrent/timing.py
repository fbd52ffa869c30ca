"""Sequential vs parallel, measured: one forward pass of an RNN encoder (bidirectional GRU, 64
units each way, so 128-wide states) against one self-attention layer of the same width
(MultiHeadSelfAttention, d_model 128, 4 heads, nothing captured: the fused kernel) on the same
embedded tokens as the sequence grows, the crossover, and the sentence saying what was measured.

The recurrence page calls `forward_times` live (each length costs about 2 × `seconds`);
`benchmarks/recurrence.py` prints the same rows at more repeats.
"""

from __future__ import annotations

import torch

from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.rnn_encoder import RNNEncoder, Seq2SeqConfig
from attnviz.training.timing import median_seconds

LENGTHS = (16, 32, 64, 128, 256, 512, 1024)
BATCH = 8
WIDTH = 128  # the RNN's 2 × 64 states; the attention layer's d_model
RNN_CONFIG = Seq2SeqConfig(vocab_size=40, d_embed=WIDTH, d_hidden=WIDTH // 2, cell="gru")
ATTENTION_CONFIG = SelfAttentionConfig(d_model=WIDTH, n_heads=4)


def build(device: str = "cpu", seed: int = 0) -> tuple[RNNEncoder, MultiHeadSelfAttention]:
    """The two contenders, untrained (speed does not depend on the weights), in eval mode."""
    torch.manual_seed(seed)
    encoder = RNNEncoder(RNN_CONFIG).to(device).eval()
    attention = MultiHeadSelfAttention(ATTENTION_CONFIG).to(device).eval()
    return encoder, attention


def forward_times(
    lengths=LENGTHS, device: str = "cpu", *, batch: int = BATCH, seconds: float = 0.1
) -> list[dict]:
    """Per length: {"length", "device", "rnn_ms", "attention_ms", "ratio" (RNN / attention),
    "rnn_steps" (T), "attention_steps" (1)}. Both read the same embedded tokens (B, T, 128)."""
    encoder, attention = build(device)
    rows = []
    for length in lengths:
        gen = torch.Generator().manual_seed(length)
        ids = torch.randint(1, RNN_CONFIG.vocab_size, (batch, length), generator=gen).to(device)
        full = torch.full((batch,), length)
        with torch.inference_mode():
            rnn = median_seconds(lambda i=ids, n=full: encoder(i, n), device, seconds)
            attn = median_seconds(lambda i=ids: attention(encoder.embed(i)), device, seconds)
        rows.append(
            {
                "length": length,
                "device": str(device),
                "rnn_ms": rnn * 1e3,
                "attention_ms": attn * 1e3,
                "ratio": rnn / attn,
                "rnn_steps": length,
                "attention_steps": 1,
            }
        )
    return rows


def crossover(rows: list[dict], rnn_slower: bool = True) -> int | None:
    """The first length at which the RNN turns slower than attention after being faster at the
    length before (None if it never does in `rows`, e.g. when it is slower from the start);
    with `rnn_slower=False`, the first length at which attention turns the slower one."""
    for before, row in zip(rows, rows[1:], strict=False):
        if rnn_slower and before["ratio"] <= 1 < row["ratio"]:
            return row["length"]
        if not rnn_slower and before["ratio"] > 1 >= row["ratio"]:
            return row["length"]
    return None


def crossover_text(rows: list[dict]) -> str:
    """The crossover as printed: a length, or why there is none in this range."""
    found = crossover(rows)
    if found is not None:
        return f"{found} tokens"
    if rows and rows[0]["ratio"] > 1:
        return f"none in this range (the RNN is slower already at {rows[0]['length']} tokens)"
    return "none in this range"


def summary(rows: list[dict]) -> str:
    """One sentence on what the measurement shows on this machine, for the page and here."""
    if not rows:
        return "Nothing was measured."
    first, last = rows[0], rows[-1]
    head = (
        f"On {first['device']}, one RNN forward pass takes {first['ratio']:.2g}× the attention "
        f"layer's time at {first['length']} tokens"
    )
    if len(rows) > 1:
        head += f" and {last['ratio']:.2g}× at {last['length']}"
    slower = [row["length"] for row in rows if row["ratio"] > 1]
    faster = [row["length"] for row in rows if row["ratio"] <= 1]
    if not slower:
        return f"{head}: the RNN is faster at every length measured (no crossover in this range)."
    if not faster:
        return f"{head}: the RNN is slower at every length measured, its T steps one by one."
    found = crossover(rows)
    if found is not None and all(length < found for length in faster):
        return f"{head}: the RNN becomes slower at {found} tokens and stays slower."
    why = " (attention's T² scores outgrow the RNN's T steps)" if last["ratio"] <= 1 else ""
    return (
        f"{head}: the RNN is slower at {', '.join(map(str, slower))} tokens and faster at "
        f"{', '.join(map(str, faster))}{why}."
    )
