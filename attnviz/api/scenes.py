"""Every page of the app as a scene you can run from Python (a notebook, a script): its views,
its lessons' answers, one standalone HTML file of it, and the code that reproduces it; a page's
shareable link read back into its scene.

    >>> import attnviz as av
    >>> av.pages()                       # the url of every page with a scene, in the app's order
    >>> s = av.scene(url, **settings)    # a page with its settings (keys as in its links)
    >>> figures = s.views()              # {view name: plotly Figure}; a figure displays itself
    >>> s.answers()                      # {name: Answer}: what a lesson's question would answer
    >>> s.export_html("view.html")       # one offline file; returns its size in bytes
    >>> print(s.python())                # the code that makes this scene again
    >>> av.page_link("soft-select?ss_temp=0.05").views()
    >>> s.ops.names()                    # the page's other engine calls (generate, save, …)

A training page's scene gives its untrained model (step 0); `s.trained()` trains it to its end
in this process (seconds to minutes) and returns the trained snapshot's views.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go

from attnviz.io.html_export import write_html
from attnviz.topics import scene_export, settings
from attnviz.topics.operations import Operations
from attnviz.topics.registry import has_scene, scene_urls
from attnviz.topics.registry import scene as _scene
from attnviz.topics.scene import Answer, Scene, SceneInputError
from attnviz.topics.scene_export import python_code, scene_html

__all__ = ["SceneView", "page_link", "pages", "scene"]

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

    @property
    def ops(self) -> Operations:
        """The engine calls the page makes besides its views, by name (`ops.names()`), the
        same functions the page calls: e.g. the transformer page's `generate`, `save`, `load`."""
        return self.page.ops

    def answers(self) -> dict[str, Answer]:
        """{question name: Answer(answer, options)}: what the page's lesson questions answer."""
        return self.page.answers(self.result, self.values)

    def changed(self) -> dict[str, Any]:
        """The values that differ from the page's defaults (what a link or `python()` names)."""
        return scene_export.changed(self.page, self.values)

    def python(self) -> str:
        """The notebook code that reproduces this scene and its views exactly."""
        return python_code(self.url, self.changed())

    def html(self, title: str | None = None) -> str:
        """The page's views (and its head view, on the text and pretrained pages) as one
        standalone HTML document; the values are its caption."""
        return scene_html(self.page, self.values, self.result, self.views(), title)

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
