"""The text page's Try-this items performed on the page, and regressions of issue 10 (head-view
pills, BPE byte pieces, the pronoun puzzle's random weights, readable tiny numbers, digit axes)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.apptest import figures, head_views, no_exception, open_page, plotly_array

PAGE = "pages/text_page.py"


def grid(at) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Attention"))


def grid_maps(at) -> list[np.ndarray]:
    """Each head's (T, T) map in the heads grid."""
    return [np.asarray(plotly_array(tr["z"]), dtype=float) for tr in grid(at)["data"]]


def section_lines(at) -> dict[str, float]:
    """The shuffle experiment's printed max difference per positional encoding."""
    lines = [m.value for m in at.markdown if m.value.startswith("**positional =")]
    return {line.split("**")[1]: float(line.split("`")[1].split()[0]) for line in lines}


@pytest.mark.try_this("text", 1)
def test_bag_of_words_preset_shuffle_gives_the_same_attention_permuted():
    at = open_page(PAGE)
    at.button(key="ta_preset_No positions: a bag of words").click().run()
    at.session_state["ta_open_shuffle"] = True
    at.run()
    no_exception(at)
    diffs = section_lines(at)
    assert diffs["positional = none"] < 1e-5 < 1e-2 < diffs["positional = sinusoidal"]
    assert any("permutation-equivariant" in i.value for i in at.info)


@pytest.mark.try_this("text", 2)
def test_unscaled_scores_with_one_head_of_64_make_rows_nearly_one_hot():
    at = open_page(PAGE)
    at.select_slider(key="ta_d").set_value(64).run()
    at.select_slider(key="ta_heads").set_value(1).run()
    (scaled,) = grid_maps(at)
    at.toggle(key="ta_scaled").set_value(False).run()
    no_exception(at)
    (unscaled,) = grid_maps(at)
    assert unscaled.max(1).mean() > 0.85, "about 0.9: nearly one-hot"
    assert 0.3 < scaled.max(1).mean() < 0.5, "about 0.4 with the division"


@pytest.mark.try_this("text", 3)
def test_repeated_pattern_without_positions_tiles_one_block():
    at = open_page(PAGE)
    at.button(key="ta_preset_Repeated pattern").click().run()
    with_positions = grid_maps(at)
    at.selectbox(key="ta_pos").set_value("none").run()
    no_exception(at)
    for w, w_pos in zip(grid_maps(at), with_positions, strict=True):
        assert w.shape == (9, 9)
        np.testing.assert_allclose(w, np.tile(w[:3, :3], (3, 3)), atol=1e-6)
        assert np.abs(w_pos - np.tile(w_pos[:3, :3], (3, 3))).max() > 1e-3  # positions differ


@pytest.mark.try_this("text", 4)
def test_temperature_sharpens_or_flattens_the_row_as_the_entropy_shows():
    at = open_page(PAGE)

    def entropy() -> float:
        note = next(c.value for c in at.caption if c.value.startswith("Entropy of this row"))
        return float(note.split(":")[1].split()[0])

    at.select_slider(key="ta_temp").set_value(0.05).run()
    sharp = entropy()
    at.select_slider(key="ta_temp").set_value(10.0).run()
    no_exception(at)
    assert sharp < 0.05 and entropy() > 0.98 * np.log(8)  # one-hot vs uniform over 8 tokens


def test_head_view_never_draws_no_heads():
    """Repro: clear the text, type a sentence, switch to char; and every pill deselected."""
    at = open_page(PAGE)
    at.text_area(key="ta_text").set_value("").run()
    at.text_area(key="ta_text").set_value("the cat sat on the mat").run()
    at.radio(key="ta_tok").set_value("char").run()
    no_exception(at)
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == [0, 1, 2, 3]
    at.pills(key="ta_hv_heads").set_value([]).run()
    no_exception(at)
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == [0, 1, 2, 3]
    assert any("No head picked" in c.value for c in at.caption)


def test_bpe_tokens_are_decoded_and_the_byte_pieces_explained():
    at = open_page(PAGE)
    at.radio(key="ta_tok").set_value("bpe").run()
    at.text_area(key="ta_text").set_value("saß").run()
    no_exception(at)
    tokens = list(at.dataframe[0].value.loc["token"])
    assert tokens == ["s", "a", "ß‹1/2›", "ß‹2/2›"]
    assert not {"Ã", "Ł"} & set(grid(at)["data"][0]["x"])
    assert any("bytes" in c.value and "ß‹1/2›" in c.value for c in at.caption)


def test_pronoun_puzzle_says_its_weights_are_random():
    at = open_page(PAGE)
    assert not any("Random weights" in i.value for i in at.info)
    at.button(key="ta_preset_Pronoun puzzle").click().run()
    no_exception(at)
    assert any("Random weights, not a trained model" in i.value for i in at.info)


def test_equal_maps_print_a_readable_zero_not_an_exponent():
    at = open_page(PAGE, {"ta_pos": "none", "ta_open_shuffle": "true"})
    no_exception(at)
    texts = [m.value for m in at.markdown] + [i.value for i in at.info]
    assert not any("e-" in t for t in texts if "max" in t), texts
    assert any("below 10⁻⁶" in t for t in texts)


def test_digit_tokens_are_distinct_categorical_columns():
    """Repro: /text?ta_text=3+1+4+1+5+9+2+6 drew the digits as numbers (needs the figures fix)."""
    at = open_page(PAGE, {"ta_text": "3 1 4 1 5 9 2 6"})
    no_exception(at)
    fig = grid(at)
    assert fig["layout"]["xaxis"].get("type") == "category"
    assert len(set(fig["data"][0]["x"])) == 8
