"""Inside a language model, as a scene: a prompt through the bundled SmolLM2-135M (a real
decoder LLM: 30 layers, 9 query heads sharing 3 key/value heads, RoPE), and its views: the next
token, one layer's heads grouped by the key/value head they read, one head's map, the key/value
cache's bytes per token, generation with attention over time, the logit lens, every head
labelled, the attention sinks, and why the chosen head looks where it looks (one cell's score
taken apart by what built its query and its key). Lesson answers: `next_token`, `induction_head`,
`first_token_share`. Its `ops`: the model's `load` (and `is_loaded`), `predict` the next token,
`generate`, `score_heads`, `count_kv_bytes` and `say_kv_bytes` (the sentence over its bars),
`explain_cell` (the sentence under the "why" view), and the server's `warm_up`.

`run` makes one forward pass per prompt; the layer, head and kind settings only cut views from
it. Generation, the lens, the head scores and the sinks are computed only when their view is
asked for, and remembered per model and input (`memo`), so a move of a slider runs no model.
The model comes from `model(device)`: the bundled one, or one handed in by `use_model` (tests use a
tiny random Llama).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import plotly.graph_objects as go

from attnviz.figures import llm as fig
from attnviz.figures.clickable import clickable_cells
from attnviz.figures.generation import generation_map, step_bars
from attnviz.figures.pretrained import token_map
from attnviz.figures.text import shown
from attnviz.topics.fair_options import fair_order, kin_first
from attnviz.topics.language_model import bundled, own, qk_parts, readouts, why
from attnviz.topics.language_model.decoding import Decoding
from attnviz.topics.language_model.forward import Forward, direct_problem, encode, group_of
from attnviz.topics.language_model.guesses import word_chances
from attnviz.topics.language_model.params import TABLE, TRY_THIS
from attnviz.topics.operations import Operations
from attnviz.topics.pretrained.model import PretrainedModel
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values, token_labels
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.language_model.bundled import ModelMissing as ModelMissing
from attnviz.topics.language_model.forward import MAX_TOKENS as MAX_TOKENS
from attnviz.topics.language_model.heads import KIND_NAMES as KIND_NAMES
from attnviz.topics.language_model.heads import KINDS as KINDS
from attnviz.topics.language_model.heads import labels as labels
from attnviz.topics.language_model.params import AUTO as AUTO
from attnviz.topics.pretrained.analysis import blank_future as blank_future

_provider: Callable[[str], PretrainedModel] = bundled.bundled_llm


def use_model(provider: Callable[[str], PretrainedModel]) -> None:
    """Take the model from `provider(device)` from now on (tests hand in a tiny one)."""
    global _provider
    _provider = provider


def model(device: str = "cpu", source: str = "") -> PretrainedModel:
    """The page's model on `device`: the bundled one (`source` empty), or the researcher's own
    folder or cached Hub name (`own.own_llm`); SceneInputError saying what to do when it is
    missing or cannot be read."""
    try:
        return own.own_llm(source.strip(), device) if source.strip() else _provider(device)
    except (bundled.ModelMissing, own.OwnModelError) as err:
        raise SceneInputError(str(err)) from None


def model_for(config) -> PretrainedModel:
    """The model a run's config names (its `device` and `source`)."""
    return model(config.device, config.source)


@dataclass(frozen=True)
class LlmInput:
    text: str
    chat: bool  # wrapped in the chat template as a user turn
    bos: bool  # the BOS token in front
    device: str = "cpu"  # the sidebar's device: the model runs there
    source: str = ""  # the researcher's own model (a folder or cached Hub name); "": bundled


@dataclass(frozen=True)
class LlmOutcome:
    config: LlmInput
    fwd: Forward
    cut: bool  # the prompt had more than forward.MAX_TOKENS tokens
    model_name: str


def config(values: Values) -> LlmInput:
    text = values["lm_text"]
    if not text.strip():
        raise SceneInputError("Type a prompt above (it is empty).")
    chat, bos = bool(values["lm_chat"]), bool(values["lm_bos"])
    return LlmInput(text, chat, bos, values["device"], values["lm_model"].strip())


def prompt_ids(lm: PretrainedModel, config: LlmInput) -> tuple[list[int], bool]:
    """The prompt's ids as the model reads them (chat template, BOS) and whether it was cut."""
    text = config.text
    if config.chat:
        turn = [{"role": "user", "content": text}]
        text = lm.tokenizer.apply_chat_template(turn, add_generation_prompt=True, tokenize=False)
    return encode(lm, text, bos=config.bos and not config.chat)


def run(config: LlmInput) -> LlmOutcome:
    lm = model_for(config)
    ids, cut = prompt_ids(lm, config)
    return LlmOutcome(config, readouts.forward(lm, ids), cut, lm.name)


def decoding(values: Values) -> Decoding:
    if not values["lm_sample"]:
        return Decoding()
    return Decoding(
        temperature=float(values["lm_temp"]),
        top_k=int(values["lm_topk"]),
        top_p=float(values["lm_topp"]),
        seed=int(values["lm_seed"]),
    )


@dataclass(frozen=True)
class Pick:
    layer: int
    head: int


