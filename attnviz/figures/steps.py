"""Figures of the step-by-step page: one matrix per step, optionally only one query row."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import matrix_figure

ROW_STEPS = {"Q", "QK", "scaled", "masked", "weights", "out"}  # steps whose rows are queries
COL_NAMES = {"z": "feature", "Q": "dim of e", "K": "dim of e", "V": "dim of d₂", "out": "dim of d₂"}


def step_figure(
    key: str,
    matrix: np.ndarray,
    title: str,
    query_row: int | None = None,
    font_scale: float = 1.0,
    width_px: int | None = None,
) -> go.Figure:
    """Step `key`'s matrix (z, Q, K, V, QK, scaled, masked, weights, out) with numbers; with
    `query_row`, only that query's row of query-indexed steps. `font_scale`/`width_px` let the
    numbers shorten or hide when cells are too narrow."""
    row_labels = [f"patch {i}" for i in range(matrix.shape[0])]
    if query_row is not None and key in ROW_STEPS:
        matrix = matrix[query_row : query_row + 1]
        row_labels = [f"query {query_row}"]
    square = key in {"QK", "scaled", "masked", "weights"}
    col_labels = [f"key {j}" for j in range(matrix.shape[1])] if square else None
    return matrix_figure(
        matrix,
        title,
        row_name="query patch" if square else "patch",
        col_name="key patch" if square else COL_NAMES.get(key, "column"),
        row_labels=row_labels,
        col_labels=col_labels,
        diverging=key != "weights",
        font_scale=font_scale,
        width_px=width_px,
    )


def weight_figures(named: dict[str, np.ndarray], font_scale: float = 1.0) -> list[go.Figure]:
    """Small figures for the layer's parameters (W_q, B_q, ...), one per name, in order."""
    return [
        matrix_figure(m, name, row_name="in", col_name="out", font_scale=font_scale)
        for name, m in named.items()
    ]
