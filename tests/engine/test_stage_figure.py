"""A figure laid out again for a presenter's stage (attnviz.figures.stage): the room a 1280×720
projector gives each of two views side by side is about 580 px across."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import BASE_FONT
from attnviz.figures.stage import STAGE_TEXT_MIN, on_stage
from attnviz.figures.vision import Panel, panels_figure, patch_grid_figure

ACROSS = 580


def curves() -> go.Figure:
    """Two panels side by side with a legend under them, as a training page's curves."""
    names = ["train loss (batch)", "validation loss", "train accuracy", "validation accuracy"]
    data = [
        go.Scatter(x=[0, 1], y=[1, 0], name=n, xaxis="x" if i < 2 else "x2")
        for i, n in enumerate(names)
    ]
    layout = {
        "title": {"text": "Loss and accuracy while<br>training (x: step)", "font": {"size": 24}},
        "xaxis": {"domain": [0, 0.46]},
        "xaxis2": {"domain": [0.54, 1]},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 90, "b": 10},
    }
    return go.Figure(data, layout)


def test_the_title_takes_one_line_that_fits_and_the_margin_holds_only_it():
    fig = on_stage(curves(), 400)  # 42 characters at 24 px take about 554 px: shrunk to fit
    text, size = fig.layout.title.text, fig.layout.title.font.size
    assert "<br>" not in text and text == "Loss and accuracy while training (x: step)"
    assert 16 <= size < 24 and 0.55 * size * len(text) <= 400
    assert fig.layout.margin.t < 90
    # the title's last line stays above the top y tick label, half of which stands over the plot
    # (L4 s2's "(x: step)" sat on the loss axis's "2.5")
    assert fig.layout.title.pad.b >= STAGE_TEXT_MIN / 2 + 4


