"""Lessons (attnviz.lessons): a malformed lesson gets a LessonError naming the file and the
line (syntax, unknown page or parameter with a suggestion, bad value, answer not among the options,
missing narration, step count), in a small text and in mutated copies of the bundled files."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attnviz.lessons.loader import LESSONS_DIR, bundled_lessons, load_lesson, parse_lesson
from attnviz.lessons.model import HOME, LessonError, tables

LESSONS = bundled_lessons()
HEADER = 'title = "T"\nsummary = "S"\nseeds = ["004"]\n\n'


BASE = """title = "Bad"
summary = "S"
seeds = ["004"]

[[steps]]
page = "soft-select"
title = "One"
narration = '''
Two sentences. Here.'''
[steps.params]
ss_temp = 0.05
ss_score = "dot"
[steps.question]
prompt = "Which?"
options = ["a", "b"]
answer = "a"

[[steps]]
page = "self-attention"
title = "Two"
narration = "N."
[steps.params]
sa_m = 3
sa_i = 1
"""

BROKEN = [  # (replace this, by this, the line the error must name, what it must say)
    ("ss_temp = 0.05", "ss_temp = ", 11, "TOML syntax error"),
    (
        'page = "soft-select"',
        'page = "soft-selct"',
        6,
        "unknown page 'soft-selct' (did you mean 'soft-select'?)",
    ),
    (
        "ss_temp = 0.05",
        "ss_tmp = 0.05",
        11,
        "unknown parameter 'ss_tmp' for page soft-select (did you mean 'ss_temp'?)",
    ),
    (
        "ss_temp = 0.05",
        "ss_temp = 0.3",
        11,
        "bad value 0.3 for 'ss_temp' (temperature T): choose one of",
    ),
    ('ss_score = "dot"', "ss_score = 3", 12, "bad value 3 for 'ss_score'"),
    ('answer = "a"', 'answer = "c"', 16, "answer 'c' is not one of the options"),
    ('narration = "N."\n', "", 18, "missing 'narration'"),
    ('narration = "N."', 'narration = "  "', 21, "'narration' is empty"),
    ("sa_i = 1", "sa_i = 3", 24, "query patch 3 of m = 3 patches"),
    ("sa_m = 3", "sa_m = 2.5", 23, "a whole number is needed"),
    ("sa_m = 3", "sa_m = true", 23, "a number between 1 and 8 is needed"),
    ('answer = "a"', 'answer = "computed:top_token"', 16, "computed on text, pretrained only"),
    ('answer = "a"', 'answer = "computed:best"', 16, "unknown computed answer 'computed:best'"),
    ('answer = "a"', 'answer = "computed:top_key"', 15, "a computed answer takes no options"),
    ('options = ["a", "b"]', 'options = ["a", "a"]', 15, "an option is repeated"),
    ('answer = "a"', 'answer = "a"\nkind = "word"', 17, "kind must be one of 'choice', 'words'"),
    ('answer = "a"', 'answer = "a"\nkind = "words"', 17, 'kind "words" is typed: it takes no'),
    (
        'options = ["a", "b"]\nanswer = "a"',
        'options = []\nanswer = "12 o\'clock"\nkind = "number"',
        17,
        'kind "number" has the answer a number, not "12 o\'clock"',
    ),
    (
        'options = ["a", "b"]\nanswer = "a"',
        'options = []\nanswer = "computed:top_key"\nkind = "words"',
        17,
        'kind "words" has the answer none on this page, not',
    ),
    ('answer = "a"', 'answer = "a"\ntrained = true', 17, "trained = true is for a training page"),
    ('page = "self-attention"', 'page = "home"', 23, "the home page has no parameters"),
    ('title = "Two"', 'titel = "Two"', 20, "unknown key 'titel' in step 2 (did you mean 'title'?)"),
    ('prompt = "Which?"', 'promt = "Which?"', 14, "unknown key 'promt' in a question"),
    ('seeds = ["004"]', 'seeds = "004"', 3, "seeds must be strings"),
    (
        'summary = "S"',
        'summery = "S"',
        2,
        "unknown key 'summery' in the lesson (did you mean 'summary'?)",
    ),
]


@pytest.mark.parametrize(("old", "new", "line", "says"), BROKEN, ids=[b[3][:30] for b in BROKEN])
def test_a_malformed_lesson_names_its_line(old, new, line, says):
    assert old in BASE
    parse_lesson(BASE)  # the unbroken text is a valid lesson
    with pytest.raises(LessonError) as caught:
        parse_lesson(BASE.replace(old, new, 1), "lessons/bad.toml")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"lessons/bad.toml, line {line}: ")
    assert says in str(caught.value)


def test_a_number_question_may_write_its_answer():
    typed = BASE.replace(
        'options = ["a", "b"]\nanswer = "a"', 'options = []\nanswer = "0.25"\nkind = "number"'
    )
    question = parse_lesson(typed).steps[0].question
    assert (question.kind, question.answer, question.typed) == ("number", "0.25", True)


def test_too_few_and_too_many_steps():
    with pytest.raises(LessonError, match="no steps"):
        parse_lesson(HEADER)
    one = '[[steps]]\npage = "home"\ntitle = "t"\nnarration = "n"\n\n'
    assert len(parse_lesson(HEADER + one * 30).steps) == 30
    with pytest.raises(LessonError) as caught:
        parse_lesson(HEADER + one * 31)
    assert caught.value.line == 5 + 5 * 30 and "31 steps" in str(caught.value)


def test_a_step_cannot_set_what_the_url_does_not_keep():
    text = HEADER + '[[steps]]\npage = "train-transformer"\ntitle = "t"\nnarration = "n"\n'
    with pytest.raises(LessonError, match="'tt_prompt' is not kept in the URL") as caught:
        parse_lesson(text + '[steps.params]\ntt_prompt = "hi"\n')
    assert caught.value.line == 10


def test_values_are_typed_as_the_widgets_hold_them():
    text = HEADER + '[[steps]]\npage = "text"\ntitle = "t"\nnarration = "n"\n[steps.params]\n'
    step = parse_lesson(text + "ta_hv_heads = [2, 0]\nta_temp = 2\nta_d = 64\n").steps[0]
    assert step.params == {"ta_hv_heads": (0, 2), "ta_temp": 2.0, "ta_d": 64}
    assert isinstance(step.params["ta_temp"], float) and step.query()["ta_temp"] == "2.0"
    step = parse_lesson(HEADER + BASE.split("\n\n", 1)[1].replace("0.05", "1")).steps[0]
    assert step.params["ss_temp"] == 1.0 and isinstance(step.params["ss_temp"], float)
    for bad in ("ta_d = true", "ta_scaled = 1", "ta_hv_heads = [0, 0]", "ta_text = 3"):
        with pytest.raises(LessonError, match="line 10: bad value"):
            parse_lesson(text + bad + "\n")


def test_a_home_step_has_an_empty_state():
    text = HEADER + '[[steps]]\npage = "home"\ntitle = "t"\nnarration = "n"\n'
    step = parse_lesson(text).steps[0]
    assert step.page == HOME and step.state() == {} and step.query() == {} and step.line == 5


def test_load_lesson_names_the_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(BASE.replace("ss_temp", "ss_tmp"))
    with pytest.raises(LessonError) as caught:
        load_lesson(path)
    assert str(caught.value).startswith(f"{path}, line 11: unknown parameter 'ss_tmp'")
    path.write_text(BASE)
    assert load_lesson(path).slug == "mine"


def param_lines(text: str) -> list[tuple[int, str]]:
    """(line number, key) of every `key = value` line inside a [steps.params] table."""
    found, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("["):
            inside = line.strip() == "[steps.params]"
        elif inside and (m := re.match(r"(\w+) = ", line)):
            found.append((number, m.group(1)))
    return found


BUNDLED_TEXTS = {path.stem: path.read_text() for path in sorted(LESSONS_DIR.glob("*.toml"))}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BUNDLED_TEXTS)), st.data())
def test_a_misspelt_parameter_in_a_bundled_lesson_is_named_on_its_line(slug, data):
    text = BUNDLED_TEXTS[slug]
    number, key = data.draw(st.sampled_from(param_lines(text)))
    lines = text.splitlines()
    lines[number - 1] = lines[number - 1].replace(key, key + "x", 1)
    with pytest.raises(LessonError) as caught:
        parse_lesson("\n".join(lines), f"lessons/{slug}.toml")
    assert caught.value.line == number
    assert f"unknown parameter '{key}x'" in str(caught.value) and f"'{key}'" in str(caught.value)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BUNDLED_TEXTS)), st.data())
def test_a_bad_value_in_a_bundled_lesson_is_named_on_its_line(slug, data):
    text = BUNDLED_TEXTS[slug]
    number, key = data.draw(st.sampled_from(param_lines(text)))
    lines = text.splitlines()
    assume('"""' not in lines[number - 1])  # a value over several lines
    page = [step.page for step in LESSONS[slug].steps if step.line < number][-1]
    bad = "[1.5]" if tables()[page][key].widget in ("text_input", "text_area") else '"nonsense"'
    lines[number - 1] = f"{key} = {bad}"
    with pytest.raises(LessonError, match=f"line {number}: bad value .* for '{key}'"):
        parse_lesson("\n".join(lines), f"lessons/{slug}.toml")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(BUNDLED_TEXTS)), st.data())
