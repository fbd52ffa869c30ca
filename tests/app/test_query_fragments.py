"""Issue 26: a query move on the kernel-smoother page reruns the training panel's fragment
alone (the query's sliders and the fit it is clicked on are drawn inside it, the data, model
and training forms outside), so it never redraws the page, its training form or the sidebar;
and the soft-select page's table of terms is plain text (`terms_text`), not a Styler grid."""

from __future__ import annotations

import numpy as np

from attnviz.topics.soft_select.scene import SCENE as SOFT
from attnviz.topics.soft_select.scene import terms_text
from tests.support.apptest import no_exception, open_page


def widget_fragments(at) -> dict[str, str | None]:
    """Each keyed widget's fragment id (None: drawn outside any fragment). Streamlit has no
    public API for it (1.67: the widget metadata's fragment_id, what a fragment rerun uses)."""
    state = at.session_state._state._state._new_widget_state
    return {wid.rsplit("-", 1)[-1]: meta.fragment_id for wid, meta in state.widget_metadata.items()}


def test_kernel_query_moves_rerun_the_views_fragment_alone():
    at = open_page("pages/kernel_smoother.py")
    at.slider(key="ks_qx").set_value(0.5).run()  # a move still draws (AppTest runs it all)
    no_exception(at)
    owner = widget_fragments(at)
    fit = owner["ks_fit"]  # the fit figure, clicked to move the query
    assert fit is not None, "the views are drawn in the training panel's fragment"
    assert owner["ks_qx"] == owner["ks_qy"] == fit, "the query's sliders sit with its views"
    for setting in ("ks_data", "ks_n", "ks_kernel", "ks_lr", "ks_steps"):  # Start's job
        assert owner[setting] is None, f"{setting} belongs to the page, not the fragment"


def test_soft_select_terms_are_text_of_readable_numbers():
    """The page's table (`terms_text`): softmax(q · k_j / T), written out here, as 4-decimal
    text; a weight that underflows reads "< 0.0001", never 7.02e-19; names as typed."""
    q, temperature = np.array([2.0, -2.0]), 0.05
    out = SOFT.run(SOFT.config(SOFT.values(ss_q1=2.0, ss_q2=-2.0, ss_score="dot", ss_temp=0.05)))
    scores = out.keys @ q  # (m,)
    weights = np.exp(scores / temperature - (scores / temperature).max())
    weights /= weights.sum()
    text = terms_text(out)
    assert text["name"].tolist() == out.names
    assert text["score a(q,k)"].tolist() == [f"{s:.4f}" for s in scores]
    expected = ["< 0.0001" if 0 < w < 5e-5 else f"{w:.4f}" for w in weights]
    assert text["weight α"].tolist() == expected
    assert "< 0.0001" in expected, "the case of a weight that underflows is exercised"
    values = out.values[:, 0]
    assert text["α · v"].tolist() == [
        "< 0.0001" if 0 < w * v < 5e-5 else f"{w * v:.4f}"
        for w, v in zip(weights, values, strict=True)
    ]


def test_soft_select_bar_labels_never_use_e_notation():
    """L1 s7's settings: a weight of 7.3e-05 (cosine, T = 0.1) was labelled "7.29e-05" beside
    "< 0.0001" on the tinier ones; it reads "< 0.0001" too. Weights computed here from the keys."""
    q = np.array([2.0, 2.0])
    out = SOFT.run(SOFT.config(SOFT.values(ss_q1=2.0, ss_q2=2.0, ss_score="cosine", ss_temp=0.1)))
    scores = out.keys @ q / (np.linalg.norm(out.keys, axis=1) * np.linalg.norm(q))
    weights = np.exp(scores / 0.1 - (scores / 0.1).max())
    weights /= weights.sum()
    assert ((weights > 5e-5) & (weights < 1e-4)).any(), "the case of a weight of 0.00005-0.0001"
    labels = list(SOFT.views(out, SOFT.values(), only={"weights"})["weights"].data[0].text)
    assert labels == ["< 0.0001", "< 0.0001", "0.553", "< 0.0001", "0.447"], labels
