"""Sequential vs parallel: the recurrent page's speed.

1. Time to the preset's accuracy: the first dates preset, both models trained side by side
   as the page trains them.
2. One forward pass of the RNN encoder (bidirectional GRU, 64 units each way, so 128-wide
   states) against one self-attention layer of the same width (MultiHeadSelfAttention, d_model
   128, 4 heads, nothing captured: the fused kernel) on the same embedded tokens, batch 8, as the
   sequence grows 16 … 1024 tokens: median wall time, their ratio, and the sequential steps each
   needs (the RNN: T, one after another; attention: 1 layer, every position at once). CPU with 2
   threads, and CUDA when present. The crossover, where the RNN becomes slower, is printed.

    python -m benchmarks.recurrence

The measurement itself lives in attnviz/topics/recurrent/timing.py: the page runs it live.
"""

from __future__ import annotations

import time

import torch

from attnviz.topics.recurrent.timing import (
    BATCH,
    LENGTHS,
    WIDTH,
    crossover,
    crossover_text,
    forward_times,
    summary,
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
        scores = {
            "attention": history.val_metric[-1],
            BASELINE: history.latest_extra(f"{BASELINE} val_metric"),
        }
        for who, value in scores.items():
            if who not in reached and value >= target:
                reached[who] = (time.perf_counter() - start, trainer.step_count)
    lines = [f"preset {name!r}, {trainer.step_count} steps run:"]
    for who in ("attention", BASELINE):
        seconds, steps = reached.get(who, (None, None))
        lines.append(
            f"  {who}: ≥ {target:.0%} exact match after {seconds:.1f} s ({steps} steps)"
            if seconds is not None
            else f"  {who}: not {target:.0%} within the preset"
        )
    return "\n".join(lines)


def main() -> None:
    torch.set_num_threads(1)  # as the page's training worker processes run
    print("== time to the preset's accuracy (1 thread, as the page's workers train) ==")
    print(time_to_accuracy())
    torch.set_num_threads(2)
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
