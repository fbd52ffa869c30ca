"""The one table of pages: each page's url, title, section, icon, blurb, page script and scene.

The navigation (app.py), the home page, lessons, handouts, the notebook API, tests and benchmarks
read it; what a page is (a training page, the answers it publishes, a lesson step's problems, its
head view, its view aliases) is a question to its Scene (attnviz.topics.scene), never another
table keyed by url. Plain data (no streamlit import): a scene module is imported only when its
scene is asked for, so reading the table loads no torch.

Adding a page: one name for it (its url, `-` written `_` in file names), a topic folder of that
name (attnviz/topics/<name>/ with params.py and scene.py), a page script (pages/<name>.py) and
one entry below.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from attnviz.topics.params import PageParams
from attnviz.topics.scene import Scene


@dataclass(frozen=True)
class Page:
    """One page of the app."""

    url: str  # url_path: the page's address is /<url>; links and lessons name pages by it
    title: str
    section: str  # the navigation's group
    icon: str
    blurb: str  # one line: what it teaches (the home page lists it)
    script: str  # the page script, relative to the repository root
    topic: str | None = None  # the module holding its SCENE; None: a page without one

    @property
    def scene(self) -> Scene | None:
        """The page's scene (imports its topic), None for a page without one."""
        return None if self.topic is None else _import(self.topic).SCENE

    def params(self):
        """The module of the page's parameter table and Try-this list (`TABLE`, `TRY_THIS`), next
        to its scene; lighter to import than the scene (no figures)."""
        return _import(self.topic.removesuffix(".scene") + ".params")


def _entry(url, title, section, icon, blurb, scene: bool = True) -> Page:
    """A page with one name: /soft-select is pages/soft_select.py, its scene
    attnviz/topics/soft_select/scene.py (and its Streamlit parts attnviz/ui/parts/soft_select.py).
    A one-word url's script ends in _page (/text: pages/text_page.py): Streamlit would serve a
    script named as a url by itself, without app.py (tests/engine/test_page_contract.py)."""
    name = url.replace("-", "_")
    topic = f"attnviz.topics.{name}.scene" if scene else None
    script = name if "-" in url or url == HOME_URL else f"{name}_page"
    return Page(url, title, section, icon, blurb, f"pages/{script}.py", topic)


HOME_URL = "home"  # served at / (pages/home.py)


