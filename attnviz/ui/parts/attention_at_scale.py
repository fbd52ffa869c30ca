"""The Attention at scale page's parts around its scene's views
(attnviz.topics.attention_at_scale.scene): each part's controls and its figures with their notes,
and the cost of one attention layer timed live on this machine (a button in a lazy expander; never
on page load)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attnviz.figures.scale import loglog_figure
from attnviz.topics.attention_at_scale.scene import (
    ALGORITHMS,
    D_HEAD,
    HEADS,
    LENGTHS,
    NAIVE_CPU_MAX,
    SCENE,
    crossover_sentence,
    slopes,
)
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.measured import measured
from attnviz.ui.common.widgets import draw

CONTROLS = {  # the part's own widgets, in the left column
    "Masks": ("sc_mask", "sc_causal", "sc_w", "sc_r", "sc_g", "sc_layers", "sc_head"),
    "Linear attention": ("sc_causal", "sc_head", "sc_query"),
    "FlashAttention": ("sc_n", "sc_d", "sc_sram", "sc_tile"),
    "KV cache": ("sc_kv_len", "sc_kv_layers", "sc_kv_heads", "sc_kv_cache"),
    "Cost": ("sc_w", "sc_r", "sc_g", "sc_causal"),
}
MASK_NOTE = (
    "Rows are queries, columns keys; a dark cell is a score computed. A window of width $w$: each "
    "token sees itself and the $w-1$ tokens before it (and after it, when not causal); dilated: "
    "the same $w$ keys $r$ apart; global + local: the first $g$ tokens see all and are seen by all."
)


# on the Masks part, the masks each slider shapes (greyed out under the others)
SHAPES = {
    "sc_w": ("sliding window", "dilated", "global + local"),
    "sc_r": ("dilated",),
    "sc_g": ("global + local",),
}


def controls(part: str, tokens: int) -> dict:
    """Draw the part's widgets; their values by key (the query slider stops at the last token;
    on the Masks part a mask's own sliders are greyed out under the other masks)."""
    drawn = {}
    for key in CONTROLS[part]:
        if key == "sc_query":
            drawn[key] = draw(SCENE.table, key, high=max(tokens - 1, 1), disabled=tokens < 2)
        elif part == "Masks" and key in SHAPES:
            drawn[key] = draw(SCENE.table, key, disabled=drawn["sc_mask"] not in SHAPES[key])
        else:
            drawn[key] = draw(SCENE.table, key)
    return drawn


def masks_main(figs: dict) -> None:
    show(figs["sc_main"], "sc_main")
    st.caption(MASK_NOTE)


def masks_more(figs: dict) -> None:
    """The maps under every mask and the receptive field, side by side."""
    maps, reach = st.columns([3, 2])
    with maps:
        show(figs["sc_maps"], "sc_maps")
        st.caption(
            "The same $q, k, v$ of the text page's layer (untrained, seeded) under each mask: "
            "a masked score is $-\\infty$ before the softmax, so each row shares its weight among "
            "the keys its mask keeps."
        )
    with reach:
        show(figs["sc_reach"], "sc_reach")
        st.caption(
            "Token $i$ holds token $j$'s information after the fewest layers shown (a path "
            "$i \\leftarrow \\dots \\leftarrow j$ through the mask, one hop a layer). A causal "
            "window of width $w$ reaches $\\min(t, L(w-1))$ tokens back."
        )


def linear_main(out, figs: dict) -> None:
    show(figs["sc_main"], "sc_main")
    lin = out.linear
    st.markdown(
        f"Mean total-variation distance between the rows: **{lin.mean_tv:.3f}** "
        "(0: the same weights, 1: disjoint); largest difference of the outputs: "
        f"**{lin.max_out_diff:.3f}**."
    )


