"""What the trained model's tools check before they run: that a loaded model fits the page's
task, and what the user typed (tokens, the characters the vocabulary lacks, which output rows
are the task's answer)."""

from __future__ import annotations

from attnviz.data.tasks import SequenceTask
from attnviz.models.transformer import TransformerConfig

TEXT_TASKS = ("next_char", "fill_blank")  # one token a character, the space included

# which rows of "Your input" the task scores (the others were never trained)
ANSWER_ROWS = {
    "reverse": "Every row is scored: output i should be input T−1−i.",
    "sort": "Every row is scored: the outputs should be the inputs in increasing order.",
    "copy": "Only the rows from '|' on are the answer (each should be the next digit of the "
    "copy); the rows before it predict random digits and were never scored.",
    "modular_addition": "Only the last row is the answer: the output at '=' should be "
    "(a + b) mod p. The other rows were never trained and mean nothing.",
    "next_char": "Each row's output is the model's guess of the character after it.",
    "fill_blank": "Only the row of '_' is the answer: the character hidden there. The other "
    "rows were never trained and mean nothing.",
}


def fit_problems(config: TransformerConfig, extra: dict, task: SequenceTask) -> list[str]:
    """Why a loaded model (its config and the checkpoint's other fields, `extra`, where
    save_model puts {"task": the TaskSpec as a dict}) cannot run on `task`; [] if it can."""
    problems = []
    trained = extra.get("task") if isinstance(extra.get("task"), dict) else {}
    name = trained.get("name")
    if name is not None and name != task.spec.name:
        problems.append(
            f"it was trained for the task {str(name)[:40]!r}, "
            f"this page's task is {task.spec.name!r}"
        )
    if config.vocab_size != len(task.vocab):
        problems.append(
            f"its vocabulary has {config.vocab_size} tokens, this task's has {len(task.vocab)}"
        )
    length = task.train_x.shape[1]  # the task's sequence length
    if config.max_len < length:
        problems.append(f"it reads at most {config.max_len} tokens, this task needs {length}")
    if config.causal != task.causal:
        kind = "a causal decoder" if config.causal else "an encoder"
        problems.append(f"it is {kind}, this task is {'causal' if task.causal else 'not'}")
    return problems


def trained_on(extra: dict) -> str:
    """The checkpoint's task in words ("reverse, length 8, 10 symbols")."""
    trained = extra.get("task") if isinstance(extra.get("task"), dict) else {}
    if "name" not in trained:
        return "an unknown task (the config does not say)"
    parts = [str(trained["name"])[:40]]
    if isinstance(trained.get("length"), int):
        parts.append(f"length {trained['length']}")
    if isinstance(trained.get("n_symbols"), int) and trained["name"] not in TEXT_TASKS:
        parts.append(f"{trained['n_symbols']} symbols")
    return ", ".join(parts)


def split_known(tokens: list[str], vocab: list[str]) -> tuple[list[str], list[str]]:
    """(the tokens in `vocab`, in order; the distinct ones not in it, in order of appearance)."""
    known = set(vocab)
    dropped = list(dict.fromkeys(t for t in tokens if t not in known))
    return [t for t in tokens if t in known], dropped


def parse_input(text: str, task: SequenceTask) -> tuple[list[str], list[str]]:
    """What "Your input" means for `task`: (tokens, characters dropped as not in the vocabulary).

    Text tasks read one token a character (spaces included) and drop unknown characters; digit
    tasks read space-separated tokens (or characters, if there is no space) and drop nothing
    (task.encode then names the unknown ones)."""
    if task.spec.name in TEXT_TASKS:
        return split_known(list(text), task.vocab)
    stripped = text.strip()
    return (stripped.split() if " " in stripped or len(stripped) <= 1 else list(stripped)), []


def shown_chars(chars: list[str]) -> str:
    """Characters listed for a message: each quoted, the space named."""
    return ", ".join("space" if c == " " else repr(c) for c in chars)


def modular_answer(tokens: list[str], p: int) -> int | None:
    """(a + b) mod p for the input `a + b =` of the modular-addition task; None for other input."""
    if len(tokens) != 4 or tokens[1] != "+" or tokens[3] != "=":
        return None
    if not (tokens[0].isdigit() and tokens[2].isdigit()):
        return None
    return (int(tokens[0]) + int(tokens[2])) % p
