"""Where the first bundled lesson starts, read without loading any lesson: its slug and its
first step's page url, for the home page's "Start the first lesson" link.

Loading the lessons (attnviz.lessons.loader.bundled_lessons) checks every step against its page's
scene, which imports every topic (torch, scikit-learn: 2 s on a cold server). The home page is a
newcomer's first screen, so it reads the one value it links to from the first file's TOML
instead; tests/app/test_home.py checks the link against the loaded lessons."""

from __future__ import annotations

import tomllib

from attnviz.lessons.loader import LESSONS_DIR


def first_start() -> tuple[str, str]:
    """(slug, page url) of the first bundled lesson, in file-name order, and its first step."""
    path = sorted(LESSONS_DIR.glob("*.toml"))[0]
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return path.stem, str(data["steps"][0]["page"])
