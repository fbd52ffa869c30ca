"""The captioner: region features come from their own part of the image, the transformer decoder
is causal, and decoding (greedy, beam) returns each word's attention. The attention itself
(Q, K, V from the layers' own tensors, the weights, the outputs) is checked against a hand
computation in test_caption_model_oracles.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.hooks import hooks_attached, run_with_cache
from attnviz.models.captioner import (
    Captioner,
    CaptionerConfig,
    beam_decode,
    cross_attention,
    cross_attention_names,
    greedy_decode,
    region_boxes,
    regions_to_pixels,
    words_attention,
)

GRU = CaptionerConfig(vocab_size=19, decoder="gru", width=4, d_model=16)
TRANSFORMER = CaptionerConfig(
    vocab_size=19, decoder="transformer", width=4, d_model=16, n_layer=2, n_head=2
)
CONFIGS = {"gru": GRU, "transformer": TRANSFORMER}


def model_for(config: CaptionerConfig, seed: int = 0) -> Captioner:
    torch.manual_seed(seed)
    return Captioner(config).eval()


def inputs(batch: int = 3, t: int = 6, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    images = torch.rand(batch, 3, 48, 48, generator=gen)
    y_in = torch.randint(3, 19, (batch, t), generator=gen)
    y_in[:, 0] = 1  # BOS
    return images, y_in


def test_a_regions_features_depend_only_on_its_receptive_box():
    model = model_for(GRU)
    boxes = region_boxes(GRU, receptive=True)
    image = torch.rand(1, 3, 48, 48, requires_grad=True)
    for r in (0, 14, 35):
        (grad,) = torch.autograd.grad(model.encode(image)[0, r].sum(), image)
        top, left, bottom, right = boxes[r]
        inside = torch.zeros(48, 48, dtype=torch.bool)
        inside[top:bottom, left:right] = True
        assert grad.abs().sum(1)[0][~inside].max() == 0  # nothing outside the box
        cell = region_boxes(GRU)[r]
        assert grad.abs().sum(1)[0, cell[0] : cell[2], cell[1] : cell[3]].sum() > 0


def test_a_bright_spot_changes_the_regions_over_it_and_no_far_region():
    model = model_for(GRU)
    blank = torch.zeros(1, 3, 48, 48)
    bright = blank.clone()
    bright[:, :, 16:24, 24:32] = 1.0  # the cell of region (2, 3) = 15
    with torch.no_grad():
        change = (model.encode(bright) - model.encode(blank))[0].norm(dim=-1)  # (R,)
    boxes = region_boxes(GRU, receptive=True)
    sees = (boxes[:, 0] < 24) & (boxes[:, 2] > 16) & (boxes[:, 1] < 32) & (boxes[:, 3] > 24)
    assert change[15] > 0 and sees[15]
    assert torch.all(change[torch.from_numpy(~sees)] == 0)
    assert int(change.argmax()) in np.flatnonzero(sees)


def test_no_word_attends_to_a_later_word():
    model = model_for(TRANSFORMER)
    images, y_in = inputs(t=7)
    _, cache = run_with_cache(model, images, y_in)
    for layer in range(TRANSFORMER.n_layer):
        weights = cache[f"decoder.blocks.{layer}.self_attn.hook_weights"]  # (B, H, T, T)
        above = torch.ones(7, 7, dtype=torch.bool).triu(1)
        assert torch.all(weights[..., above] == 0)
        assert torch.all(weights[..., ~above] > 0)
    changed = y_in.clone()
    changed[:, 4:] = 5  # later words do not change the logits of earlier ones
    with torch.no_grad():
        torch.testing.assert_close(model(images, changed)[:, :4], model(images, y_in)[:, :4])


@pytest.mark.parametrize("decoder", CONFIGS)
def test_hooks_do_not_change_the_logits(decoder):
    model = model_for(CONFIGS[decoder])
    images, y_in = inputs()
    with torch.no_grad():
        plain = model(images, y_in)  # fused attention where it may run
    hooked, _ = run_with_cache(model, images, y_in)
    torch.testing.assert_close(hooked, plain, atol=1e-5, rtol=1e-5)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(list(CONFIGS)), st.integers(1, 4), st.integers(0, 100))
def test_cross_attention_rows_sum_to_one(decoder, batch, seed):
    config = CONFIGS[decoder]
    model = model_for(config, seed)
    images, y_in = inputs(batch, 5, seed)
    weights = cross_attention(model, images, y_in)
    layers, heads = (1, 1) if decoder == "gru" else (2, 2)
    assert weights.shape == (batch, 5, layers, heads, 36)
    torch.testing.assert_close(weights.sum(-1), torch.ones(batch, 5, layers, heads))
    assert torch.all(weights >= 0)


@pytest.mark.parametrize("decoder", CONFIGS)
def test_beam_of_one_is_greedy(decoder):
    for seed in range(3):
        model = model_for(CONFIGS[decoder], seed)
        images, _ = inputs(4, seed=seed)
        ids, weights = greedy_decode(model, images)
        beam_ids, beam_weights = beam_decode(model, images, beam=1)
        assert torch.equal(ids, beam_ids)
        torch.testing.assert_close(weights, beam_weights)


def _log_prob(model: Captioner, images: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Sum of log-probabilities of each row's words up to and including its EOS."""
    bos = torch.full_like(ids[:, :1], model.config.bos_id)
    with torch.no_grad():
        logp = torch.log_softmax(model(images, torch.cat([bos, ids[:, :-1]], 1)), -1)
    picked = logp.gather(-1, ids[..., None])[..., 0]  # (B, T)
    eos = ids == model.config.eos_id
    after = (torch.cumsum(eos.long(), 1) - eos.long()) > 0
    return picked.masked_fill(after, 0).sum(1)


