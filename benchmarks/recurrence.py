"""Sequential vs parallel: the recurrent page's speed.

1. Time to the preset's accuracy: a placeholder until the page's task exists
   (`attnviz/topics/recurrent/task.py`); it prints "task not available yet" before then.
2. One forward pass of the RNN encoder (bidirectional GRU, 64 units each way, so 128-wide
   states) against one self-attention layer of the same width (MultiHeadSelfAttention, d_model
   128, 4 heads, nothing captured: the fused kernel) on the same embedded tokens, batch 8, as the
   sequence grows 16 … 1024 tokens: median wall time, their ratio, and the sequential steps each
   needs (the RNN: T, one after another; attention: 1 layer, every position at once). CPU with 2
   threads, and CUDA when present. The crossover, where the RNN becomes slower, is printed.

    python -m benchmarks.recurrence

`forward_times(lengths, device)` is what the page calls live: each length costs about
2 × `seconds` (default 0.1 s), so 16 … 1024 fits in a few seconds.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch

from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.rnn_encoder import RNNEncoder, Seq2SeqConfig

LENGTHS = (16, 32, 64, 128, 256, 512, 1024)
BATCH = 8
WIDTH = 128  # the RNN's 2 × 64 states; the attention layer's d_model
RNN_CONFIG = Seq2SeqConfig(vocab_size=40, d_embed=WIDTH, d_hidden=WIDTH // 2, cell="gru")
ATTENTION_CONFIG = SelfAttentionConfig(d_model=WIDTH, n_heads=4)


def median_seconds(
    fn: Callable[[], object], device: str, seconds: float = 0.1, min_repeats: int = 3
) -> float:
    """Median wall time of `fn()` over repeats filling about `seconds` (at least `min_repeats`),
    after one warm-up call; CUDA work is waited for before each clock reading."""
    sync = torch.cuda.synchronize if str(device).startswith("cuda") else (lambda: None)
    fn()
    sync()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_repeats or time.perf_counter() - start < seconds:
        tick = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - tick)
        if len(times) >= 200:
            break
    return statistics.median(times)


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


def table(rows: list[dict]) -> str:
    lines = [
        f"{'length':>6} {'RNN ms':>9} {'attention ms':>13} {'RNN/attn':>9} "
        f"{'RNN steps':>10} {'attn steps':>11}"
    ]
    for r in rows:
        lines.append(
            f"{r['length']:>6} {r['rnn_ms']:>9.3f} {r['attention_ms']:>13.3f} {r['ratio']:>9.2f} "
            f"{r['rnn_steps']:>10} {r['attention_steps']:>11}"
        )
    return "\n".join(lines)


def time_to_accuracy(target: float = 0.95) -> str:
    """Train the first dates preset (both models side by side, as the page does) and report the
    seconds and steps until each model's exact match reaches `target` (evaluated every 50)."""
    from attnviz.topics.recurrent.task import BASELINE, PRESETS, RecurrentJobSpec
    from attnviz.training.trainer import Trainer

    name = next(iter(PRESETS))
    task, model, config = PRESETS[name]
    trainer = Trainer(RecurrentJobSpec(task, model).build(), config)
    start, reached = time.perf_counter(), {}
    while trainer.status.value == "running" and len(reached) < 2:
        trainer.step()
        history = trainer.history
        if not history.val_metric or history.eval_step[-1] != trainer.step_count:
            continue
        scores = {"attention": history.val_metric[-1],
                  BASELINE: history.latest_extra(f"{BASELINE} val_metric")}  # fmt: skip
        for who, value in scores.items():
            if who not in reached and value >= target:
                reached[who] = (time.perf_counter() - start, trainer.step_count)
    lines = [f"preset {name!r}, {trainer.step_count} steps run:"]
    for who in ("attention", BASELINE):
        seconds, steps = reached.get(who, (None, None))
        lines.append(f"  {who}: ≥ {target:.0%} exact match after {seconds:.1f} s ({steps} steps)"
                     if seconds is not None else f"  {who}: not {target:.0%} within the preset")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    torch.set_num_threads(2)
    print("== time to the preset's accuracy ==")
    print(time_to_accuracy())
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        threads = f", {torch.get_num_threads()} threads" if device == "cpu" else ""
        print(
            f"\n== one forward pass, batch {BATCH}: bidirectional GRU encoder (64 + 64) vs "
            f"self-attention (d_model {WIDTH}, 4 heads, capture off); {device}{threads} =="
        )
        rows = forward_times(LENGTHS, device, seconds=0.5)
        print(table(rows))
        print(f"crossover (the RNN becomes slower): {crossover_text(rows)}")
        back = crossover(rows, rnn_slower=False)
        if back is not None:
            print(f"crossover (attention becomes slower): {back} tokens")
        print(summary(rows))


if __name__ == "__main__":
    main()
