"""Read lessons from TOML files (lessons/*.toml), validating every value against the pages' tables.

A lesson file::

    title = "From database select to self-attention"
    summary = "One line: what the lesson shows."
    seeds = ["004", "001"]

    [[steps]]
    page = "<page url>"             # a page of attnviz.topics.registry with a scene, or its home
    title = "A nearly hard select"
    narration = '''
    Markdown with LaTeX: $\\alpha = \\mathrm{softmax}(qK^\\top/\\sqrt{d})$ …'''
    point_at = "the bar chart of the weights"     # optional
    figure = "2. Weights"           # optional: the start of that figure's title (or a heading's,
                                    # or a section's label): presenter mode scrolls to it
    views = ["weights"]             # the views the step's stage shows, by name (up to 3)
    controls = ["ss_temp"]          # optional: the page's widgets the stage shows too (up to 3)
    [steps.params]                  # only what the step changes; the rest keeps its default
    ss_temp = 0.05
    [steps.question]                # optional: predict, then reveal
    prompt = "Which fruit will the query pick?"
    options = []                    # empty for a computed answer: the live model gives them
    answer = "computed:top_key"
    explain = "Markdown shown on reveal."
    hides = ["weights"]             # optional: the views veiled until Reveal (default: all)
    trained = true                  # optional, training pages: Reveal shows the trained model
    kind = "words"                  # optional: typed on phones, "words" or "number" (lessons.typed)

Any error (TOML syntax, a missing or unknown key, an unknown page or parameter, a bad value, an
answer that is not among its options, too few or too many steps) raises LessonError naming the
file and the line. A question's options are shown in an order drawn from its prompt
(attnviz.topics.fair_options.fair_order), not as written: authors tend to write the answer first.

Computed answers (`answer = "computed:<name>"`, `options = []`): the answer, and the options
offered, come from the live model of the step's page, so the question works on the student's own
table or sentence too. The presenter implements each name:

- `computed:top_key` — soft-select: the name of the table row with the largest weight α_j for the
  current query, score function and temperature (options: every row's name); self-attention: the
  patch j (options "patch 0" … "patch m−1") that query row i = `sa_i` weights most in
  softmax(QKᵀ/√e) (with the page's mask and scaling).
- `computed:top_token` — text: the token the query token `ta_query` gives the largest weight in
  head `ta_head`; pretrained: the token `pe_query` weights most in layer `pe_layer`, head
  `pe_head` (with [CLS]/[SEP] hidden when `pe_hide`). Options: every token of the sentence shown
  (a repeated token counts once, by its text).
- `computed:attention_row` — predict the attention (text, pretrained, language model): the same
  head's row for the query token (the language model: the last token); every token is an option
  (a repeated one followed by its position, "the (7)"). In a live room, phones show the tokens
  side by side to tap; on Reveal the projector draws the class's taps beside the head's row.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from attnviz.lessons import typed
from attnviz.lessons.lines import SourceMap, syntax_line
from attnviz.lessons.model import (
    COMPUTED_PREFIX,
    FIGURE_HELP,
    FIGURE_MAX,
    HOME,
    MAX_STEPS,
    MIN_STEPS,
    Lesson,
    LessonError,
    Question,
    Step,
    computed_names,
    control_keys,
    page_names,
    tables,
)
from attnviz.lessons.values import BadValue, coerce, suggest
from attnviz.lessons.writer import step_toml
from attnviz.topics.fair_options import fair_order
from attnviz.topics.registry import scene

__all__ = ["LESSONS_DIR", "bundled_lessons", "load_lesson", "parse_lesson", "step_toml"]

# the checkout's lessons/, or in an installed wheel the copy in attnviz/_app/ (setup.py)
_PACKAGED = Path(__file__).resolve().parents[1] / "_app" / "lessons"
LESSONS_DIR = _PACKAGED if _PACKAGED.is_dir() else Path(__file__).resolve().parents[2] / "lessons"
MAX_CHARS = 200_000  # the bundled lessons are under 10,000 characters each
TOP_KEYS = ("title", "summary", "seeds", "steps")
STEP_KEYS = (
    "page",
    "title",
    "narration",
    "point_at",
    "figure",
    "views",
    "controls",
    "params",
    "question",
)
QUESTION_KEYS = ("prompt", "options", "answer", "explain", "hides", "trained", "kind")
VIEWS_MAX = 3  # views a step shows at once on a projector
# what a backslash starts in a basic string ("…"): LaTeX's \times, \beta, \frac, \rho, \nabla
ESCAPES = {"\t": "\\t", "\b": "\\b", "\f": "\\f", "\r": "\\r", "\n": "\\n"}
MATH = re.compile(r"\$[^$]*\$")  # a formula ($…$): where a TOML escape is never meant
ESCAPE_HELP = (
    "write LaTeX in a literal string ('…' or '''…''', where a backslash is a backslash) or "
    'double the backslash in "…"'
)


class _Reader:
    """The file's name and source map, to raise errors that name the line."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.src = SourceMap(text)
        self.lines = text.splitlines()

    def error(self, line: int | None, detail: str) -> LessonError:
        return LessonError(self.name, line, detail)

    def keys(self, table: dict, allowed: tuple[str, ...], where: str, line_of) -> None:
        """Fail on the first key of `table` that is not `allowed`."""
        for key in table:
            if key not in allowed:
                detail = f"unknown key {key!r} in {where}{suggest(key, allowed)}"
                raise self.error(line_of(key), f"{detail}; allowed: {', '.join(allowed)}")

    def string(self, table: dict, key: str, line: int | None, required: bool = True) -> str:
        """A string value (required: present and not blank)."""
        if key not in table:
            if required:
                raise self.error(line, f"missing {key!r}")
            return ""
        value = table[key]
        if not isinstance(value, str):
            raise self.error(line, f"{key!r} must be a string, not {type(value).__name__}")
        if required and not value.strip():
            raise self.error(line, f"{key!r} is empty")
        self.plain(value, key, line)
        return value

    def plain(self, value: str, key: str, line: int | None) -> None:
        """Fail on a formula that a basic string's escape has changed: "$4 \\times 2$" reads as a
        tab and "imes", "$\\nabla$" as a line break and "abla"."""
        source = self.lines[line - 1] if line and line <= len(self.lines) else ""
        multiline = '"""' in source or "'''" in source
        for math in MATH.findall(value):
            for char, escape in ESCAPES.items():
                if char in math and (char != "\n" or not multiline):
                    detail = f"{key!r} holds {escape} in a formula, read as an escape"
                    raise self.error(line, f"{detail}: {ESCAPE_HELP}")


