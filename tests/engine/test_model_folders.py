"""Model folders only inside the allowed roots (issue 24): the bundled model's package folder and
the folders in ATTNVIZ_MODEL_DIRS. Every folder outside them, whether it holds a real model, is
empty, missing, unreadable, a file, or reached through `..` or a symlink, gets one identical
message, so the messages tell a stranger nothing about the server's folders; inside a root a tiny
model still loads. A Hub name is read from the Hugging Face cache only, never as a folder
relative to the server's working directory. User text in a message is a code span."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from attnviz.topics.pretrained.model import bundled_path, load
from attnviz.topics.pretrained.sources import ENV, SourceError, literal, locate
from attnviz.topics.vision_patches.pretrained_vit import load_vit
from tests.engine.test_pretrained_sources import tiny_gpt2


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """root/gpt2: a tiny model inside the root-to-be; outside/gpt2: the same model outside it;
    outside/empty, outside/locked (mode 000, holding a config.json), cwd/owner/tiny: a model
    where a Hub-like name would find it relative to the working directory."""
    base = tmp_path_factory.mktemp("model_folders")
    tiny_gpt2(base / "root" / "gpt2")
    shutil.copytree(base / "root" / "gpt2", base / "outside" / "gpt2")
    shutil.copytree(base / "root" / "gpt2", base / "cwd" / "owner" / "tiny")
    (base / "root" / "sub").mkdir()
    (base / "outside" / "empty").mkdir()
    (base / "outside" / "locked").mkdir()
    (base / "outside" / "locked" / "config.json").write_text("{}")
    (base / "outside" / "locked").chmod(0)
    (base / "root" / "escape").symlink_to(base / "outside" / "gpt2", target_is_directory=True)
    (base / "root" / "inner").symlink_to(base / "root" / "gpt2", target_is_directory=True)
    (base / "root_link").symlink_to(base / "root", target_is_directory=True)
    yield base
    (base / "outside" / "locked").chmod(0o755)  # so pytest can clean up


@pytest.fixture
def allowed(place, monkeypatch) -> Path:
    """The root `place/root` is the one allowed folder besides the bundled model's."""
    monkeypatch.setenv(ENV, str(place / "root"))
    return place / "root"


def outside_paths(place: Path) -> list[str]:
    root, out = place / "root", place / "outside"
    return [
        str(out / "gpt2"),  # a real, loadable model
        str(out / "empty"),  # an existing folder without config.json
        str(out / "missing"),  # nothing there
        str(out / "locked"),  # unreadable (mode 000; root reads it anyway, still outside)
        str(out / "gpt2" / "config.json"),  # a file
        f"{root}/../outside/gpt2",  # `..` out of the root: the text starts with the root
        f"{root}/sub/../../outside/missing",
        str(root / "escape"),  # a symlink inside the root to a model outside it
        str(root / "escape" / "config.json"),
        f"{root}x",  # a sibling whose name starts with the root's
        "/etc",
        "/etc/passwd",
        "/",
        "~",
        "/tmp/a\x00b",  # a NUL character
        "./gpt2",  # relative to the working directory
        "not a hub name!",
    ]


def test_every_folder_outside_the_roots_gets_one_identical_message(place, allowed):
    messages = set()
    for typed in outside_paths(place):
        with pytest.raises(SourceError) as err:
            locate(typed)
        messages.add(str(err.value))
    assert len(messages) == 1, messages
    (message,) = messages
    assert "ATTNVIZ_MODEL_DIRS" in message
    for hint in ("outside", "gpt2", "etc", "exist", "config.json", "ermission", "file"):
        assert hint not in message, hint  # nothing about the path or what is there


def test_a_folder_the_server_may_not_read_gets_the_same_message(place, allowed, monkeypatch):
    """Tests run as root, who reads a mode-000 folder anyway: here every lstat/stat under
    outside/locked fails with EACCES, as it does for the server's own user."""
    real_lstat, real_stat = os.lstat, os.stat

    def denied(real):
        def call(path, *args, **kwargs):
            if "locked" in os.fspath(path):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)

        return call

    messages = set()
    with monkeypatch.context() as denying:
        denying.setattr(os, "lstat", denied(real_lstat))
        denying.setattr(os, "stat", denied(real_stat))
        for typed in (place / "outside" / "locked", place / "outside" / "locked" / "x"):
            with pytest.raises(SourceError) as err:
                locate(str(typed))
            messages.add(str(err.value))
    with pytest.raises(SourceError) as missing:  # the message for a missing folder, stat as is
        locate(str(place / "outside" / "missing"))
    assert messages == {str(missing.value)}


def test_the_loaders_of_both_pages_give_the_same_message(place, allowed):
    """The pretrained page's load and the vision page's load_vit refuse alike, a real model
    outside the roots exactly as a missing folder."""
    seen = set()
    for typed in (str(place / "outside" / "gpt2"), str(place / "outside" / "missing")):
        for loader in (load, load_vit):
            with pytest.raises(SourceError) as err:
                loader(typed)
            seen.add(str(err.value))
    assert len(seen) == 1, seen


