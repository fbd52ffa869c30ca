"""An image captioner: a CNN grid of region features and a decoder that attends over them.

`CaptionerConfig` is the one config. `RegionEncoder` reuses the small CNN's conv stack
(models/cnn.py: conv 3×3 + ReLU + max-pool 2×2 per stage, as many stages as take the image down
to the grid) and maps every cell of the last feature map to a region vector, plus a learned
position per region: images (B, C, S, S) -> regions (B, R, D), R = grid², row-major, through the
hook point `encoder.hook_regions`. The decoders live in models/captioner_decoders.py (a GRU with
alignment attention, or a causal transformer with cross-attention).

`greedy_decode` and `beam_decode` write captions and return, for every generated word, the
cross-attention it used: (B, T, L, H, R) (the GRU has L = H = 1). `region_boxes` and
`regions_to_pixels` map the region grid back onto the image.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnviz.core.hooks import HookPoint, hooks_attached
from attnviz.models.captioner_decoders import GRUCaptionDecoder, TransformerCaptionDecoder
from attnviz.models.cnn import CNNConfig, SmallCNN

DECODERS = ("gru", "transformer")
GRU_SCORES = ("additive", "dot", "general")


@dataclass(frozen=True)
class CaptionerConfig:
    vocab_size: int = 24
    image_size: int = 48
    channels: int = 3
    grid: int = 6  # regions per side: R = grid²
    width: int = 16  # CNN filters in the first stage, doubling per stage
    d_model: int = 64
    decoder: str = "gru"  # one of DECODERS
    score: str = "additive"  # the GRU's alignment score, one of GRU_SCORES
    n_layer: int = 1  # transformer blocks
    n_head: int = 2  # transformer heads
    max_len: int = 11  # words decoded at most, EOS included
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2

    @property
    def stages(self) -> int:
        """CNN stages that take the image down to the grid (image_size / grid = 2^stages)."""
        return round(math.log2(self.image_size / self.grid)) if self.grid else 0

    @property
    def n_regions(self) -> int:
        return self.grid * self.grid

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot be built (empty if it can)."""
        out = []
        if self.decoder not in DECODERS:
            out.append(f"decoder must be one of {', '.join(DECODERS)}")
        if self.score not in GRU_SCORES:
            out.append(f"score must be one of {', '.join(GRU_SCORES)}")
        if min(self.grid, self.width, self.d_model, self.n_layer, self.n_head, self.max_len) < 1:
            out.append("sizes must be at least 1")
        elif self.image_size != self.grid * 2**self.stages or self.stages < 1:
            out.append(f"image size {self.image_size} must be the grid {self.grid} × 2, 4, 8, …")
        elif self.d_model % self.n_head:
            out.append(f"d_model {self.d_model} is not divisible by {self.n_head} heads")
        if not max(self.pad_id, self.bos_id, self.eos_id) < self.vocab_size:
            out.append("the special word ids must lie inside the vocabulary")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def with_batch_norm(stack: nn.Sequential) -> nn.Sequential:
    """The conv stack with a BatchNorm2d after every convolution: measured here, the captioner's
    CNN then tells circles from squares after ~100 steps instead of ~300."""
    layers: list[nn.Module] = []
    for layer in stack:
        layers.append(layer)
        if isinstance(layer, nn.Conv2d):
            layers.append(nn.BatchNorm2d(layer.out_channels))
    return nn.Sequential(*layers)


class RegionEncoder(nn.Module):
    """Images (B, C, S, S) -> region features (B, R, D), row-major over the grid."""

    def __init__(self, config: CaptionerConfig):
        super().__init__()
        cnn = CNNConfig(config.image_size, config.channels, 1, config.width, config.stages)
        self.features = with_batch_norm(SmallCNN(cnn).features)  # (its head is not used)
        c_out = config.width * 2 ** (config.stages - 1)
        self.proj = nn.Conv2d(c_out, config.d_model, 3, padding=1)  # cell and neighbours -> D
        self.pos = nn.Parameter(torch.randn(config.n_regions, config.d_model) * 0.1)  # (R, D)
        self.hook_regions = HookPoint()

    def forward(self, images: Tensor) -> Tensor:
        maps = self.proj(self.features(images))  # (B, D, g, g)
        regions = maps.flatten(2).transpose(1, 2) + self.pos  # (B, R, D)
        return self.hook_regions(regions)

    def conv_layers(self) -> list[tuple[int, int]]:
        """(kernel, stride) of every layer that widens the receptive field, in order (the conv
        stack, then the 3×3 projection on the grid)."""
        return [
            (m.kernel_size[0], m.stride[0])
            if isinstance(m, nn.Conv2d)
            else (m.kernel_size, m.stride)
            for m in [*self.features, self.proj]
            if isinstance(m, nn.Conv2d | nn.MaxPool2d)
        ]