def _steps_table(reader: _Reader, data: dict) -> list[dict]:
    steps = data.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise reader.error(reader.src.top_key("steps"), "no steps: add [[steps]] tables")
    if not MIN_STEPS <= len(steps) <= MAX_STEPS:
        line = reader.src.step(MAX_STEPS) if len(steps) > MAX_STEPS else None
        raise reader.error(line, f"{len(steps)} steps: a lesson has {MIN_STEPS} to {MAX_STEPS}")
    return steps


def _params(reader: _Reader, index: int, page: str, raw: Any) -> dict[str, Any]:
    """The step's parameters, typed, each checked by its page's table, then together."""
    line_of = lambda key: reader.src.in_step(index, key, "params")  # noqa: E731
    if not isinstance(raw, dict):
        raise reader.error(line_of(""), "params must be a table: [steps.params]")
    if page == HOME:
        if raw:
            raise reader.error(line_of(next(iter(raw))), "the home page has no parameters")
        return {}
    table = tables()[page]
    params = {}
    for key, value in raw.items():
        if key not in table:
            hint = suggest(key, table.keys)
            raise reader.error(line_of(key), f"unknown parameter {key!r} for page {page}{hint}")
        param = table[key]
        if not param.url:
            raise reader.error(
                line_of(key), f"{key!r} is not kept in the URL: a step cannot set it"
            )
        try:
            params[key] = coerce(param, value)
        except BadValue as err:
            detail = f"bad value {value!r} for {key!r} ({param.label}): {err}"
            raise reader.error(line_of(key), detail) from None
    for key, reason in scene(page).problems(table.defaults() | params):
        raise reader.error(line_of(key), f"{key!r} does not fit the step's other values: {reason}")
    return params


