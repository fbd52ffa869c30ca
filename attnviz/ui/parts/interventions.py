"""The "Finding the heads that answer" page's parts that need Streamlit: the prompt pair's
inputs, and the folded sections (patching the residual stream, patching each head, direct logit
attribution, knocking heads out, the circuit), each built only while open; the sweeps show their
progress, and a click on a map picks its cell."""

from __future__ import annotations

import streamlit as st

from attnviz.figures.clickable import cell_of
from attnviz.io.user_text import md_literal
from attnviz.topics.interventions.scene import SCENE, PatchOutcome, knocked_out, pick
from attnviz.topics.language_model.scene import model_for
from attnviz.topics.scene import SceneInputError, Values
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.view_cache import cached_views
from attnviz.ui.common.widgets import draw

TABLE = SCENE.table


def views(out: PatchOutcome, values: Values, names: set[str]) -> dict:
    """The views `names` on this result, each remembered with the settings it read
    (attnviz.ui.common.view_cache): a move no view reads rebuilds no figure."""
    return cached_views(SCENE, out, values, names, key=(out.config, id(model_for(out.config))))


def pair_inputs() -> dict:
    """The two prompts side by side, the two answers under them."""
    values = {}
    left, right = st.columns(2)
    with left:
        values["ip_clean"] = draw(TABLE, "ip_clean", max_chars=400)
        values["ip_right"] = draw(TABLE, "ip_right", max_chars=40)
    with right:
        values["ip_corrupt"] = draw(TABLE, "ip_corrupt", max_chars=400)
        values["ip_wrong"] = draw(TABLE, "ip_wrong", max_chars=40)
    with st.expander("Your own model"):
        values["ip_model"] = draw(TABLE, "ip_model", max_chars=1_000)
    return values


def _clicked(chart_key: str, row_key: str, column_key: str):
    """on_select: a click on a layer × column map picks that cell (its row and column)."""

    def pick_cell() -> None:
        chart = st.session_state.get(chart_key) or {}
        cell = cell_of((chart.get("selection") or {}).get("points") or [])
        if cell is not None:
            st.session_state[row_key], st.session_state[column_key] = cell

    return pick_cell


def _progress(text: str):
    """(place, tick): a progress bar drawn at the first tick only, so a sweep already
    remembered (every rerun after the first) draws none."""
    place = st.empty()
    return place, lambda done: place.progress(min(1.0, done), text=text)


def resid_patching(out: PatchOutcome, values: Values) -> None:
    """The exact sweep (with its progress the first time), the map, and the picked cell's run."""
    lm = model_for(out.config)
    bar, tick = _progress("Patching every layer × position…")
    sweep = SCENE.ops.patch_residual(lm, out.pair, tick)
    bar.empty()
    st.subheader("Where the answer is carried: patching the residual stream")
    st.markdown(
        "Each cell is one run of the **corrupted** prompt with the **clean** run's residual "
        "stream put in at one layer (row) and one position (column): the share of the logit "
        "difference it brings back (100 % = the clean answer, 0 = no change). Click a cell to "
        "see that run's next tokens."
    )
    c1, c2 = st.columns(2)
    with c1:
        values["ip_layer"] = draw(TABLE, "ip_layer", high=lm.n_layers - 1)
    with c2:
        values["ip_pos"] = draw(TABLE, "ip_pos", high=len(out.pair.clean) - 1)
    figs = views(out, values, {"ip_resid", "ip_cell"})
    show(
        figs["ip_resid"],
        "ip_resid",
        key="ip_resid_chart",
        selection_mode="points",
        on_select=_clicked("ip_resid_chart", "ip_layer", "ip_pos"),
    )
    r = SCENE.ops.correlate(lm, out.pair)
    st.caption(
        f"{sweep.ran} runs; the other cells are the corrupted run itself (before the first "
        "change both prompts' streams are equal, and at layer 0 only the changed tokens differ). "
        f"Attribution patching (one backward pass) estimates this map with correlation {r:.2f}."
    )
    show(figs["ip_cell"], "ip_cell")


def heads_section(out: PatchOutcome, values: Values) -> None:
    with layout.lazy_expander("Patching each head", "ip_open_heads") as box:
        lm = model_for(out.config)
        c1, c2 = st.columns(2)
        with c1:
            values["ip_hlayer"] = draw(TABLE, "ip_hlayer", high=lm.n_layers - 1)
        with c2:
            values["ip_head"] = draw(TABLE, "ip_head", high=lm.n_heads - 1)
        values["ip_exact"] = draw(TABLE, "ip_exact")
        if not box.open:
            return
        st.markdown(
            "Attribution patching estimates every head at once from one backward pass: the "
            "gradient of the logit difference times the change in the head's output. The head "
            "picked above (or clicked) is patched exactly."
        )
        _picked_head(out, values)
        if values["ip_exact"]:
            bar, tick = _progress("Patching every head…")
            SCENE.ops.patch_heads(lm, out.pair, tick)
            bar.empty()
        _head_maps(out, values)


def _picked_head(out: PatchOutcome, values: Values) -> None:
    """The picked head patched exactly (one run) beside its estimate."""
    lm, p = model_for(out.config), pick(out, values)
    gap = out.diffs[0] - out.diffs[1]
    exact = (SCENE.ops.patch_head(lm, out.pair, p.head_layer, p.head) - out.diffs[1]) / gap
    guess = float(SCENE.ops.estimate(lm, out.pair).heads[p.head_layer, p.head]) / gap
    st.markdown(
        f"**L{p.head_layer} H{p.head}**: patched exactly it brings back **{exact:.1%}**; "
        f"the estimate says {guess:.1%}."
    )


