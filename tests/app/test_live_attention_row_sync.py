"""The self-attention live view's message back (issue 26): `row_value` accepts a whole query
patch of the current m (and of the `sa_i` slider's range) and refuses anything else a browser
could send, so a malformed message never moves the slider."""

from __future__ import annotations

import pytest

from attnviz.ui.parts.self_attention import row_value


@pytest.mark.parametrize(("raw", "m", "expected"), [(0, 4, 0), (3, 4, 3), (3.0, 4, 3), (7, 8, 7)])
def test_a_patch_of_the_input_is_taken(raw, m, expected):
    assert row_value(raw, m) == expected


@pytest.mark.parametrize(
    ("raw", "m"),
    [
        (4, 4),
        (-1, 4),
        (8, 9),
        (1.5, 4),
        (True, 4),
        (float("nan"), 4),
        (float("inf"), 4),
        ("2", 4),
        (None, 4),
    ],
)
def test_anything_else_is_refused(raw, m):
    assert row_value(raw, m) is None
