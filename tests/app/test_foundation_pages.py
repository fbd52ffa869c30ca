"""AppTest of the soft-select and step-by-step pages: shown values follow the widgets."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attnviz.ui.common.matrix_editor import bad_cells_message
from tests.support.apptest import figures, no_exception, open_page, plotly_array

SOFT = "pages/soft_select.py"
STEPS = "pages/self_attention.py"


def bar_values(at, title_start: str) -> np.ndarray:
    for fig in figures(at):
        title = fig["layout"].get("title", {}).get("text", "")
        if title.startswith(title_start):
            return np.asarray(plotly_array(fig["data"][0]["y"]))
    raise AssertionError(f"no figure titled {title_start!r}")


def test_soft_select_low_temperature_is_hard_select():
    at = open_page(SOFT)
    at.select_slider(key="ss_temp").set_value(0.01).run()
    weights = bar_values(at, "2. Weights")
    assert weights.max() > 0.99
    hard, soft = at.metric[0].value, at.metric[1].value
    assert abs(float(hard) - float(soft)) < 0.1


def test_soft_select_high_temperature_is_mean():
    at = open_page(SOFT)
    at.select_slider(key="ss_temp").set_value(100.0).run()
    weights = bar_values(at, "2. Weights")
    np.testing.assert_allclose(weights, np.full(len(weights), 1 / len(weights)), atol=0.02)
    assert abs(float(at.metric[1].value) - float(at.metric[2].value)) < 0.1


def test_moving_the_query_changes_weights_and_output():
    at = open_page(SOFT)
    before = bar_values(at, "2. Weights"), at.metric[1].value
    at.slider(key="ss_q1").set_value(-2.0).run()
    after = bar_values(at, "2. Weights"), at.metric[1].value
    assert not np.allclose(before[0], after[0])
    assert before[1] != after[1]


def test_preset_sets_widgets_and_url():
    at = open_page(SOFT)
    next(b for b in at.button if b.label == "Distance kernel").click().run()
    no_exception(at)
    assert at.selectbox(key="ss_score").value == "neg_sq_dist"
    assert at.select_slider(key="ss_temp").value == 0.2


def test_nan_in_table_gives_message_not_traceback():
    at = open_page(SOFT, query={"ss_table": "a:1:0:1;b:nan:1:2"})
    no_exception(at)
    table = pd.DataFrame(  # what the link describes: row 2 has no first key
        {"name": ["a", "b"], "key 1": [1.0, np.nan], "key 2": [0.0, 1.0], "value": [1.0, 2.0]}
    )
    (editor,) = at.dataframe  # the table editor shows the linked table, NaN included
    pd.testing.assert_frame_equal(editor.value.reset_index(drop=True), table, check_dtype=False)
    assert any("[2]" in e.value and "NaN or infinite" in e.value for e in at.error)


def test_garbled_url_gives_warning_and_defaults():
    at = open_page(SOFT, query={"ss_table": "%%%garbage", "ss_temp": "banana", "ss_q1": "NaN"})
    no_exception(at)
    assert any("could not be read" in w.value for w in at.warning)
    assert at.select_slider(key="ss_temp").value == 1.0


def test_shared_url_restores_settings():
    at = open_page(SOFT, query={"ss_score": "cosine", "ss_temp": "0.1"})
    assert at.selectbox(key="ss_score").value == "cosine"
    assert at.select_slider(key="ss_temp").value == 0.1


def plain_title(fig: dict) -> str:
    """A figure's title as read: lines joined (long titles wrap with <br>)."""
    return " ".join(fig["layout"]["title"]["text"].split("<br>"))


def step_titles(at) -> list[str]:
    return [plain_title(f) for f in figures(at)]


def test_reveal_shows_steps_one_at_a_time():
    at = open_page(STEPS)
    at.select_slider(key="sa_reveal").set_value("z").run()
    assert step_titles(at) == ["z   [4 × 3]"]
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert at.select_slider(key="sa_reveal").value == "Q, K, V"
    assert any(t.startswith("Q = z W_q + B_q") for t in step_titles(at))


