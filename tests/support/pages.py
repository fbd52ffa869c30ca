"""The app's pages, from the importable page table (attnviz.topics.registry)."""

from __future__ import annotations

from pathlib import Path

from attnviz.topics.registry import all_pages

ROOT = Path(__file__).resolve().parents[2]


def app_pages() -> list[tuple[str, str, str]]:
    """[(file, title, url path)] in navigation order."""
    return [(p.script, p.title, p.url) for p in all_pages()]
