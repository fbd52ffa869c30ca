"""The app's pages, read from the PAGES table in app.py (the one source of truth)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def app_pages() -> list[tuple[str, str, str]]:
    """[(file, title, url path)] in navigation order, parsed from app.py without running it."""
    tree = ast.parse((ROOT / "app.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PAGES" for t in node.targets
        ):
            table = ast.literal_eval(node.value)
            return [
                (path, title, url) for entries in table.values() for path, title, url, *_ in entries
            ]
    raise AssertionError("app.py has no PAGES table")
