"""A prompt pair: a clean prompt and a corrupted one of the same length in tokens that differ in
a few places, and the two answers whose logit difference (right minus wrong) every intervention
measures. Blank answers are the model's own: the clean run's top token is right, the corrupted
run's top token wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attnviz.topics.llm.forward import encode
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


def answer_id(lm: PretrainedModel, text: str, which: str) -> int:
    """The one token `text` is (a leading space belongs to the token, as in ' Mary')."""
    ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        shown = " + ".join(repr(t) for t in lm.readable(ids)) or "no token"
        raise PairError(f"The {which} answer must be one token; {text!r} is {shown}.")
    return int(ids[0])


def top_id(lm: PretrainedModel, ids: list[int]) -> int:
    with lm.lock, torch.no_grad():
        out = lm.model(torch.tensor([ids], device=lm.model.device), logits_to_keep=1)
    return int(out.logits[0, -1].argmax())


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
    r = answer_id(lm, right, "right") if right else top_id(lm, a)
    w = answer_id(lm, wrong, "wrong") if wrong else top_id(lm, b)
    if r == w:
        raise PairError(
            f"Both answers are {lm.readable([r])[0]!r}: type the two answers to compare."
        )
    return Pair(tuple(a), tuple(b), r, w)