def pick(out: LlmOutcome, values: Values) -> Pick:
    layers, heads = out.fwd.attentions.shape[:2]
    return Pick(min(int(values["lm_layer"]), layers - 1), min(int(values["lm_head"]), heads - 1))


# the readouts each view reads are computed once per model and input (`memo`), so views
# sharing one (generation, the lens, the sinks) run it once


def next_view(out: LlmOutcome, values: Values) -> go.Figure:
    top = readouts.next_tokens(model_for(out.config), out.fwd, decoding(values))
    return fig.next_token_figure(top.labels, top.probs, top.chosen_index, top.exact)


def gqa_view(out: LlmOutcome, values: Values) -> go.Figure:
    lm, p = model_for(out.config), pick(out, values)
    group = lm.n_heads // lm.n_kv_heads
    return fig.grouped_heads(
        blank_future(out.fwd.attentions[p.layer]), out.fwd.tokens, group, p.layer
    )


def head_map_view(out: LlmOutcome, values: Values) -> go.Figure:
    lm, p = model_for(out.config), pick(out, values)
    title = f"Layer {p.layer}, head {p.head} (reads KV head {group_of(lm, p.head)})"
    maps = blank_future(out.fwd.attentions[p.layer, p.head])
    if values["lm_flow"]:  # what flows: each source's share by ‖α_ij W_O v_j‖
        maps = blank_future(readouts.flow_shares(lm, out.fwd, p.layer)[p.head])
        title = f"Layer {p.layer}, head {p.head}: what flows, ‖α·W<sub>O</sub>v‖ per row"
    return clickable_cells(token_map(maps, shown(out.fwd.tokens), title))  # a click: "why"


def writes_view(out: LlmOutcome, values: Values) -> go.Figure | None:
    """With "what flows" on: what the chosen head writes at the last token, read as logits."""
    lm, p = model_for(out.config), pick(out, values)
    if not values["lm_flow"] or direct_problem(lm) is not None:  # the page says why
        return None
    writes = readouts.head_writes(lm, out.fwd, p.layer, p.head)
    last = shown(out.fwd.tokens)[-1]
    title = f"Layer {p.layer}, head {p.head} at {last}: the logits its output pushes"
    return fig.writes_figure(writes.promoted, writes.suppressed, title)


def _why(out: LlmOutcome, values: Values) -> why.Why:
    lm, p = model_for(out.config), pick(out, values)
    asked = tuple(int(values[key]) for key in ("lm_why_query", "lm_why_key", "lm_why_versus"))
    return why.explain(lm, out.fwd, p.layer, p.head, asked)


def why_view(out: LlmOutcome, values: Values) -> go.Figure | None:
    """The chosen head's score at one cell taken apart (attnviz.topics.language_model.why);
    None for a model whose scores do not split (`why_said` says why)."""
    if qk_parts.refusal(model_for(out.config)) is not None:
        return None
    p = pick(out, values)
    return why.figure(_why(out, values), out.fwd.tokens, p.layer, p.head)


def why_said(out: LlmOutcome, values: Values) -> str:
    """The sentence under `why_view`: the components that add most to the score, or why this
    model's scores cannot be taken apart."""
    reason = qk_parts.refusal(model_for(out.config))
    if reason is not None:
        return f"This model's scores do not split into parts: {reason}."
    p = pick(out, values)
    return why.said(_why(out, values), out.fwd.tokens, p.layer, p.head)


def _generated(out: LlmOutcome, values: Values):
    """(the generation, the step shown, each new token's attention row (N, P + N))."""
    lm, p = model_for(out.config), pick(out, values)
    gen = readouts.generation(lm, out.fwd.ids, int(values["lm_new"]), decoding(values))
    step = min(int(values["lm_gen_step"]), gen.n_new)
    return gen, step, blank_future(gen.rows[p.layer, p.head])


def generation_view(out: LlmOutcome, values: Values) -> go.Figure:
    (gen, step, rows), p = _generated(out, values), pick(out, values)
    title = f"Each new token's attention, layer {p.layer}, head {p.head}"
    return generation_map(rows, gen.tokens, gen.n_prompt, step, title)


def gen_step_view(out: LlmOutcome, values: Values) -> go.Figure:
    gen, step, rows = _generated(out, values)
    return step_bars(rows[step - 1], gen.tokens, gen.n_prompt, step)


def lens_view(out: LlmOutcome, values: Values) -> go.Figure:
    view = readouts.lens_view(model_for(out.config), out.fwd)
    return fig.lens_figure(view.top, view.probs, view.hover, out.fwd.tokens)


def lens_last_view(out: LlmOutcome, values: Values) -> go.Figure:
    view, last = readouts.lens_view(model_for(out.config), out.fwd), out.fwd.tokens[-1]
    return fig.lens_last_figure([r[-1] for r in view.top], view.probs[:, -1], last)


def scores_view(out: LlmOutcome, values: Values) -> go.Figure:
    kind = values["lm_kind"]
    scores = readouts.probe_scores(model_for(out.config))[kind]
    return fig.score_map(scores, KIND_NAMES[kind])


