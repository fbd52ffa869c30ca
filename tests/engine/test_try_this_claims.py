"""Every "Try this" sentence is a claim: each item of each page's box (the `TRY_THIS` list in
the page's parameter module) has a test marked `@pytest.mark.try_this("<page url>", n)` that
performs it and asserts what it says. This test reads the test sources to check the coverage."""

from __future__ import annotations

import ast

from attnviz.topics.registry import params_module, scene_urls
from tests.support.pages import ROOT


def _marked_claims() -> set[tuple[str, int]]:
    """(page url, item number) of every `pytest.mark.try_this(url, n)` under tests/."""
    found = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr == "try_this" and len(node.args) == 2:
                url, number = (ast.literal_eval(arg) for arg in node.args)
                found.add((url, number))
    return found


def test_every_try_this_item_has_a_test():
    marked = _marked_claims()
    missing = []
    for url in scene_urls():
        items = getattr(params_module(url), "TRY_THIS", None)
        assert items, f"{url} has no TRY_THIS list (the page's Try this box)"
        missing += [
            f"{url} #{n}: {text[:60]}" for n, text in enumerate(items, 1) if (url, n) not in marked
        ]
    assert not missing, "untested Try this items:\n" + "\n".join(missing)


def test_no_marker_points_at_a_missing_item():
    for url, number in _marked_claims():
        assert url in scene_urls(), f"try_this marker names an unknown page {url!r}"
        items = params_module(url).TRY_THIS
        assert 1 <= number <= len(items), f"{url} has no Try this item {number}"
