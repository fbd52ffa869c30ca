"""The circuits experiments' data and measures, pure: repeated segments, modular addition's split,
the embedding's Fourier spectrum (against a DFT written out as a loop), the weight norm, the
sliding window that evicts the first token."""

import cmath
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnviz.models.transformer import TinyTransformer, TransformerConfig
from attnviz.topics.watch_circuits.data import (
    fourier_spectrum,
    half_repeated,
    key_frequencies,
    modular_split,
    repeated_segments,
)
from attnviz.topics.watch_circuits.grokking import sequences, weight_norm
from attnviz.topics.watch_circuits.sinks import eviction_losses, sink_job, window_mask


def test_every_repeated_target_copies_what_followed_its_earlier_occurrence():
    data = repeated_segments(50, 32, 20, 4, 12, seed=3)
    for ids, first, repeat in zip(data.ids, data.first, data.repeat, strict=True):
        assert first.sum() == repeat.sum() > 0
        for t in np.flatnonzero(repeat):
            earlier = [j for j in range(t - 1) if ids[j] == ids[t - 1] and ids[j + 1] == ids[t]]
            assert earlier, (ids, t)
        assert np.flatnonzero(first).max() < np.flatnonzero(repeat).min()
    assert data.ids.max() < 20 and data.ids.min() >= 0


def test_bos_starts_every_sequence_and_half_repeated_probes_repeat_exactly():
    data = half_repeated(4, 33, 20, seed=0, bos=20)
    assert (data.ids[:, 0] == 20).all()
    np.testing.assert_array_equal(data.ids[:, 1:17], data.ids[:, 17:])
    with pytest.raises(ValueError, match="must fit"):
        repeated_segments(1, 10, 20, 4, 6, seed=0)


@pytest.mark.parametrize("p, fraction", [(7, 0.3), (11, 0.5)])
def test_the_modular_split_covers_every_pair_once(p, fraction):
    train, val = modular_split(p, fraction, seed=1)
    assert len(train) == round(fraction * p * p)
    seen = [tuple(x) for x in np.concatenate([train, val])]
    assert sorted(seen) == [(a, b) for a in range(p) for b in range(p)]
    again, _ = modular_split(p, fraction, seed=1)
    np.testing.assert_array_equal(train, again)
    ids, answers = sequences(train, p)
    assert (ids[:, 2] == p).all()
    assert [int(x) for x in answers] == [(a + b) % p for a, b in train]
    with pytest.raises(ValueError, match="between 0 and 1"):
        modular_split(p, 1.0, seed=0)


def dft_norms(embedding: np.ndarray) -> list[float]:
    p = embedding.shape[0]
    coeff = [
        [
            sum(embedding[x, c] * cmath.exp(-2j * math.pi * k * x / p) for x in range(p))
            for c in range(embedding.shape[1])
        ]
        for k in range(p)
    ]
    out = []
    for k in range(p // 2 + 1):
        power = sum(abs(z) ** 2 for z in coeff[k])
        if k > 0 and p - k != k:
            power += sum(abs(z) ** 2 for z in coeff[p - k])
        out.append(math.sqrt(power))
    return out


@pytest.mark.parametrize("p", [13, 14])
def test_the_spectrum_peaks_at_the_embedding_frequencies(p):
    x = np.arange(p)
    rng = np.random.default_rng(0)
    embedding = np.stack(
        [
            np.cos(2 * np.pi * 3 * x / p),
            0.5 * np.sin(2 * np.pi * 5 * x / p),
            0.01 * rng.normal(size=p),
        ],
        1,
    )
    spectrum = fourier_spectrum(embedding)
    np.testing.assert_allclose(spectrum, dft_norms(embedding), atol=1e-9)
    assert int(np.argmax(spectrum)) == 3
    assert key_frequencies(spectrum, share=0.95) == [3, 5]
    assert key_frequencies(np.zeros(7)) == []


def test_the_weight_norm_is_the_norm_of_every_parameter():
    layer = torch.nn.Linear(3, 2)
    want = math.sqrt(sum(float(w) ** 2 for p in layer.parameters() for w in p.detach().flatten()))
    assert weight_norm(layer) == pytest.approx(want)


@pytest.mark.parametrize("keep_first", [False, True])
def test_the_window_keeps_the_last_keys_and_optionally_the_first(keep_first):
    mask = window_mask(8, 3, keep_first)
    for i in range(8):
        for j in range(8):
            want = j <= i and (i - j < 3 or (keep_first and j == 0))
            assert bool(mask[i, j]) == want, (i, j)


def test_eviction_scores_the_targets_past_the_window():
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=20, max_len=32, causal=True, mlp=False)
    model = TinyTransformer(config).eval()
    data = repeated_segments(8, 32, 20, 8, 15, seed=0)
    losses = eviction_losses(model, data, window=16)
    ids = torch.as_tensor(data.ids)
    with torch.no_grad():
        logits = model(ids)
    want = F.cross_entropy(logits[:, 16:-1].flatten(0, 1), ids[:, 17:].flatten())
    assert losses["full"] == pytest.approx(float(want), rel=1e-5)
    assert losses["window"] != pytest.approx(losses["full"], rel=1e-6)
    with pytest.raises(ValueError, match="evicts nothing"):
        eviction_losses(model, data, window=31)
    with pytest.raises(ValueError, match="softmax1"):
        sink_job("relu")
