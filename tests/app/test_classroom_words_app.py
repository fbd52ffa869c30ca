"""A next-token question typed by the class, on the bundled language model, in AppTest (issue 59):
lesson 9's first step ("The capital of Germany is"), the presenter opens the vote, two phones
type words (one with markup in it), Reveal draws the class's words as a word map whose tiles
are the words as typed with their counts, beside the model's ten next tokens whose bars are the
model's own probabilities (from its logits here), and says what share named the top token."""

from __future__ import annotations

import html
import json

import torch

from attnviz.topics.language_model import bundled
from tests.app.test_classroom_app import database, session, voting_room  # noqa: F401
from tests.support.apptest import no_exception

SLUG, STEP, PAGE = "09_inside_a_language_model", 1, "pages/language_model.py"


def chart(at, title: str) -> dict:
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        if title in json.dumps(spec["layout"].get("title")):
            return spec
    raise AssertionError(f"no figure titled {title!r}")


def send(phone, word: str) -> None:
    phone.text_input(key="room_typed_text_1").input(word)
    phone.button(key=f"FormSubmitter:room_typed_{STEP}_1-Send").click().run()
    no_exception(phone)


def top_ten() -> tuple[list[str], list[float]]:
    """The model's own next-token distribution after the step's prompt, from its logits."""
    lm = bundled.bundled_llm()
    ids = lm.tokenizer("The capital of Germany is", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        probs = torch.softmax(lm.model(input_ids=ids).logits[0, -1].double(), -1)
    top = torch.topk(probs, 10)
    return lm.tokenizer.convert_ids_to_tokens(top.indices.tolist()), top.values.tolist()


def test_the_class_types_the_next_word_and_reveal_sets_it_beside_the_model(database):  # noqa: F811
    presenter, code = voting_room(SLUG, STEP, PAGE)
    phones = [session({"room": code}, page=PAGE, voter=c * 32) for c in "ab"]
    send(phones[0], "Berlin")
    send(phones[1], "<b>Munich</b>")
    assert database.counts(code, STEP, 1) == {"<b>Munich</b>": 1, "Berlin": 1}
    presenter.button(key="lesson_reveal").click().run()
    no_exception(presenter)
    tiles = chart(presenter, "The class's words")["data"][0]
    assert not any("<b>" in label for label in tiles["labels"]), "markup typed is shown as text"
    shown = [html.unescape(label.replace("<br>", "")) for label in tiles["labels"]]  # wrapped
    assert all(label.startswith("␣") for label in shown), "after a word: with its space"
    words = [label.removeprefix("␣") for label in shown]
    assert dict(zip(words, tiles["values"], strict=True)) == {"Berlin": 1, "<b>Munich</b>": 1}
    bars = chart(presenter, "The model's next token")["data"][0]
    tokens, probs = top_ten()
    assert [t.replace("Ġ", "").replace("␣", "") for t in tokens][0] == "Berlin"
    assert [label.replace("␣", "") for label in bars["y"]][0] == "Berlin"
    assert max(abs(a - b) for a, b in zip(bars["x"], probs, strict=True)) < 1e-4
    said = " ".join(m.value.replace("\\", "") for m in presenter.markdown)
    assert "1 of 2 named the model's top token “Berlin” (50 %)" in said
