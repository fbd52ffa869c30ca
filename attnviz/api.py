"""AttnViz from Python (a notebook, a script): every page of the app as a scene you can run,
draw, export as standalone HTML, and write back as the code that reproduces it; and the model
view / head view of attention you hold (a model's `output_attentions`, an array, TransformerLens's
patterns), of a Hugging Face model or folder, or of the bundled MiniLM.

    >>> import attnviz as av
    >>> av.pages()                       # the url of every page with a scene, in the app's order
    >>> s = av.scene(url, **settings)    # a page with its settings (keys as in its links)
    >>> figures = s.views()              # {view name: plotly Figure}; a figure displays itself
    >>> s.answers()                      # {name: Answer}: what a lesson's question would answer
    >>> s.export_html("view.html")       # one offline file; returns its size in bytes
    >>> print(s.python())                # the code that makes this scene again

    >>> av.model_view(text="The animal didn't cross the street because it was too tired.")
    >>> av.head_view("path/to/model-folder", "Some text", layer=3).save("head_view.html")
    >>> out = model(**inputs, output_attentions=True)        # your own model, as in BertViz
    >>> av.head_view(out.attentions, tokenizer.convert_ids_to_tokens(inputs["input_ids"][0]))

A training page's scene gives its untrained model (step 0); `s.trained()` trains it to its end
in this process (seconds to minutes) and returns the trained snapshot's views.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go

from attnviz.api_input import check_selection, pretrained_outcome
from attnviz.io.html_export import figures_html, head_view_block, write_html
from attnviz.topics import settings
from attnviz.topics.registry import has_scene, scene_urls
from attnviz.topics.registry import scene as _scene
from attnviz.topics.scene import Answer, Scene, SceneInputError

__all__ = ["SceneView", "head_view", "model_view", "page_link", "pages", "scene"]

HEAD_VIEW_DIR = (
    Path(__file__).parent / "ui" / "common" / "head_view"
)  # the component's .js and .css
UNTRAINED = "A training page: these are the views of its untrained model (step 0), as before Start."
LINK_ONLY = ("lesson", "step")  # presenter-mode keys of a link: not settings of the page


def pages() -> list[str]:
    """The url of every page that has a scene, in the app's navigation order."""
    return scene_urls()


def _page(url: str) -> Scene:
    if not has_scene(url):
        raise SceneInputError(f"no page {url!r}; the pages are: {', '.join(scene_urls())}")
    return _scene(url)


