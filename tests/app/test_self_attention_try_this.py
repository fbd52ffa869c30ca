"""Self-attention's "Try this" claims (attnviz.topics.self_attention.params.TRY_THIS), each
performed on the page through AppTest and checked on the matrices it shows."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.apptest import figures, no_exception, open_page, plotly_array

PAGE = "pages/self_attention.py"


def titles(at) -> list[str]:
    return [f["layout"]["title"]["text"] for f in figures(at)]


def matrix(at, title_start: str) -> np.ndarray:
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(title_start))
    return np.asarray(plotly_array(fig["data"][0]["z"]), dtype=float)


@pytest.mark.try_this("self-attention", 1)
def test_lecture_preset_then_next_reveals_one_step_at_a_time():
    at = open_page(PAGE)
    at.button(key="sa_preset_Lecture: 3 patches").click().run()
    no_exception(at)
    assert titles(at) == ["z   [3 × 2]"]
    counts = []
    for _ in range(6):
        at.button(key="sa_next").click().run()
        no_exception(at)
        counts.append(sum(m.value.startswith("#### Step") for m in at.markdown))
    assert counts == [2, 3, 4, 5, 6, 7]  # one more step per click
    at.button(key="sa_next").click().run()  # past the last step: stays there
    assert at.select_slider(key="sa_reveal").value == "· V"


def softmax_rows(at) -> np.ndarray:
    return matrix(at, "softmax(·)")


@pytest.mark.try_this("self-attention", 2)
def test_without_scaling_at_e_8_every_softmax_row_is_peakier():
    at = open_page(PAGE)
    at.slider(key="sa_e").set_value(8).run()
    scaled = softmax_rows(at)
    at.toggle(key="sa_scaled").set_value(False).run()
    no_exception(at)
    raw = softmax_rows(at)
    assert (raw.max(axis=1) > scaled.max(axis=1)).all()

    def entropy(p):
        return -(p * np.log(np.where(p > 0, p, 1))).sum(axis=1)

    assert (entropy(raw) < entropy(scaled)).all()


@pytest.mark.try_this("self-attention", 3)
def test_causal_mask_makes_the_upper_triangle_minus_infinity_and_its_weights_zero():
    at = open_page(PAGE)
    at.toggle(key="sa_causal").set_value(True).run()
    no_exception(at)
    upper = np.triu(np.ones((4, 4), dtype=bool), k=1)
    masked = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("causal mask"))
    minus_inf = {(a["y"], a["x"]) for a in masked["layout"]["annotations"] if a["text"] == "−∞"}
    rows, cols = np.nonzero(upper)
    want = {(f"patch {r}", f"key {c}") for r, c in zip(rows, cols, strict=True)}
    assert minus_inf == want
    weights = softmax_rows(at)
    assert (weights[upper] == 0).all() and (weights[~upper] > 0).all()


@pytest.mark.try_this("self-attention", 4)
def test_identical_patches_have_identical_rows_of_q_k_v_and_output():
    z = "0.5,-1,2;1,1,0;0.5,-1,2;-0.3,0.2,0.1"  # patches 0 and 2 identical
    at = open_page(PAGE, query={"sa_z": z})
    no_exception(at)
    for start in ("Q = ", "K = ", "V = ", "softmax(Q Kᵀ/√e) V"):
        rows = matrix(at, start)
        np.testing.assert_allclose(rows[0], rows[2], rtol=0, atol=1e-6)
        assert not np.allclose(rows[0], rows[1])
