"""The captioning page's data: seeded shape scenes with captions from a small grammar.

Scenes come from `attnviz.data.shapes` (one or two non-overlapping shapes, each small or large,
drawn from the spec's colours and kinds); captions follow the grammar

    caption := phrase | phrase "left of" phrase      phrase := "a" size colour kind

("a small green triangle", "a large red square left of a small blue circle"): with two shapes
the left one is named first (their centres are at least MIN_DX pixels apart horizontally).

This module owns the word vocabulary (PAD = 0, BOS, EOS, UNK, then the grammar's words), the
seeded train/validation split with held-out (colour, kind) combinations that never occur in
training, which caption words name which shape (`named`: colour and kind words), each shape's
regions on the encoder's grid (`region_masks`), and the caption metrics: exact match and token
accuracy (shared with the dates task) and a BLEU-like n-gram overlap (`corpus_bleu`).
Built tasks are cached by spec: treat the returned tensors as read-only.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import torch
from torch import Tensor

from attnviz.data import dates
from attnviz.data.shapes import COLOURS, KINDS, Shape, coverage, overlaps, random_scene, render

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
PAD, BOS, EOS, UNK = range(4)
SIZES = ("small", "large")
SIZE_RANGES = {"small": (4.0, 6.0), "large": (8.0, 11.0)}  # half-extent in pixels
WORDS = ("a", "left", "of", *SIZES, *COLOURS, *KINDS)
VOCAB: tuple[str, ...] = SPECIALS + WORDS
_INDEX = {w: i for i, w in enumerate(VOCAB)}
PHRASE = 4  # words per phrase: a, size, colour, kind
MAX_SHAPES = 2
MAX_WORDS = 2 * PHRASE + 2  # two phrases and "left of"
MIN_DX = 4.0  # pixels between the two centres' columns: "left of" is never ambiguous
REGION_COVER = 0.05  # a region covers a shape when at least this share of its pixels does
assert PAD == dates.PAD  # exact match and token accuracy are shared with the dates task


@dataclass(frozen=True)
class CaptionTaskSpec:
    image_size: int = 48
    n_shapes: int = 1  # 1 or 2 shapes per scene
    n_train: int = 2000
    n_val: int = 300
    colours: tuple[str, ...] = ("red", "green", "blue", "yellow")
    kinds: tuple[str, ...] = ("circle", "square", "triangle")
    held_out: tuple[tuple[str, str], ...] = (("blue", "triangle"),)  # (colour, kind) pairs
    held_out_share: float = 0.25  # of validation scenes, each holding a held-out combination
    grid: int = 6  # the encoder's region grid (for region_masks)
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this spec cannot be built (empty when it can)."""
        found = []
        if self.n_shapes not in (1, 2):
            found.append(f"scenes hold 1 or 2 shapes (got {self.n_shapes})")
        if not 40 <= self.image_size <= 128:  # two large shapes fit from 40 px
            found.append(f"image size must be 40…128 pixels (got {self.image_size})")
        elif self.image_size % self.grid:
            found.append(f"the grid {self.grid} must divide the image size {self.image_size}")
        if not (10 <= self.n_train <= 20_000 and 10 <= self.n_val <= 5_000):
            found.append("n_train must be 10…20,000 and n_val 10…5,000")
        bad = [c for c in self.colours if c not in COLOURS] + [
            k for k in self.kinds if k not in KINDS
        ]
        if bad or not self.colours or not self.kinds:
            found.append(f"unknown or missing colours/kinds: {bad}")
        combos = {(c, k) for c in self.colours for k in self.kinds}
        if not set(self.held_out) <= combos or len(combos - set(self.held_out)) < 2:
            found.append(
                "held-out combinations must be (colour, kind) pairs of the spec, leaving some"
            )
        if not 0 <= self.held_out_share < 1:
            found.append("held_out_share must be in [0, 1)")
        return found


@dataclass
class CaptionTask:
    """A built task. Rows of y are BOS + caption + EOS, then PAD: a decoder reads y[:, :-1] and
    is scored on y[:, 1:]. `val_named[i, t]` is the index (into val_scenes[i]) of the shape the
    target word t names when it is a colour or kind word, else -1."""

    spec: CaptionTaskSpec
    train_images: Tensor  # (N, 3, S, S) float32 in [0, 1]
    train_y: Tensor  # (N, MAX_WORDS + 2) int64
    val_images: Tensor  # (M, 3, S, S)
    val_y: Tensor  # (M, MAX_WORDS + 2)
    val_held_out: Tensor  # (M,) bool: the scene holds a held-out combination
    val_named: Tensor  # (M, MAX_WORDS + 1) int64 shape index per target position, or -1
    val_regions: Tensor  # (M, MAX_SHAPES, R) bool: the regions covering each shape
    val_scenes: list[list[Shape]]
    val_captions: list[str]
    vocab: tuple[str, ...]
    probe: int  # index into val of the shown example (a seen combination)
    max_len: int  # caption words at most, plus EOS


