"""Lessons (attnviz.lessons): the bundled files load and every step is a real, valid state of its
page that survives the URL; step_toml round-trips. Malformed files: test_lesson_errors.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from attnviz.lessons.fairness import unfair
from attnviz.lessons.loader import LESSONS_DIR, bundled_lessons, parse_lesson
from attnviz.lessons.model import LessonError, Step, computed_names, tables
from attnviz.lessons.stage_check import stage_faults
from attnviz.lessons.views_check import check_views, closed_views, unknown_views
from attnviz.lessons.writer import step_toml
from attnviz.topics.params import CHOICE_WIDGETS, RANGE_WIDGETS, Param
from attnviz.topics.registry import all_pages, scene

LESSONS = bundled_lessons()
STEPS = [(slug, i, step) for slug, lesson in LESSONS.items() for i, step in enumerate(lesson.steps)]
STEP_IDS = [f"{slug}-{i + 1}" for slug, i, _ in STEPS]
EXPECTED = {  # slug -> (seeds, the pages it may use)
    "01_select_to_self_attention": (("004", "001"), {"soft-select", "self-attention"}),
    "02_attention_as_a_kernel": (("000",), {"kernel-smoother"}),
    "03_tokens_positions_masks_heads": (("003",), {"text"}),
    "04_training_a_transformer": (("002", "003"), {"train-transformer"}),
    "05_inside_a_real_model": (("003",), {"pretrained"}),
    "06_from_rnns_to_attention": (("002",), {"recurrent", "self-attention"}),
    "07_attention_on_images": (("003", "004"), {"vision-patches", "captioning"}),
    "08_attention_at_scale": (("003",), {"attention-at-scale"}),
    "09_inside_a_language_model": (("003",), {"language-model"}),
    "10_finding_the_heads_that_answer": (("003",), {"interventions"}),
    "11_what_changed_since_2017": (("003",), {"attention-since-2017"}),
    "12_why_a_head_looks_there": (("003",), {"language-model"}),
    "13_one_block_of_a_real_model": (("004", "003"), {"real-block"}),
}
HEADER = 'title = "T"\nsummary = "S"\nseeds = ["004"]\n\n'


def test_the_bundled_lessons_ship_in_file_name_order():
    assert list(LESSONS) == list(EXPECTED)
    assert {p.stem for p in LESSONS_DIR.glob("*.toml")} == set(EXPECTED)


@pytest.mark.parametrize("slug", list(EXPECTED))
def test_a_bundled_lesson_follows_its_seeds_on_its_pages(slug):
    lesson = LESSONS[slug]
    seeds, pages = EXPECTED[slug]
    assert lesson.slug == slug and lesson.title.strip() and lesson.summary.strip()
    assert lesson.seeds == seeds
    assert 8 <= len(lesson.steps) <= 15
    assert {step.page for step in lesson.steps} <= pages
    asked = sum(step.question is not None for step in lesson.steps)
    assert len(lesson.steps) / 5 <= asked <= len(lesson.steps) / 2  # about a third
    lines = [step.line for step in lesson.steps]
    assert lines == sorted(lines) and lines[0] > 0 and len(set(lines)) == len(lines)


@pytest.mark.parametrize(("slug", "index", "step"), STEPS, ids=STEP_IDS)
def test_every_step_is_a_valid_state_of_a_real_page(slug, index, step):
    assert step.page in {p.url for p in all_pages()}
    table = tables()[step.page]
    assert step.params, "a step on a page with parameters should set some"
    for key, value in step.params.items():
        assert table[key].url and table[key].valid(value), (key, value)
    state = step.state()
    assert list(state) == table.keys
    assert all(table[key].valid(value) for key, value in state.items())
    assert scene(step.page).problems(state) == []
    sentences = len(
        re.findall(r"[.!?:](?=\s+[A-Z\"(*]|$)", re.sub(r"\$[^$]*\$", "x", step.narration))
    )
    assert 2 <= sentences <= 6, step.narration  # 2–5 sentences (a colon may start one more)


@pytest.mark.parametrize(("slug", "index", "step"), STEPS, ids=STEP_IDS)
def test_every_step_runs_on_its_scene_and_computes_its_answer(slug, index, step):
    """The step's settings run its page's scene (as the students' link opens it, without
    Streamlit), and a computed question gets its answer from that run, among its options."""
    page = scene(step.page)
    values = page.values(step.params)
    result, views = page.compute(values, only={page.main_view})
    assert views[page.main_view].data, "the step's main figure draws something"
    assert unknown_views(step) == [], "every view the step names is drawn by its page"
    assert closed_views(step) == {}, "no view the step names is in a section it leaves closed"
    assert stage_faults(step) == [], "its narration names only what its stage shows"
    name = step.question.computed if step.question is not None else None
    if name:
        found = page.answers(result, values)[name]
        assert found.answer in found.options and len(found.options) >= 2


@pytest.mark.parametrize(("slug", "index", "step"), STEPS, ids=STEP_IDS)
def test_a_steps_query_round_trips_through_the_url(slug, index, step):
    table = tables()[step.page]
    query = step.query()
    back = table.defaults()
    for key, text in query.items():
        value = table[key].from_url_text(text)
        assert value is not None, (key, text)
        assert value != table[key].default  # only values that differ from the default
        back[key] = value
    assert back == step.state()
    assert set(query) == {k for k, v in step.params.items() if v != table[k].default}


def test_questions_have_their_answer_among_the_options_or_computed_on_their_page():
    questions = [(s.page, s.question) for _, _, s in STEPS if s.question is not None]
    computed = {q.computed for _, q in questions} - {None}
    assert computed == set(computed_names())  # each name a scene publishes is used, and only those
    for page, q in questions:
        assert q.prompt.strip() and q.explain.strip()
        if q.computed:
            assert page in computed_names()[q.computed] and q.options == ()
        else:
            assert len(q.options) >= 2 and q.answer in q.options


def same_step(a: Step, b: Step) -> bool:
    return (a.page, a.title, a.narration, a.params) == (b.page, b.title, b.narration, b.params)


@pytest.mark.parametrize(("slug", "index", "step"), STEPS, ids=STEP_IDS)
def test_step_toml_reads_back_every_bundled_step(slug, index, step):
    block = step_toml(step.page, step.params, step.title, step.narration)
    back = parse_lesson(HEADER + block).steps[0]
    assert same_step(back, step) and back.query() == step.query()


def values(param: Param) -> st.SearchStrategy:
    """Every valid value of a parameter, as the page holds it."""
    if param.widget in CHOICE_WIDGETS:
        return st.sampled_from(param.choices)
    if param.widget == "pills":
        return st.sets(st.sampled_from(param.choices)).map(
            lambda s: tuple(c for c in param.choices if c in s)
        )
    if param.widget == "toggle":
        return st.booleans()
    if param.widget in RANGE_WIDGETS and isinstance(param.default, int):
        return st.integers(int(param.low), int(param.high))
    if param.widget in RANGE_WIDGETS:
        return st.floats(param.low, param.high)
    return texts


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
words = texts.filter(lambda s: s.strip())


@st.composite
def views(draw):
    """A page and a random state of it (some of its URL parameters set), as the app holds it."""
    page = draw(st.sampled_from(sorted(tables())))
    table = tables()[page]
    keys = draw(st.sets(st.sampled_from([p.key for p in table.params if p.url])))
    params = {key: draw(values(table[key])) for key in keys}
    assume(not scene(page).problems(table.defaults() | params))
    return page, params


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(views(), words, words)
def test_step_toml_round_trips_any_view(view, title, narration):
    page, params = view
    block = step_toml(page, params, title, narration)
    back = parse_lesson(HEADER + block).steps[0]
    assert same_step(back, Step(page, title, narration, params))


TRICKY = [
    "\nstarts on a new line",
    "ends with a quote'",
    "has ''' inside",
    'has """ and \\ and $\\alpha$',
    "tab\tand\r\nwindows",
    "control \x01 \x7f",
    "  padded  \n\n",
    "emoji 🙂 and ü",
]


