"""The model's probability of a word the class typed (attnviz.topics.language_model.guesses),
against the model's own next-token distribution, one forward pass per token of the word, on a
tiny random Llama built here."""

from __future__ import annotations

import pytest
import torch

from attnviz.topics.language_model.guesses import word_chance, word_chances
from tests.support.tiny_llama import tiny_llama


@pytest.fixture(scope="module")
def lm():
    return tiny_llama()


def step_by_step(lm, prompt: list[int], text: str) -> float:
    """P(text | prompt): each of its tokens' softmax probability, one forward pass at a time."""
    chance, seq = 1.0, list(prompt)
    for token in lm.tokenizer(text, add_special_tokens=False)["input_ids"]:
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([seq])).logits[0, -1].double()
        chance *= torch.softmax(logits, -1)[token].item()
        seq.append(token)
    return chance


@pytest.mark.parametrize("word", ["the", "mat", "dog house", "Mat"])
def test_a_word_s_chance_is_all_its_tokens_in_turn(lm, word):
    prompt = lm.tokenizer("the cat sat on", add_special_tokens=False)["input_ids"]
    assert len(lm.tokenizer(" dog house", add_special_tokens=False)["input_ids"]) > 1
    expected = step_by_step(lm, prompt, " " + word)  # after a word: with its leading space
    assert word_chance(lm, prompt, word) == pytest.approx(expected, rel=1e-4)


def test_after_a_space_the_word_takes_none(lm):
    prompt = lm.tokenizer("the cat sat on ", add_special_tokens=False)["input_ids"]
    expected = step_by_step(lm, prompt, "mat")
    assert word_chances(lm, prompt, ["mat", "mat"]) == {"mat": pytest.approx(expected, rel=1e-4)}
