"""One page, one contract (issue 37): a page's facts live in its table entry and its scene.

Each page's url is written in at most two product files (the page table and its scene); the
product has no import cycle; every module of attnviz/ui/ draws with Streamlit (or is a small
helper of one that does); what side tables used to answer is a question to the Scene."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from attnviz.io.user_text import JOINER, md_literal
from attnviz.lessons.model import Step
from attnviz.topics.registry import HOME, all_pages, page, scene_pages, scenes
from attnviz.ui.lecture.presenter import trains
from tests.support.pages import ROOT

PRODUCT = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
PRODUCT += sorted((ROOT / "attnviz").rglob("*.py"))
# what GFM's literal autolinks start from in a text node (mdast-util-gfm-autolink-literal)
AUTOLINK = re.compile(r"https?://|www\.|mailto:|xmpp:|[\w.+-]+@[\w-]+\.\w", re.IGNORECASE)


KEYS = ("get", "pop", "setdefault")  # d.get("text"): a key, not a page
SETTINGS = ("math_mode",)  # LatexNodes2Text(math_mode="text"): a library's setting, not a page


@functools.cache
def strings(path) -> list[str]:
    """The string constants of a file that could name a page: docstrings and prose (to search
    for a quoted or linked url), and whole strings compared with, assigned, or passed to a call
    (not dictionary keys: Plotly's "text" is no page)."""
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute):
            naming = parent.func.attr not in KEYS
        elif isinstance(parent, ast.keyword):
            naming = parent.arg not in SETTINGS
        else:
            naming = isinstance(parent, ast.Call | ast.Compare | ast.Assign)
        found.append(node.value if naming else f" {node.value} ")
    return found


def names_url(text: str, url: str) -> bool:
    """`text` is the url (a whole string that names something), a link to it ('/url',
    'url?…'), or quotes it in prose ("'url'")."""
    if text == url or text.startswith((f"{url}?", f"/{url}")):
        return True
    return any(f"{q}{url}{q}" in text for q in "\"'") or f"/{url}?" in text


@pytest.mark.parametrize("entry", all_pages(), ids=lambda p: p.url)
def test_a_pages_url_is_written_in_its_table_entry_and_its_scene_only(entry):
    written = {
        str(path.relative_to(ROOT))
        for path in PRODUCT
        if any(names_url(text, entry.url) for text in strings(path))
    }
    allowed = {"attnviz/topics/registry.py"}
    if entry.topic is not None:
        allowed.add(entry.topic.replace(".", "/") + ".py")
    assert written <= allowed, f"{entry.url} is written in {sorted(written - allowed)}"
    assert "attnviz/topics/registry.py" in written


def test_no_page_script_is_named_as_a_url():
    """Streamlit hashes a page by its url, and a file in pages/ by its name: a script named as a
    url (pages/interventions.py at /interventions) is run by itself, without app.py (no sidebar,
    no settings, no presenter bar; AppTest showed it). The home page is served at /."""
    urls = {entry.url for entry in all_pages() if entry is not HOME}
    named = [e.script for e in all_pages() if e.script.removeprefix("pages/")[:-3] in urls]
    assert named == []


def test_a_page_has_one_name():
    """A page's url names its script, topic folder and parts module (`-` written `_`; a one-word
    url's script ends in _page, as Streamlit requires above): /interventions is
    pages/interventions_page.py over attnviz/topics/interventions/ and
    attnviz/ui/parts/interventions.py."""
    names = {entry.url.replace("-", "_") for entry in all_pages()}
    for entry in all_pages():
        name = entry.url.replace("-", "_")
        assert (ROOT / entry.script).exists() and Path(entry.script).stem in (name, f"{name}_page")
        if entry.topic is not None:
            assert entry.topic == f"attnviz.topics.{name}.scene", entry.url
    parts = [p.stem for p in (ROOT / "attnviz/ui/parts").glob("*.py") if p.stem != "__init__"]
    assert len(parts) > 10
    strays = [p for p in parts if not any(p == n or p.startswith(f"{n}_") for n in names)]
    assert strays == [], f"parts modules not named as a page: {strays}"
    assert sorted(p.stem for p in (ROOT / "pages").glob("*.py")) == sorted(
        Path(entry.script).stem for entry in all_pages()
    )


