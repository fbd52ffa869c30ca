"""A link that names a model (issue 24): `?pe_model=...` may name a folder only inside the
allowed roots (ATTNVIZ_MODEL_DIRS), and the message shown for a bad one never makes a link or
markup of what the link holds (the audit's `?pe_model=...http://example...` rendered the URL as
a clickable link: Streamlit's Markdown (GFM) links a bare URL in text even when its characters
are backslash-escaped). The shown message is parsed as CommonMark here, and no text node of it
may hold what GFM turns into a link; user text may appear only inside code spans."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from tests.engine.test_pretrained_sources import tiny_gpt2
from tests.support.apptest import figures, no_exception, open_page, training_page_fixture

PAGE = "pages/pretrained_page.py"
vision_page = training_page_fixture("pages/vision_patches.py", "vi")  # Reset in teardown
# what GFM's literal autolinks match in a text node (mdast-util-gfm-autolink-literal)
AUTOLINK = re.compile(r"https?://|www\.|mailto:|xmpp:|[\w.+-]+@[\w-]+\.\w", re.IGNORECASE)


def assert_no_link_or_markup(body: str) -> None:
    """`body` (an st.error's Markdown) makes no link, image or HTML, and its text outside code
    spans holds nothing GFM would turn into a link."""
    assert "](" not in body and "<a" not in body.lower(), body
    blocks = MarkdownIt("commonmark").parse(body)
    assert not any(b.type == "html_block" for b in blocks), body
    inline = [c for b in blocks for c in (b.children or [])]
    assert not {c.type for c in inline} & {"link_open", "image", "html_inline"}, body
    texts = [c.content for c in inline if c.type == "text"]
    assert not any(AUTOLINK.search(t) for t in texts), texts


def shown_error(query: dict) -> str:
    at = open_page(PAGE, query)
    no_exception(at)
    (error,) = at.error
    return error.value


@pytest.mark.parametrize(
    "value",
    [
        "...http://example.com/x...",  # the audit's repro
        "/![x](http://example.com/a.png)",
        "<a href='http://example.com'>x</a>",
        "me@example.com",
        "~/../../http://example.com",
    ],
)
def test_a_link_naming_a_folder_shows_one_message_without_a_link(value, monkeypatch, tmp_path):
    """Outside the roots: the one refusal, which does not repeat the link's text at all."""
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))
    body = shown_error({"pe_model": value})
    assert_no_link_or_markup(body)
    assert "example" not in body and "opens a model folder only inside" in body
    assert body.endswith("Leave the model box empty for the bundled MiniLM.")


@pytest.mark.parametrize("value", ["www.example.com", "owner/www.example.com"])
def test_a_hub_name_that_looks_like_a_web_address_is_shown_as_code(value):
    """A Hub name is repeated in the message (not in the cache): as a code span only."""
    body = shown_error({"pe_model": value})
    assert_no_link_or_markup(body)
    assert f"`{value}` is not in the local Hugging Face cache" in body


def test_a_link_may_name_a_model_only_inside_the_roots(monkeypatch, tmp_path):
    """The same tiny model: drawn from inside the root, refused from outside it."""
    tiny_gpt2(tmp_path / "root" / "gpt2")
    tiny_gpt2(tmp_path / "outside" / "gpt2")
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path / "root"))
    at = open_page(PAGE, {"pe_model": str(tmp_path / "root" / "gpt2")})
    no_exception(at)
    assert not at.error
    assert any(f["layout"]["title"]["text"].startswith("Model view") for f in figures(at))
    refused = shown_error({"pe_model": str(tmp_path / "outside" / "gpt2")})
    missing = shown_error({"pe_model": str(tmp_path / "outside" / "missing")})
    assert refused == missing and "opens a model folder only inside" in refused


@pytest.mark.parametrize("value", ["www.example.com", "...http://example.com/x..."])
def test_the_vision_pages_vit_box_shows_no_link(vision_page, value, monkeypatch, tmp_path):
    """The vision page's real-ViT box: a Hub-like name (repeated, as code) or a folder outside
    the roots (the one refusal)."""
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))
    at = vision_page({"vi_open_real": "true"})
    at.text_input(key="vi_real_path").set_value(value).run()
    no_exception(at)
    (error,) = at.error
    assert_no_link_or_markup(error.value)
    assert ("`www.example.com` is not in" in error.value) == (value == "www.example.com")
