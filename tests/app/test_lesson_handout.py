"""The handout: a lesson as one HTML file with one figure per step (the step's page run with
the step's settings), its Markdown and LaTeX rendered (MathML, nothing fetched; raw HTML stays
text), and its answers written out."""

from __future__ import annotations

import html
import re
import threading
import time

import pytest

from attnviz.lessons import rich_text
from attnviz.lessons.handout import handout_html, main, settle_threads, write_handout
from attnviz.lessons.loader import bundled_lessons, parse_lesson

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


def test_the_handout_has_one_figure_per_step_and_escapes_the_narration(tmp_path, monkeypatch):
    lesson = parse_lesson(LESSON, "two_steps.toml")
    out = tmp_path / "handout.html"
    started, here, start = [], threading.current_thread(), threading.Thread.start

    def recorded(thread):  # a thread still in torch when the interpreter exits aborts it (134)
        if threading.current_thread() is here:  # not another test's thread (xdist's, a pool's)
            started.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", recorded)
    assert write_handout(lesson, out) == 2
    assert started == [], "the build runs scenes in this thread (AppTest ran app.py's warm-up)"
    text = out.read_text(encoding="utf-8")
    assert text.count('class="plotly-graph-div"') == 2, "one figure per step"
    assert text.count("<section>") == 2
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;alert(1)" in text
    assert "<b>Answer:</b> one<br>" in text
    assert re.search(r"<b>Answer:</b> patch [0-2]<br>", text), "computed from the page's weights"
    assert text.count("* plotly.js v") == 1, "plotly.js embedded once: the file works offline"


TEXT_LESSON = (
    r"""
title = "Math and **bold**"
summary = "A *summary*."

[[steps]]
page = "home"
title = 'Step with $q$'
narration = '''A database **select** returns $\mathrm{select}(q, K, V) = """
    r"""\sum_j \mathrm{sim}(q, k_j)\, v_j$.

$$\sum_j \alpha_j = 1$$

A <script>alert(1)</script> and $\text{<script>alert(2)</script>}$ stay text.'''
point_at = 'the `weights` and $\alpha$'
[steps.question]
prompt = 'Is $T \to 0$ a **hard** select?'
options = ["yes", "no"]
answer = "yes"
explain = 'All weight on one key: $\alpha_j \in \{0, 1\}$.'
"""
)


def visible_text(markup: str) -> str:
    """What a reader sees outside math: tags and MathML removed (an independent strip)."""
    no_math = re.sub(r"<math\b.*?</math>", "", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", no_math))


def test_narration_questions_and_titles_render_markdown_and_math_offline():
    text = handout_html(parse_lesson(TEXT_LESSON, "text.toml"), [None])
    body = text.split("<body>", 1)[1]
    assert "<strong>select</strong>" in body and "<strong>hard</strong>" in body
    assert "<em>summary</em>" in body and "<code>weights</code>" in body
    # six formulas, written by hand above: q, select, the display sum, alpha, T -> 0, alpha_j
    assert body.count("<math ") == 6, body
    assert body.count('display="block"') == 1, "$$…$$ is a display formula"
    assert "<mi>q</mi>" in body and "<mo>→</mo>" in body and "<mo>∑</mo>" in body
    assert "$" not in visible_text(body) and "**" not in visible_text(body)
    assert "<script" not in body.lower() and "&lt;script&gt;alert(1)" in body
    assert "http" not in body, "no script, font or style fetched from anywhere"


def test_math_never_becomes_html_or_a_request():
    rendered = rich_text.markdown_html(
        r"$\text{<img src=x onerror=alert(1)>}$ $\style{background:url(http://x.test/a)}{a}$"
        r" $\href{javascript:alert(1)}{b}$ $a_{$ [c](javascript:alert(1)) <b>d</b>"
    )
    assert "<img" not in rendered and "<b>" not in rendered
    assert "url(" not in rendered and 'href="javascript' not in rendered
    assert "style=" not in rendered
    assert '<code class="tex">a_{</code>' in rendered, "a formula that does not parse: its source"


def test_every_formula_in_the_bundled_lessons_becomes_mathml():
    texts = []
    for lesson in bundled_lessons().values():
        texts += [lesson.title, lesson.summary]
        for step in lesson.steps:
            q = step.question
            texts += [step.title, step.narration, step.point_at or ""]
            texts += [q.prompt, q.explain, q.answer, *q.options] if q else []
    formulas = sum(len(re.findall(r"(?<!\\)\$(?!\$)", t)) for t in texts) // 2
    rendered = [rich_text.markdown_html(t) for t in texts]
    assert formulas > 100
    assert sum(r.count("<math ") for r in rendered) == formulas
    assert not [r for r in rendered if 'class="tex"' in r], "every formula converts"
    assert not [r for r in rendered if "$" in visible_text(r) or "**" in visible_text(r)]


def test_the_command_says_what_is_wrong_with_a_missing_lesson(tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "nope.toml"), str(tmp_path / "out.html")])
    assert "nope.toml" in str(stop.value) and "cannot read" in str(stop.value)
    assert not (tmp_path / "out.html").exists()


def test_the_command_waits_for_background_threads_before_exiting():
    done = threading.Event()
    quick = threading.Thread(
        target=lambda: time.sleep(0.2) or done.set(), name="quick", daemon=True
    )
    stuck = threading.Thread(target=threading.Event().wait, args=(1.0,), name="stuck", daemon=True)
    quick.start()
    stuck.start()
    left = settle_threads(timeout=0.5)  # (pytest's own daemon threads may be named too)
    assert "stuck" in left and "quick" not in left, left
    assert done.is_set() and not quick.is_alive()