def test_a_tiny_model_inside_a_root_still_loads(place, allowed):
    model = load(str(allowed / "gpt2"))
    assert (model.n_layers, model.n_heads) == (2, 2)
    assert model.extract("the cat sat").attentions.shape[:2] == (2, 2)
    for typed in (f"{allowed}/sub/../gpt2", str(allowed / "inner")):  # `..` and a symlink inside
        assert locate(typed).folder == os.path.realpath(allowed / "gpt2")


def test_a_root_named_through_a_symlink_and_several_roots(place, monkeypatch):
    elsewhere = place / "outside" / "empty"
    monkeypatch.setenv(ENV, f"{elsewhere}{os.pathsep}{place / 'root_link'}")
    assert locate(str(place / "root_link" / "gpt2")).folder == os.path.realpath(
        place / "root" / "gpt2"
    )
    assert locate(str(place / "root" / "gpt2")).folder == os.path.realpath(place / "root" / "gpt2")
    with pytest.raises(SourceError, match="has no config.json"):  # the first root, inside it
        locate(str(elsewhere))


def test_empty_and_relative_entries_never_make_the_working_directory_a_root(place, monkeypatch):
    monkeypatch.chdir(place / "outside")
    monkeypatch.setenv(ENV, f"{os.pathsep}.{os.pathsep}gpt2{os.pathsep}")
    with pytest.raises(SourceError) as relative:
        locate("./gpt2")
    monkeypatch.delenv(ENV)
    with pytest.raises(SourceError) as unset:
        locate(str(place / "outside" / "gpt2"))
    assert str(relative.value) == str(unset.value)
    assert "ATTNVIZ_MODEL_DIRS" in str(unset.value)


def test_the_bundled_models_folder_is_always_allowed(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert locate(str(bundled_path())).folder == os.path.realpath(bundled_path())


@pytest.fixture
def hub_cache(place, monkeypatch) -> Path:
    """An empty Hugging Face cache for this test (the real one is left alone)."""
    import huggingface_hub.constants

    cache = place / f"hub_{time.monotonic_ns()}"
    cache.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache


def test_a_hub_like_name_is_never_read_as_a_folder_under_the_working_directory(
    place, hub_cache, monkeypatch
):
    """Repro: with cwd/owner/tiny on the server, load('owner/tiny') loaded that folder (and
    'owner/empty' said 'could not load the model in ...'), so a link could probe relative
    folders. Now both are Hub names missing from the cache, with the same message."""
    monkeypatch.chdir(place / "cwd")
    messages = []
    for name in ("owner/tiny", "owner/nothing"):
        started = time.perf_counter()
        with pytest.raises(SourceError) as err:
            load(name)
        assert time.perf_counter() - started < 2.0  # a cache lookup: nothing waits on a network
        messages.append(str(err.value).replace(name, "NAME"))
    assert messages[0] == messages[1]
    assert messages[0].startswith("`NAME` is not in the local Hugging Face cache")


def test_a_hub_name_in_the_local_cache_still_loads(place, hub_cache, monkeypatch):
    """As before: a Hub name downloaded once loads offline, from its cached snapshot."""
    snapshot = hub_cache / "models--owner--tiny" / "snapshots" / "0123abc"
    shutil.copytree(place / "root" / "gpt2", snapshot)
    (hub_cache / "models--owner--tiny" / "refs").mkdir()
    (hub_cache / "models--owner--tiny" / "refs" / "main").write_text("0123abc")
    monkeypatch.chdir(place / "outside")  # no roots matter for a Hub name
    monkeypatch.delenv(ENV, raising=False)
    model = load("owner/tiny")
    assert (model.name, model.n_layers, model.n_heads) == ("owner/tiny", 2, 2)


def code_spans(markdown: str) -> list[tuple[str, str]]:
    """(type, content) of the inline tokens CommonMark makes of `markdown`."""
    blocks = MarkdownIt("commonmark").parse(markdown)
    return [(c.type, c.content) for b in blocks for c in (b.children or [])]


@pytest.mark.parametrize(
    ("typed", "content"),
    [
        ("http://example.com/x", "http://example.com/x"),
        ("www.example.com", "www.example.com"),
        ("![x](http://example.com/a.png)", "![x](http://example.com/a.png)"),
        ("<a href='http://e.com'>y</a>", "<a href='http://e.com'>y</a>"),
        ("me@example.com $x$ *b* :red[z]", "me@example.com $x$ *b* :red[z]"),
        ("a`b``c", "a'b''c"),  # a backtick cannot close the span early
        ("line\nbreak\x00\x1b", "line·break··"),
        ("y" * 130, "y" * 120 + "…"),
    ],
)
def test_user_text_is_one_code_span_that_shows_it(typed, content):
    """The whole of literal(text) is a single code span (nothing outside it to become a link
    or markup) whose content is the text, with the replacements written out here."""
    assert code_spans(literal(typed)) == [("code_inline", content)]