def sinks_map_view(out: LlmOutcome, values: Values) -> go.Figure:
    lm = model_for(out.config)
    sinks = readouts.sinks(lm, out.fwd.ids)
    first = shown([sinks.first_token])[0]
    if values["lm_flow"]:  # what flows from the first token, not the weight on it
        return fig.sink_flow_map(readouts.flow_first_shares(lm, out.fwd), first)
    return fig.sink_map(sinks.as_given, first)


def sinks_lines_view(out: LlmOutcome, values: Values) -> go.Figure:
    sinks = readouts.sinks(model_for(out.config), out.fwd.ids)
    return fig.sink_lines(sinks.with_bos, sinks.without_bos, sinks.first)


GEN, LENS, SINKS = "lm_open_gen", "lm_open_lens", "lm_open_sinks"  # folded sections' toggles
GENERATION = View("lm_generation", generation_view, section=GEN)  # api_generate draws it too
VIEWS = (
    View("lm_next", next_view, main=True),
    View("lm_gqa", gqa_view),
    View("lm_head_map", head_map_view),
    View("lm_writes", writes_view),
    View(
        "lm_kv",
        lambda out, values: fig.kv_bytes_figure(readouts.kv_bytes_rows(model_for(out.config))),
    ),
    GENERATION,
    View("lm_gen_step_bars", gen_step_view, section=GEN),
    View("lm_lens", lens_view, section=LENS),
    View("lm_lens_last", lens_last_view, section=LENS),
    View("lm_scores", scores_view, section="lm_open_heads"),
    View("lm_sinks_map", sinks_map_view, section=SINKS),
    View("lm_sinks_lines", sinks_lines_view, section=SINKS),
    View("lm_why", why_view, section="lm_open_why"),
)


def why_answer(out: LlmOutcome, values: Values) -> dict[str, Answer]:
    """`why_key`: the key's component that adds most to the asked cell's score, among the four
    that add most there, in an order drawn from the prompt (by name, "L16 H0" came first)."""
    answer, options = why.key_question(_why(out, values))
    return {"why_key": Answer.of(answer, fair_order(options, " ".join(out.fwd.tokens)))}


def next_answer(ranked: Sequence[str], probs=None, chances=None) -> Answer:
    """The top token, with three others of the top ten (of its kind first: a name among names)
    as option labels ("␣Mary" is "Mary"), shuffled: neither rank nor shape tells the answer.
    Asked as a typed question: the ten with their `probs`, and `chances` of typed words."""
    labels = token_labels(kin_first(ranked[0], ranked[:10], 4))
    found = Answer.of(labels[0], fair_order(labels, " ".join(ranked[:10])))
    if probs is None:
        return found
    ten = tuple(zip(ranked[:10], (float(p) for p in probs[:10]), strict=False))
    return replace(found, ranked=ten, chances=chances)


def answers(out: LlmOutcome, values: Values) -> dict[str, Answer]:
    """`next_token` (greedy), `induction_head` ("L18 H6"), `first_token_share` (a range),
    `attention_row`: the shown head's row of the last token (predict the attention), and with
    "why" open `why_key`: the component that adds most to the cell's score on the key's side,
    among the four that add most there; with "what flows" on, `flow_first_share`: the first
    token's share of what the shown head moves, against its share of the weight."""
    lm, p = model_for(out.config), pick(out, values)
    top = readouts.next_tokens(lm, out.fwd, Decoding())
    row = out.fwd.attentions[p.layer, p.head, -1]  # (T,) the last token's weights
    return {
        "next_token": next_answer(top.labels, top.probs, partial(word_chances, lm, out.fwd.ids)),
        "induction_head": Answer.of(*readouts.induction_question(lm)),
        "first_token_share": Answer.of(*readouts.share_question(out.fwd)),
        "attention_row": Answer.of_row(out.fwd.tokens, row),
        **(why_answer(out, values) if values["lm_open_why"] and can_split(out) else {}),
        **(flow_answer(out, values) if values["lm_flow"] else {}),
    }


def can_split(out: LlmOutcome) -> bool:
    return qk_parts.refusal(model_for(out.config)) is None


def flow_answer(out: LlmOutcome, values: Values) -> dict[str, Answer]:
    lm, p = model_for(out.config), pick(out, values)
    return {"flow_first_share": Answer.of(*readouts.flow_question(lm, out.fwd, p.layer, p.head))}


SCENE = Scene(
    url="language-model",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    answers=answers,
    answer_names=(
        "next_token",
        "induction_head",
        "first_token_share",
        "attention_row",
        "why_key",
        "flow_first_share",
    ),
    typed_answers={"next_token": "words", "first_token_share": "number"},
    large_results=True,
    ops=Operations(
        load=bundled.bundled_llm,
        is_loaded=bundled.bundled_llm_ready,
        predict=readouts.next_tokens,
        generate=readouts.generation,
        score_heads=readouts.probe_scores,
        count_kv_bytes=readouts.kv_bytes_rows,
        say_kv_bytes=readouts.kv_sentence,
        explain_cell=why_said,
        direct_problem=direct_problem,
        warm_up=bundled.warm_up,
    ),
)
