"""The attention variants of 2024–26 trained side by side (issue 44): the Attention since 2017
page's "All seven on copy" preset trained here as the page trains it (one run: same task, seed,
batches and steps for every variant), on one thread. Prints each variant's validation loss and
accuracy, its first token's share of attention (the mean weight on key 0 over every layer, head
and query after the first; an even spread would give `uniform_share(T)`), its KV-cache bytes
per token (bf16) and its attention parameters; then the real models' caches at 8,192 tokens.

    python -m benchmarks.attention_variants [--seed 0]

Last line: variants: <k> trained side by side in <s> s; kv bytes/token <a>..<b>; first-token
mass softmax <m> gated <g>
"""

from __future__ import annotations

import argparse
import time

import torch

from attnviz.models.variant_attention import VARIANT_LABELS
from attnviz.topics.attention_since_2017.configs import cache_table, readable_bytes
from attnviz.topics.attention_since_2017.params import ALL_SEVEN
from attnviz.topics.attention_since_2017.scene import (
    SCENE,
    cache_numbers,
    first_token_shares,
    so_far,
)
from attnviz.topics.attention_since_2017.task import uniform_share
from attnviz.topics.live import train
from attnviz.topics.registry import scene

CONTEXT = 8_192


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    page = scene(SCENE.url)
    job = page.config(page.values(page.table.preset(ALL_SEVEN), seed=args.seed))
    start = time.perf_counter()
    run = train(job, threads=1)
    seconds = time.perf_counter() - start
    shares = first_token_shares(so_far(run.history, run.snapshots, None))
    per_token, params = cache_numbers(job.spec)
    last = run.history.extra[-1]
    t = job.spec.task.length * 2
    print(f"{ALL_SEVEN}: {job.train.steps} steps, seed {args.seed}, {run.status}")
    heads = ("val loss", "accuracy", "token 0", "KV B/tok", "params")
    print(f"{'variant':20} " + " ".join(f"{h:>9}" for h in heads))
    for i, v in enumerate(job.spec.variants):
        print(
            f"{VARIANT_LABELS[v]:20} {last[f'{v} loss']:9.3f} {last[f'{v} accuracy']:9.3f} "
            f"{shares[v]:9.3f} {per_token[i]:9.0f} {params[i]:9d}"
        )
    print(f"an even spread over each causal row would give token 0 {uniform_share(t):.3f}")
    print(
        f"\nKV cache at {CONTEXT:,} tokens (bf16): per token, total, as multi-head, times smaller"
    )
    for row in cache_table(CONTEXT):
        print(
            f"{row.name:24} {readable_bytes(row.per_token):>10} {readable_bytes(row.total):>10} "
            f"{readable_bytes(row.mha_total):>10} {row.times_smaller:6.1f}×"
        )
    print(
        f"variants: {len(job.spec.variants)} trained side by side in {seconds:.1f} s; "
        f"kv bytes/token {per_token.min():.0f}..{per_token.max():.0f}; "
        f"first-token mass softmax {shares['mha']:.3f} gated {shares['gated']:.3f}"
    )


if __name__ == "__main__":
    main()
