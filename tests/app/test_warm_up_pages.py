"""The server's warm-up (attnviz.ui.warm_up) computes what the real-model pages show first: after
it, a first visit to "Inside a language model" or "Finding the heads that answer" computes no
result, no sweep and no figure (each of them refused here), so it waits for none of it; and the
vision page's real-ViT section reads its default photo without running DINOv2."""

from __future__ import annotations

import pytest

from attnviz.topics import views as declaration
from attnviz.topics.interventions import readouts
from attnviz.topics.vision_patches import dino_scene
from attnviz.ui.common import scene_cache
from attnviz.ui.warm_up import mode, warm_real_model_pages
from tests.support.apptest import no_exception, open_page, shown


def _refuse(*args, **kwargs):
    raise AssertionError("computed on the first visit, after the warm-up")


def test_after_the_warm_up_a_real_model_pages_first_visit_computes_nothing(monkeypatch):
    warm_real_model_pages()
    monkeypatch.setattr(scene_cache, "scene", _refuse)  # a result missing from the cache
    monkeypatch.setattr(readouts.patching, "resid_sweep", _refuse)  # the interventions sweep
    monkeypatch.setattr(declaration, "build", _refuse)  # any view's figure
    for path, caption in (  # a line each page writes under its first figure
        ("pages/language_model.py", "Tokens are written as the model reads them"),
        ("pages/interventions_page.py", "the prompts differ"),
    ):
        at = open_page(path)
        no_exception(at)
        assert caption in shown(at), path
        assert at.get("plotly_chart"), path  # its figures drawn (from the caches)
    monkeypatch.undo()
    monkeypatch.setattr(dino_scene, "look_at", _refuse)  # the real ViT on a photo
    at = open_page("pages/vision_patches.py", {"vi_open_dino": "true"})
    no_exception(at)
    assert any("DINOv2" in c.value for c in at.caption)  # the section opened, its maps drawn


@pytest.mark.parametrize(
    ("written", "read"), [(None, "all"), ("light", "light"), (" OFF ", "off"), ("some", "all")]
)
def test_the_warm_up_is_chosen_by_its_variable(written, read):
    assert mode({} if written is None else {"ATTNVIZ_WARM_UP": written}) == read
