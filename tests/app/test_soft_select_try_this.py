"""Soft select's "Try this" claims (attnviz.topics.soft_select.params.TRY_THIS), each performed on
the page through AppTest, and what it says checked on the page's figures and metrics."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.apptest import figures, no_exception, open_page, plotly_array

PAGE = "pages/soft_select.py"


def weights(at) -> np.ndarray:
    """The bars of the "2. Weights" figure, in table order."""
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("2. Weights"))
    return np.asarray(plotly_array(fig["data"][0]["y"]), dtype=float)


def metric(at, label_start: str) -> float:
    return float(next(m.value for m in at.metric if m.label.startswith(label_start)))


@pytest.mark.try_this("soft-select", 1)
def test_nearly_hard_select_gives_one_weight_and_the_database_answer():
    at = open_page(PAGE)
    at.button(key="ss_preset_Nearly hard select").click().run()
    no_exception(at)
    w = weights(at)
    assert w.max() > 0.999 and np.sort(w)[-2] < 0.001
    hard, soft = metric(at, "Database select"), metric(at, "Soft select")
    assert soft == pytest.approx(hard, abs=0.01)


@pytest.mark.try_this("soft-select", 2)
def test_plain_mean_gives_equal_weights_and_the_mean():
    at = open_page(PAGE)
    at.button(key="ss_preset_Plain mean").click().run()
    no_exception(at)
    w = weights(at)
    np.testing.assert_allclose(w, np.full(len(w), 1 / len(w)), atol=0.01)
    assert metric(at, "Soft select") == pytest.approx(metric(at, "Plain mean"), abs=0.05)


def weights_at(at, q: float) -> np.ndarray:
    at.slider(key="ss_q1").set_value(q).run()
    at.slider(key="ss_q2").set_value(q).run()
    no_exception(at)
    return weights(at)


@pytest.mark.try_this("soft-select", 3)
def test_cosine_ignores_the_length_of_q_while_dot_sharpens():
    """Repro (issue 10): the old sentence moved q1 only (q2 fixed), which turns q: cherry's
    weight went 0.129 → 0.197. Scaling both coordinates keeps the direction."""
    at = open_page(PAGE)
    at.selectbox(key="ss_score").set_value("cosine").run()
    small, large = weights_at(at, 0.5), weights_at(at, 2.0)
    np.testing.assert_allclose(large, small, atol=1e-6)
    at.slider(key="ss_q2").set_value(0.5).run()  # the false claim: q1 moved alone
    assert not np.allclose(weights(at), small, atol=0.01)
    at.selectbox(key="ss_score").set_value("dot").run()
    small, large = weights_at(at, 0.5), weights_at(at, 2.0)
    assert large.max() > small.max() + 0.3  # sharper: the top weight grows (0.37 → 0.85)
    assert large.argmax() == small.argmax()


@pytest.mark.try_this("soft-select", 4)
def test_two_rows_with_the_same_key_get_the_same_weight():
    table = "a:0.9:-0.9:12;b:-0.8:-0.2:3;c:0.6:1:2;twin:0.6:1:7"  # c and twin share a key
    at = open_page(PAGE, query={"ss_table": table})
    no_exception(at)
    w = weights(at)
    assert len(w) == 4
    assert w[2] == pytest.approx(w[3], abs=1e-7)
    assert w[2] != pytest.approx(w[0], abs=1e-3)  # not equal because all weights are