def test_a_syntax_error_in_a_bundled_lesson_is_named_on_its_line(slug, data):
    headers = [step.line for step in LESSONS[slug].steps]
    number = data.draw(st.sampled_from(headers))
    lines = BUNDLED_TEXTS[slug].splitlines()
    lines.insert(number - 1, "this line is not toml")
    with pytest.raises(LessonError, match=f"line {number}: TOML syntax error"):
        parse_lesson("\n".join(lines))


def test_a_deeply_nested_file_is_refused_quickly_with_a_message():
    """Repro (issue 24): `a = [[[[…` 50,000 deep raised RecursionError through the page."""
    import time

    nested = "a = " + "[" * 50_000 + "]" * 50_000
    started = time.perf_counter()
    with pytest.raises(LessonError, match="nested too deeply"):
        parse_lesson(nested, "deep.toml")
    assert time.perf_counter() - started < 2


def test_a_file_too_long_to_be_a_lesson_is_refused():
    with pytest.raises(LessonError, match="at most 200,000"):
        parse_lesson("# " + "x" * 200_000, "long.toml")


def test_a_byte_order_mark_is_ignored():
    """Windows Notepad saves UTF-8 with a BOM; it was refused as a syntax error at line 1."""
    text = (LESSONS_DIR / "01_select_to_self_attention.toml").read_text(encoding="utf-8")
    assert parse_lesson("\ufeff" + text, "bom.toml") == parse_lesson(text, "bom.toml")