def test_the_product_has_no_import_cycle():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts/import_graph.py")
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    files = {graph.module_name(p): p for p in graph.product_files()}
    arrows = {m: graph.arrows(set(files), p) - {m} for m, p in files.items()}
    arrows = {m: {w for w in ws if not m.startswith(w + ".")} for m, ws in arrows.items()}
    assert len(arrows) > 200 and sum(map(len, arrows.values())) > 600  # the graph was read
    assert graph.cycles(arrows) == []


def imported(path) -> set[str]:
    """What a file imports, as module names (`from a import b` gives a and a.b)."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return modules


def imports_streamlit(path) -> bool:
    return any(m == "streamlit" or m.startswith("streamlit.") for m in imported(path))


def test_every_ui_module_draws_with_streamlit_or_is_a_small_helper_of_one():
    ui = ROOT / "attnviz" / "ui"
    modules = [p for p in ui.rglob("*.py") if p.name != "__init__.py"]
    drawing = {p for p in modules if imports_streamlit(p)}
    helpers = set(modules) - drawing
    for helper in helpers:
        name = ".".join(helper.relative_to(ROOT).with_suffix("").parts)
        users = [p.name for p in drawing if name in imported(p)]
        lines = len(helper.read_text().splitlines())
        assert users and lines <= 60, f"{name}: {lines} lines, used by {users}: not UI code"
    assert len(drawing) > 30


def test_training_pages_are_known_by_their_scene():
    """Space starts the run on every training page's lesson step (only → moves on there), and
    moves on everywhere else: the presenter asks the step's scene, not a list of pages."""
    for entry in scene_pages():
        step = Step(entry.url, "a step", "Two sentences. Here.", {})
        assert trains(step) == (entry.scene.train is not None), entry.url
    assert {p.url for p in scene_pages() if trains(Step(p.url, "", "", {}))} >= {"watch-circuits"}


def test_each_scene_is_at_its_table_entry():
    for url, found in scenes().items():
        assert found.url == url and page(url).params().TABLE is found.table
        # a view drawn in another's place (a run's map of layer k) stands for one the page
        # draws before a run (Step 0's map of layer k), never for another stand-in
        before_a_run = {v.name for v in found.declared if v.stands_for is None and not v.run_only}
        assert set(found.view_aliases.values()) <= before_a_run, url


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60) | st.sampled_from(["www.a.io", "http://x.y/z", "a@b.cd", "[x](y)"]))
def test_user_text_is_shown_as_typed_and_never_as_a_link(text):
    """The one escaper: CommonMark reads back exactly the text (control characters as spaces,
    the invisible word joiner aside), with no link, image or HTML, and nothing GFM autolinks."""
    blocks = MarkdownIt("commonmark").parse(f"Said: {md_literal(text)}.")
    inline = [c for b in blocks for c in (b.children or [])]
    assert not {c.type for c in inline} & {"link_open", "image", "html_inline"}
    assert not any(b.type == "html_block" for b in blocks)
    said = "".join(c.content if c.type in ("text", "text_special") else " " for c in inline)
    assert not AUTOLINK.search(said), said  # as GFM reads it: escapes are no breaks
    shown = said.replace(JOINER, "")
    typed = "".join(c if c.isprintable() else " " for c in text).replace(JOINER, "")
    expected = f"Said: {typed}."
    assert shown.split() == expected.split()


def test_user_text_is_escaped_in_one_place():
    """No other module escapes Markdown itself (there were three, one of them letting a bare
    www. address through)."""
    escapers = [
        str(path.relative_to(ROOT))
        for path in PRODUCT
        if any("`*_{}[]()" in text for text in strings(path))
    ]
    assert escapers == ["attnviz/io/user_text.py"]
