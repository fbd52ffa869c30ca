"""What a step says, checked against what its stage shows: a step with `views` shows those views
and the controls it lists, and nothing else of its page, so its narration and pointer may name
only what is there.

- **A control the narration asks for** ("drag the timeline", "set $q$ back", "the head slider"):
  a verb that moves a widget followed by a control's name, or a control's name followed by a
  widget's noun. Its name is its label, without what is in brackets and after a comma, or the
  label's last word, or what comes before a one-letter symbol ("query q, dimension 1": "query
  q", "q" and "query"). It must be among the step's
  `controls`, or be moved by clicking a view on the stage (a view whose title says "click" and
  names the control: the soft-select key plane, the kernel page's fit).
- **The figure it points at** (`figure`): held by the title of one of the stage's views (case and
  spaces ignored), unless a view of the stage is drawn by its page (its title is not known here).
- **A view the narration or pointer names** by the lead of its title ("attention rollout",
  "ViT vs CNN": two words or more, 10 characters or more) that its stage does not show.
- **A decimal number it quotes** ("about −5.5"): shown on its stage, or a setting of the page
  (attnviz.lessons.numbers_check).

A step without views shows its whole page, and is not checked. Like attnviz.lessons.views_check,
this runs the step's scene: the Lessons page's checker and the suite call it.
"""

from __future__ import annotations

import re

from attnviz.lessons.model import Lesson, LessonError, Step, control_keys, tables
from attnviz.lessons.numbers_check import numbers_unshown
from attnviz.lessons.views_check import drawn_views

VERBS = (
    "drag|scrub|set|move|slide|raise|lower|switch|turn|toggle|type|pick|choose|change|tick|flip|"
    "nudge|increase|decrease"
)
NOUNS = "slider|box|toggle|switch|menu|selector|dropdown|checkbox|field|timeline"
SKIP = {"the", "a", "an", "of", "to", "in", "on", "by", "with", "and", "or", "for", "your", "as"}
VIEW_LEAD = 10  # characters a view title's lead needs before a narration naming it counts


def plain(text: str) -> str:
    """Lower-case text without Markdown marks, LaTeX commands or `$`, spaces collapsed."""
    text = re.sub(r"\$([^$]*)\$", lambda m: re.sub(r"\\[a-zA-Z]+|[{}_^\\]", " ", m.group(1)), text)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()


def control_names(label: str) -> set[str]:
    """The names a narration may call a control by: its label without brackets, up to a comma,
    and that label's last word."""
    base = plain(re.sub(r"\([^)]*\)", "", label).split(",")[0])
    words = [w for w in re.findall(r"[\w√]+", base) if w not in SKIP]
    if not words:
        return {base} - {""}
    names = {base, words[-1]}
    if len(words[-1]) == 1 and len(words) > 1:  # "temperature T": the temperature, or T
        names.add(" ".join(words[:-1]))
    return names


def controls_named(step: Step) -> dict[str, set[str]]:
    """{the words that ask for a control: the keys of the controls they may mean}."""
    table = tables()[step.page]
    labels = {param.key: param.label for param in table.params}
    timeline = f"{table.prefix}_timeline"
    if timeline in control_keys(step.page):
        labels[timeline] = "timeline"
    text = plain(f"{step.narration} \n {step.point_at}")
    found: dict[str, set[str]] = {}
    for key, label in labels.items():
        for name in control_names(label):
            n = re.escape(name)
            for pattern in (rf"\b(?:{VERBS})\s+(?:the\s+)?{n}\b", rf"\b{n}\s+(?:{NOUNS})\b"):
                for match in re.finditer(pattern, text):
                    found.setdefault(match.group(0), set()).add(key)
    return found


def missing_controls(step: Step, titles: dict[str, str | None]) -> list[str]:
    """The words that ask for a control the stage does not show (in order of the text)."""
    clickable = " | ".join(plain(t) for t in titles.values() if t and "click" in t.lower())
    labels = {param.key: param.label for param in tables()[step.page].params}
    missing = []
    for words, keys in controls_named(step).items():
        if keys & set(step.controls) or any(
            re.search(rf"\b{re.escape(name)}\b", clickable)
            for key in keys
            for name in clicked_names(labels.get(key, ""))
        ):
            continue
        missing.append(words)
    return missing


def clicked_names(label: str) -> set[str]:
    """What a view's title calls a control a click moves: its names, and its label's first word
    ("query q, dimension 1": "the query")."""
    first = plain(label).split(" ", 1)[0] if label else ""
    return control_names(label) | ({first} if first not in SKIP | {""} else set())


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", plain(text))


def figure_shown(step: Step, titles: dict[str, str | None]) -> bool:
    """Whether the step's `figure` is held by a title on its stage (True when unsure)."""
    if not step.figure or None in titles.values():
        return True
    return any(squeezed(step.figure) in squeezed(title) for title in titles.values())


def lead(title: str) -> str:
    """A title's lead: up to its first bracket, colon, comma or dash."""
    return re.split(r"[(:\[,;]| — | - ", plain(title))[0].strip()


def views_named(step: Step, others: dict[str, str | None]) -> list[str]:
    """The views not on the stage whose title's lead the narration or pointer says."""
    text = plain(f"{step.narration} \n {step.point_at}")
    named = []
    for name, title in others.items():
        said = lead(title or "")
        if len(said) >= VIEW_LEAD and " " in said and re.search(rf"\b{re.escape(said)}\b", text):
            named.append(f"{said!r} ({name})")
    return named


def stage_faults(step: Step) -> list[str]:
    """What the step's narration or pointer names that its stage does not show."""
    if not step.views:
        return []
    titles, others = drawn_views(step)
    faults = [
        f"it asks for {words!r}, a control its stage does not show: add it to 'controls'"
        for words in missing_controls(step, titles)
    ]
    if not figure_shown(step, titles):
        shown = "; ".join(f"{t!r}" for t in titles.values())
        faults.append(f"'figure' names {step.figure!r}, not a title on its stage: {shown}")
    faults += [
        f"it names the view {view}, which its stage does not show: add it to 'views'"
        for view in views_named(step, others)
    ]
    faults += [
        f"it quotes {number}, a number its stage does not show (no view writes or draws it, "
        "and no control is set to it)"
        for number in numbers_unshown(step)
    ]
    return faults


def check_stage(lesson: Lesson, name: str) -> None:
    """Raise LessonError, on the step's line, for the first step whose narration or pointer
    names a control, a figure or a view its stage does not show."""
    for step in lesson.steps:
        faults = stage_faults(step)
        if faults:
            raise LessonError(name, step.line, "; ".join(faults))
