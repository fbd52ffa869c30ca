"""Tokenizers, positional encodings and the text pipeline against hand computations and
invariants."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.positional import encoding, sinusoidal
from attnviz.core.tokenizers import detokenize, tokenize
from attnviz.figures.text import heads_grid, shown
from attnviz.topics.text.attention import (
    TextConfig,
    analyse,
    padded_batch,
    permutation_experiment,
    saturation_curve,
)

TEXTS = ["a large airplane flying in the blue sky", "héllo, wörld! 🚀 שלום", "x"]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_char_and_bpe_round_trip(text, kind):
    assert detokenize(tokenize(text, kind), kind) == text


@pytest.mark.parametrize("text", TEXTS)
def test_word_tokens_rejoin_to_the_words(text):
    toks = tokenize(text, "word")
    assert detokenize(toks, "word").replace(" ", "") == text.replace(" ", "")
    assert len(set(tokenize("the cat the", "word").ids)) == 2


def test_bpe_vocabulary_size_changes_the_split():
    small, large = (
        tokenize("attention lets every word look", "bpe", 260),
        tokenize("attention lets every word look", "bpe", 800),
    )
    assert len(large.tokens) < len(small.tokens)


def test_sinusoidal_matches_a_hand_computation():
    table = sinusoidal(10, 6)
    for pos in (0, 3, 9):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert table[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-6)
    assert np.all(encoding("none", 4, 6) == 0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog"]), min_size=2, max_size=9
    ),
    st.integers(0, 99),
)
def test_without_positions_attention_is_permutation_equivariant(words, seed):
    exp = permutation_experiment(words, TextConfig(positional="none"), seed=seed)
    assert exp["max_difference"] < 1e-5


def test_with_positions_equivariance_breaks():
    words = ["the", "cat", "sat", "on", "the", "warm", "mat", "today"]
    assert (
        permutation_experiment(words, TextConfig(positional="sinusoidal"))["max_difference"] > 1e-2
    )


def test_saturation_unscaled_entropy_falls_scaled_stays_level():
    curve = saturation_curve([2, 8, 32, 128, 512])
    assert np.all(np.diff(curve["unscaled"]) < 0)
    assert curve["unscaled"][-1] < 0.3 * curve["unscaled"][0]
    assert curve["scaled"].max() - curve["scaled"].min() < 0.25


def test_causal_weights_above_diagonal_are_zero_and_rows_sum_to_one():
    res = analyse("one two three four five", TextConfig(causal=True))
    t = len(res.tokens)
    assert np.all(res.weights[:, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] == 0)
    np.testing.assert_allclose(res.weights.sum(-1), 1, atol=1e-5)


def test_padding_gets_zero_weight_and_long_text_is_truncated():
    padded, w = padded_batch("the cat sat on the mat", "a dog", TextConfig())
    assert padded[1][2:] == ["[PAD]"] * 4
    assert np.all(w[1, :, :, 2:] == 0)
    res = analyse("word " * 700, TextConfig())
    assert len(res.tokens) == 512 and res.truncated_from == 700


def test_labels_are_html_escaped_and_views_build():
    assert shown(["<b>", "a"]) == ["&lt;b&gt;", "a"]
    res = analyse("<script>alert(1)</script> hello", TextConfig(tokenizer="word"))
    fig = heads_grid(res.weights, res.tokens)
    assert all("<script>" not in str(tr.x) + str(tr.y) for tr in fig.data)
    assert len(fig.data) == 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("saß", ["s", "a", "ß‹1/2›", "ß‹2/2›"]),
        ("a 🚀", ["a", "␣", "🚀‹1/4›", "🚀‹2/4›", "🚀‹3/4›", "🚀‹4/4›"]),
        ("a large", ["a", "␣l", "ar", "ge"]),
    ],
)
def test_bpe_tokens_show_text_never_the_byte_alphabet(text, expected):
    """Repro: "saß" showed `s a Ã Ł` (GPT-2's byte alphabet); ß is 2 bytes, 🚀 is 4."""
    toks = tokenize(text, "bpe", 400)
    assert toks.tokens == expected
    assert detokenize(toks, "bpe", 400) == text  # the ids still decode to the text


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        ([b"s", b"a\xc3", b"\x9f"], ["s", "a\u00df\u20391/2\u203a", "\u00df\u20392/2\u203a"]),
        (
            [b"a\xf0\x9f", b"\x9a\x80"],
            ["a\U0001f680\u20391-2/4\u203a", "\U0001f680\u20393-4/4\u203a"],
        ),
        ([b"\xc3\x9f"], ["\u00df"]),
        # a cut 3-byte character: Python writes one '\ufffd' for both bytes, so the 'a' was put
        # on the second piece and the third piece was empty (issue 40)
        ([b"\xe2", b"\x82", b"a"], ["\ufffd", "\ufffd", "a"]),
        ([b"\xe2\x82", b"re"], ["\ufffd\ufffd", "re"]),
        ([b"\xe2\x82", b"\xac"], ["\u20ac\u20391-2/3\u203a", "\u20ac\u20393/3\u203a"]),
    ],
)
def test_a_piece_holding_a_character_and_part_of_the_next_names_only_the_bytes_it_holds(
    pieces, expected
):
    """Repro: the piece 'a' + ß's first byte was labelled 'aß' (the whole ß), as if it held both
    of ß's bytes. The pieces are written here in GPT-2's byte alphabet from raw bytes."""
    from attnviz.core.tokenizers import _byte_of_char, readable_pieces

    char_of = {b: c for c, b in _byte_of_char().items()}
    assert readable_pieces(["".join(char_of[b] for b in p) for p in pieces]) == expected


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        st.characters(exclude_characters="\u2039\u203a\u2423", exclude_categories=("Cs",)),
        min_size=1,
        max_size=12,
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=60), max_size=8),
)
def test_labels_of_any_cut_give_back_the_text(text, cuts):
    """However a text's UTF-8 bytes are cut into pieces, each character is named whole by the
    piece holding its first byte (the rest say which bytes they hold): reading those back gives
    the text, and there is one label per piece. The expected text is the input itself."""
    from attnviz.core.tokenizers import _byte_of_char, readable_pieces

    data = text.encode("utf-8")
    bounds = sorted({c for c in cuts if c < len(data)} | {0, len(data)})
    pieces = [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    char_of = {b: c for c, b in _byte_of_char().items()}
    labels = readable_pieces(["".join(char_of[b] for b in p) for p in pieces])
    assert len(labels) == len(pieces)
    marked = re.compile(r"(.)\u2039(\d+)(?:-\d+)?/\d+\u203a", re.DOTALL)
    assert marked.sub(_first_part, "".join(labels)).replace("\u2423", " ") == text


def _first_part(match: re.Match) -> str:
    return match.group(1) if match.group(2) == "1" else ""


# The page's scene (topics/text/scene.py): input messages, lazy sections, the lesson answer.
def test_scene_says_why_it_cannot_run():
    from attnviz.topics.scene import SceneInputError
    from attnviz.topics.text.scene import SCENE

    with pytest.raises(SceneInputError, match="empty"):
        SCENE.config(SCENE.values(ta_text="   "))
    with pytest.raises(SceneInputError, match="3 heads do not divide d_model = 8"):
        SCENE.config(SCENE.values(ta_d=8, ta_heads=3))


def test_scene_builds_a_section_only_when_asked_and_long_inputs_get_two_more_views():
    from attnviz.topics.text.scene import SCENE

    out, figs = SCENE.compute()
    assert set(figs) == {"heads_grid", "query_row"}  # the sections are closed by default
    vals = SCENE.values(ta_causal=True)
    out = SCENE.run(SCENE.config(vals))
    shown_views = SCENE.views(out, vals, only={"causal_on"})
    assert list(shown_views) == ["causal_on"]
    z = np.asarray(shown_views["causal_on"].data[0].z, dtype=float)
    assert z.shape == (8, 8) and float(np.triu(z, 1).sum()) == 0.0
    assert SCENE.answers(out, vals)["top_token"].answer == "a"  # query 0 sees only itself
    long = SCENE.values(ta_text=" ".join(f"w{i}" for i in range(100)))
    assert {"top_k", "window"} <= set(SCENE.compute(long)[1])
