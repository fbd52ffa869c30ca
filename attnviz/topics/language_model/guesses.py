"""The model's side of "what will it say next?" typed on the class's phones: how likely the model
finds each typed word as the prompt's continuation.

A word is read as the tokenizer would meet it after the prompt: with a leading space unless the
prompt ends in whitespace (" Berlin" after "The capital of Germany is"), case kept. Its
probability is that of all its tokens in turn, P(t₁ | prompt) · P(t₂ | prompt, t₁) · …, from
one forward pass over the prompt and the word (not only its first token's).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from attnviz.topics.pretrained.model import PretrainedModel

MAX_WORD_TOKENS = 16  # a typed word is at most 40 characters (attnviz.lessons.typed_answers)


def spelled(lm: PretrainedModel, prompt_ids: Sequence[int], word: str) -> list[int]:
    """The token ids of `word` as it would follow the prompt (see the module docstring)."""
    prompt = lm.tokenizer.decode(list(prompt_ids[-4:]), skip_special_tokens=False)
    text = word if not prompt or prompt[-1].isspace() else " " + word
    ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
    return [int(i) for i in ids[:MAX_WORD_TOKENS]]


def word_chance(lm: PretrainedModel, prompt_ids: Sequence[int], word: str) -> float:
    """P(the model continues the prompt with `word`), all of the word's tokens in turn."""
    ids = spelled(lm, prompt_ids, word)
    if not ids:
        return 0.0
    both = torch.tensor([[*prompt_ids, *ids]], device=lm.model.device)
    with lm.lock, torch.no_grad():
        logits = lm.model(input_ids=both, use_cache=False).logits[0]  # (T + n, V)
    t = len(prompt_ids)
    logp = torch.log_softmax(logits[t - 1 : t - 1 + len(ids)].float(), dim=-1)  # (n, V)
    picked = logp[torch.arange(len(ids)), torch.tensor(ids, device=logp.device)]  # (n,)
    return float(picked.sum().exp())


def word_chances(
    lm: PretrainedModel, prompt_ids: Sequence[int], words: Sequence[str]
) -> dict[str, float]:
    """`word_chance` of each distinct word."""
    return {word: word_chance(lm, prompt_ids, word) for word in dict.fromkeys(words)}
