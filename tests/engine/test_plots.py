"""Every figure builder produces a figure that passes Plotly's full validation, with hover values
and axis titles (the builders skip validation for speed, so it is checked here once)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures import base as plots
from attnviz.figures.select import key_plane, temperature_figure
from attnviz.figures.steps import step_figure
from attnviz.topics.self_attention.steps import compute_steps, random_input, random_weights

M = np.array([[0.1, -0.4, np.inf], [1.0, 0.5, -np.inf]])


def figures() -> dict[str, go.Figure]:
    steps = compute_steps(random_input(3, 2, 0), random_weights(2, 2, 2, 0), causal=True)
    return {
        "heatmap": plots.heatmap(np.eye(3), x_labels=list("aab"), title="t"),
        "matrix": plots.matrix_figure(M, "M"),
        "bar": plots.bar_chart(np.array([0.2, 0.8]), ["x", "y"], "bars", "weight", highlight=1),
        "line": plots.line_chart(np.arange(3), {"a": np.ones(3)}, "l", "x", "y", log_y=True),
        "plane": key_plane(np.eye(2), ["a", "b"], np.zeros(2), np.array([0.3, 0.7])),
        "temperature": temperature_figure(
            np.geomspace(0.1, 10, 5), np.full((5, 2), 0.5), ["a", "b"], 1.0
        ),
        **{f"step-{s.key}": step_figure(s.key, s.matrix, s.title, query_row=1) for s in steps},
    }


@pytest.mark.parametrize("name", list(figures()))
def test_builder_output_is_valid_plotly(name):
    fig = figures()[name]
    go.Figure(fig.to_dict())  # raises on any invalid property
    assert fig.layout.title.text
    for trace in fig.data:
        if trace.type in ("heatmap", "bar", "scatter") and trace.showlegend is not False:
            assert trace.hovertemplate, f"{name}: {trace.type} has no hover values"


def test_matrix_marks_masked_entries_and_keeps_shape():
    fig = plots.matrix_figure(M, "M")
    assert "[2 × 3]" in fig.layout.title.text
    assert [a.text for a in fig.layout.annotations] == ["−∞", "−∞"]
    assert fig.data[0].zmin == -1.0 and fig.data[0].zmax == 1.0


def test_unique_labels_keeps_repeated_tokens_apart():
    assert plots.unique_labels(["the", "cat", "the"]) == ["the", "cat", "the·1"]


def test_export_config_formats():
    assert plots.export_config("svg")["toImageButtonOptions"]["format"] == "svg"
    assert plots.export_config("exe")["toImageButtonOptions"]["format"] == "png"


@pytest.mark.parametrize("t", [5, 60])
def test_model_view_tiles_every_head_into_one_valid_trace(t):
    from attnviz.figures.long_maps import max_pool
    from attnviz.figures.pretrained import MODEL_VIEW_POOL, model_view

    att = np.random.default_rng(0).dirichlet(np.ones(t), size=(2, 3, t)).astype(np.float32)
    fig = model_view(att, [f"w{i}" for i in range(t)])
    go.Figure(fig.to_dict())  # passes Plotly's validation
    (trace,) = fig.data
    n = min(t, MODEL_VIEW_POOL)
    z = np.asarray(trace.z, dtype=np.float32)
    assert z.shape == (2 * (n + 1) - 1, 3 * (n + 1) - 1)
    block = z[(n + 1) : (n + 1) + n, 2 * (n + 1) : 2 * (n + 1) + n]  # layer 1, head 2
    np.testing.assert_allclose(block, max_pool(att[1, 2], MODEL_VIEW_POOL), atol=1e-6)
    assert np.isnan(z[n]).all() and np.isnan(z[:, n]).all()  # blank lines between blocks
    assert len(set(trace.x)) == len(trace.x) and trace.hovertemplate
    assert list(fig.layout.xaxis.ticktext) == ["0", "1", "2"]  # under an axis titled "head"
    assert fig.layout.xaxis.title.text == "head"
    assert ("max-pooled" in fig.layout.title.text) == (t > MODEL_VIEW_POOL)
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "category"


@pytest.mark.parametrize(
    ("rows", "cols", "across", "down"), [(1, 3, 0.12, 0.0), (2, 4, 0.05, 0.28)]
)
def test_a_plain_subplot_grid_is_laid_out_as_make_subplots_lays_it(rows, cols, across, down):
    """The real-block page's grids (subplot_grid, built without validation) against plotly's
    own make_subplots: every axis's domain and anchor."""
    from plotly.subplots import make_subplots

    from attnviz.figures.real_block import subplot_grid

    theirs = make_subplots(rows, cols, horizontal_spacing=across, vertical_spacing=down or None)
    theirs = {k: v for k, v in theirs.to_plotly_json()["layout"].items() if "axis" in k}
    ours = subplot_grid(rows, cols, across, down)
    assert sorted(ours) == sorted(theirs)
    for name, axis in theirs.items():
        assert ours[name]["anchor"] == axis["anchor"], name
        np.testing.assert_allclose(ours[name]["domain"], axis["domain"], atol=1e-12)


def test_the_real_blocks_grid_figures_pass_plotlys_validation():
    from attnviz.figures.real_block import qkv_figure, rope_arrows

    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(3, 8)) for _ in range(3))
    qkv = qkv_figure(q, k, v, ["a", "b", "c"], (2,), ["Q", "K", "V"], "3. q, k, v")
    rope = rope_arrows(rng.normal(size=16), rng.normal(size=16), rng.uniform(size=8), "'c'")
    for fig in (qkv, rope):
        go.Figure(fig.to_dict())  # raises on any invalid property
    assert [t.yaxis for t in qkv.data] == ["y", "y2", "y3"]
    # K's rows are V's: named once, on V's right (the phone's overlap: test_layout_checker)
    assert qkv.layout.yaxis2.showticklabels is False and qkv.layout.yaxis3.side == "right"
    assert rope.layout.yaxis8.scaleanchor == "x8" and len(rope.data) == 16