def _question(reader: _Reader, index: int, page: str, raw: Any) -> Question:
    line_of = lambda key: reader.src.in_step(index, key, "question")  # noqa: E731
    if not isinstance(raw, dict):
        raise reader.error(line_of(""), "question must be a table: [steps.question]")
    reader.keys(raw, QUESTION_KEYS, "a question", line_of)
    prompt = reader.string(raw, "prompt", line_of("prompt"))
    answer = reader.string(raw, "answer", line_of("answer"))
    options = raw.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
        raise reader.error(line_of("options"), "options must be an array of non-empty strings")
    if len(set(options)) != len(options):
        raise reader.error(line_of("options"), "an option is repeated")
    for option in options:
        reader.plain(option, "options", line_of("options"))
    if answer.startswith(COMPUTED_PREFIX):
        name = answer.removeprefix(COMPUTED_PREFIX)
        computed = computed_names()  # what each page's scene publishes (Scene.answer_names)
        if name not in computed:
            known = ", ".join(COMPUTED_PREFIX + n for n in computed)
            raise reader.error(line_of("answer"), f"unknown computed answer {answer!r}: {known}")
        if page not in computed[name]:
            pages = ", ".join(computed[name])
            raise reader.error(line_of("answer"), f"{answer!r} is computed on {pages} only")
        if options:
            raise reader.error(line_of("options"), "a computed answer takes no options: []")
    elif options and answer not in options:
        raise reader.error(line_of("answer"), f"answer {answer!r} is not one of the options")
    kind, offered = raw.get("kind", "choice"), {} if page == HOME else scene(page).typed_answers
    if (wrong := typed.problem(kind, answer, options, offered)) is not None:
        raise reader.error(line_of("kind" if "kind" in raw else "answer"), wrong)
    explain = reader.string(raw, "explain", line_of("explain"), required=False)
    hides = _names(reader, raw, "hides", line_of("hides")) if "hides" in raw else None
    trained = raw.get("trained", False)
    if not isinstance(trained, bool) or (trained and not scene(page).trains):
        raise reader.error(line_of("trained"), "trained = true is for a training page's step")
    shown = fair_order(options, prompt)  # not the written order: authors put the answer first
    return Question(prompt, shown, answer, explain, hides, trained, kind)


def _names(reader: _Reader, raw: dict, key: str, line: int | None) -> tuple[str, ...]:
    """A list of view names (`views`, a question's `hides`): identifiers, at most VIEWS_MAX."""
    names = raw.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise reader.error(line, f'{key!r} must be an array of view names, e.g. ["weights"]')
    bad = [n for n in names if not n.isidentifier()]
    if bad or len(names) > VIEWS_MAX or len(set(names)) != len(names):
        detail = f'{key!r} names up to {VIEWS_MAX} different views, each a name like "weights"'
        raise reader.error(line, detail)
    return tuple(names)