@pytest.mark.parametrize("narration", TRICKY)
def test_step_toml_keeps_a_tricky_narration_exactly(narration):
    block = step_toml("soft-select", {"ss_temp": 0.05}, "t", narration)
    assert parse_lesson(HEADER + block).steps[0].narration == narration


def test_step_toml_leaves_out_what_the_url_does_not_keep():
    block = step_toml("train-transformer", {"tt_prompt": "hi", "tt_task": "sort"}, "t", "n")
    assert "tt_prompt" not in block
    assert parse_lesson(HEADER + block).steps[0].params == {"tt_task": "sort"}


def test_the_example_in_lessons_readme_is_a_valid_lesson():
    readme = (LESSONS_DIR / "README.md").read_text()
    example = re.search(r"```toml\n(.*?)```", readme, re.S).group(1)
    step = parse_lesson(example).steps[0]
    assert step.params == {"ss_q1": 0.9, "ss_temp": 0.05} and step.question is not None


def test_a_step_naming_a_view_its_page_does_not_draw_is_refused_on_its_line():
    """The checker runs the step's page: "weights" is a view of soft-select, "key_plane" too;
    "curves" is not (the soft-select page trains nothing), nor is a misspelt "weigths"."""
    text = HEADER + '[[steps]]\npage = "soft-select"\ntitle = "A"\nnarration = "One. Two."\n'
    good = parse_lesson(text + 'views = ["weights", "key_plane"]\n', "good.toml")
    check_views(good, "good.toml")
    for wrong in ("weigths", "ss_curves"):
        lesson = parse_lesson(text + f'views = ["weights", "{wrong}"]\n', "bad.toml")
        with pytest.raises(LessonError, match=rf"bad.toml, line 5: 'views' names \['{wrong}'\]"):
            check_views(lesson, "bad.toml")
    text = HEADER + '[[steps]]\npage = "text"\ntitle = "A"\nnarration = "One. Two."\n'
    folded = parse_lesson(text + 'views = ["pad0"]\n', "folded.toml")  # the padding section
    with pytest.raises(
        LessonError, match="line 5: 'views' names 'pad0', in a section .*ta_open_pad"
    ):
        check_views(folded, "folded.toml")
    check_views(parse_lesson(text + 'views = ["pad0"]\nparams = { ta_open_pad = true }\n'), "open")


