"""The handout: a lesson as one HTML file with one figure per step (the step's page run with
the step's settings), its narration escaped, and its answers written out."""

from __future__ import annotations

import re

from attnviz.ui.lesson_handout import write_handout
from attnviz.ui.lessons.loader import parse_lesson

LESSON = """
title = "Two steps"
summary = "A handout test."
seeds = ["004"]

[[steps]]
page = "soft-select"
title = "Nearly a hard select"
narration = '''A <script>alert(1)</script> cannot run here. At $T = 0.05$ one weight is about 1.'''
point_at = "the weight bars"
[steps.params]
ss_temp = 0.05
[steps.question]
prompt = "How many weights are near 1?"
options = ["one", "all five"]
answer = "one"

[[steps]]
page = "self-attention"
title = "Three patches"
narration = '''Every matrix with its shape.'''
[steps.params]
sa_m = 3
[steps.question]
prompt = "Which patch will query 0 weigh most?"
options = []
answer = "computed:top_key"
"""


def test_the_handout_has_one_figure_per_step_and_escapes_the_narration(tmp_path):
    lesson = parse_lesson(LESSON, "two_steps.toml")
    out = tmp_path / "handout.html"
    assert write_handout(lesson, out) == 2
    text = out.read_text(encoding="utf-8")
    assert text.count('class="plotly-graph-div"') == 2, "one figure per step"
    assert text.count("<section>") == 2
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;alert(1)" in text
    assert "<b>Answer:</b> one<br>" in text
    assert re.search(r"<b>Answer:</b> patch [0-2]<br>", text), "computed from the page's weights"
    assert text.count("* plotly.js v") == 1, "plotly.js embedded once: the file works offline"