@dataclass
class SceneView:
    """One page run with `values`: its result (computed once, on first use), views, answers,
    standalone HTML export and the Python code that makes it again."""

    page: Scene
    values: dict[str, Any]
    _views: dict[str, go.Figure] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, page: Scene, values: dict[str, Any], result: Any) -> SceneView:
        """A scene already run (the app hands in its cached result)."""
        view = cls(page, values)
        view.__dict__["result"] = result
        return view

    @property
    def url(self) -> str:
        return self.page.url

    @cached_property
    def result(self) -> Any:
        """The page's result: what its views are drawn from (a training page: step 0). A layer,
        head or query outside the model or text it holds is refused here, naming the range."""
        result = self.page.run(self.page.config(self.values))
        self.page.check_ranges(result, self.values)
        return result

    def views(self, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        """{view name: Plotly figure}, every view the page draws (or those named in `only`)."""
        if not self._views:
            self._views = self.page.views(self.result, self.values)
        if only is None:
            return dict(self._views)
        missing = set(only) - set(self._views)
        extra = self.page.views(self.result, self.values, missing) if missing else {}
        return {name: fig for name, fig in (self._views | extra).items() if name in only}

    def answers(self) -> dict[str, Answer]:
        """{question name: Answer(answer, options)}: what the page's lesson questions answer."""
        return self.page.answers(self.result, self.values)

    def changed(self) -> dict[str, Any]:
        """The values that differ from the page's defaults (what a link or `python()` names)."""
        defaults = self.page.values()
        return {k: v for k, v in self.values.items() if defaults.get(k) != v}

    def python(self) -> str:
        """The notebook code that reproduces this scene and its views exactly."""
        return python_code(self.url, self.changed())

    def html(self, title: str | None = None) -> str:
        """The page's views (and its head view, on the text and pretrained pages) as one
        standalone HTML document; the values are its caption."""
        note = UNTRAINED if self.page.train is not None else ""
        hv = self.page.head_view
        data = hv(self.result, self.values) if hv is not None else None
        extra = head_view_block(data, *_head_view_files()) if data else ""
        title = title or f"AttnViz: {self.url}"
        return figures_html(title, self.views(), self.changed(), note=note, extra=extra)

    def export_html(self, path: str | Path, title: str | None = None) -> int:
        """Write `html()` to `path`; returns the file's size in bytes (plotly.js, ~4.7 MB, is
        in it once)."""
        return write_html(Path(path), self.html(title))

    def trained(self, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        """A training page: train its job to the end here, and the trained model's views
        ({view name: figure}, those named in `only`)."""
        return self.page.trained(self.values, only)[1]


def scene(url: str, values: Mapping[str, Any] | None = None, **more: Any) -> SceneView:
    """The page at `url` (see `pages()`) with its settings at their defaults, then `values` and
    `more` (e.g. ``ta_text="..."``); an unknown page, setting or value raises SceneInputError (a
    ValueError) with a message naming it.

    >>> s = scene(pages()[0])
    >>> s.views()
    """
    page = _page(url)
    return SceneView(page, page.values(values, **more))


def _lookup(page: Scene, key: str):
    for table in (page.table, settings.TABLE):
        if key in table:
            return table[key]
    return None


def page_link(link: str) -> SceneView:
    """The scene a shareable link opens: '<page>?<setting>=<value>&…' as the app's address bar
    holds it (a full URL works too; the README has examples).
    Unlike the app, which ignores what it cannot read, an unknown setting or an unreadable
    value raises SceneInputError naming it."""
    parts = urlsplit(link.strip())
    url = parts.path.strip("/").rsplit("/", 1)[-1]
    page = _page(url)
    read: dict[str, Any] = {}
    for key, texts in parse_qs(parts.query, keep_blank_values=True).items():
        if key in LINK_ONLY:
            continue
        if key in page.extras:
            read[key] = texts[-1]
            continue
        param = _lookup(page, key)
        if param is None:
            raise SceneInputError(f"the page {url!r} has no setting {key!r}")
        value = param.from_url_text(texts if param.widget == "pills" else texts[-1])
        if value is None:
            raise SceneInputError(f"{texts[-1]!r} is not a valid value for {key!r} on {url!r}")
        read[key] = value
    return SceneView(page, page.values(read))


def python_code(url: str, changed: Mapping[str, Any]) -> str:
    """The code that runs the page at `url` with `changed` values and draws its views."""
    args = "".join(f",\n    {key}={value!r}" for key, value in changed.items())
    if any(not key.isidentifier() for key in changed):
        args = f",\n    **{dict(changed)!r}"
    return (
        "import attnviz as av\n\n"
        f"s = av.scene(\n    {url!r}{args},\n)\n"
        "figures = s.views()  # {view name: plotly Figure}\n"
        f"figures[{_scene(url).main_view!r}]\n"
    )


def _head_view_files() -> tuple[str, str]:
    return tuple((HEAD_VIEW_DIR / f"head_view.{ext}").read_text("utf-8") for ext in ("js", "css"))


def model_view(
    path_or_model: Any = None,
    text: Any = "The animal didn't cross the street because it was too tired.",
    *,
    tokenizer: Any = None,
    hide: bool = False,
    layers: Sequence[int] | None = None,
    heads: Sequence[int] | None = None,
) -> go.Figure:
    """Every layer × head as one Plotly figure (the pretrained page's model view; `hide` drops
    [CLS]/[SEP] and renormalises), or the `layers` and `heads` picked, of what you hold:

    - attention weights with their tokens as `text`: the tuple a Hugging Face model returns with
      `output_attentions=True` (per layer (1, heads, T, T)), one (layers, heads, T, T) or
      (heads, T, T) array or tensor, or TransformerLens's `[cache["pattern", l] for l in ...]`;
    - a Hugging Face model with its `tokenizer` (`sdpa` models run with eager attention for
      the call), a local folder, or None (the bundled MiniLM), on the string `text`.

    >>> fig = model_view(text="The cat sat on the mat.")
    >>> fig.data[0].type  # every layer × head tiled in one heatmap
    'heatmap'
    >>> import numpy as np
    >>> fig = model_view(np.full((6, 4, 3, 3), 1 / 3), ["a", "b", "c"], layers=[2, 5], heads=[0])
    >>> fig.layout.yaxis.ticktext, fig.layout.xaxis.ticktext  # named by their own numbers
    (('layer 2', 'layer 5'), ('0',))
    """
    page, out, picked = pretrained_outcome(path_or_model, text, tokenizer, hide=hide)
    if layers is None and heads is None:
        main = page.main_view  # the model view
        return page.views(out, picked, {main}, compact=False)[main]  # floats
    from attnviz.figures.pretrained import model_view as draw
    from attnviz.topics.pretrained.scene import drawn, visible

    count, per_layer = out.attended.attentions.shape[:2]
    numbers = check_selection(layers, count, "layer"), check_selection(heads, per_layer, "head")
    tokens, att = visible(out.attended.attentions, out.attended.tokens, hide)
    chosen = drawn(out, att)[numbers[0]][:, numbers[1]]  # (layers picked, heads picked, T, T)
    return draw(chosen, tokens, numbers=numbers)


@dataclass(frozen=True)
class HeadViewHTML:
    """The BertViz-style head view, outside Streamlit: shows itself in Jupyter (an iframe),
    `.html()` is a standalone document, `.save(path)` writes it; `.figure` is the chosen head's
    map as a Plotly figure."""

    data: dict
    figure: go.Figure
    title: str

    def html(self) -> str:
        return figures_html(self.title, {}, extra=head_view_block(self.data, *_head_view_files()))

    def save(self, path: str | Path) -> int:
        return write_html(Path(path), self.html())

    def _repr_html_(self) -> str:
        doc = html.escape(self.html(), quote=True)
        height = 140 + 26 * len(self.data["tokens"])
        return f'<iframe srcdoc="{doc}" style="width:100%;height:{height}px;border:0"></iframe>'


def head_view(
    path_or_model: Any = None,
    text: Any = "The animal didn't cross the street because it was too tired.",
    *,
    layer: int = 0,
    head: int | None = None,
    heads: Sequence[int] | None = None,
    tokenizer: Any = None,
    hide: bool = False,
) -> HeadViewHTML:
    """One layer's head view (every head, the `heads` picked, or only `head`), BertViz-style, of
    what you hold (as `model_view`: weights with their tokens, a model with its tokenizer, a
    folder, or None). A layer or head outside the model is an error that names the range.

    >>> import numpy as np
    >>> weights = np.full((2, 3, 4, 4), 0.25)  # (layers, heads, T, T)
    >>> view = head_view(weights, ["the", "cat", "sat", "down"], layer=1, heads=[0, 2])
    >>> view.title, [lines["head"] for lines in view.data["heads"]]
    ('Head view, layer 1', [0, 2])
    >>> head_view(weights, ["the", "cat", "sat", "down"], layer=2)
    Traceback (most recent call last):
    attnviz.topics.scene.SceneInputError: layer 2 is out of range: there are 2 (layer 0 to 1)
    """
    every = head is None
    page, out, picked = pretrained_outcome(
        path_or_model, text, tokenizer, layer=layer, head=head, allheads=every, hide=hide
    )
    from attnviz.figures.head_view import head_view_data
    from attnviz.topics.pretrained.scene import HEAD_MAP, head_view_input

    picked["pe_head"] = head or 0
    hv = head_view_input(out, picked)
    shown = (
        hv.heads
        if head is not None
        else check_selection(heads, out.attended.attentions.shape[1], "head")
    )
    figure = page.views(out, picked, {HEAD_MAP.name})[HEAD_MAP.name]
    data = head_view_data(hv.weights, hv.tokens, sorted(shown), None)
    return HeadViewHTML(data, figure, f"Head view, layer {layer}")
