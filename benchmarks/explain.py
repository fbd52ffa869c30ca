"""Why a head looks where it looks, timed (issue 57): on the bundled SmolLM2-135M, one cell's score
taken apart (attnviz.topics.language_model.qk_parts: one forward pass kept at the cell's
positions, then the parts) against the model's own forward pass on the same prompt, and how much
of the induction head's score one key-side component explains on the repeated sequence.

Goals: a cell taken apart ≤ 1 s on this 2-core machine; on the repeated sequence, one key-side
component explains > 50 % of L18 H6's score. The last line:

    explain: cell <c> s (forward <f> s, <r>x), versus a second key <v> s,
             L18 H6 key side <name> <share>        (one line)

    python -m benchmarks.explain
"""

from __future__ import annotations

import statistics
import time

import torch

from attnviz.topics.language_model.bundled import bundled_llm
from attnviz.topics.language_model.forward import encode
from attnviz.topics.language_model.params import REPEATED
from attnviz.topics.language_model.qk_parts import components, score_parts

RUNS = 5
LAYER, HEAD = 18, 6


def timed(call) -> tuple[float, object]:
    """(median seconds over RUNS calls, the last result)."""
    times, result = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    torch.set_num_threads(1)
    lm = bundled_llm()
    ids, _ = encode(lm, REPEATED)
    query, key = len(ids) - 1, 9  # the last ' tiger', the earlier ' piano'

    def forward():
        with lm.lock, torch.no_grad():
            return lm.model(input_ids=torch.tensor([ids]), use_cache=False)

    def cell(other=None):
        at = tuple(sorted({query, key, *([] if other is None else [other])}))
        comps = components(lm, ids, LAYER, at)
        return score_parts(lm, comps, LAYER, HEAD, (query, key), other)

    plain, _ = timed(forward)
    one, why = timed(cell)
    versus, _ = timed(lambda: cell(0))
    name, part = why.side(key=True)
    print(f"prompt: {len(ids)} tokens; L{LAYER} H{HEAD} score {why.score:+.2f}")
    print(
        f"explain: cell {one:.2f} s (forward {plain:.2f} s, {one / plain:.1f}x), versus a second "
        f"key {versus:.2f} s, L{LAYER} H{HEAD} key side {name} {part / why.score:.2f}"
    )


if __name__ == "__main__":
    main()
