"""The Train a transformer live page's Streamlit parts: the attention figures by layer placed
with their downloads, and the trained model's tools (your input, text generation, head
ablation, save/load: safetensors + JSON only), which call the engine and draw the scene's
figures (attnviz.topics.train_transformer.scene)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import plotly.graph_objects as go
import streamlit as st
import torch

from attnviz.data.tasks import SequenceTask
from attnviz.figures.base import unique_labels
from attnviz.models.transformer import TinyTransformer
from attnviz.topics.train_transformer.scene import (
    ANSWER_ROWS,
    SCENE,
    TEXT_TASKS,
    TransformerJobSpec,
    TransformerSnapshot,
    ablation_figure,
    fit_problems,
    generated_row_figure,
    layer_figures,
    modular_answer,
    parse_input,
    shown_chars,
    split_known,
    trained_on,
)
from attnviz.ui.common import downloads
from attnviz.ui.common.figures import show
from attnviz.ui.common.widgets import draw


def attention_by_layer(
    figs: dict[str, go.Figure], maps: np.ndarray | None = None, tokens: list[str] | None = None
) -> None:
    """Place the layers' figures (the scene's `layer_figures`, in layer order); with `maps`
    (L, H, T, T) and their `tokens`, each layer's maps as CSV / JSON under its figure (not while
    a run polls: buttons redrawn twice a second)."""
    for layer, (name, fig) in enumerate(figs.items()):
        show(fig, name, key=name)
        if maps is not None:
            prefix = name.removesuffix(f"_layer{layer}")
            named = {f"layer {layer} head {h}": maps[layer, h] for h in range(maps.shape[1])}
            axes = (unique_labels(tokens), unique_labels(tokens))  # rows: query, columns: key
            downloads.matrices(
                named,
                f"{prefix}_attention_layer{layer}",
                f"{prefix}_dl{layer}",
                labels=dict.fromkeys(named, axes),
            )


def try_input(model: TinyTransformer, task: SequenceTask) -> None:
    text_task = task.spec.name in TEXT_TASKS
    how = "one token a character" if text_task else "tokens separated by spaces"
    st.markdown(f"**Try your own input** ({how})")
    probe = task.decode(task.val_x[task.probe])
    text = st.text_input(
        "input tokens", "".join(probe) if text_task else " ".join(probe), key="tt_input"
    )
    tokens, dropped = parse_input(text, task)
    if dropped:
        st.warning(f"Not in this task's vocabulary, left out: {shown_chars(dropped)}.")
    if not tokens:
        st.warning("Type at least one token.")
        return
    if len(tokens) > model.config.max_len:
        st.warning(f"This model reads at most {model.config.max_len} tokens; the rest is cut.")
        tokens = tokens[: model.config.max_len]
    try:
        ids = task.encode(tokens)
    except ValueError as err:
        st.error(f"{err}. Vocabulary: {' '.join(task.vocab)}")
        return
    pred, maps = SCENE.ops.run_input(model, ids)
    outputs = task.decode(torch.as_tensor(pred))
    st.caption(ANSWER_ROWS.get(task.spec.name, ""))
    answer = modular_answer(tokens, task.spec.n_symbols)
    if task.spec.name == "modular_addition" and answer is not None:
        a, b, p = tokens[0], tokens[2], task.spec.n_symbols
        st.markdown(
            f"Right answer: ({a} + {b}) mod {p} = **{answer}**; the model says **{outputs[-1]}**."
        )
    st.dataframe({"input": tokens, "model output": outputs}, width="stretch")
    attention_by_layer(layer_figures(maps, tokens, "tt_try"))


def generate_text(model: TinyTransformer, task: SequenceTask) -> None:
    st.markdown("**Generate text** and scrub through it")
    prompt = draw(SCENE.table, "tt_prompt")
    temperature = draw(SCENE.table, "tt_gen_temp")
    known, dropped = split_known(list(prompt), task.vocab)
    if dropped:
        st.warning(
            f"Not in the model's vocabulary, left out of the prompt: {shown_chars(dropped)}."
        )
    if not known:
        st.warning(
            f"No character of the prompt is in the vocabulary: starting from {task.vocab[0]!r}."
        )
    text = SCENE.ops.generate(model, task, "".join(known), 60, temperature)
    st.code(text, language=None)
    window = model.config.max_len
    pos = st.slider("generated character", 1, len(text) - 1, len(text) - 1, key="tt_gen_pos")
    context = text[max(0, pos - window + 1) : pos + 1]
    ids = task.encode([c for c in context if c in task.vocab])
    _, maps = SCENE.ops.run_input(model, ids)
    row = maps[-1].mean(0)[-1]  # last layer, mean over heads, the chosen character's row
    show(generated_row_figure(row, context, text[pos]), "tt_gen_row")


def ablation(model: TinyTransformer, task: SequenceTask) -> None:
    st.markdown("**Head ablation**: zero one head's output and re-measure validation accuracy")
    if st.button("Measure every head", key="tt_ablate"):
        drops = SCENE.ops.ablate(model, task)  # (L, H)
        show(ablation_figure(drops), "tt_ablation")
        named = {"accuracy drop (points), row: layer, column: head": drops * 100}
        rows = [f"layer {i}" for i in range(drops.shape[0])]
        cols = [f"head {j}" for j in range(drops.shape[1])]
        downloads.matrices(
            named, "tt_head_ablation", "tt_ablation_dl", labels=dict.fromkeys(named, (rows, cols))
        )


def save_and_load(
    model: TinyTransformer, spec_json: dict, task: SequenceTask
) -> tuple[TinyTransformer, str] | None:
    """Download buttons for the model; an uploader that accepts only safetensors + JSON config.
    A loaded model that fits `task` comes back with its task in words; one that does not is
    refused with the reasons."""
    a, b = st.columns(2)  # the files are built when a button is clicked
    a.download_button(
        "Download weights (.safetensors)",
        lambda: SCENE.ops.save(model, spec_json)[0],
        "attnviz_model.safetensors",
        key="tt_dl_w",
        on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
    )
    b.download_button(
        "Download config (.json)",
        lambda: SCENE.ops.save(model, spec_json)[1],
        "attnviz_model.json",
        "application/json",
        key="tt_dl_c",
        on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
    )
    up_w = a.file_uploader("load weights (.safetensors)", type=["safetensors"], key="tt_up_w")
    up_c = b.file_uploader("load config (.json)", type=["json"], key="tt_up_c")
    if up_w is None or up_c is None:
        return None
    try:
        loaded, extra = SCENE.ops.load(up_w.getvalue(), up_c.getvalue())
    except ValueError as err:
        st.error(f"Could not load the model: {err}")
        return None
    problems = fit_problems(loaded.config, extra, task)
    if problems:
        st.error(
            "This model does not fit the current task, so it is not used: "
            + "; ".join(problems)
            + f". It was trained on {trained_on(extra)}: pick that task (and its settings) "
            "above, train for a step, and load it again."
        )
        return None
    st.success(
        f"Loaded a model trained on {trained_on(extra)}: {json.dumps(loaded.config.to_dict())}"
    )
    return loaded, trained_on(extra)


def trained_tools(spec: TransformerJobSpec, snapshot: TransformerSnapshot, step: int) -> None:
    """Save / load, then the tools in tabs, on the snapshot's model (or on a loaded model that
    fits the task)."""
    trained_task, trained = SCENE.ops.restore(spec, snapshot)
    loaded = save_and_load(trained, {"task": dataclasses.asdict(spec.task)}, trained_task)
    if loaded is None:
        st.caption(f"The maps above and the tools below: this run's model at step {step}.")
    else:
        trained = loaded[0]
        st.caption(
            f"The maps above: this run's model at step {step}. The tools below: **the loaded "
            f"model**, trained on {loaded[1]}."
        )
    tools = st.tabs(["Your input", "Generate", "Head ablation"])
    with tools[0]:
        try_input(trained, trained_task)
    with tools[1]:
        if spec.task.name == "next_char":
            generate_text(trained, trained_task)
        else:
            st.info("Generation is for the next-character task.")
    with tools[2]:
        ablation(trained, trained_task)
