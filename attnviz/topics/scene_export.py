"""A scene's run written out: one standalone HTML file (its views, the head view on the pages that
draw one, its changed settings as the caption) and the notebook code that makes it again. The
app's "Download this view" button (attnviz.ui.common.view_export) and the notebook API's
SceneView (attnviz.api.scenes) both write through here, so the app's file and a notebook's are
the same. No Streamlit."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from attnviz.io.html_export import figures_html, head_view_block
from attnviz.topics.registry import scene
from attnviz.topics.scene import Scene

# the head view component's script and style, as real files beside its Streamlit wrapper
HEAD_VIEW_DIR = Path(__file__).parents[1] / "ui" / "common" / "head_view"
UNTRAINED = "A training page: these are the views of its untrained model (step 0), as before Start."


def head_view_files() -> tuple[str, str]:
    """The head view's script and style sheet (head_view.js, head_view.css)."""
    return tuple((HEAD_VIEW_DIR / f"head_view.{ext}").read_text("utf-8") for ext in ("js", "css"))


def changed(page: Scene, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values that differ from the page's defaults (what a link or the Python code names)."""
    defaults = page.values()
    return {k: v for k, v in values.items() if defaults.get(k) != v}


def python_code(url: str, changed: Mapping[str, Any]) -> str:
    """The code that runs the page at `url` with `changed` values and draws its views."""
    args = "".join(f",\n    {key}={value!r}" for key, value in changed.items())
    if any(not key.isidentifier() for key in changed):
        args = f",\n    **{dict(changed)!r}"
    return (
        "import attnviz as av\n\n"
        f"s = av.scene(\n    {url!r}{args},\n)\n"
        "figures = s.views()  # {view name: plotly Figure}\n"
        f"figures[{scene(url).main_view!r}]\n"
    )


def scene_html(
    page: Scene,
    values: Mapping[str, Any],
    result: Any,
    views: Mapping[str, go.Figure],
    title: str | None = None,
) -> str:
    """The page's `views` of `result` (and its head view, on the text and pretrained pages) as
    one standalone HTML document; the changed values are its caption."""
    note = UNTRAINED if page.train is not None else ""
    hv = page.head_view
    data = hv(result, values) if hv is not None else None
    extra = head_view_block(data, *head_view_files()) if data else ""
    title = title or f"AttnViz: {page.url}"
    return figures_html(title, views, changed(page, values), note=note, extra=extra)
