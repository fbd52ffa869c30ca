"""The captioning page's figures, for each preset:

1. Time to the preset's accuracy: wall seconds (evaluations included, as a live run pays them)
   and steps until greedy captions of seen combinations reach `TARGET` exact match (evaluated
   every `eval_every` steps), and the preset's final exact match, token accuracy, BLEU and
   held-out exact match.
2. Decoding latency per caption: greedy and beam (3) decoding, one image at a time and in a batch
   of 64 (median wall time per caption), each with the per-word cross-attention it returns.
3. Attention on the named object: the share of the colour and shape words' cross-attention that
   falls on the regions of the shape they name, after training vs at initialisation, and the
   shape's share of the regions (what evenly spread attention would give).

    python -m benchmarks.captioning [threads]     (default 2 CPU threads)
"""

from __future__ import annotations

import sys
import time

import torch

from attnviz.models.captioner import beam_decode, greedy_decode
from attnviz.topics.captioning.inference import object_attention_share
from attnviz.topics.captioning.task import (
    BLEU,
    HELD_OUT,
    PRESETS,
    TOKEN_ACCURACY,
    CaptionJobSpec,
)
from attnviz.topics.live import untrained
from attnviz.training.timing import median_seconds
from attnviz.training.trainer import Trainer

TARGET = 0.95
BATCH = 64


def train_to_target(name: str, target: float = TARGET) -> tuple[Trainer, dict]:
    """Run the preset to its end; note the seconds and steps at which the target was reached."""
    task, model, config = PRESETS[name]
    spec = CaptionJobSpec(task, model)
    trainer = Trainer(spec.build(), config)
    start, reached = time.perf_counter(), {}
    while trainer.status.value == "running":
        trainer.step()
        history = trainer.history
        evaluated = history.val_metric and history.eval_step[-1] == trainer.step_count
        if evaluated and not reached and history.val_metric[-1] >= target:
            reached = {"seconds": time.perf_counter() - start, "steps": trainer.step_count}
    reached["total_seconds"] = time.perf_counter() - start
    return trainer, reached


def latency_ms(trainer: Trainer) -> dict[str, float]:
    """Median milliseconds per caption: greedy and beam 3, alone and in a batch of BATCH."""
    model, images = trainer.task.model.eval(), trainer.task.val[0]
    one, many = images[:1], images[:BATCH]
    return {
        "greedy, 1 image": median_seconds(lambda: greedy_decode(model, one), "cpu") * 1e3,
        "beam 3, 1 image": median_seconds(lambda: beam_decode(model, one, 3), "cpu") * 1e3,
        f"greedy, batch {len(many)}": median_seconds(lambda: greedy_decode(model, many), "cpu")
        * 1e3
        / len(many),
        f"beam 3, batch {len(many)}": median_seconds(lambda: beam_decode(model, many, 3), "cpu")
        * 1e3
        / len(many),
    }


def report(name: str) -> str:
    """All three figures for one preset, as printed."""
    task, model, config = PRESETS[name]
    trainer, reached = train_to_target(name)
    history = trainer.history
    lines = [f"preset {name!r} ({trainer.step_count} steps, {reached['total_seconds']:.1f} s):"]
    if "seconds" in reached:
        lines.append(
            f"  ≥ {TARGET:.0%} exact match after {reached['seconds']:.1f} s "
            f"({reached['steps']} steps)"
        )
    else:
        lines.append(f"  not {TARGET:.0%} exact match within the preset")
    lines.append(
        f"  final: exact match {history.val_metric[-1]:.1%}, token accuracy "
        f"{history.latest_extra(TOKEN_ACCURACY):.1%}, BLEU {history.latest_extra(BLEU):.3f}, "
        f"held-out exact match {history.latest_extra(HELD_OUT):.1%}"
    )
    for what, ms in latency_ms(trainer).items():
        lines.append(f"  decoding ms per caption, {what}: {ms:.2f}")
    spec = CaptionJobSpec(task, model)
    trained = object_attention_share(trainer.task.model, trainer.task.task)
    at_init = object_attention_share(spec.restore(untrained(spec)).model, trainer.task.task)
    best = trained.per_head.max()
    lines.append(
        f"  attention on the named object: {trained.share:.2f} after training (best head "
        f"{best:.2f}) vs {at_init.share:.2f} at initialisation "
        f"({trained.share / at_init.share:.1f}×); "
        f"the object's area share {trained.area_share:.2f}; {trained.n_words} words"
    )
    return "\n".join(lines)


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    torch.set_num_threads(threads)
    print(f"== captioning presets, CPU, {torch.get_num_threads()} threads ==")
    for name in PRESETS:
        print(report(name), flush=True)


if __name__ == "__main__":
    main()
