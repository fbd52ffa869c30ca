"""The README's table of what a scene's result holds (issue 43) is checked row by row against
the scenes themselves at their defaults: each array's rank, the numbers written in its shape, a
letter repeated within a page standing for one size (the text page's T in (T, D) and (H, T, T)),
and "rows sum to 1" where the row says so. The table is the documentation; this keeps it true."""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest
import torch

import attnviz as av
from tests.support.pages import ROOT

pytestmark = pytest.mark.slow
ROW = re.compile(r"^\| ([\w-]+) \| `(result[^`]*)` \| \(([^)]*)\) \| (.*) \|$")
STEP = re.compile(r'\.(\w+)|\["(\w+)"\]')


def table_rows() -> list[tuple[str, str, list[str], str]]:
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("<!-- scene arrays -->")[1].split("<!-- /scene arrays -->")[0]
    rows = []
    for line in block.strip().splitlines()[2:]:  # after the header and its rule
        found = ROW.match(line)
        assert found, f"a row the test cannot read: {line}"
        page, path, shape, what = found.groups()
        sizes = [s.strip() for s in shape.split(",") if s.strip()]
        rows.append((page, path, sizes, what))
    return rows


@cache
def result(page: str):
    return av.scene(page).result


def resolve(obj, path: str) -> np.ndarray:
    """`result.a.b` or `result["a"]` taken from `obj` (the scene's result)."""
    rest = path.removeprefix("result")
    assert STEP.sub("", rest) == "", path
    for attr, key in STEP.findall(rest):
        obj = getattr(obj, attr) if attr else obj[key]
    return obj.numpy() if isinstance(obj, torch.Tensor) else np.asarray(obj)


def test_the_table_covers_every_page_with_arrays_and_reads():
    pages = {row[0] for row in table_rows()}
    assert pages <= set(av.pages())
    assert {"text", "pretrained", "language-model", "soft-select"} <= pages


@pytest.mark.parametrize("page", sorted({row[0] for row in table_rows()}))
def test_every_row_of_a_page_is_its_scenes_array(page):
    letters: dict[str, int] = {}
    for _, path, sizes, what in [row for row in table_rows() if row[0] == page]:
        array = resolve(result(page), path)
        assert array.ndim == len(sizes), (path, array.shape, sizes)
        for size, got in zip(sizes, array.shape, strict=True):
            if size.isdigit():
                assert got == int(size), (path, array.shape, sizes)
            else:
                assert letters.setdefault(size, got) == got, (path, size, letters[size], got)
        if "rows sum to 1" in what:
            assert np.allclose(array.sum(-1), 1.0, atol=1e-4), path