def size_word(shape: Shape) -> str:
    """ "small" or "large": the band of SIZE_RANGES the shape's size falls in."""
    return (
        "small" if shape.size < (SIZE_RANGES["small"][1] + SIZE_RANGES["large"][0]) / 2 else "large"
    )


def phrase(shape: Shape) -> str:
    return f"a {size_word(shape)} {shape.colour} {shape.kind}"


def caption(scene: list[Shape]) -> str:
    """The grammar's caption of a scene of one or two shapes (the left one first)."""
    ordered = sorted(scene, key=lambda s: s.cx)
    return " left of ".join(phrase(s) for s in ordered)


def parse_caption(text: str) -> list[tuple[str, str, str]]:
    """(size, colour, kind) of each phrase, left to right; ValueError if not in the grammar."""
    words = text.split()
    phrases = [words[:PHRASE]]
    if len(words) == 2 * PHRASE + 2 and words[PHRASE : PHRASE + 2] == ["left", "of"]:
        phrases.append(words[PHRASE + 2 :])
    elif len(words) != PHRASE:
        raise ValueError(f"not a caption of the grammar: {text!r}")
    out = []
    for a, size, colour, kind in phrases:
        if a != "a" or size not in SIZES or colour not in COLOURS or kind not in KINDS:
            raise ValueError(f"not a caption of the grammar: {text!r}")
        out.append((size, colour, kind))
    return out


def encode(text: str) -> list[int]:
    """Word ids of a caption; an unknown word becomes UNK."""
    return [_INDEX.get(w, UNK) for w in text.split()]


def decode(ids: Tensor | list[int]) -> str:
    """The words of ids: stops at the first EOS, skips PAD and BOS, shows UNK as '<unk>'."""
    words = []
    for i in ids.tolist() if isinstance(ids, Tensor) else ids:
        if i == EOS:
            break
        if i not in (PAD, BOS):
            words.append(VOCAB[i] if 0 <= i < len(VOCAB) else VOCAB[UNK])
    return " ".join(words)


def _fits(shape: Shape, others: list[Shape]) -> bool:
    """Clear of every other shape, and at least MIN_DX pixels from its column."""
    return all(not overlaps(shape, o) and abs(shape.cx - o.cx) >= MIN_DX for o in others)


def _scene(rng: np.random.Generator, spec: CaptionTaskSpec, held: bool) -> list[Shape]:
    """A scene of spec.n_shapes shapes, each small or large at random; with `held`, one of them
    (at random) is a held-out combination, all the others are seen combinations. A shape that
    finds no free place (50 tries) restarts the scene."""
    combos = [(c, k) for c in spec.colours for k in spec.kinds]
    seen = [c for c in combos if c not in spec.held_out]
    which = int(rng.integers(spec.n_shapes)) if held else -1
    pools = [list(spec.held_out) if i == which else seen for i in range(spec.n_shapes)]
    wanted = [(pool[int(rng.integers(len(pool)))], SIZES[int(rng.integers(2))]) for pool in pools]
    for _ in range(100):
        scene: list[Shape] = []
        for (colour, kind), size in wanted:
            lo, hi = SIZE_RANGES[size]
            for _ in range(50):
                (shape,) = random_scene(rng, spec.image_size, 1, (kind,), lo, hi)
                if _fits(shape, scene):
                    scene.append(replace(shape, colour=colour))
                    break
            else:
                break
        if len(scene) == spec.n_shapes:
            return scene
    raise ValueError(f"could not place {spec.n_shapes} shapes apart in {spec.image_size} px")


def region_masks(scene: list[Shape], size: int, grid: int) -> np.ndarray:
    """(MAX_SHAPES, grid²) bool: the regions (row-major) at least REGION_COVER covered by each
    shape of the scene (rows past the scene's shapes are False)."""
    cell = size // grid
    out = np.zeros((MAX_SHAPES, grid * grid), bool)
    for i, shape in enumerate(scene):
        cover = coverage(shape, size).reshape(grid, cell, grid, cell).mean(axis=(1, 3))
        out[i] = cover.reshape(-1) >= REGION_COVER
    return out


def named_shapes(scene: list[Shape]) -> list[int]:
    """For each word of caption(scene) and its EOS: the index into `scene` of the shape a
    colour or kind word names, else -1."""
    order = sorted(range(len(scene)), key=lambda i: scene[i].cx)
    out: list[int] = []
    for n, i in enumerate(order):
        out += ([-1, -1] if n else []) + [-1, -1, i, i]  # ("left of"), a, size, colour, kind
    return out + [-1]


