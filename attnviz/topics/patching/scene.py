"""Finding the heads that answer, as a scene: a clean prompt and a corrupted one through the
bundled SmolLM2-135M (or the model `attnviz.topics.llm.scene.use_model` hands in), the logit
difference of the right answer over the wrong one, and the interventions that say which parts
make it: activation patching of the residual stream and of each head, attribution patching,
direct logit attribution, knocking heads out, and the circuit's heads on the prompt. Lesson
answers: `early_position`, `answer_layer`, `top_head`, `knock_out_flips`.

`run` captures both runs' activations; each section's numbers are computed only when its view is
asked for, and remembered per model and pair, so moving the picked cell runs at most one patch.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures import patching as fig
from attnviz.figures.text import shown
from attnviz.topics.llm.scene import model
from attnviz.topics.patching import readouts
from attnviz.topics.patching.pairs import Pair, PairError, make_pair
from attnviz.topics.patching.params import TABLE, TRY_THIS
from attnviz.topics.patching.questions import answers, knocked_out
from attnviz.topics.scene import Scene, SceneInputError, Values, wants
from attnviz.topics.views import metadata_only


@dataclass(frozen=True)
class PairInput:
    clean: str
    corrupt: str
    right: str  # "" = the clean run's top token
    wrong: str  # "" = the corrupted run's top token
    device: str = "cpu"


@dataclass(frozen=True)
class PatchOutcome:
    given: PairInput
    pair: Pair
    clean_tokens: list[str]
    corrupt_tokens: list[str]
    right: str  # the answers' labels
    wrong: str
    diffs: tuple[float, float]  # (clean, corrupted) logit differences


def config(values: Values) -> PairInput:
    return PairInput(
        values["ip_clean"],
        values["ip_corrupt"],
        values["ip_right"],
        values["ip_wrong"],
        values["device"],
    )


def run(given: PairInput) -> PatchOutcome:
    lm = model(given.device)
    try:
        pair = make_pair(lm, given.clean, given.corrupt, given.right, given.wrong)
    except PairError as err:
        raise SceneInputError(str(err)) from None
    right, wrong = lm.readable([pair.right, pair.wrong])
    return PatchOutcome(
        given,
        pair,
        lm.readable(list(pair.clean)),
        lm.readable(list(pair.corrupt)),
        right,
        wrong,
        readouts.diffs(lm, pair),
    )


def columns(out: PatchOutcome) -> list[str]:
    """Position labels: the clean token, with a * where the prompts differ (short: rotated
    labels under a stage's map take the height its 30 rows need)."""
    changed = set(out.pair.differ)
    return [f"{s}*" if i in changed else s for i, s in enumerate(shown(out.clean_tokens))]


NAMED_CHANGES = 3  # changed positions named in words; more are counted (an axis title's room)


def changes(out: PatchOutcome) -> str:
    """The changed positions in words: "▁John → ▁Mary at 9" (the first NAMED_CHANGES)."""
    named = [
        f"{out.clean_tokens[p]} → {out.corrupt_tokens[p]} at {p}"
        for p in out.pair.differ[:NAMED_CHANGES]
    ]
    more = len(out.pair.differ) - NAMED_CHANGES
    return ", ".join(named) + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class Pick:
    layer: int  # the residual stream's cell: layer and position
    pos: int
    head_layer: int  # the head's: layer and head
    head: int


def pick(out: PatchOutcome, values: Values) -> Pick:
    lm = model(out.given.device)
    return Pick(
        min(int(values["ip_layer"]), lm.n_layers - 1),
        min(int(values["ip_pos"]), len(out.pair.clean) - 1),
        min(int(values["ip_hlayer"]), lm.n_layers - 1),
        min(int(values["ip_head"]), lm.n_heads - 1),
    )


def _opened(only, values: Values, toggle: str, name: str) -> bool:
    return wants(only, name) and (only is not None or bool(values[toggle]))


def _resid_views(out: PatchOutcome, values: Values, only) -> dict[str, go.Figure]:
    lm, p, figs = model(out.given.device), pick(out, values), {}
    if not (wants(only, "ip_resid") or wants(only, "ip_cell")):
        return figs
    sweep = readouts.resid_sweep(lm, out.pair)
    share = readouts.shares(lm, out.pair, sweep.diff)
    if wants(only, "ip_resid"):
        title = "Patching the residual stream"
        x_title = f"position (* changed: {changes(out)})"
        figs["ip_resid"] = fig.patch_map(share, columns(out), title, x_title, (p.layer, p.pos))
    if wants(only, "ip_cell"):
        ids, probs = sweep.top_ids[p.layer, p.pos], sweep.top_probs[p.layer, p.pos]
        mark = next((i for i, t in enumerate(ids) if t == out.pair.right), None)
        title = f"Layer {p.layer}, position {p.pos} patched"
        figs["ip_cell"] = fig.tokens_figure(lm.readable([int(i) for i in ids]), probs, title, mark)
    return figs


def _head_views(out: PatchOutcome, values: Values, only) -> dict[str, go.Figure]:
    lm, p, figs = model(out.given.device), pick(out, values), {}
    names = ("ip_attr_heads", "ip_heads", "ip_agree")
    if not any(_opened(only, values, "ip_open_heads", n) for n in names):
        return figs
    gap = out.diffs[0] - out.diffs[1]
    est = readouts.estimate(lm, out.pair).heads / gap  # (L, H) shares
    bound = max(0.1, float(np.abs(est).max()))  # one head brings back less than a layer
    box = (p.head_layer, p.head)
    if _opened(only, values, "ip_open_heads", "ip_attr_heads"):
        title = "Attribution patching (estimate)"
        figs["ip_attr_heads"] = fig.patch_map(est, _heads(lm), title, "head", box, bound)
    if not (only is not None or values["ip_exact"]):
        return figs  # exact: on demand (one run per head)
    share = readouts.shares(lm, out.pair, readouts.head_sweep(lm, out.pair).diff)
    if _opened(only, values, "ip_open_heads", "ip_heads"):
        title = "Exact patching of each head"
        figs["ip_heads"] = fig.patch_map(share, _heads(lm), title, "head", box, bound)
    if _opened(only, values, "ip_open_heads", "ip_agree"):
        names = [f"L{l_} H{h}" for l_ in range(share.shape[0]) for h in range(share.shape[1])]
        figs["ip_agree"] = fig.agreement(share.ravel(), est.ravel(), names)
    return figs


def _heads(lm) -> list[str]:
    return [str(h) for h in range(lm.n_heads)]


def _other_views(out: PatchOutcome, values: Values, only) -> dict[str, go.Figure]:
    lm, figs = model(out.given.device), {}
    if _opened(only, values, "ip_open_dla", "ip_dla"):
        parts = readouts.dla(lm, out.pair)
        figs["ip_dla"] = fig.dla_map(parts.heads, parts.mlps, parts.total, parts.whole)
    if _opened(only, values, "ip_open_ablate", "ip_ablate"):
        picked = knocked_out(out, values)
        if picked:
            k = readouts.knocked(lm, out.pair, picked, values["ip_how"])
            n = len(picked)
            title = f"{n} head{'s' if n > 1 else ''} knocked out ({values['ip_how']})"
            figs["ip_ablate"] = fig.ablation_figure(lm.readable(k.ids), k.before, k.after, title)
    if _opened(only, values, "ip_open_circuit", "ip_circuit"):
        heads, rows = readouts.circuit(lm, out.pair)
        parts = readouts.dla(lm, out.pair).heads
        names = [f"L{l_} H{h} ({parts[l_, h]:+.2f})" for l_, h in heads]
        figs["ip_circuit"] = fig.circuit_figure(rows, names, out.clean_tokens)
    return figs


def views(
    out: PatchOutcome, values: Values, only: Collection[str] | None = None
) -> dict[str, go.Figure]:
    """The page's views (`only`: those named; None: the main one and the open sections')."""
    figs = {}
    if wants(only, "ip_diff"):
        names = ["clean", "corrupted"]
        figs["ip_diff"] = fig.diff_figure(names, list(out.diffs), out.right, out.wrong)
    return (
        figs
        | _resid_views(out, values, only)
        | _head_views(out, values, only)
        | _other_views(out, values, only)
    )


SCENE = Scene(
    url="interventions",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=metadata_only(
        "ip_diff",
        sections={
            "ip_open_heads": ("ip_attr_heads", "ip_heads", "ip_agree"),
            "ip_open_dla": ("ip_dla",),
            "ip_open_ablate": ("ip_ablate",),
            "ip_open_circuit": ("ip_circuit",),
        },
    ),
    drawn_together=views,
    answers=answers,
    answer_names=("early_position", "answer_layer", "top_head", "knock_out_flips"),
)