def test_one_query_row_then_whole_matrix():
    at = open_page(STEPS)
    at.toggle(key="sa_row").set_value(True).run()
    at.slider(key="sa_i").set_value(2).run()
    softmax = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("softmax(·)"))
    assert "[1 × 4]" in softmax["layout"]["title"]["text"]
    assert softmax["data"][0]["y"] == ["query 2"]
    at.toggle(key="sa_row").set_value(False).run()
    assert any(t == "softmax(·) row by row   [4 × 4]" for t in step_titles(at))


def test_sizes_change_shapes_and_causal_masks():
    at = open_page(STEPS)
    at.slider(key="sa_m").set_value(6).run()
    at.slider(key="sa_d2").set_value(5).run()
    at.toggle(key="sa_causal").set_value(True).run()
    titles = step_titles(at)
    assert "softmax(Q Kᵀ/√e) V   [6 × 5]" in titles
    masked = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("causal mask"))
    assert sum(a["text"] == "−∞" for a in masked["layout"]["annotations"]) == 15


def test_extreme_sizes_work():
    at = open_page(STEPS)
    for key in ("sa_m", "sa_d", "sa_e", "sa_d2"):
        at.slider(key=key).set_value(1).run()
        no_exception(at)
    at.toggle(key="sa_row").set_value(True).run()
    no_exception(at)
    assert any(t.startswith("softmax(Q Kᵀ/√e) V   [1 × 1]") for t in step_titles(at))


def test_hand_edited_z_from_url_and_bad_url_matrix():
    at = open_page(STEPS, query={"sa_m": "2", "sa_d": "2", "sa_z": "1,0;0,1"})
    z = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("z "))
    assert np.allclose(np.asarray(plotly_array(z["data"][0]["z"])), np.eye(2))
    at = open_page(STEPS, query={"sa_z": "1,x;;"})
    no_exception(at)
    assert any("ignored" in w.value for w in at.warning)


def softmax_rows(at) -> np.ndarray:
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("softmax(·)"))
    return np.asarray(plotly_array(fig["data"][0]["z"]), dtype=float)


def test_a_preset_after_another_sets_every_setting():
    """Repro (issue 9): "Large e, no scaling" after "Causal, 5 tokens" showed the causal first row
    [1, 0, 0, 0, 0]: the second preset left the causal mask on."""
    at = open_page(STEPS)
    at.button(key="sa_preset_Causal, 5 tokens").click().run()
    assert softmax_rows(at)[0, 1:].max() == 0  # causal: the first query sees only itself
    at.button(key="sa_preset_Large e, no scaling").click().run()
    no_exception(at)
    assert at.session_state["sa_causal"] is False
    assert softmax_rows(at)[0, 1:].max() > 0


def test_query_patch_is_in_the_url_and_reset_clears_hand_edits():
    at = open_page(STEPS, query={"sa_row": "true", "sa_i": "3", "sa_z": "1,0,0;0,1,0;0,0,1;1,1,1"})
    assert at.slider(key="sa_i").value == 3
    softmax = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("softmax(·)"))
    assert softmax["data"][0]["y"] == ["query 3"]
    at.button(key="sa_reset_page").click().run()
    no_exception(at)
    assert "sa_z" not in at.query_params and at.slider(key="sa_i").value == 0
    z = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("z "))
    assert not np.allclose(np.asarray(plotly_array(z["data"][0]["z"]))[:3], np.eye(3))


def test_all_six_weight_figures_with_their_titles():
    """Repro (issue 10): a zip over 3 columns and 6 figures showed W_q, B_q, W_k only."""
    at = open_page(STEPS, query={"sa_d": "2", "sa_e": "3", "sa_d2": "4", "sa_open_w": "true"})
    no_exception(at)
    shapes = {"W_q": "2 × 3", "B_q": "1 × 3", "W_k": "2 × 3", "B_k": "1 × 3"}
    shapes |= {"W_v": "2 × 4", "B_v": "1 × 4"}
    shown = [t for t in step_titles(at) if t[:3] in {"W_q", "B_q", "W_k", "B_k", "W_v", "B_v"}]
    assert sorted(shown) == sorted(f"{name}   [{shape}]" for name, shape in shapes.items())