def pad_rows(rows: list[list[int]], width: int, fill: int = PAD) -> Tensor:
    """(N, width) int64 of the rows, `fill` after each."""
    out = np.full((len(rows), width), fill, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return torch.from_numpy(out)


def _images(scenes: list[list[Shape]], size: int) -> Tensor:
    return torch.from_numpy(np.stack([render(s, size) for s in scenes]))  # (N, 3, S, S)


@lru_cache(maxsize=8)
def build_captions(spec: CaptionTaskSpec) -> CaptionTask:
    """Build (or fetch from the cache) the task a spec names; ValueError if it is invalid.
    Training and validation draw from their own seeded streams, so validation does not change
    with n_train."""
    problems = spec.problems()
    if problems:
        raise ValueError("; ".join(problems))
    train_rng, val_rng = (np.random.default_rng([spec.seed, i]) for i in (1, 2))
    train = [_scene(train_rng, spec, False) for _ in range(spec.n_train)]
    held = val_rng.permutation(np.arange(spec.n_val) < round(spec.held_out_share * spec.n_val))
    val = [_scene(val_rng, spec, bool(h)) for h in held]
    texts = [caption(s) for s in val]
    width = MAX_WORDS + 2
    return CaptionTask(
        spec=spec,
        train_images=_images(train, spec.image_size),
        train_y=pad_rows([[BOS, *encode(caption(s)), EOS] for s in train], width),
        val_images=_images(val, spec.image_size),
        val_y=pad_rows([[BOS, *encode(t), EOS] for t in texts], width),
        val_held_out=torch.from_numpy(held.astype(bool)),
        val_named=pad_rows([named_shapes(s) for s in val], width - 1, fill=-1),
        val_regions=torch.from_numpy(
            np.stack([region_masks(s, spec.image_size, spec.grid) for s in val])
        ),
        val_scenes=val,
        val_captions=texts,
        vocab=VOCAB,
        probe=int(np.flatnonzero(~held)[0]) if (~held).any() else 0,
        max_len=MAX_WORDS + 1,
    )


def exact_match(pred_ids: Tensor, target_ids: Tensor) -> float:
    """Share of captions predicted word for word, EOS included (targets are y[:, 1:])."""
    return dates.exact_match(pred_ids, target_ids)


def token_accuracy(pred_ids: Tensor, target_ids: Tensor) -> float:
    """Share of target words (EOS included) predicted at their position."""
    return dates.token_accuracy(pred_ids, target_ids)


def _ngrams(words: list[str], n: int) -> Counter:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def corpus_bleu(candidates: list[list[str]], references: list[list[str]], max_n: int = 4) -> float:
    """BLEU (Papineni et al. 2002) with one reference per candidate: the geometric mean of the
    clipped n-gram precisions p_1…p_max_n, summed over the corpus, times the brevity penalty
    BP = min(1, exp(1 − r/c)) (r, c: total reference and candidate words). 0 when some p_n is 0
    or there are no candidate words."""
    hits, totals = [0] * max_n, [0] * max_n
    for cand, ref in zip(candidates, references, strict=True):
        for n in range(1, max_n + 1):
            mine, theirs = _ngrams(cand, n), _ngrams(ref, n)
            hits[n - 1] += sum(min(c, theirs[g]) for g, c in mine.items())
            totals[n - 1] += max(len(cand) - n + 1, 0)
    c = sum(len(x) for x in candidates)
    r = sum(len(x) for x in references)
    if c == 0 or min(hits) == 0:
        return 0.0
    log_p = sum(math.log(h / t) for h, t in zip(hits, totals, strict=True)) / max_n
    return math.exp(min(0.0, 1 - r / c) + log_p)


def bleu_of_ids(pred_ids: Tensor, target_ids: Tensor, max_n: int = 4) -> float:
    """corpus_bleu of decoded predictions against the targets (rows of word ids)."""
    cands = [decode(row).split() for row in pred_ids]
    refs = [decode(row).split() for row in target_ids]
    return corpus_bleu(cands, refs, max_n)


def new_scene(
    spec: CaptionTaskSpec, seed: int, held: bool = False
) -> tuple[np.ndarray, list[Shape], str]:
    """A fresh scene for the page's "new random scene" button: (image (3, S, S) float32 in
    [0, 1], its shapes, its caption). With `held`, one shape is a held-out combination."""
    problems = spec.problems()
    if problems:
        raise ValueError("; ".join(problems))
    scene = _scene(np.random.default_rng([spec.seed, 3, seed]), spec, held)
    return render(scene, spec.image_size), scene, caption(scene)
