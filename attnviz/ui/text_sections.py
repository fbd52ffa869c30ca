"""The fold-out sections of the text page: vectors, the padded batch, and experiments (a)–(d).

Each section is a lazy expander (attnviz.ui.layout.lazy_expander): its contents are computed
only while it is open, and whether it is open is part of the URL, so a lecturer can share a
link that opens straight onto one experiment. The cached computations live here too.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from attnviz.core.positional import sinusoidal
from attnviz.figures.long_maps import top_k_figure, window_figure
from attnviz.figures.text import (
    positional_figure,
    saturation_figure,
    shown,
    sinusoid_curves,
    temperature_figure,
    vectors_map,
    weights_map,
)
from attnviz.topics.text.attention import (
    PAIR_MAX,
    TextAttention,
    TextConfig,
    analyse,
    padded_batch,
    permutation_experiment,
    saturation_curve,
    temperature_rows,
)
from attnviz.topics.text.params import TABLE, TEMPERATURES
from attnviz.ui.figures import show
from attnviz.ui.layout import lazy_expander
from attnviz.ui.widgets import draw


@st.cache_data(max_entries=64, show_spinner=False)
def cached_analysis(text: str, cfg: TextConfig) -> TextAttention:
    return analyse(text, cfg)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_padded(first: str, second: str, cfg: TextConfig, pad_mask: bool):
    return padded_batch(first, second, cfg, pad_mask)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_permutation(tokens: tuple[str, ...], cfg: TextConfig):
    return permutation_experiment(list(tokens), cfg)


@st.cache_data(max_entries=2, show_spinner=False)
def cached_saturation():
    return saturation_curve([2, 4, 8, 16, 32, 64, 128, 256, 512])


def heads_to_draw(picked, heads: int) -> list[int]:
    """The head view's heads: those picked that exist; none picked (every pill deselected, or a
    stale choice from before the head count changed) draws every head, and says so."""
    kept = sorted(h for h in (picked or []) if 0 <= h < heads)
    if not kept:
        st.caption("No head picked: the head view shows every head.")
    return kept or list(range(heads))


def bpe_note(tokens: list[str], tokenizer: str) -> None:
    """Explains the byte pieces of a BPE character (ß‹1/2›) when the tokens hold any."""
    if tokenizer == "bpe" and any("‹" in t for t in tokens):
        st.caption(
            "This BPE works on **bytes**, not characters: a character outside ASCII is 2–4 "
            "bytes in UTF-8 (ß is C3 9F), and where the learned merges never joined them, each "
            "byte is its own token. Such tokens are labelled with the character and the bytes "
            "they hold, e.g. ß‹1/2› and ß‹2/2›."
        )


def pronoun_note(text: str, pronoun_text: str) -> None:
    """The pronoun puzzle runs on random weights: say so before its maps."""
    if text.strip() == pronoun_text:
        st.info(
            "**Random weights, not a trained model.** This layer's $W_q, W_k, W_v$ are seeded "
            "random numbers: whatever 'it' attends to here is chance, not an answer to the "
            "puzzle. A trained model's answer is on the **Pretrained model explorer** (its "
            "*Pronoun coreference* preset)."
        )


MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:"


def md_literal(text: str) -> str:
    """Text a user typed, escaped so that Markdown shows it as typed (no link, image, emphasis
    or formula is made from it)."""
    return "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in text)


def readable(x: float) -> str:
    """A small non-negative difference as a reader would write it: 6 decimals, never 7.02e-19."""
    return f"{x:.6f}" + (" (below 10⁻⁶: rounding)" if x < 1e-6 else "")


def vectors(result: TextAttention, cfg: TextConfig) -> None:
    with lazy_expander("Embeddings, positions and outputs", "ta_open_vectors") as box:
        if not box.open:
            return
        tokens = result.tokens
        show(vectors_map(result.embeddings, tokens, "Token embeddings (seeded random)"), "emb")
        if cfg.positional == "none":
            st.info("No positional encoding: the model sees a bag of tokens (experiment a).")
        else:
            show(positional_figure(result.positions, rope=cfg.positional == "rope"), "positional")
        if cfg.positional == "sinusoidal":
            show(sinusoid_curves(sinusoidal(max(len(tokens), 64), cfg.d_model)), "sinusoids")
        show(vectors_map(result.outputs, tokens, "Outputs: one row per token, heads merged"), "out")


def padding(text: str, cfg: TextConfig, head: int) -> None:
    with lazy_expander("Padding mask: a batch of two sentences", "ta_open_pad") as box:
        # drawn while closed too (cheap), so they keep their values, links and presets
        other = draw(TABLE, "ta_second", max_chars=2000)
        pad_mask = draw(TABLE, "ta_padmask")
        if not box.open:
            return
        padded, pad_w = cached_padded(text, other, cfg, pad_mask)  # pad_w (2, H, T, T)
        note = "[PAD] keys get weight 0" if pad_mask else "mask off: [PAD] keys take weight"
        for col, (i, toks) in zip(st.columns(2), enumerate(padded), strict=True):
            with col:
                title = f"sentence {i + 1}, head {head}: {note}"
                show(weights_map(pad_w[i, head], toks, title), f"pad{i}")
        st.caption(f"Each sentence uses its first {PAIR_MAX} tokens.")


SAME = 1e-5  # a max difference below this is rounding: the maps are the same


def shuffle(tokens: list[str], cfg: TextConfig, head: int) -> None:
    label = "(a) Why positional encodings? Shuffle the tokens"
    with lazy_expander(label, "ta_open_shuffle") as box:
        if not box.open:
            return
        diffs = {}
        for pe in ("none", cfg.positional if cfg.positional != "none" else "sinusoidal"):
            exp = cached_permutation(
                tuple(tokens[:PAIR_MAX]), dataclasses.replace(cfg, positional=pe)
            )
            diffs[pe] = exp["max_difference"]
            st.markdown(
                f"**positional = {pe}**: max |attention(shuffled) − P·attention·Pᵀ| = "
                f"`{readable(exp['max_difference'])}`"
            )
            perm_tokens = [tokens[i] for i in exp["perm"]]
            panels = (("original_permuted", "original, rows and columns permuted"),
                      ("shuffled", "computed on the shuffled tokens"))  # fmt: skip
            for col, (name, title) in zip(st.columns(2), panels, strict=True):
                with col:
                    figure = weights_map(exp[name][head], perm_tokens, f"{title} (head {head})")
                    show(figure, name + pe)
        st.info(shuffle_lesson(diffs, cfg.causal))


def shuffle_lesson(diffs: dict[str, float], causal: bool) -> str:
    """What the shuffle shows, chosen by the measured differences and the causal mask: never a
    claim the printed numbers contradict. `diffs`: max difference per positional encoding, the
    first one "none"."""
    (_, without), (pe, with_pe) = diffs.items()
    if without >= SAME and causal:
        lesson = (
            "The causal mask depends on positions, so even without positional encodings the "
            f"maps differ (max difference {readable(without)}): the mask alone tells the model the "
            "order, and attention is no longer permutation-equivariant. Turn the causal mask "
            "off to see the equivariance."
        )
    elif without >= SAME:
        lesson = (
            f"Without positions the maps differ by {readable(without)}, more than rounding: something "
            "other than positional encodings depends on the order here."
        )
    else:
        lesson = (
            "Without positions the two maps are identical up to the permutation (max "
            f"difference {readable(without)}): attention without positions is permutation-equivariant "
            "(shuffle the tokens and the attention shuffles the same way)."
        )
        if causal:  # equal although the mask is on: this shuffle kept what the mask sees
            lesson += (
                " That holds here only because this shuffle leaves the order the causal mask "
                "sees unchanged; in general the mask depends on positions and breaks it."
            )
    if with_pe >= SAME:
        return lesson + f" With {pe} positions they differ (max difference {readable(with_pe)})."
    return (
        lesson + f" With {pe} positions they agree here too (max difference {readable(with_pe)})."
    )


def saturation(d_k: int) -> None:
    with lazy_expander("(b) Why divide by √d_k? Softmax saturation", "ta_open_sat") as box:
        if not box.open:
            return
        show(saturation_figure(cached_saturation(), d_k), "saturation")
        st.caption(
            r"For random $q, k$ with unit-variance entries, $q\cdot k$ has variance $d_k$: "
            "unscaled, the softmax saturates towards one-hot and the entropy falls; divided by "
            r"$\sqrt{d_k}$ it stays level."
        )


def causal(text: str, cfg: TextConfig, head: int, tokens: list[str]) -> None:
    with lazy_expander("(c) The causal mask", "ta_open_causal") as box:
        if not box.open:
            return
        n = min(len(tokens), PAIR_MAX)
        for col, flag in zip(st.columns(2), (False, True), strict=True):
            w = cached_analysis(text, dataclasses.replace(cfg, causal=flag)).weights[head, :n, :n]
            with col:
                title = f"causal mask {'on' if flag else 'off'} (head {head})"
                show(weights_map(w, tokens[:n], title), f"causal_{flag}")
        st.caption(
            r"With the mask every weight above the diagonal is exactly 0 (score $-\infty$ before "
            r"the softmax): token $i$ sees only tokens $0,\dots,i$, as a decoder (GPT) must when "
            "predicting the next."
        )


def temperature(result: TextAttention, cfg: TextConfig, head: int, query: int) -> None:
    with lazy_expander("(d) Temperature", "ta_open_temp") as box:
        if not box.open:
            return
        causal_query = query if cfg.causal else None
        sweep = list(TEMPERATURES)
        rows, ent = temperature_rows(result.scores[head, query], sweep, causal_query)
        label = shown(result.tokens)[query]
        show(temperature_figure(rows, sweep, result.tokens, label), "temperature")
        per_tau = ", ".join(f"τ={tau:g}: {e:.2f}" for tau, e in zip(sweep, ent, strict=True))
        st.caption(
            f"Entropy of the row per temperature: {per_tau} nats. The row is "
            r"$\operatorname{softmax}(s/\tau)$: small $\tau$ → one-hot (a hard select), large "
            r"$\tau$ → uniform (the mean)."
        )


LONG_INPUT = 64  # above this many tokens the grid is pooled and the bars become a line
WINDOW = 32  # tokens each side of the full-resolution window


def long_input(weights: np.ndarray, tokens: list[str], head: int, query: int) -> None:
    """For a long input, two views that keep its structure (the grid above is max-pooled):
    each query's three largest weights, and the map at full resolution around the query.
    weights: (H, T, T)."""
    t = len(tokens)
    if t <= LONG_INPUT:
        return
    st.markdown(f"**Long input ({t} tokens): head {head} at full resolution**")
    show(
        top_k_figure(
            weights[head], tokens, k=3, title=f"Head {head}: each query's 3 largest weights"
        ),
        "top_k",
    )
    lo = max(0, min(query - WINDOW // 2, t - WINDOW))
    title = f"Head {head}, tokens {lo}–{lo + WINDOW - 1} around query {query}"
    show(
        window_figure(weights[head], tokens, (lo, lo + WINDOW), (lo, lo + WINDOW), title), "window"
    )