class Captioner(nn.Module):
    """(images (B, C, S, S), y_in (B, T)) -> logits (B, T, V), teacher-forced."""

    def __init__(self, config: CaptionerConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        self.encoder = RegionEncoder(config)
        c = config
        self.decoder = (
            GRUCaptionDecoder(c.vocab_size, c.d_model, c.score)
            if c.decoder == "gru"
            else TransformerCaptionDecoder(c.vocab_size, c.d_model, c.n_layer, c.n_head, c.max_len)
        )

    def encode(self, images: Tensor) -> Tensor:
        return self.encoder(images)  # (B, R, D)

    def forward(self, images: Tensor, y_in: Tensor) -> Tensor:
        return self.decoder(y_in, self.encode(images))  # (B, T, V)


def cross_attention_names(model: Captioner) -> list[str]:
    """The hook points of the cross-attention weights, one per layer."""
    if model.config.decoder == "gru":
        return ["decoder.attn.hook_weights"]
    return [f"decoder.blocks.{i}.cross_attn.hook_weights" for i in range(model.config.n_layer)]


def cross_attention(model: Captioner, images: Tensor, y_in: Tensor) -> Tensor:
    """Teacher-forced cross-attention (B, T, L, H, R): row t holds the weights over the regions
    used to predict word t (the GRU: L = H = 1). Rows sum to 1."""
    names = cross_attention_names(model)
    kept: dict[str, list[Tensor]] = {name: [] for name in names}

    def keep(tensor: Tensor, name: str) -> None:
        kept[name].append(tensor.detach())

    with hooks_attached(model, {name: keep for name in names}), torch.no_grad():
        model(images, y_in)
    if model.config.decoder == "gru":  # one (B, 1, 1, R) per step
        return torch.stack([w[:, 0, 0] for w in kept[names[0]]], 1)[:, :, None, None]
    return torch.stack([kept[n][0] for n in names], 1).permute(0, 3, 1, 2, 4)  # (B, T, L, H, R)


def words_attention(model: Captioner, images: Tensor, ids: Tensor) -> Tensor:
    """The cross-attention (B, T, L, H, R) behind decoded ids (B, T) (BOS not included): the
    same weights decoding used, recomputed teacher-forced; rows after a row's EOS are 0."""
    c = model.config
    if ids.shape[1] == 0:
        layers, heads = (1, 1) if c.decoder == "gru" else (c.n_layer, c.n_head)
        return images.new_zeros((len(ids), 0, layers, heads, c.n_regions))
    bos = torch.full_like(ids[:, :1], c.bos_id)
    weights = cross_attention(model, images, torch.cat([bos, ids[:, :-1]], 1))
    ended = torch.cumsum((ids == c.eos_id).long(), 1) - (ids == c.eos_id).long() > 0  # (B, T)
    return weights.masked_fill(ended[:, :, None, None, None], 0.0)


def _next_word(model: Captioner, prefix: Tensor, state, regions: Tensor) -> tuple[Tensor, object]:
    """The decoder's logits (B, V) for the next word, PAD and BOS excluded (never generated)."""
    logits, state = model.decoder.advance(prefix, state, regions)
    never = [model.config.pad_id, model.config.bos_id]
    return logits.index_fill(-1, torch.tensor(never, device=logits.device), -math.inf), state


def greedy_decode(
    model: Captioner, images: Tensor, max_len: int | None = None
) -> tuple[Tensor, Tensor]:
    """Caption by always taking the most likely word. -> ids (B, T) (after BOS, the EOS a row
    emits included, PAD after it), cross-attention (B, T, L, H, R). Stops when every row has
    emitted EOS, or after max_len (default config.max_len) words."""
    c, model = model.config, model.eval()
    max_len = c.max_len if max_len is None else max_len
    with torch.no_grad():
        regions = model.encode(images)  # (B, R, D)
        state = model.decoder.start(regions)
        prefix = torch.full((len(images), 1), c.bos_id, dtype=torch.long, device=images.device)
        done = torch.zeros(len(images), dtype=torch.bool, device=images.device)
        for _ in range(max_len):
            logits, state = _next_word(model, prefix, state, regions)
            token = logits.argmax(-1).masked_fill(done, c.pad_id)  # (B,)
            prefix = torch.cat([prefix, token[:, None]], 1)
            done = done | (token == c.eos_id)
            if bool(done.all()):
                break
    ids = prefix[:, 1:]
    return ids, words_attention(model, images, ids)


def beam_decode(
    model: Captioner, images: Tensor, beam: int = 3, max_len: int | None = None
) -> tuple[Tensor, Tensor]:
    """Caption by beam search: keep the `beam` most likely prefixes (sum of log-probabilities;
    a finished prefix keeps its score), return the best. Same outputs as greedy_decode."""
    c, model = model.config, model.eval()
    max_len = c.max_len if max_len is None else max_len
    b, k = len(images), beam
    with torch.no_grad():
        regions = model.encode(images).repeat_interleave(k, 0)  # (B·K, R, D)
        state = model.decoder.start(regions)
        prefix = torch.full((b * k, 1), c.bos_id, dtype=torch.long, device=images.device)
        scores = torch.full((b, k), -math.inf, device=images.device)
        scores[:, 0] = 0.0  # one live prefix at the start
        done = torch.zeros(b * k, dtype=torch.bool, device=images.device)
        for _ in range(max_len):
            logits, state = _next_word(model, prefix, state, regions)
            logp = F.log_softmax(logits.float(), -1)  # (B·K, V)
            finished = torch.full_like(logp[0], -math.inf)
            finished[c.pad_id] = 0.0  # a finished prefix only grows by PAD, at no cost
            logp = torch.where(done[:, None], finished, logp)
            total = (scores.reshape(-1, 1) + logp).reshape(b, -1)  # (B, K·V)
            scores, index = total.topk(k, dim=-1)  # (B, K)
            source = torch.arange(b, device=images.device)[:, None] * k + index // logp.shape[1]
            source, token = source.reshape(-1), (index % logp.shape[1]).reshape(-1)
            prefix = torch.cat([prefix[source], token[:, None]], 1)
            state = state[source] if state is not None else None
            done = done[source] | (token == c.eos_id)
            if bool(done.all()):
                break
    best = scores.argmax(-1)  # (B,)
    ids = prefix.reshape(b, k, -1)[torch.arange(b), best, 1:]
    return ids, words_attention(model, images, ids)


def region_boxes(config: CaptionerConfig, receptive: bool = False) -> np.ndarray:
    """(R, 4) int pixel boxes (top, left, bottom, right; bottom/right exclusive) of the regions,
    row-major: the cell of the image each region sits on, or (receptive) the part of the image
    its features can see (the CNN's receptive field around the cell, clipped to the image)."""
    cell, g = config.image_size // config.grid, config.grid
    grow = 0
    if receptive:
        r, jump = 1, 1
        for kernel, stride in RegionEncoder(config).conv_layers():
            r, jump = r + (kernel - 1) * jump, jump * stride
        grow = max(r - cell, 0) // 2
    i, j = np.divmod(np.arange(g * g), g)
    boxes = np.stack(
        [i * cell - grow, j * cell - grow, (i + 1) * cell + grow, (j + 1) * cell + grow]
    )
    return np.clip(boxes.T, 0, config.image_size).astype(np.int64)


def regions_to_pixels(weights: np.ndarray | Tensor, grid: int, image_size: int) -> np.ndarray:
    """Region values (..., R) drawn on the image: (..., S, S), each pixel holding its region's
    value (nearest upsampling; a row of weights keeps its sum × cell²)."""
    w = np.asarray(weights.detach().cpu() if isinstance(weights, Tensor) else weights)
    cell = image_size // grid
    maps = w.reshape(*w.shape[:-1], grid, grid)
    return np.repeat(np.repeat(maps, cell, axis=-2), cell, axis=-1)