def test_a_wider_beam_finds_likelier_captions_than_greedy_on_these_models():
    better = 0
    for seed in range(4):
        model = model_for(GRU, seed)
        with torch.no_grad():  # peaked, image-dependent word distributions
            model.decoder.out.weight.mul_(20)
        images, _ = inputs(6, seed=seed)
        greedy_ids, _ = greedy_decode(model, images, max_len=6)
        beam_ids, _ = beam_decode(model, images, beam=4, max_len=6)
        greedy, beam = _log_prob(model, images, greedy_ids), _log_prob(model, images, beam_ids)
        assert torch.all(beam >= greedy - 1e-4)
        better += int((beam > greedy + 1e-4).sum())
    assert better > 0  # measured: 18 of the 24 captions


def test_decoding_never_writes_pad_or_bos_before_eos():
    model = model_for(GRU)
    with torch.no_grad():  # PAD and BOS would be the likeliest words
        model.decoder.out.bias[[GRU.pad_id, GRU.bos_id]] = 100.0
    images, _ = inputs(3)
    for ids, _ in (greedy_decode(model, images), beam_decode(model, images, beam=3)):
        ended = torch.cumsum((ids == GRU.eos_id).long(), 1) > 0
        live = ~ended | (ids == GRU.eos_id)
        assert not torch.any(live & ((ids == GRU.pad_id) | (ids == GRU.bos_id)))


@pytest.mark.parametrize("decoder", CONFIGS)
def test_decoding_returns_each_words_attention_and_nothing_after_eos(decoder):
    config = CONFIGS[decoder]
    model = model_for(config)
    images, _ = inputs(2)
    ids, weights = greedy_decode(model, images, max_len=6)
    assert ids.shape == (2, 6) and weights.shape[:2] == ids.shape and weights.shape[-1] == 36
    eos, pad = config.eos_id, config.pad_id
    ids = torch.tensor([[5, 6, eos, pad, pad], [7, eos, pad, pad, pad]])
    weights = words_attention(model, images, ids)  # (B, T, L, H, R)
    for row, stop in zip(weights, (3, 2), strict=True):
        torch.testing.assert_close(row[:stop].sum(-1), torch.ones_like(row[:stop].sum(-1)))
        assert torch.all(row[stop:] == 0)
    bos = torch.full_like(ids[:, :1], config.bos_id)
    forced = cross_attention(model, images, torch.cat([bos, ids[:, :-1]], 1))
    torch.testing.assert_close(weights[0, :3], forced[0, :3])


def test_regions_to_pixels_paints_each_cell_with_its_region():
    weights = np.arange(36, dtype=np.float32).reshape(1, 36) / 630  # sums to 1
    pixels = regions_to_pixels(weights, 6, 48)
    assert pixels.shape == (1, 48, 48)
    assert pixels[0, 17, 30] == weights[0, 2 * 6 + 3]
    assert pixels.sum() == pytest.approx(64.0)


def test_config_problems():
    assert CaptionerConfig().problems() == []
    assert CaptionerConfig(image_size=50).problems()
    assert CaptionerConfig(decoder="lstm").problems()
    assert CaptionerConfig(d_model=30, n_head=4).problems()
    with pytest.raises(ValueError):
        Captioner(CaptionerConfig(grid=5))


@pytest.mark.parametrize("decoder", CONFIGS)
def test_the_returned_attention_is_the_one_decoding_used(decoder):
    config = CONFIGS[decoder]
    model = model_for(config, seed=1)
    images, _ = inputs(2)
    name = cross_attention_names(model)[-1]
    seen: list[torch.Tensor] = []
    with hooks_attached(model, {name: lambda w, _n: seen.append(w.detach())}):
        ids, weights = greedy_decode(model, images, max_len=5)
    steps = ids.shape[1]  # decoding ran `steps` times before the teacher-forced recount
    if decoder == "gru":
        used = torch.stack([w[:, 0, 0] for w in seen[:steps]], 1)  # (B, T, R)
        torch.testing.assert_close(weights[:, :, 0, 0], used)
    else:  # each step re-reads the prefix: its last row is the newest word's attention
        used = torch.stack([w[:, :, -1] for w in seen[:steps]], 1)  # (B, T, H, R)
        torch.testing.assert_close(weights[:, :, -1], used)