def _head_maps(out: PatchOutcome, values: Values) -> None:
    """The estimate's map; with every head patched, the exact map beside it and their
    agreement under both."""
    exact = bool(values["ip_exact"])
    names = {"ip_attr_heads"} | ({"ip_heads", "ip_agree"} if exact else set())
    figs = views(out, values, names)
    left, right = st.columns(2) if exact else (st.container(), None)
    with left:
        show(
            figs["ip_attr_heads"],
            "ip_attr_heads",
            key="ip_attr_chart",
            selection_mode="points",
            on_select=_clicked("ip_attr_chart", "ip_hlayer", "ip_head"),
        )
    if right is not None:
        with right:
            show(figs["ip_heads"], "ip_heads")
        show(figs["ip_agree"], "ip_agree")


def dla_section(out: PatchOutcome, values: Values) -> None:
    with layout.lazy_expander("Direct logit attribution", "ip_open_dla") as box:
        if not box.open:
            return
        st.markdown(
            "The last position's residual stream is a sum: the token's embedding, every head's "
            "output and every MLP's output (and, in GPT-2, biases). With the final norm's "
            "division frozen at this run's value, the logit difference splits into one part per "
            "component (clean prompt). "
            "Click a head to add it to the heads knocked out below."
        )
        problem = SCENE.ops.direct_problem(model_for(out.config))
        if problem is not None:
            st.info(f"Not for this model: {problem}.")
            return
        show(
            views(out, values, {"ip_dla"})["ip_dla"],
            "ip_dla",
            key="ip_dla_chart",
            selection_mode="points",
            on_select=_add_head,
        )
        parts = SCENE.ops.attribute(model_for(out.config), out.pair)
        biases = f" + biases {parts.bias:+.3f}" if parts.bias else ""  # GPT-2's LayerNorm, W_O's
        st.caption(
            f"Embedding {parts.embed:+.3f} + heads {parts.heads.sum():+.3f} + MLPs "
            f"{parts.mlps.sum():+.3f}{biases} = {parts.total:.4f}; the model's logit difference "
            f"is {parts.whole:.4f} (error {abs(parts.total - parts.whole):.1e})."
        )


def _add_head() -> None:
    """on_select: a click on a head's cell of the attribution adds it to the heads knocked out
    (the MLP column is not a head)."""
    chart = st.session_state.get("ip_dla_chart") or {}
    points = (chart.get("selection") or {}).get("points") or []
    cell = cell_of(points)
    if cell is None or points[0].get("x") == "MLP":
        return
    name = f"L{cell[0]} H{cell[1]}"
    now = [p.strip() for p in str(st.session_state.get("ip_ablate", "")).split(",") if p.strip()]
    if name not in now:
        st.session_state["ip_ablate"] = ", ".join([*now, name])


def _top_heads(out: PatchOutcome) -> None:
    """Button: knock out the three heads with the largest parts."""
    parts = SCENE.ops.attribute(model_for(out.config), out.pair).heads
    top = [divmod(int(i), parts.shape[1]) for i in (-parts).argsort(axis=None)[:3]]
    st.session_state["ip_ablate"] = ", ".join(f"L{layer} H{head}" for layer, head in top)


def ablate_section(out: PatchOutcome, values: Values) -> None:
    with layout.lazy_expander("Knock heads out", "ip_open_ablate") as box:
        c1, c2 = st.columns([3, 2])
        with c1:
            values["ip_ablate"] = draw(TABLE, "ip_ablate", max_chars=400)
        with c2:
            values["ip_how"] = draw(TABLE, "ip_how")
        if not box.open:
            return
        st.button("The 3 heads with the largest parts", on_click=_top_heads, args=(out,))
        try:
            picked = knocked_out(out, values)
        except SceneInputError as err:
            st.warning(md_literal(err))
            return
        if not picked:
            st.info("Name heads to knock out above, as L23 H3, L29 H1.")
            return
        k = SCENE.ops.ablate(model_for(out.config), out.pair, picked, values["ip_how"])
        show(views(out, values, {"ip_ablation"})["ip_ablation"], "ip_ablation")
        top = model_for(out.config).readable([k.top])[0]
        st.markdown(
            f"Logit difference {md_literal(out.right)} − {md_literal(out.wrong)}: "
            f"**{out.diffs[0]:+.2f}** with every head, **{k.diff:+.2f}** without; the most "
            f"likely token is {'still' if k.top == out.pair.right else 'now'} {md_literal(top)}."
        )


def circuit_section(out: PatchOutcome, values: Values) -> None:
    with layout.lazy_expander("The circuit on the prompt", "ip_open_circuit") as box:
        if not box.open:
            return
        st.markdown(
            "The heads with the largest parts in the direct logit attribution (their part in "
            "brackets), and where each looks from the last token of the clean prompt."
        )
        problem = SCENE.ops.direct_problem(model_for(out.config))
        if problem is not None:
            st.info(f"Not for this model: {problem}.")
            return
        show(views(out, values, {"ip_circuit"})["ip_circuit"], "ip_circuit")