@pytest.mark.parametrize(
    ("field", "latex", "escape"),
    [
        ("explain", r"$4 \times 2$", r"\t"),  # lesson 08 step 4 read "4imes2" before the check
        ("prompt", r"$\beta$?", r"\b"),
        ("explain", r"$\frac{1}{2}$", r"\f"),
        ("explain", r"$\rho$", r"\r"),
        ("explain", r"$\nabla f$", r"\n"),
    ],
)
def test_latex_in_a_basic_string_is_refused_on_its_line(field, latex, escape):
    """A backslash in "…" starts a TOML escape: the lesson says so instead of showing a tab."""
    text = BASE.replace('options = ["a", "b"]', f'options = ["a", "b"]\n{field} = "{latex}"', 1)
    if field == "prompt":
        text = text.replace('prompt = "Which?"\n', "", 1)
    line = text.splitlines().index(f'{field} = "{latex}"') + 1
    with pytest.raises(LessonError) as err:
        parse_lesson(text, "escapes.toml")
    assert err.value.line == line and escape in err.value.detail, err.value
    literal = text.replace(f'{field} = "{latex}"', f"{field} = '{latex}'")
    question = parse_lesson(literal, "escapes.toml").steps[0].question
    assert latex in (question.prompt, question.explain)  # the backslash reaches the formula
