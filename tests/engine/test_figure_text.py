"""Text on figures stays readable: no e-notation, cell numbers shortened or hidden when they would
overprint, soft-select labels placed away from their neighbours, lecture fonts reaching every
font of a figure, and long titles wrapped instead of clipped."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures import base as plots
from attnviz.figures.axes import CHAR_EM, format_value, wrap_title
from attnviz.figures.fonts import BASE_FONT, CELL_FONT
from attnviz.figures.lecture import scale_fonts
from attnviz.figures.pretrained import qk_scatter
from attnviz.figures.select import key_plane, label_positions
from attnviz.figures.text import heads_grid

E_NOTATION = re.compile(r"\de[+-]?\d", re.IGNORECASE)


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (7.02e-19, 2, "0.00"),
        (-3e-9, 3, "0.000"),
        (0.004, 2, "0.00"),
        (0.006, 2, "0.01"),
        (-1.5, 1, "−1.5"),
        (1.07e13, 2, "1.07×10¹³"),
        (-np.inf, 2, "−∞"),
    ],
)
def test_format_value_never_uses_e_notation(value, decimals, text):
    assert format_value(value, decimals) == text


def test_bar_text_of_tiny_values_reads_zero():
    fig = plots.bar_chart(np.array([7.02e-19, 0.25, 1.0]), ["a", "b", "c"], "t", "w")
    assert list(fig.data[0].text) == ["0.000", "0.250", "1.000"]
    assert not any(E_NOTATION.search(t) for t in fig.data[0].text)


def cell_text(fig: go.Figure) -> list[str]:
    return [s for row in (fig.data[0].text or []) for s in row]


def widest_px(fig: go.Figure) -> float:
    return max(len(s) for s in cell_text(fig)) * CHAR_EM * fig.data[0].textfont.size


QKV = np.array([[-1.234, 0.5, 2.718], [0.001, -0.25, 1e-19], [3.3, -2.2, 0.75]])  # d = e = 3


PATCHES = [f"patch {i}" for i in range(3)]


def test_matrix_numbers_are_short_and_fit_their_cells():
    plain = plots.matrix_figure(QKV, "Q", row_labels=PATCHES)  # a page column, 300 px
    assert cell_text(plain)[0] == "−1.23" and "0.00" in cell_text(plain)  # 1e-19 reads 0.00
    assert widest_px(plain) <= plain.layout.meta["cell_px"]
    roomy = plots.matrix_figure(QKV, "Q", row_labels=PATCHES, font_scale=1.6, width_px=430)
    assert roomy.data[0].textfont.size == round(12 * 1.6)
    assert cell_text(roomy)[0] == "−1.2"  # one decimal fewer so it fits
    assert widest_px(roomy) <= roomy.layout.meta["cell_px"]
    crowded = plots.matrix_figure(QKV, "Q", row_labels=PATCHES, font_scale=1.6)
    assert crowded.data[0].texttemplate == ""  # d = e = 3 at 1.6×: would overprint, hidden


def test_lecture_fonts_refit_the_numbers_of_a_built_matrix():
    fig = plots.matrix_figure(QKV, "Q", row_labels=PATCHES, width_px=430)
    assert cell_text(fig)[0] == "−1.23"
    scale_fonts(fig, 1.6)  # as lecture mode does to the built figure: no colour bar (the
    assert fig.data[0].showscale is False  # numbers say it), its room goes to the cells
    assert cell_text(fig)[0] == "−1.23" and fig.data[0].textfont.size == round(CELL_FONT * 1.6)
    assert widest_px(fig) <= (430 - (fig.layout.meta["fixed_px"] - 60) * 1.6) / 3
    narrow = plots.matrix_figure(QKV, "Q", row_labels=PATCHES)  # 300 px: numbers shown, and
    assert narrow.data[0].text is not None  # lecture mode keeps them, smaller rather than gone
    kept = scale_fonts(narrow, 1.6).data[0]
    assert kept.text is not None and len(kept.text[0][0].split(".")[1]) >= 1, kept.text
    assert kept.textfont.size >= 9


def test_numbers_are_hidden_when_no_decimals_fit():
    fig = plots.matrix_figure(np.full((3, 24), -12.5), "wide")
    assert fig.data[0].texttemplate == "" and fig.data[0].text is None
    wide = plots.matrix_figure(np.full((3, 24), -12.5), "wide", width_px=2400)
    assert cell_text(wide)[0] == "−12.50"  # a wide figure has room for them


def test_close_keys_get_labels_on_opposite_sides():
    keys = np.array([[0.0, 0.0], [0.2, 0.0], [1.5, 1.5], [-1.5, 1.5], [-1.5, 1.45]])
    places = label_positions(keys, np.full(5, 20.0), np.array([[1.5, -1.5]]))
    assert "left" in places[0] and "right" in places[1]  # side by side: pushed apart
    assert places[2] == "top center"  # alone
    assert places[3].startswith("top") and places[4].startswith("bottom")  # stacked
    fig = key_plane(keys, list("abcde"), np.array([1.5, -1.5]), np.full(5, 0.2))
    assert list(fig.data[1].textposition) == places


def test_a_big_neighbour_pushes_harder():
    keys = np.array([[0.0, 0.0], [-0.3, 0.0], [0.0, 0.3]])
    small_left = label_positions(keys, np.array([12.0, 12.0, 52.0]), np.zeros((0, 2)))
    assert small_left[0].startswith("bottom")  # away from the big marker above


def all_figures() -> list[go.Figure]:
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(6), size=(5, 6)).astype(np.float32)
    return [
        heads_grid(w, list("abcdef")),
        plots.matrix_figure(QKV, "Q"),
        plots.bar_chart(np.array([0.2, 0.8]), ["x", "y"], "bars", "weight"),
        plots.line_chart(np.arange(3), {"a": np.ones(3), "b": np.zeros(3)}, "l", "x", "y"),
        key_plane(np.eye(2), ["a", "b"], np.zeros(2), np.array([0.3, 0.7])),
        qk_scatter(rng.normal(size=(8, 2)), list("abcd"), "pca"),
    ]


def font_sizes(fig: go.Figure) -> dict[str, float]:
    """Every font a figure draws, its explicit size or the inherited one."""
    lay = fig.layout
    base = lay.font.size or BASE_FONT
    out = {"font": base, "legend": lay.legend.font.size or base}
    for name in (k for k in lay.to_plotly_json() if k.startswith(("xaxis", "yaxis"))):
        out[f"{name}.tickfont"] = lay[name].tickfont.size or base
        out[f"{name}.title"] = lay[name].title.font.size or base
    for i, ann in enumerate(lay.annotations or ()):
        out[f"annotation{i}"] = ann.font.size or base
    for i, tr in enumerate(fig.data):
        if tr.text is not None or getattr(tr, "texttemplate", None):
            out[f"trace{i}.text"] = tr.textfont.size or base
        for holder in (tr, getattr(tr, "marker", None)):
            bar = getattr(holder, "colorbar", None) if holder is not None else None
            if bar is not None and getattr(holder, "showscale", None) is not False:
                out[f"trace{i}.colorbar"] = bar.tickfont.size or base
    return out


@pytest.mark.parametrize("index", range(6))
def test_scale_fonts_reaches_every_font(index):
    fig = all_figures()[index]
    before = font_sizes(fig)
    scale_fonts(fig, 1.6)
    after = font_sizes(fig)
    numbered = [i for i, tr in enumerate(fig.data) if tr.type == "heatmap" and tr.text is not None]
    # a small matrix's numbers say what its colour bar did:
    # lecture mode gives the bar's room to them
    dropped = {f"trace{i}.colorbar" for i in numbered if "width_px" in (fig.layout.meta or {})}
    assert set(after) >= set(before) - dropped
    for name, size in before.items() - {(d, before.get(d)) for d in dropped}:
        assert after[name] >= size * 1.2, name  # every font grew (crowded tick axes ≥ 1.25×)
    go.Figure(fig.to_dict())  # still valid


def test_long_titles_wrap_instead_of_clipping():
    title = "Where 'a' looks (head 0); the dotted line is the uniform weight 1/T and more"
    fig = plots.heatmap(np.eye(2), title=title)
    height = fig.layout.height or 0
    scale_fonts(fig, 1.6)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) >= 2 and all(len(line) <= 70 / 1.6 for line in lines)
    assert " ".join(lines) == title  # nothing lost
    assert fig.layout.margin.t >= len(lines) * fig.layout.title.font.size
    assert (fig.layout.height or 0) >= height
    assert wrap_title("a b", 70) == "a b"


def test_column_figures_wrap_their_titles_narrower_and_lecture_mode_rewraps():
    title = "Where '3' looks (head 0); the row sums to 1.00"  # clipped in a page column before
    fig = plots.bar_chart(np.array([0.2, 0.8]), ["3", "1"], title, "weight")
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) == 2 and all(len(line) <= 34 for line in lines)
    assert fig.layout.margin.t >= 28 + 22 * 2
    scale_fonts(fig, 1.6)
    lines = fig.layout.title.text.split("<br>")
    assert all(len(line) <= 34 / 1.6 for line in lines) and " ".join(lines) == title


def test_scale_fonts_adds_no_colour_bar_to_bars_or_plain_markers():
    bars = scale_fonts(plots.bar_chart(np.array([0.2, 0.8]), ["3", "1"], "b", "w"), 1.6)
    plane = scale_fonts(key_plane(np.eye(2), ["a", "b"], np.zeros(2), np.full(2, 0.5)), 1.6)
    for fig in (bars, plane):
        for trace in fig.to_dict()["data"]:
            assert "colorbar" not in trace.get("marker", {}) and "colorbar" not in trace


def test_wrapping_keeps_the_shape_together_and_short_titles_untouched():
    title = "softmax(Q Kᵀ/√e) V with the causal mask   [4 × 3]"
    wrapped = wrap_title(title, 34)
    assert wrapped.split("<br>")[-1].endswith("[4 × 3]") and "[4<br>" not in wrapped
    assert wrap_title("z   [4 × 3]", 34) == "z   [4 × 3]"  # fits: spacing kept


def test_lecture_bar_numbers_stand_upright_instead_of_shrinking():
    fig = plots.bar_chart(np.full(8, 0.125), list("12345678"), "t", "w")
    assert scale_fonts(fig, 1.6).data[0].textangle == -90


def test_a_title_replaced_by_the_caller_survives_lecture_mode():
    fig = heads_grid(np.full((2, 4, 4), 0.25, np.float32), list("1232"))
    fig.layout.title.text = "Layer 0: attention of each head (row: query, column: key)"
    scale_fonts(fig, 1.6)
    assert fig.layout.title.text.replace("<br>", " ").startswith("Layer 0: attention")


def test_default_fruit_labels_clear_every_marker_and_each_other():
    keys = np.array([[0.9, -0.9], [-0.8, -0.2], [0.6, 1.0], [0.7, -0.6], [0.2, 0.1]])
    names = ["cherry", "lemon", "melon", "grape", "apple"]
    sizes = 12 + 40 * np.array([0.15, 0.1, 0.4, 0.15, 0.2])
    places = label_positions(keys, sizes, np.array([[0.5, 0.5]]), names, px_per_unit=80)
    boxes = []  # an independent estimate of each label's box, in px around the marker
    for (x, y), name, size, place in zip(keys * 80, names, sizes, places, strict=True):
        w, h = len(name) * 0.6 * 16, 1.2 * 16
        dx = -1 if "left" in place else 1 if "right" in place else 0
        dy = 1 if "top" in place else -1 if "bottom" in place else 0
        cx = x + dx * (size / 2 + 3 + w / 2)
        cy = y + dy * (size / 2 + 3 + h / 2)
        boxes.append((cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2))
    for i, (x0, x1, y0, y1) in enumerate(boxes):
        for j, ((mx, my), size) in enumerate(zip(keys * 80, sizes, strict=True)):
            if i != j:  # nearest point of the box to marker j is outside its circle
                nx, ny = min(max(mx, x0), x1), min(max(my, y0), y1)
                assert np.hypot(nx - mx, ny - my) >= size / 2, (names[i], names[j])
        for k in range(i):
            a = boxes[k]
            assert x1 <= a[0] or a[1] <= x0 or y1 <= a[2] or a[3] <= y0, (names[i], names[k])


def test_lecture_fonts_take_bars_whose_positions_are_an_array():
    """A bar chart built from NumPy arrays (the captioning page's held-out words): lecture mode
    raised "the truth value of an array … is ambiguous" and the stage lost the view."""
    fig = go.Figure(go.Bar(x=np.arange(8), y=np.full(8, 0.125), text=np.full(8, "0.12")))
    assert scale_fonts(fig, 1.6).data[0].textangle == -90
