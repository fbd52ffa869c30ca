"""AppTest of the vision page's real-ViT section (DINOv2 ViT-S/14 on photos): closed, it loads
nothing; opened by a link, it draws every view with the object's share per head, follows the
photo, the query patch and the layer, and says why an upload is missing. The model loads once
per worker (the group of tests/engine/test_real_vit.py)."""

from __future__ import annotations

import pytest

from tests.support.apptest import figures, no_exception, training_page_fixture

pytestmark = pytest.mark.xdist_group("dino-real")
PAGE = "pages/vision_patches.py"
TITLES = (
    "DINO's maps: class token, layer 11",
    "60 % of each head's attention",
    "Rollout vs the last layer",
    "Mean attention distance (px of 224)",
    "Click a patch",
    "Patch 103 (row 6, col. 7), layer 11",
    "Artifact tokens: 0 found",
    "Attention vs norm: 0 artifacts",
)

page = training_page_fixture(PAGE, "vi")


def titles(at) -> list[str]:
    return [f["layout"]["title"]["text"].replace("<br>", " ") for f in figures(at)]


def test_closed_it_draws_nothing_of_the_real_vit(page):
    at = page()
    no_exception(at)
    assert not any(t.startswith(("DINO's maps", "Artifact tokens")) for t in titles(at))


def test_a_link_opens_it_with_every_view_and_the_share_on_the_object(page):
    at = page({"vi_open_dino": "true"})
    no_exception(at)
    shown = titles(at)
    for title in TITLES:
        assert any(t.startswith(title) for t in shown), (title, shown)
    captions = " ".join(c.value for c in at.caption)
    assert "Share on the cat's eyes and nose (outlined, 39 % of the photo): head 0" in captions
    assert "Vision Transformers Need Registers" in " ".join(m.value for m in at.markdown)
    at.selectbox(key="vi_photo").set_value("motorcycle").run()
    no_exception(at)
    assert "Share on the motorcycle" in " ".join(c.value for c in at.caption)
    at.slider(key="vi_dino_patch").set_value(20).run()
    at.slider(key="vi_dino_layer").set_value(0).run()
    assert "Patch 20 (row 1, col. 4), layer 0" in titles(at)


def test_your_own_photo_asks_for_an_upload(page):
    at = page({"vi_open_dino": "true", "vi_photo": "your own photo"})
    no_exception(at)
    assert any("No photo uploaded yet" in c.value for c in at.caption)
    assert not any(t.startswith("DINO's maps") for t in titles(at))


def test_a_rerun_that_changes_nothing_of_the_photo_builds_no_view_again(page, monkeypatch):
    from dataclasses import replace

    import attnviz.ui.parts.vision_patches_real as part
    from attnviz.topics.operations import Operations

    calls = []
    real = part.SCENE.ops.dino_views
    ops = dict(part.SCENE.ops, dino_views=lambda *a: calls.append(a[2]) or real(*a))
    monkeypatch.setattr(part, "SCENE", replace(part.SCENE, ops=Operations(**ops)))
    at = page({"vi_open_dino": "true"})
    first = len(calls)  # 0 when an earlier test of this process left them in the cache
    drawn = figures(at)
    at.run()
    assert len(calls) == first, calls[first:]
    assert figures(at) == drawn
    at.slider(key="vi_dino_layer").set_value(3).run()  # only the query's maps follow the layer
    assert calls[first:] in ([], [("vi_dino_query",)]), calls[first:]
