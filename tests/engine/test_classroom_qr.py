"""The students' link as a QR code: an SVG drawn offline whose size is the QR version's
(17 + 4 × version modules, plus a 4-module quiet zone), with the three finder patterns in their
corners, and different links give different codes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from attnviz.classroom import BadInput
from attnviz.classroom.qr import qr_svg

SVG = "{http://www.w3.org/2000/svg}"
# byte-mode capacity at error correction M (ISO/IEC 18004, table 7): versions 1 to 4
CAPACITY_M = {1: 14, 2: 26, 3: 42, 4: 62}


def dark_cells(svg: str) -> tuple[int, set[tuple[int, int]]]:
    """The viewBox side and the dark modules, read back from the path's h-runs (1 unit each)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    side = root.get("viewBox").split()
    assert side[:2] == ["0", "0"] and side[2] == side[3]
    path = [p for p in root.iter(f"{SVG}path") if p.get("stroke") == "#000"][0].get("d")
    x = y = 0.0
    cells = set()
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:\s(-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            cells |= {(int(x) + i, int(y)) for i in range(int(a))}
            x += float(a)
    return int(side[2]), cells


@pytest.mark.parametrize("length", [14, 26, 27, 42, 60])
def test_the_svg_has_the_versions_module_count_and_its_finder_patterns(length):
    url = ("http://hall.example/?room=ABC234&x=" + "y" * 60)[:length]
    version = min(v for v, cap in CAPACITY_M.items() if cap >= length)
    side, cells = dark_cells(qr_svg(url))
    modules = 17 + 4 * version
    assert side == modules + 8
    assert all(4 <= x < 4 + modules and 4 <= y < 4 + modules for x, y in cells)
    ring = {(i, j) for i in range(7) for j in range(7) if i in (0, 6) or j in (0, 6)}
    finder = ring | {(i, j) for i in range(2, 5) for j in range(2, 5)}
    for ox, oy in ((4, 4), (4 + modules - 7, 4), (4, 4 + modules - 7)):
        block = {(x - ox, y - oy) for x, y in cells if 0 <= x - ox < 7 and 0 <= y - oy < 7}
        assert block == finder
    assert len(cells) > 3 * len(finder)  # data too, not just the finders


def test_different_links_give_different_codes_and_bad_links_a_message():
    first, second = qr_svg("http://hall/?room=ABC234"), qr_svg("http://hall/?room=ABC235")
    assert first != second and dark_cells(first)[1] != dark_cells(second)[1]
    assert "room=" not in first  # the link is encoded, not written into the SVG
    for bad in ("", "   ", "x" * 1001, None):
        with pytest.raises(BadInput):
            qr_svg(bad)
