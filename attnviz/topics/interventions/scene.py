"""Finding the heads that answer, as a scene: a clean prompt and a corrupted one through the
bundled SmolLM2-135M (or the model `attnviz.topics.language_model.scene.use_model` hands in), the
logit difference of the right answer over the wrong one, and the interventions that say which parts
make it: activation patching of the residual stream and of each head, attribution patching,
direct logit attribution, knocking heads out, and the circuit's heads on the prompt. Lesson
answers: `early_position`, `answer_layer`, `top_head`, `knock_out_flips`. Its `ops`:
`patch_residual`, `patch_heads` and `patch_head` exactly, `estimate` (attribution patching) and
`correlate` it with the exact map, `attribute` (direct logit attribution), `ablate` (knock heads
out).

`run` captures both runs' activations; each section's numbers are computed only when its view is
asked for, and remembered per model and pair, so moving the picked cell runs at most one patch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures import patching as fig
from attnviz.figures.clickable import clickable_cells
from attnviz.figures.text import shown
from attnviz.topics.interventions import readouts
from attnviz.topics.interventions.pairs import Pair, PairError, make_pair
from attnviz.topics.interventions.params import TABLE, TRY_THIS
from attnviz.topics.interventions.questions import answers, knocked_out
from attnviz.topics.language_model.forward import direct_problem
from attnviz.topics.language_model.scene import model_for
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Scene, SceneInputError, Values
from attnviz.topics.views import View


@dataclass(frozen=True)
class PairInput:
    clean: str
    corrupt: str
    right: str  # "" = the clean run's top token
    wrong: str  # "" = the corrupted run's top token
    device: str = "cpu"
    source: str = ""  # the researcher's own model (a folder or cached Hub name); "": bundled


@dataclass(frozen=True)
class PatchOutcome:
    config: PairInput
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
        values["ip_model"].strip(),
    )


def run(config: PairInput) -> PatchOutcome:
    lm = model_for(config)
    try:
        pair = make_pair(lm, config.clean, config.corrupt, config.right, config.wrong)
    except PairError as err:
        raise SceneInputError(str(err)) from None
    right, wrong = lm.readable([pair.right, pair.wrong])
    return PatchOutcome(
        config,
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
    """The changed positions in words: "␣John → ␣Mary at 9" (the first NAMED_CHANGES)."""
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
    lm = model_for(out.config)
    return Pick(
        min(int(values["ip_layer"]), lm.n_layers - 1),
        min(int(values["ip_pos"]), len(out.pair.clean) - 1),
        min(int(values["ip_hlayer"]), lm.n_layers - 1),
        min(int(values["ip_head"]), lm.n_heads - 1),
    )


# every view reads the readouts, each computed once per model and pair (readouts' memo), so
# views sharing a sweep or an estimate run it once


def diff_view(out: PatchOutcome, values: Values) -> go.Figure:
    return fig.diff_figure(["clean", "corrupted"], list(out.diffs), out.right, out.wrong)


def resid_view(out: PatchOutcome, values: Values) -> go.Figure:
    lm, p = model_for(out.config), pick(out, values)
    share = readouts.shares(lm, out.pair, readouts.resid_sweep(lm, out.pair).diff)
    title, x_title = "Patching the residual stream", f"position (* changed: {changes(out)})"
    return clickable_cells(fig.patch_map(share, columns(out), title, x_title, (p.layer, p.pos)))


def cell_view(out: PatchOutcome, values: Values) -> go.Figure:
    lm, p = model_for(out.config), pick(out, values)
    sweep = readouts.resid_sweep(lm, out.pair)
    ids, probs = sweep.top_ids[p.layer, p.pos], sweep.top_probs[p.layer, p.pos]
    mark = next((i for i, t in enumerate(ids) if t == out.pair.right), None)
    title = f"Layer {p.layer}, position {p.pos} patched"
    return fig.tokens_figure(lm.readable([int(i) for i in ids]), probs, title, mark)


def _estimates(out: PatchOutcome) -> tuple[np.ndarray, float]:
    """Attribution patching's estimate of each head (L, H) as a share, and the maps' bound."""
    lm = model_for(out.config)
    est = readouts.estimate(lm, out.pair).heads / (out.diffs[0] - out.diffs[1])
    return est, max(0.1, float(np.abs(est).max()))  # one head brings back less than a layer


def _exact(out: PatchOutcome) -> np.ndarray:
    """Each head patched exactly (one run per head), as a share (L, H)."""
    lm = model_for(out.config)
    return readouts.shares(lm, out.pair, readouts.head_sweep(lm, out.pair).diff)


def attr_heads_view(out: PatchOutcome, values: Values) -> go.Figure:
    p, (est, bound) = pick(out, values), _estimates(out)
    title, box = "Attribution patching (estimate)", (p.head_layer, p.head)
    return clickable_cells(fig.patch_map(est, _heads(out), title, "head", box, bound))


def heads_view(out: PatchOutcome, values: Values) -> go.Figure:
    p, (_, bound) = pick(out, values), _estimates(out)
    title, box = "Exact patching of each head", (p.head_layer, p.head)
    return fig.patch_map(_exact(out), _heads(out), title, "head", box, bound)


def agree_view(out: PatchOutcome, values: Values) -> go.Figure:
    share, (est, _) = _exact(out), _estimates(out)
    names = [f"L{l_} H{h}" for l_ in range(share.shape[0]) for h in range(share.shape[1])]
    return fig.agreement(share.ravel(), est.ravel(), names)


def _heads(out: PatchOutcome) -> list[str]:
    return [str(h) for h in range(model_for(out.config).n_heads)]


def dla_view(out: PatchOutcome, values: Values) -> go.Figure | None:
    """The direct logit attribution (None for a model it does not split: the page says why)."""
    if direct_problem(model_for(out.config)) is not None:
        return None
    parts = readouts.dla(model_for(out.config), out.pair)
    return clickable_cells(fig.dla_map(parts.heads, parts.mlps, parts.total, parts.whole))


def ablate_view(out: PatchOutcome, values: Values) -> go.Figure | None:
    """The heads knocked out (None when none is picked)."""
    lm, picked = model_for(out.config), knocked_out(out, values)
    if not picked:
        return None
    k = readouts.knocked(lm, out.pair, picked, values["ip_how"])
    n = len(picked)
    title = f"{n} head{'s' if n > 1 else ''} knocked out ({values['ip_how']})"
    return fig.ablation_figure(lm.readable(k.ids), k.before, k.after, title)


def circuit_view(out: PatchOutcome, values: Values) -> go.Figure | None:
    """The heads with the largest direct parts (None where those cannot be read)."""
    lm = model_for(out.config)
    if direct_problem(lm) is not None:
        return None
    heads, rows = readouts.circuit(lm, out.pair)
    parts = readouts.dla(lm, out.pair).heads
    names = [f"L{l_} H{h} ({parts[l_, h]:+.2f})" for l_, h in heads]
    return fig.circuit_figure(rows, names, out.clean_tokens)


def _exact_on(values: Values) -> bool:
    """Every head patched exactly: on demand (one run per head)."""
    return bool(values["ip_exact"])


HEADS = "ip_open_heads"  # the folded sections' open toggles
VIEWS = (
    View("ip_diff", diff_view, main=True),
    View("ip_resid", resid_view),
    View("ip_cell", cell_view),
    View("ip_attr_heads", attr_heads_view, section=HEADS),
    View("ip_heads", heads_view, section=HEADS, when=_exact_on),
    View("ip_agree", agree_view, section=HEADS, when=_exact_on),
    View("ip_dla", dla_view, section="ip_open_dla"),
    View("ip_ablation", ablate_view, section="ip_open_ablate"),
    View("ip_circuit", circuit_view, section="ip_open_circuit"),
)


SCENE = Scene(
    url="interventions",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    answers=answers,
    answer_names=("early_position", "answer_layer", "top_head", "knock_out_flips"),
    ops=Operations(
        patch_residual=readouts.resid_sweep,
        patch_heads=readouts.head_sweep,
        patch_head=readouts.patched_head,
        estimate=readouts.estimate,
        correlate=readouts.resid_agreement,
        attribute=readouts.dla,
        direct_problem=direct_problem,
        ablate=readouts.knocked,
    ),
)
