"""Activation patching, exact: the clean run's activation put into the corrupted run, one place
at a time, and the logit difference that comes back.

Two sweeps: the residual stream into each layer at each position (L × T runs) and each head's
output at every position (L × H runs). The runs that start at the same layer go as one batch,
from that layer on (the layers before it are the corrupted run's, unchanged). A cell where the
clean and the corrupted activation are equal (positions before the first difference, which a
causal model cannot tell apart) is the corrupted run itself: it is not run again unless asked
(`run_equal`). Each cell keeps its run's top tokens, so a click can show them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.threads import fitted
from attnviz.topics.interventions.acts import Acts, prefix_cache, run_from
from attnviz.topics.interventions.pairs import Pair
from attnviz.topics.pretrained.model import PretrainedModel

TOP = 5
Progress = Callable[[float], None]


@dataclass(frozen=True)
class Sweep:
    """One patch per cell of a (L, N) grid: N positions or N heads."""

    diff: np.ndarray  # (L, N): the logit difference after the patch
    top_ids: np.ndarray  # (L, N, TOP): that run's most likely next tokens
    top_probs: np.ndarray  # (L, N, TOP)
    ran: int  # cells run (the others were equal to the corrupted run)


def recovered(diff, clean: float, corrupt: float):
    """The share of the logit difference a patch brings back: 0 = corrupted, 1 = clean."""
    return (np.asarray(diff) - corrupt) / (clean - corrupt)


class _Grid:
    def __init__(self, layers: int, cells: int, base: torch.Tensor, pair: Pair):
        self.pair = pair
        self.diff = np.zeros((layers, cells))
        self.ids = np.zeros((layers, cells, TOP), dtype=np.int64)
        self.probs = np.zeros((layers, cells, TOP))
        self.ran = 0
        for layer in range(layers):
            for cell in range(cells):
                self.put(layer, cell, base)

    def put(self, layer: int, cell: int, logits: torch.Tensor) -> None:  # logits (V,)
        self.diff[layer, cell] = float(logits[self.pair.right] - logits[self.pair.wrong])
        probs, ids = torch.softmax(logits, -1).topk(TOP)
        self.ids[layer, cell], self.probs[layer, cell] = ids.numpy(), probs.numpy()

    def sweep(self) -> Sweep:
        return Sweep(self.diff, self.ids, self.probs, self.ran)


def _sweep(
    grid: _Grid,
    layers: int,
    cells_of: Callable[[int], list[int]],
    run_cells: Callable[[int, list[int]], torch.Tensor],
    progress: Progress | None,
) -> Sweep:
    """For each layer, run its cells as one batch (`run_cells`: (B, V) logits) and keep them."""
    for layer in range(layers):
        cells = cells_of(layer)
        if cells:
            for logits, cell in zip(run_cells(layer, cells), cells, strict=True):
                grid.put(layer, cell, logits)
            grid.ran += len(cells)
        if progress:
            progress((layer + 1) / layers)
    return grid.sweep()


@fitted
def resid_sweep(
    lm: PretrainedModel,
    pair: Pair,
    clean: Acts,
    corrupt: Acts,
    progress: Progress | None = None,
    run_equal: bool = False,
) -> Sweep:
    """Patch the clean residual stream into the corrupted run at each (layer, position)."""
    layers, t = clean.resid.shape[0] - 1, clean.resid.shape[1]
    cache = _shared_prefix(lm, pair, run_equal)

    def cells_of(layer: int) -> list[int]:
        same = (clean.resid[layer] == corrupt.resid[layer]).all(-1)  # (T,)
        return [p for p in range(t) if run_equal or not bool(same[p])]

    def run_cells(layer: int, cells: list[int]) -> torch.Tensor:
        hidden = corrupt.resid[layer].expand(len(cells), -1, -1).clone()  # (B, T, D)
        hidden[torch.arange(len(cells)), cells] = clean.resid[layer, cells]
        return run_from(lm, hidden, layer, cache=cache)

    return _sweep(_Grid(layers, t, corrupt.logits, pair), layers, cells_of, run_cells, progress)


def patch_resid(
    lm: PretrainedModel, clean: Acts, corrupt: Acts, layer: int, positions: list[int]
) -> torch.Tensor:
    """The corrupted run's next-token logits (V,) with the clean residual stream into `layer` at
    `positions` (all at once)."""
    hidden = corrupt.resid[layer].clone()[None]  # (1, T, D)
    hidden[0, positions] = clean.resid[layer, positions]
    return run_from(lm, hidden, layer)[0]


def _head_edit(source: torch.Tensor, heads: list[int]):
    """Batch row i gets `source`'s output of head heads[i] (source: (T, H, d))."""

    def edit(z: torch.Tensor) -> torch.Tensor:  # (B, T, H * d)
        b, t, _ = z.shape
        out = z.view(b, t, source.shape[1], source.shape[2]).clone()  # (B, T, H, d)
        for row, head in enumerate(heads):
            out[row, :, head] = source[:, head].to(z.dtype)
        return out.view(b, t, -1)

    return edit


def _shared_prefix(lm: PretrainedModel, pair: Pair, run_equal: bool):
    """The corrupted run's keys and values before the first change (the clean run's too: the
    tokens are the same), which every patched run shares; None when every cell is run."""
    first = pair.differ[0]
    return None if run_equal or first == 0 else prefix_cache(lm, pair.corrupt, first)


@fitted
def head_sweep(
    lm: PretrainedModel,
    pair: Pair,
    clean: Acts,
    corrupt: Acts,
    progress: Progress | None = None,
    run_equal: bool = False,
) -> Sweep:
    """Patch each head's clean output (all positions) into the corrupted run."""
    layers, heads = clean.z.shape[0], clean.z.shape[2]
    cache = _shared_prefix(lm, pair, run_equal)
    done = 0 if cache is None else pair.differ[0]

    def cells_of(layer: int) -> list[int]:
        same = (clean.z[layer] == corrupt.z[layer]).all(-1).all(0)  # (H,)
        return [h for h in range(heads) if run_equal or not bool(same[h])]

    def run_cells(layer: int, cells: list[int]) -> torch.Tensor:
        hidden = corrupt.resid[layer].expand(len(cells), -1, -1).contiguous()  # (B, T, D)
        edits = {layer: _head_edit(clean.z[layer, done:], cells)}  # positions done..
        return run_from(lm, hidden, layer, edits, cache)

    grid = _Grid(layers, heads, corrupt.logits, pair)
    return _sweep(grid, layers, cells_of, run_cells, progress)


def patch_heads(
    lm: PretrainedModel, clean: Acts, corrupt: Acts, picked: list[tuple[int, int]]
) -> torch.Tensor:
    """The corrupted run's next-token logits (V,) with the clean output of every (layer, head)
    in `picked` put in at once."""
    edits = {}
    for layer in sorted({layer for layer, _ in picked}):
        heads = [h for l_, h in picked if l_ == layer]
        edits[layer] = _replace(clean.z[layer], heads)
    hidden = corrupt.resid[0][None]
    return run_from(lm, hidden, 0, edits)[0]


def _replace(source: torch.Tensor, heads: list[int]):
    def edit(z: torch.Tensor) -> torch.Tensor:  # (1, T, H * d)
        out = z.view(*z.shape[:2], source.shape[1], source.shape[2]).clone()
        out[:, :, heads] = source[:, heads].to(z.dtype)
        return out.view(z.shape)

    return edit