def test_a_legend_under_the_plot_is_pinned_to_the_bottom_with_room_for_its_rows():
    fig = on_stage(curves(), ACROSS)
    legend = fig.layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    longest = 48 + 0.55 * 16 * len("validation accuracy")  # px: line sample and text at 16 px
    per_row = int(ACROSS // longest)
    rows = -(-4 // per_row)
    assert fig.layout.margin.b >= rows * 16 * 1.6 + 80


def test_two_panels_keep_a_gap_for_the_right_ones_axis():
    fig = on_stage(curves(), ACROSS)
    gap = (fig.layout.xaxis2.domain[0] - fig.layout.xaxis.domain[1]) * ACROSS
    assert gap >= 169


def test_a_figure_that_keeps_its_aspect_keeps_its_legend():
    fig = curves()
    fig.update_layout(yaxis_scaleanchor="x")
    on_stage(fig, ACROSS)
    assert fig.layout.legend.yref is None and fig.layout.legend.y == -0.25


def token_map(tokens: int, mode: str | None = "auto") -> go.Figure:
    """A weights map over `tokens` tokens, its x axis as the figures' token axis draws it."""
    labels = [f"w{i}" for i in range(tokens)]
    fig = go.Figure(go.Heatmap(z=[[0.0] * tokens] * tokens, x=labels, y=labels))
    axis = {
        "type": "category",
        "categoryarray": labels,
        "tickmode": "auto",
        "tickfont": {"size": 14},
    }
    return fig.update_layout(xaxis=axis)


def test_a_token_axis_names_every_token_on_a_stage_where_they_fit():
    fig = on_stage(token_map(39), 1150)  # 39 tokens across a 1280 px projector: ~29 px each
    assert fig.layout.xaxis.tickmode == "array"
    assert list(fig.layout.xaxis.tickvals) == [f"w{i}" for i in range(39)]
    assert fig.layout.xaxis.automargin is True  # upright labels: room under the plot for them
    narrow = on_stage(token_map(39), ACROSS)  # ~15 px each: Plotly keeps spacing them
    assert narrow.layout.xaxis.tickmode == "auto"
    unset = on_stage(token_map(39, None), 1150)  # a heads grid's key axes leave it unset
    assert unset.layout.xaxis.tickmode == "array"
    long = on_stage(token_map(65), 4000)  # past 64 tokens: never every label
    assert long.layout.xaxis.tickmode == "auto"


def weights_map(columns: int) -> go.Figure:
    """A weight matrix with its numbers written small, as a lecture page may leave it."""
    z = [[round((r * columns + c) / (4 * columns), 3) for c in range(columns)] for r in range(4)]
    trace = go.Heatmap(z=z, texttemplate="%{z:.2f}", textfont={"size": 11})
    return go.Figure(
        trace, {"xaxis": {"tickfont": {"size": 12}}, "yaxis": {"tickfont": {"size": 12}}}
    )


def test_ticks_and_cell_numbers_grow_to_the_stage_minimum_where_they_fit():
    fig = on_stage(weights_map(6), 1150)  # cells of about 150 px: 0.54 at 16 px fits
    assert fig.layout.xaxis.tickfont.size == 16 and fig.layout.yaxis.tickfont.size == 16
    trace = fig.data[0]
    assert trace.textfont.size == 16
    assert trace.text[1][2] == f"{(1 * 6 + 2) / 24:.2f}"  # written from z, with its 2 decimals
    crowded = on_stage(weights_map(64), 1150)  # cells of about 14 px: no number fits at 16 px
    assert crowded.data[0].textfont.size == 11 and crowded.data[0].texttemplate == "%{z:.2f}"


def test_an_upright_axis_title_taller_than_its_plot_is_left_out():
    fig = curves()
    fig.update_layout(yaxis_title_text="loss", yaxis2={"title": {"text": "token accuracy"}})
    fig.update_layout(yaxis2_domain=[0, 1], xaxis2_anchor="y2")
    on_stage(fig, ACROSS, 330)  # a plot of about 330 - 12 - 6 - 29 - 80 - 66 ≈ 140 px tall
    plot = 330 - fig.layout.margin.t - fig.layout.margin.b
    assert fig.layout.yaxis.title.text == "loss"  # 4 characters fit
    title = fig.layout.yaxis2.title
    size = title.font.size or BASE_FONT
    assert title.text == "token accuracy" and 0.55 * size * len(title.text) <= plot, (title, plot)
    low = on_stage(
        curves().update_layout(yaxis2={"title": {"text": "token accuracy"}}), ACROSS, 230
    )
    assert low.layout.yaxis2.title.text == ""  # about 40 px of plot: it would stand out of it


def test_row_labels_that_would_overprint_on_a_short_stage_are_thinned():
    """Lesson 03's "Where does it look?": 13 tokens in each head's panel of the heads grid; on
    a stage 300 px tall each label is kept only where its row leaves a line of text for it."""
    from attnviz.topics.registry import scene

    page = scene("text")
    values = page.values(ta_text="the trophy did not fit in the suitcase because it was too big")
    grid = page.views(page.run(page.config(values)), values, {"heads_grid"})["heads_grid"]
    rows = [a for n, a in grid.layout.to_plotly_json().items() if n.startswith("yaxis")]
    assert all(len(a["tickvals"]) == 13 for a in rows)
    for high, thinned in ((300, True), (1400, False)):
        fig = on_stage(go.Figure(grid), 1150, high)
        plot = high - fig.layout.margin.t - fig.layout.margin.b
        for name in [n for n in fig.layout if n.startswith("yaxis")]:
            axis = fig.layout[name]
            low, top = axis.domain or (0, 1)
            size = axis.tickfont.size or BASE_FONT
            assert len(axis.tickvals) * size <= (top - low) * plot, (high, name)
            assert (len(axis.tickvals) < 13) == thinned, (high, name)


def test_pictures_in_a_grid_are_laid_out_again_without_names_over_the_row_above():
    """The real ViT's 8 maps (2 rows of 4 on the page) on a wide, low stage: drawn at a fraction
    of a shorter height, each name overprinted the maps above it (lesson 07, step 9)."""
    import numpy as np

    from attnviz.figures.vision import Panel, panels_figure

    image = np.zeros((3, 8, 8), dtype=np.float32)
    names = ["the photo", *(f"head {h}" for h in range(6)), "mean of heads"]
    fig = panels_figure([Panel(image, name) for name in names], 4, "DINO's maps", 150)
    across, high = 1150, 300
    fig = on_stage(fig, across, high)
    m = fig.layout.margin
    width, area = across - m.l - m.r, high - m.t - m.b
    boxes = []  # (left, top, right, bottom) px of each map in the plot area
    for i in range(len(names)):
        n = "" if i == 0 else str(i + 1)
        (x0, x1), (y0, y1) = fig.layout[f"xaxis{n}"].domain, fig.layout[f"yaxis{n}"].domain
        boxes.append((x0 * width, (1 - y1) * area, x1 * width, (1 - y0) * area))
    sides = [(r - left, b - t) for left, t, r, b in boxes]
    assert all(abs(w - h) < 1 and w >= 100 for w, h in sides), sides  # square, and large
    size = fig.layout.annotations[0].font.size or BASE_FONT
    for note, (left, top, right, _bottom) in zip(fig.layout.annotations, boxes, strict=False):
        name_top = top - 1.2 * size  # the name's line, just above its map
        assert left <= note.x * width <= right and abs((1 - note.y) * area - top) < 1
        assert all(name_top >= b or r <= left or l_ >= right for l_, _, r, b in boxes if b <= top)
        assert name_top >= 0, note.text


def test_pictures_two_a_row_are_all_one_size_on_a_stage():
    """L7 s13's 4 held-out scenes, 2 a row beside the bars: the first row's two maps were pushed
    apart as if they were two charts with an axis between them (113 px against 147 below)."""
    import numpy as np

    from attnviz.figures.vision import Panel, panels_figure

    image = np.zeros((3, 8, 8), dtype=np.float32)
    fig = panels_figure([Panel(image, f"#{i}") for i in range(4)], 2, "Held-out scenes", 120)
    fig = on_stage(fig, 370, 480)
    widths = [fig.layout[f"xaxis{n}"].domain for n in ("", "2", "3", "4")]
    assert len({round(x1 - x0, 6) for x0, x1 in widths}) == 1, widths
    assert widths[0] == widths[2] and widths[1] == widths[3], widths  # columns line up


def test_a_runs_curves_keep_their_plots_on_a_stage_with_a_one_row_legend():
    """A training run's curves at a projector's lecture font, 250 px tall beside a map: their
    four long names took four rows (the plots 1 px tall); the panels' axes say loss and metric,
    so the stage's legend says train (batch), validation, train, in one row."""
    from attnviz.figures.base import scale_fonts
    from attnviz.figures.training import curves_figure
    from attnviz.training.history import History

    history = History()
    for step in range(1, 60):
        history.add_step(step, 1 / step)
    fig = curves_figure(history, "token accuracy", eval_every=20)
    scale_fonts(fig, 1.3)
    on_stage(fig, ACROSS, 250)
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert shown == ["train (batch)", "validation", "train"]
    plot = 250 - fig.layout.margin.t - fig.layout.margin.b
    assert plot >= 60, f"{plot} px of plot"


def _px_per_unit(fig: go.Figure, n: str, across: int, high: int) -> tuple[float, float]:
    """How many px one unit of panel `n`'s x and y axes spans, drawn across × high px."""
    m = fig.layout.margin
    x, y = fig.layout[f"xaxis{n}"], fig.layout[f"yaxis{n}"]
    width, area = across - m.l - m.r, high - m.t - m.b
    x_px = (x.domain[1] - x.domain[0]) * width / abs(x.range[1] - x.range[0])
    return x_px, (y.domain[1] - y.domain[0]) * area / abs(y.range[1] - y.range[0])


def test_a_picture_is_squared_by_the_server_for_its_room_not_by_plotly():
    """A square picture on a stage has one px per unit on both axes for the room it is drawn in
    and no Plotly constraint left (redrawn at another width, Plotly constrained the domain it
    had written back: L7's maps shrank to 32-93 px in a 470 px room during a run), and the
    figure is drawn at the width it was squared for."""
    grid = np.random.default_rng(0).random((1, 8, 8))
    heads = [Panel(grid, f"head {h}", grid[0, ::2, ::2]) for h in range(8)]
    names = ([f"head {h}" for h in range(4)], ["layer 0", "layer 1"])
    cases = [
        (patch_grid_figure(grid, 2, "Image 0 (a 7)"), [""], 773, 560),
        (
            panels_figure(heads, 4, "Where the class token looks", headers=names),
            ["", "8"],
            773,
            544,
        ),
        (panels_figure(heads, 4, "Maps"), ["", "5"], 380, 560),
    ]
    for fig, panels, across, high in cases:
        before = [fig.layout[f"yaxis{n}"].scaleanchor for n in panels]
        on_stage(fig, across, high)
        assert all(before) and fig.layout.width == across
        for n in panels:
            x_px, y_px = _px_per_unit(fig, n, across, high)
            assert abs(x_px - y_px) < 1e-6 * x_px, (n, x_px, y_px)
            assert fig.layout[f"yaxis{n}"].scaleanchor is None
