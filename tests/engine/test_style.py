"""The house style, met without packing lines (issue 37): product files ≤ 350 lines and functions
≤ 50, the line-length rule on at the formatter's width, and no line kept out of the formatter."""

from __future__ import annotations

import ast
import tomllib

from tests.support.pages import ROOT

PRODUCT = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
PRODUCT += sorted((ROOT / "attnviz").rglob("*.py"))
MAX_FILE, MAX_FUNCTION = 350, 50


def test_files_and_functions_are_small():
    big, long = [], []
    for path in PRODUCT:
        text = path.read_text()
        name = str(path.relative_to(ROOT))
        if len(text.splitlines()) > MAX_FILE:
            big.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION:
                    long.append(f"{name}:{node.name}: {lines} lines")
    assert big == [] and long == [], big + long
    assert len(PRODUCT) > 200


def test_the_line_length_rule_is_on_and_nothing_escapes_the_formatter():
    ruff = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert ruff["line-length"] == 100 and "E" in ruff["lint"]["select"]
    assert "E501" not in ruff["lint"].get("ignore", [])
    skipped = [str(p.relative_to(ROOT)) for p in PRODUCT if "fmt: " + "skip" in p.read_text()]
    assert skipped == []
