"""A prompt pair: a clean prompt and a corrupted one of the same length in tokens that differ in
a few places, and the two answers whose logit difference (right minus wrong) every intervention
measures. Blank answers are the model's own: the clean run's top token is right, the corrupted
run's top token wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attnviz.topics.language_model.forward import encode
from attnviz.topics.pretrained.model import PretrainedModel

MAX_PAIR_TOKENS = 40  # a sweep patches every layer × position: cost grows with T²


class PairError(ValueError):
    """A pair the page cannot use, with a message for the person who typed it."""


@dataclass(frozen=True)
class Pair:
    clean: tuple[int, ...]  # (T,)
    corrupt: tuple[int, ...]  # (T,)
    right: int  # the clean prompt's answer (token id)
    wrong: int  # the corrupted prompt's answer
    notes: tuple[str, ...] = ()  # how typed answers were read, for the page to say

    @property
    def differ(self) -> list[int]:
        """The positions where the two prompts have different tokens."""
        return [i for i, (a, b) in enumerate(zip(self.clean, self.corrupt, strict=True)) if a != b]


def prompt_ids(lm: PretrainedModel, text: str, which: str) -> list[int]:
    if not text.strip():
        raise PairError(f"Type the {which} prompt (it is empty).")
    ids, cut = encode(lm, text)
    if cut or len(ids) > MAX_PAIR_TOKENS:
        raise PairError(f"The {which} prompt has more than {MAX_PAIR_TOKENS} tokens; shorten it.")
    return ids


def answer_id(lm: PretrainedModel, text: str) -> int:
    """The first token of `text` (a leading space belongs to the token, as in ' Mary'): the
    model's next token is one token, so a longer answer is read by its first."""
    ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
    if not ids:
        raise PairError(f"The answer {text!r} has no tokens.")
    return int(ids[0])


def top_ids(lm: PretrainedModel, ids: list[int]) -> list[int]:
    """The model's two most likely next tokens after `ids`."""
    with lm.lock, torch.no_grad():
        out = lm.model(torch.tensor([ids], device=lm.model.device), logits_to_keep=1)
    return out.logits[0, -1].topk(2).indices.tolist()


def _answers(lm, a: list[int], b: list[int], right: str, wrong: str) -> tuple[int, int, list]:
    """(right id, wrong id, notes): typed answers by their first token, blank ones the model's;
    two equal answers cannot be told apart, so the wrong one is then the model's own."""
    notes = []
    for text in (t for t in (right, wrong) if t):
        if len(lm.tokenizer(text, add_special_tokens=False)["input_ids"]) > 1:
            first = lm.readable([answer_id(lm, text)])[0]
            notes.append(f"{text!r} is several tokens: its first, {first!r}, is the answer.")
    r = answer_id(lm, right) if right else top_ids(lm, a)[0]
    w = answer_id(lm, wrong) if wrong else top_ids(lm, b)[0]
    if r == w:
        w = next(i for i in [*top_ids(lm, b), *top_ids(lm, a)] if i != r)
        shown = lm.readable([r, w])
        notes.append(f"Both answers are {shown[0]!r}: the wrong one is {shown[1]!r} instead.")
    return r, w, notes


def make_pair(lm: PretrainedModel, clean: str, corrupt: str, right: str, wrong: str) -> Pair:
    """The pair as the model reads it; PairError for a pair it cannot use (see the messages)."""
    a, b = prompt_ids(lm, clean, "clean"), prompt_ids(lm, corrupt, "corrupted")
    if len(a) != len(b):
        raise PairError(
            f"The two prompts must have the same number of tokens (clean {len(a)}, corrupted "
            f"{len(b)}): change words for words that are one token each."
        )
    if a == b:
        raise PairError("The two prompts are the same: change a word in the corrupted one.")
    r, w, notes = _answers(lm, a, b, right, wrong)
    return Pair(tuple(a), tuple(b), r, w, tuple(notes))