def test_a_step_naming_the_mask_step_with_the_mask_off_is_refused():
    """Switched off, the mask step draws no matrix (it would be step 4's again): a stage showing
    only it would be empty, so the checker names it."""
    text = HEADER + '[[steps]]\npage = "self-attention"\ntitle = "A"\nnarration = "One. Two."\n'
    text += 'views = ["step_masked"]\n'
    check_views(parse_lesson(text + "params = { sa_causal = true }\n"), "on.toml")
    with pytest.raises(LessonError, match=r"off.toml, line 5: 'views' names \['step_masked'\]"):
        check_views(parse_lesson(text + "params = { sa_causal = false }\n", "off.toml"), "off.toml")


def test_a_step_naming_a_control_its_page_lacks_is_refused_on_its_line():
    text = HEADER + '[[steps]]\npage = "text"\ntitle = "A"\nnarration = "One. Two."\n'
    good = parse_lesson(text + 'controls = ["ta_vocab"]\n')
    assert good.steps[0].controls == ("ta_vocab",)
    with pytest.raises(LessonError, match=r"line 9: 'controls' names 'ta_vocb'.*ta_vocab"):
        parse_lesson(text + 'controls = ["ta_vocb"]\n', "bad.toml")
    with pytest.raises(LessonError, match=r"line 9: 'controls' names 'tt_timeline', not a widget"):
        parse_lesson(text + 'controls = ["tt_timeline"]\n', "bad.toml")  # another page's


def quoted_query(step: Step) -> str:
    """The token a top_token question asks about: the first "quoted" word of its prompt."""
    return re.search(r'"([^"]+)"', step.question.prompt).group(1).lower()


TOKEN_QUESTIONS = [
    s for _, _, s in STEPS if s.question and s.question.computed in ("top_token", "attention_row")
]


def test_a_text_question_asks_about_the_token_its_query_points_at():
    from attnviz.core.tokenizers import tokenize

    asked = [s for s in TOKEN_QUESTIONS if s.page == "text"]
    assert asked
    for step in asked:
        state = step.state()
        tokens = tokenize(state["ta_text"], state["ta_tok"]).tokens
        assert tokens[state["ta_query"]] == quoted_query(step)


@pytest.mark.slow
def test_a_pretrained_question_asks_about_the_token_its_query_points_at():
    """With the bundled MiniLM's own tokenizer ([CLS] first, as the page shows them)."""
    from transformers import AutoTokenizer

    from attnviz.topics.pretrained.model import bundled_path

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_path()), local_files_only=True)
    asked = [s for s in TOKEN_QUESTIONS if s.page == "pretrained"]
    assert asked
    for step in asked + [s for _, _, s in STEPS if s.page == "pretrained"]:
        state = step.state()
        ids = tokenizer(state["pe_text"])["input_ids"]
        tokens = tokenizer.convert_ids_to_tokens(ids)
        assert state["pe_query"] < len(tokens)
        if step in asked:
            assert tokens[state["pe_query"]] == quoted_query(step)


QUESTIONS = [(slug, n, step) for slug, n, step in STEPS if step.question is not None]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("slug", "n", "step"), QUESTIONS, ids=[f"{s}-{n}" for s, n, _ in QUESTIONS]
)
def test_a_question_step_does_not_give_its_answer_away(slug, n, step):
    """Before Reveal the class reads the step's title, narration and what to point at (the stage
    shows nothing else of the page): none may say the answer. A computed answer is the one the
    step's scene computes for its settings."""
    question = step.question
    assert unfair(step) == ""
    hides = step.views if question.hides is None else question.hides
    assert step.views and set(hides) <= set(step.views), "a question veils views it shows"