PAGES: list[Page] = [
    _entry(HOME_URL, "Home", "Start", ":material/home:", "What each page teaches.", False),
    _entry(
        "lessons",
        "Lessons",
        "Start",
        ":material/slideshow:",
        "Guided stories across the pages for a lecture: predict, then reveal.",
        False,
    ),
    _entry(
        "soft-select",
        "Soft select",
        "Foundations",
        ":material/join:",
        "A query picks from a table of keys and values: hard select vs softmax weights.",
    ),
    _entry(
        "self-attention",
        "Self-attention, step by step",
        "Foundations",
        ":material/stairs:",
        "Every matrix of Q = zW_q + B_q … softmax(QKᵀ/√e)V with its numbers and shape.",
    ),
    _entry(
        "kernel-smoother",
        "Attention as a kernel smoother",
        "Learning attention",
        ":material/scatter_plot:",
        "f(x) = Σ α(x, x_s) g(x_s) / n(x): learn a dot-product or Mahalanobis kernel live.",
    ),
    _entry(
        "recurrent",
        "Recurrent networks and attention",
        "Recurrence",
        ":material/repeat:",
        "An RNN translates dates with and without attention: the alignment forms as it learns.",
    ),
    _entry(
        "text",
        "Attention on text",
        "Transformers",
        ":material/text_fields:",
        "Your sentence: tokens, positions, heads, masks; why positions and why ÷√d_k.",
    ),
    _entry(
        "train-transformer",
        "Train a transformer live",
        "Transformers",
        ":material/model_training:",
        "A tiny transformer learns reverse, sort, copy, … in seconds; watch its attention form.",
    ),
    _entry(
        "watch-circuits",
        "Watching circuits form",
        "Transformers",
        ":material/hub:",
        "Induction heads, grokking and attention sinks form as you watch a tiny model train.",
    ),
    _entry(
        "language-model",
        "Inside a language model",
        "Transformers",
        ":material/forum:",
        "A real LLM (SmolLM2-135M) offline: next token, grouped heads, logit lens, sinks.",
    ),
    _entry(
        "interventions",
        "Finding the heads that answer",
        "Transformers",
        ":material/biotech:",
        "Why Mary, not John? Patch, attribute and knock out heads of the real LLM.",
    ),
    _entry(
        "real-block",
        "Inside one block of a real model",
        "Transformers",
        ":material/view_agenda:",
        "Every number of one SmolLM2 block on your prompt: RMSNorm, RoPE, grouped heads, SwiGLU.",
    ),
    _entry(
        "attention-at-scale",
        "Attention at scale",
        "Transformers",
        ":material/speed:",
        "Why attention costs T²: windows, linear attention, FlashAttention, the KV cache.",
    ),
    _entry(
        "attention-since-2017",
        "Attention since 2017",
        "Transformers",
        ":material/update:",
        "Grouped-query, latent, sink, gated, differential: trained side by side; real KV caches.",
    ),
    _entry(
        "vision-patches",
        "Vision: attention over patches",
        "Vision",
        ":material/grid_view:",
        "A tiny ViT beside a CNN on digits and shapes: where each head looks, live.",
    ),
    _entry(
        "captioning",
        "Captioning: words that look at the image",
        "Vision",
        ":material/image_search:",
        "A captioner writes what it sees; each word's attention is drawn on the image, live.",
    ),
    _entry(
        "pretrained",
        "Pretrained model explorer",
        "Real models",
        ":material/psychology:",
        "Every layer and head of a real model (MiniLM), queries and keys, rollout, head types.",
    ),
]
HOME = PAGES[0]


def _import(module: str):
    return importlib.import_module(module)


def all_pages() -> list[Page]:
    """Every page in navigation order."""
    return list(PAGES)


def sections() -> dict[str, list[Page]]:
    """The pages by navigation section, in order."""
    out: dict[str, list[Page]] = {}
    for entry in PAGES:
        out.setdefault(entry.section, []).append(entry)
    return out


def page(url: str) -> Page:
    """The page at `url` (KeyError: no page there)."""
    for entry in PAGES:
        if entry.url == url:
            return entry
    raise KeyError(url)


def scene_pages() -> list[Page]:
    """The pages that have a scene, in navigation order."""
    return [entry for entry in PAGES if entry.topic is not None]


def scene_urls() -> list[str]:
    """The url of every page that has a scene, in navigation order."""
    return [entry.url for entry in scene_pages()]


def has_scene(url: str) -> bool:
    """Whether the page at `url` exists and has a scene."""
    return url in scene_urls()


def scene(url: str) -> Scene:
    """The scene of the page at `url` (KeyError: no page there has one)."""
    found = page(url).scene
    if found is None:
        raise KeyError(url)
    return found


def scenes() -> dict[str, Scene]:
    """Every scene, by page url."""
    return {entry.url: entry.scene for entry in scene_pages()}


def params_module(url: str):
    """The module of the page's parameter table and Try-this list."""
    return page(url).params()


@cache
def page_tables() -> dict[str, PageParams]:
    """Every page's parameter table, by page url (read once; again after `register`)."""
    return {entry.url: entry.params().TABLE for entry in scene_pages()}


def register(entry: Page) -> Page:
    """Add a page to the table (a plug-in, or a test's throwaway page); a page already at that url
    is replaced. Returns the entry."""
    unregister(entry.url)
    PAGES.append(entry)
    page_tables.cache_clear()
    return entry


def unregister(url: str) -> None:
    """Remove the page at `url` from the table (nothing when there is none)."""
    PAGES[:] = [entry for entry in PAGES if entry.url != url]
    page_tables.cache_clear()
