"""The one-line summary under a page's main figure (attnviz.figures.summary), on hand-built
figures whose strongest cells, bars and peaks are known by construction."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.summary import MAX_CHARS, summary


def weights_map(z, rows, cols, hover: str = "query %{y}<br>key %{x}") -> go.Heatmap:
    return go.Heatmap(z=np.asarray(z, dtype=np.float32), y=rows, x=cols, hovertemplate=hover)


def test_one_map_names_its_two_strongest_weights_row_to_column():
    tokens = ["the", "animal", "didn't", "cross", "street", "it"]
    z = np.full((6, 6), 1 / 6)  # every other row even: 0.17 each
    z[5] = [0.02, 0.62, 0.02, 0.02, 0.21, 0.11]  # 'it' looks at 'animal', then 'street'
    fig = go.Figure(weights_map(z, tokens, tokens))
    assert summary(fig) == (
        "Strongest weights (row → column): 'it' → 'animal' 0.62, 'it' → 'street' 0.21;"
        " each row sums to 1."
    )


def test_labels_a_user_typed_come_back_as_plain_text():
    typed = ["<b>bold</b>", "<script>x</script>", "a&b"]
    shown = [html.escape(t) for t in typed]  # how the page's figures carry tokens
    z = [[0.8, 0.1, 0.1], [0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]
    line = summary(go.Figure(weights_map(z, shown, shown)))
    assert line.startswith("Strongest weights (row → column): '<script>x</script>' → '<b>bold</b>'")
    assert "'<b>bold</b>' → '<b>bold</b>' 0.80" in line
    assert "&lt;" not in line and "&amp;" not in line


def test_a_grid_names_the_strongest_cell_of_its_strongest_panels():
    tokens = ["a", "b"]
    panels = {0: [[0.6, 0.4], [0.5, 0.5]], 1: [[0.1, 0.9], [0.3, 0.7]], 2: [[0.2, 0.8], [1, 0]]}
    fig = go.Figure(
        [
            weights_map(z, tokens, tokens, f"head {h}<br>query %{{y}}<br>key %{{x}}")
            for h, z in panels.items()
        ]
    )
    # head 2's 'b' → 'a' (1.00) first, then head 1's 'a' → 'b' (0.90); head 0 (0.60) left out
    assert summary(fig) == (
        "Strongest weights (row → column): head 2: 'b' → 'a' 1.00; head 1: 'a' → 'b' 0.90;"
        " each row sums to 1."
    )


def test_a_map_without_labels_names_row_and_column_and_skips_hidden_backgrounds():
    patches = np.zeros((3, 3))
    patches[1, 2] = 0.7
    patches[0, 0] = 0.3
    background = go.Heatmap(z=np.ones((6, 6)) * 0.99, hoverinfo="skip")  # an image under it
    overlay = go.Heatmap(z=patches, hovertemplate="weight %{z}")
    assert summary(go.Figure([background, overlay])) == (
        "Strongest weights: row 1, column 2 0.70, row 0, column 0 0.30; they sum to 1."
    )


def test_values_that_are_not_weights_read_as_largest_and_smallest():
    z = np.array([[0.5, -1.25], [2.5, 0.0]])
    fig = go.Figure(weights_map(z, ["r0", "r1"], ["c0", "c1"]))
    assert summary(fig) == "Largest value 2.5 at row 'r1', column 'c0'; smallest -1.25."


def test_gaps_and_ties_small_weights_and_separators():
    z = np.full((2, 5), np.nan)  # a model-view-like grid: NaN columns between heads
    z[0, :2] = [0.03, 0.97]
    z[1, 3:] = [0.97, 0.03]
    fig = go.Figure(weights_map(z, ["q0", "q1"], ["k0", "k1", "gap", "k0·1", "k1·1"]))
    # a tie (0.97 twice) names the first cell first; 0.03 keeps its third decimal
    assert summary(fig).startswith("Strongest weights (row → column): 'q0' → 'k1' 0.97, 'q1'")
    z = np.array([[0.04, 0.96]])
    assert "'q' → 'b' 0.96" in summary(go.Figure(weights_map(z, ["q"], ["a", "b"])))
    z = np.array([[0.5, 0.45, 0.05]])
    line = summary(go.Figure(weights_map(z, ["q"], ["a", "b", "c"])))
    assert line.endswith("'q' → 'b' 0.45; each row sums to 1.")


def test_bars_name_the_largest_two_and_what_they_sum_to():
    values = [0.1, 0.5, 0.15, 0.25]
    fruit = ["apple", "melon", "lemon", "grape"]
    fig = go.Figure(go.Bar(x=fruit, y=values))
    assert summary(fig) == "Largest bars: 'melon' 0.50, 'grape' 0.25; the bars sum to 1."
    fig = go.Figure(go.Bar(x=["a", "b"], y=[3.0, 7.5]))
    assert summary(fig) == "Largest bars: 'b' 7.5, 'a' 3."


def test_a_curve_reads_as_its_peak_and_points_as_their_count():
    x = np.linspace(0, 4, 41)
    curve = go.Scatter(x=x, y=-((x - 1.5) ** 2) + 3, mode="lines", name="f_θ(x)")
    points = go.Scatter(x=[0, 1, 2], y=[1, 2, 3], mode="markers", name="training samples")
    line = summary(go.Figure([points, curve]))
    assert line == "f_θ(x) peaks at 3 (x = 1.5); 3 training samples."


def test_two_curves_of_one_name_in_two_panels_are_told_apart_by_their_axis_titles():
    """One variant's loss (left) and accuracy (right): both named "mha", the line read "mha
    peaks at 2.5; mha peaks at 0.9", which a screen reader cannot tell apart."""
    fig = go.Figure(
        [
            go.Scatter(x=[0, 1], y=[2.5, 0.4], name="mha", mode="lines", yaxis="y"),
            go.Scatter(x=[0, 1], y=[0.1, 0.9], name="mha", mode="lines", yaxis="y2"),
            go.Scatter(x=[0, 1], y=[2.6, 0.5], name="gqa", mode="lines", yaxis="y"),
        ],
        {"yaxis": {"title": {"text": "loss"}}, "yaxis2": {"title": {"text": "accuracy"}}},
    )
    assert summary(fig) == (
        "mha, loss peaks at 2.5 (x = 0); mha, accuracy peaks at 0.9 (x = 1); "
        "gqa peaks at 2.6 (x = 0)."
    )


def test_nothing_to_rank_gives_none_and_long_labels_stay_one_line():
    image = go.Image(z=np.zeros((2, 2, 3), dtype=np.uint8))
    assert summary(go.Figure(image)) is None
    assert summary(go.Figure()) is None
    long = ["word " * 40, "other " * 40]
    line = summary(go.Figure(weights_map([[0.9, 0.1], [0.2, 0.8]], long, long)))
    assert len(line) <= MAX_CHARS and "\n" not in line and "…" in line