def linear_more(figs: dict) -> None:
    show(figs["sc_linear_row"], "sc_linear_row")
    st.caption(
        "Linear attention replaces $e^{q\\cdot k/\\sqrt d}$ by $\\varphi(q)\\cdot\\varphi(k)$ "
        "with $\\varphi(x) = \\mathrm{elu}(x) + 1$: then "
        "$\\sum_j \\varphi(q_i)\\cdot\\varphi(k_j)\\,v_j "
        "= \\varphi(q_i)^\\top \\big(\\sum_j \\varphi(k_j) v_j^\\top\\big)$, a $d \\times d$ sum "
        "computed once, so the layer costs $O(T)$ instead of $O(T^2)$. Its cost as $T$ grows: "
        "the **Cost** part."
    )


def notes(lines: list[str]) -> None:
    st.markdown("\n".join(f"- {line}" for line in lines))


def flash_main(values: dict, figs: dict) -> None:
    show(figs["sc_main"], "sc_main")
    notes(SCENE.ops.flash_notes(values))


def flash_more(figs: dict) -> None:
    left, right = st.columns(2)
    with left:
        show(figs["sc_flash_running"], "sc_flash_running")
    with right:
        show(figs["sc_flash_error"], "sc_flash_error")


def kv_main(values: dict, figs: dict) -> None:
    show(figs["sc_main"], "sc_main")
    notes(SCENE.ops.kv_notes(values))


def kv_more(figs: dict) -> None:
    left, right = st.columns(2)
    with left:
        show(figs["sc_kv_total"], "sc_kv_total")
    with right:
        show(figs["sc_kv_memory"], "sc_kv_memory")


def cost_main(figs: dict) -> None:
    show(figs["sc_main"], "sc_main")
    st.caption(
        "Counted, not timed: the scores one head of one layer computes under each mask. The "
        "full and causal masks grow as $T^2$; a window, dilated or not, as $T\\cdot w$."
    )


def cost_views(rows: list[dict]) -> dict:
    """The measured time and memory, log–log, each algorithm's slope in its legend."""
    figs = {}
    taken = rows[0]["measured"]  # memory measured (CUDA), or computed (CPU)
    for key, title, y_title, unit in (
        ("ms", "One attention layer's time against tokens T", "ms per call", "ms"),
        (
            "bytes",
            "Peak memory against tokens T" + ("" if taken else " (computed: CPU)"),
            "bytes",
            "bytes",
        ),
    ):
        mine = {a: [r for r in rows if r["algorithm"] == a] for a in ALGORITHMS}
        lengths = {a: [r["length"] for r in m] for a, m in mine.items()}
        values = {a: np.array([r[key] for r in m], dtype=np.float64) for a, m in mine.items()}
        figs[f"sc_cost_{key}"] = loglog_figure(
            lengths, values, slopes(rows, key), title, y_title, unit
        )
    return figs


def cost_timing(device: str) -> None:
    """Time and memory of naive attention, SDPA and linear attention, measured when asked."""
    with lazy_expander("Time it on this machine: naive, SDPA, linear", "sc_open_cost") as box:
        if not box.open:
            return
        cap = "" if device.startswith("cuda") else f" (naive up to {NAIVE_CPU_MAX:,} on a CPU)"
        st.markdown(
            f"One attention layer, batch 1, {HEADS} heads of width {D_HEAD}, at "
            f"{LENGTHS[0]} … {LENGTHS[-1]:,} tokens{cap}, on **{device}**. Naive attention "
            "writes the $T \\times T$ scores and weights; SDPA is PyTorch's fused kernel; "
            "linear attention sums $\\varphi(K)^\\top V$ once."
        )
        take = lambda: SCENE.ops.measure(LENGTHS, device, seconds=0.01)  # noqa: E731
        spinner = "Timing three algorithms at 64 … 8,192 tokens"
        rows = measured("sc_timing", "sc_measure", device, spinner, take)
        if rows is None:
            return
        figs = cost_views(rows)
        left, right = st.columns(2)
        with left:
            show(figs["sc_cost_ms"], "sc_cost_ms", key="sc_cost_ms_chart")
        with right:
            show(figs["sc_cost_bytes"], "sc_cost_bytes", key="sc_cost_bytes_chart")
        if not rows[0]["measured"]:
            st.caption(
                "On a CPU the memory is computed, not measured: the bytes of the tensors each "
                "algorithm allocates that grow with T (the CPU profiler's counts were unreliable)."
            )
        st.markdown(crossover_sentence(rows))
