"""Layout of small multiples (one heatmap per head) whose height grows with heads and tokens.

Everything is planned in pixels (each map's side, its title above, its rotated key labels below,
a small gap between maps of a row) and converted to paper fractions, so rows never overlap
whatever the number of heads or tokens. The query labels, shared by a row of maps, sit left of
its first map in the margin, which Plotly grows for them (automargin on those axes only)."""

from __future__ import annotations

from dataclasses import dataclass

from attnviz.figures.axes import LABEL_ALL_MAX, label_extent

TOKEN_PX = 11  # px per token row when every label is drawn
MAX_MAP_PX = TOKEN_PX * LABEL_ALL_MAX  # a map's side never exceeds this
LONG_MAP_PX = 480  # side of each map when labels are a subset (long inputs)
TITLE_PX = 26  # room above each map for its name
TOP_PX, BOTTOM_PX = 80, 10  # figure title (two lines); bottom margin
# between maps of a row (they share the query labels of its first map), in paper width: at a
# phone's ~230 px of paper 12 px, a tick label's line between one map's last key label and the
# next map's first (0.02, 16 px of 800, overprinted them on a phone)
COLUMN_GAP = 0.05


@dataclass(frozen=True)
class GridPlan:
    """Where each subplot goes: domains in paper fractions and the figure's height in px."""

    height: int
    x_domains: list[tuple[float, float]]
    y_domains: list[tuple[float, float]]
    title_y: list[float]  # paper y of each map's name (just above its domain)


def auto_columns(heads: int, t: int) -> int:
    """Maps per row: 4 small maps, 2 medium, 1 when all 64 labels need the width, 2 beyond."""
    cols = 4 if t <= 16 else 2 if t <= 40 else 1 if t <= LABEL_ALL_MAX else 2
    return max(1, min(cols, heads))


def map_side(t: int, least: int) -> int:
    """A map's side in px: TOKEN_PX per token (at least `least`), LONG_MAP_PX past 64 tokens."""
    if t > LABEL_ALL_MAX:
        return LONG_MAP_PX
    return max(least, min(TOKEN_PX * t, MAX_MAP_PX))


def plan_grid(heads: int, columns: int, labels: list[str], least: int = 200) -> GridPlan:
    """Domains for `heads` maps in `columns` columns with room for `labels` as ticks."""
    rows = (heads + columns - 1) // columns
    side = map_side(len(labels), least)
    below = label_extent(labels) + 12  # rotated key labels under each map
    row_px = TITLE_PX + side + below
    height = TOP_PX + rows * row_px + BOTTOM_PX
    area = rows * row_px  # the paper's height in px (margins excluded)
    slot = 1 / columns
    gap = min(COLUMN_GAP, slot / 3) if columns > 1 else 0.0
    x_domains, y_domains, title_y = [], [], []
    for i in range(heads):
        r, c = divmod(i, columns)
        x0 = c * slot + (gap if c else 0.0)  # the first column's labels sit in the margin
        x_domains.append((round(x0, 4), round((c + 1) * slot - 0.01, 4)))
        top = r * row_px + TITLE_PX  # px from the paper's top
        y1, y0 = 1 - top / area, 1 - (top + side) / area
        y_domains.append((round(y0, 4), round(y1, 4)))
        title_y.append(round(y1 + 4 / area, 4))
    return GridPlan(height, x_domains, y_domains, title_y)