def _controls(reader: _Reader, page: str, raw: dict, line: int | None) -> tuple[str, ...]:
    """The step's `controls`: keys of its page's widgets the stage shows beside the views (a
    training page's run timeline is `<prefix>_timeline`), at most VIEWS_MAX."""
    keys = raw.get("controls", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise reader.error(line, "'controls' must be an array of widget keys, e.g. [\"ss_temp\"]")
    known = control_keys(page)
    for key in keys:
        if key not in known:
            hint = suggest(key, sorted(known))
            raise reader.error(line, f"'controls' names {key!r}, not a widget of {page!r}{hint}")
    if len(keys) > VIEWS_MAX or len(set(keys)) != len(keys):
        raise reader.error(line, f"'controls' names up to {VIEWS_MAX} different widgets")
    return tuple(keys)


def _figure(reader: _Reader, raw: dict, line: int | None) -> str:
    """The step's `figure`: one line of at most FIGURE_MAX characters (or "")."""
    figure = reader.string(raw, "figure", line, required=False).strip()
    if "\n" in figure or len(figure) > FIGURE_MAX:
        raise reader.error(
            line, f"'figure' names {FIGURE_HELP}: one line of at most {FIGURE_MAX} characters"
        )
    return figure


def _step(reader: _Reader, index: int, raw: dict) -> Step:
    line_of = lambda key: reader.src.in_step(index, key)  # noqa: E731
    reader.keys(raw, STEP_KEYS, f"step {index + 1}", line_of)
    page = reader.string(raw, "page", line_of("page"))
    if page not in page_names():
        hint = suggest(page, page_names())
        raise reader.error(line_of("page"), f"unknown page {page!r}{hint}")
    question = raw.get("question")
    step = Step(
        page=page,
        title=reader.string(raw, "title", line_of("title")),
        narration=reader.string(raw, "narration", line_of("narration")),
        params=_params(reader, index, page, raw.get("params", {})),
        point_at=reader.string(raw, "point_at", line_of("point_at"), required=False),
        figure=_figure(reader, raw, line_of("figure")),
        views=_names(reader, raw, "views", line_of("views")),
        controls=_controls(reader, page, raw, line_of("controls")),
        question=None if question is None else _question(reader, index, page, question),
        line=reader.src.step(index) or 0,
    )
    hides = step.question.hides if step.question is not None else None
    if hides is not None and not set(hides) <= set(step.views):
        line = reader.src.in_step(index, "hides", "question")
        raise reader.error(line, f"'hides' names views the step does not show: {list(step.views)}")
    return step


def parse_lesson(text: str, name: str = "lesson") -> Lesson:
    """The lesson a TOML text holds; `name` (a file name) is used in errors and as the slug.
    A byte-order mark (Windows Notepad writes one) is ignored; a text over MAX_CHARS characters
    or nested deeper than the parser can follow is refused with a message."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_CHARS:
        raise LessonError(
            name, None, f"the file is {len(text):,} characters; a lesson has at most {MAX_CHARS:,}"
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise LessonError(name, syntax_line(str(err), text), f"TOML syntax error: {err}") from None
    except RecursionError:
        raise LessonError(name, None, "arrays or tables nested too deeply to read") from None
    reader = _Reader(name, text)
    reader.keys(data, TOP_KEYS, "the lesson", reader.src.top_key)
    title = reader.string(data, "title", reader.src.top_key("title") or 1)
    summary = reader.string(data, "summary", reader.src.top_key("summary") or 1)
    seeds = data.get("seeds", [])
    if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
        raise reader.error(reader.src.top_key("seeds"), 'seeds must be strings: ["004", "001"]')
    steps = tuple(_step(reader, i, raw) for i, raw in enumerate(_steps_table(reader, data)))
    return Lesson(Path(name).stem, title, summary, tuple(seeds), steps)


def _display_name(path: Path) -> str:
    """The path as errors show it: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(LESSONS_DIR.parent))
    except ValueError:
        return str(path)


def load_lesson(path: Path) -> Lesson:
    """The lesson in a file (LessonError if it cannot be read or played)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise LessonError(_display_name(path), None, f"cannot read the file: {err}") from None
    return parse_lesson(text, _display_name(path))


def bundled_lessons() -> dict[str, Lesson]:
    """Every lesson in lessons/*.toml, by slug, in file-name order."""
    return {path.stem: load_lesson(path) for path in sorted(LESSONS_DIR.glob("*.toml"))}