def test_hand_edit_grids_are_titled_and_a_bias_edit_changes_q():
    query = {"sa_m": "2", "sa_d": "2", "sa_e": "2", "sa_z": "1,0;0,1", "sa_wq": "1,0;0,1"}
    query |= {"sa_open_ed": "true"}  # the grids are built only while their expander is open
    at = open_page(STEPS, query=query)
    heads = [m.value for m in at.markdown if "[" in m.value and "×" in m.value]
    for name in ("input $z$", "$W_q$", "$B_q$", "$W_k$", "$B_k$", "$W_v$", "$B_v$"):
        assert any(h.startswith(name) for h in heads), (name, heads)
    q_before = np.asarray(plotly_array(_fig(at, "Q = ")["data"][0]["z"]), dtype=float)
    at = open_page(STEPS, query=query | {"sa_bq": "10,-10"})
    no_exception(at)
    q_after = np.asarray(plotly_array(_fig(at, "Q = ")["data"][0]["z"]), dtype=float)
    np.testing.assert_allclose(q_after, np.eye(2) + [[10.0, -10.0]], atol=1e-6)  # z W_q + B_q
    assert not np.allclose(q_before, q_after)
    assert "sa_bq" in at.query_params


def test_biases_off_hides_their_grids_and_zeroes_them():
    at = open_page(
        STEPS,
        query={"sa_bias": "false", "sa_bq": "10,10,10", "sa_open_w": "true", "sa_open_ed": "true"},
    )
    no_exception(at)
    assert not any(m.value.startswith("$B_q$") for m in at.markdown)
    b_q = np.asarray(plotly_array(_fig(at, "B_q")["data"][0]["z"]), dtype=float)
    assert (b_q == 0).all()


def _fig(at, start: str) -> dict:
    return next(f for f in figures(at) if plain_title(f).startswith(start))


def test_step_5_text_follows_the_mask():
    """Repro (issue 10): step 5 said "causal" with the mask off."""
    at = open_page(STEPS)
    texts = [c.value for c in at.caption] + step_titles(at)
    assert not any("causal" in t for t in texts), texts
    assert "no mask: every query sees every key; scores unchanged" in texts
    # switched off, the step draws no matrix: it would be step 4's again, one chart more a move
    assert not [t for t in step_titles(at) if t.startswith("mask off")]
    at.toggle(key="sa_causal").set_value(True).run()
    texts = [c.value for c in at.caption] + step_titles(at)
    assert any("causal: query i may not look ahead" in t for t in texts)
    assert _fig(at, "causal mask (−∞ above the diagonal)")


def test_scaling_off_draws_no_second_copy_of_the_scores():
    at = open_page(STEPS, query={"sa_scaled": "false"})
    no_exception(at)
    titles = step_titles(at)
    assert [t for t in titles if t.startswith("Q Kᵀ")] == [t for t in titles if "Q Kᵀ   [" in t]
    assert "scaling off: scores go to the softmax as they are" in [c.value for c in at.caption]
    assert any("no scaling" in m.value for m in at.latex)


def test_bad_cell_message_counts_from_0_as_the_grid_does():
    """Repro (issue 10): a message said row/column (1, 2) for the grid's cell (0, 1)."""
    at = open_page(STEPS, query={"sa_m": "2", "sa_d": "2", "sa_open_ed": "true"})
    (grid,) = [d for d in at.dataframe if list(d.value.columns) == ["x0", "x1"]]
    assert list(grid.value.index) == [0, 1]  # rows and columns both count from 0
    message = bad_cells_message(np.array([[1.0, np.nan], [2.0, 3.0]]), "z")
    assert "(row 0, column 1)" in message and "counting from 0" in message


def test_tiny_weights_read_without_e_notation():
    """Repro (issue 10): at T = 0.01 the weight bars read 1.8e-35, 2.68e-33, 5.9e-29."""
    at = open_page(SOFT, query={"ss_temp": "0.01"})
    no_exception(at)
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("2. Weights"))
    labels = fig["data"][0]["text"]
    weights = np.asarray(plotly_array(fig["data"][0]["y"]), dtype=float)
    assert ((weights > 0) & (weights < 1e-20)).sum() >= 2  # the case: tiny but not 0
    assert not any("e-" in label for label in labels), labels
    # every softmax weight is > 0 (lemon's underflows the float32 bar, not the float64 label)
    assert labels == ["< 0.0001", "< 0.0001", "1", "< 0.0001", "< 0.0001"]
