"""What the captioning page asks of a trained captioner: an image's caption word by word with
each word's attention over the region grid (and drawn on the image), the measured share of
attention that colour and shape words put on the object they name, and what the model says for
held-out (colour, kind) combinations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.data.captions import VOCAB, CaptionTask, decode, parse_caption
from attnviz.models.captioner import (
    Captioner,
    beam_decode,
    cross_attention,
    greedy_decode,
    regions_to_pixels,
)

EOS_WORD = "<eos>"


@dataclass(frozen=True)
class CaptionLook:
    """One image's caption and where each of its words looked."""

    words: list[str]  # the generated words, then "<eos>" when the model ended the caption
    ids: np.ndarray  # (T,) the words' ids
    attention: np.ndarray  # (T, L, H, R) each word's cross-attention (GRU: L = H = 1)
    grid_maps: np.ndarray  # (T, L, H, g, g) the same on the region grid
    pixel_maps: np.ndarray  # (T, L, H, S, S) the same drawn on the image (nearest upsampling)

    @property
    def caption(self) -> str:
        return " ".join(w for w in self.words if w != EOS_WORD)


def caption_image(model: Captioner, image: np.ndarray | torch.Tensor, beam: int = 1) -> CaptionLook:
    """image (C, S, S) in [0, 1], the model's size -> its caption (greedy when beam is 1)."""
    c = model.config
    x = torch.as_tensor(np.asarray(image), dtype=torch.float32)[None]  # (1, C, S, S)
    if tuple(x.shape[1:]) != (c.channels, c.image_size, c.image_size):
        raise ValueError(
            f"the model reads {c.channels} × {c.image_size} × {c.image_size} images, "
            f"got {tuple(x.shape[1:])}"
        )
    ids, weights = greedy_decode(model, x) if beam <= 1 else beam_decode(model, x, beam)
    ids, weights = ids[0], weights[0]  # (T,), (T, L, H, R)
    ended = (ids == c.eos_id).nonzero()
    t = int(ended[0, 0]) + 1 if len(ended) else len(ids)
    ids, weights = ids[:t].numpy(), weights[:t].numpy()
    words = [EOS_WORD if i == c.eos_id else VOCAB[i] for i in ids]
    grid = weights.reshape(*weights.shape[:-1], c.grid, c.grid)
    return CaptionLook(words, ids, weights, grid, regions_to_pixels(weights, c.grid, c.image_size))


@dataclass(frozen=True)
class ObjectShare:
    """How much of the colour and shape words' attention falls on the shape they name."""

    share: float  # mean over words, layers and heads
    per_head: np.ndarray  # (L, H) the mean share of each layer's head
    area_share: float  # what attention spread evenly over the regions would give
    n_words: int  # colour and shape words measured


def object_attention_share(model: Captioner, task: CaptionTask, limit: int = 200) -> ObjectShare:
    """Teacher-forced on the first `limit` validation captions of seen combinations: for every
    colour and kind word, the share of its cross-attention on the regions covering the shape it
    names (task.val_regions), against that shape's share of the regions."""
    seen = (~task.val_held_out).nonzero()[:, 0][:limit]
    images, y = task.val_images[seen], task.val_y[seen]
    weights = cross_attention(model.eval(), images, y[:, :-1])  # (B, T, L, H, R)
    named = task.val_named[seen]  # (B, T)
    b, t = (named >= 0).nonzero(as_tuple=True)  # the colour and kind words
    masks = task.val_regions[seen][b, named[b, t]]  # (N, R) bool
    shares = (weights[b, t] * masks[:, None, None, :]).sum(-1)  # (N, L, H)
    area = masks.float().mean(-1)  # (N,)
    per_head = shares.mean(0).numpy()
    return ObjectShare(float(per_head.mean()), per_head, float(area.mean()), len(b))


@dataclass(frozen=True)
class HeldOutWords:
    """What a model says for the shapes of held-out (colour, kind) combinations."""

    colour_right: float  # share of held-out shapes whose colour word is right
    kind_right: float  # share whose kind word is right
    both_right: float  # share named exactly (the new pairing)
    said: dict[str, int]  # "colour kind" the model said instead -> how often
    n_shapes: int


def held_out_words(model: Captioner, task: CaptionTask, limit: int = 200) -> HeldOutWords:
    """Greedy captions of the validation scenes holding a held-out combination: for each
    held-out shape, whether its colour and kind words are right (a caption outside the grammar
    counts as wrong)."""
    held = task.val_held_out.nonzero()[:, 0][:limit]
    ids, _ = greedy_decode(model.eval(), task.val_images[held])
    pairs = set(task.spec.held_out)
    colour = kind = both = 0
    said: dict[str, int] = {}
    for row, i in zip(ids, held.tolist(), strict=True):
        target = parse_caption(task.val_captions[i])
        try:
            guess = parse_caption(decode(row))
        except ValueError:
            guess = []
        for n, (_, c, k) in enumerate(target):
            if (c, k) not in pairs:
                continue
            _, gc, gk = guess[n] if n < len(guess) else ("", "", "")
            colour, kind, both = colour + (gc == c), kind + (gk == k), both + (gc == c and gk == k)
            words = f"{gc} {gk}" if gc else "(no phrase)"
            said[words] = said.get(words, 0) + 1
    total = max(sum(said.values()), 1)
    return HeldOutWords(colour / total, kind / total, both / total, said, sum(said.values()))
