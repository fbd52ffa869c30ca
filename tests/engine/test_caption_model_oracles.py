"""The captioner's decoders against their forward written out by hand in float64 from their own
parameter tensors (tests/support/hand_math.py): the transformer decoder's causal self-attention
and cross-attention over the regions (Q = LN(x)W_qᵀ + b_q, K, V likewise, softmax(QKᵀ/√Dh) per
head, ·V, the output projection), and the GRU decoder's alignment attention (additive
wᵀ tanh(W_q s + W_k r), dot sᵀr, general sᵀWr) with its GRU cell. The regions are the encoder's
output (its CNN has its own tests); everything after them is computed here."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from attnviz.core.hooks import hooks_attached, run_with_cache
from attnviz.models.captioner import GRU_SCORES, Captioner, CaptionerConfig, cross_attention
from tests.support import hand_math as hand
from tests.support.hand_math import f64, layer_norm, linear, softmax

GRU = CaptionerConfig(vocab_size=19, decoder="gru", width=4, d_model=16)
TRANSFORMER = CaptionerConfig(
    vocab_size=19, decoder="transformer", width=4, d_model=16, n_layer=2, n_head=2
)


def model_for(config: CaptionerConfig, seed: int = 0) -> Captioner:
    torch.manual_seed(seed)
    return hand.unsettle(Captioner(config).eval())


def inputs(batch: int = 3, t: int = 6, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    images = torch.rand(batch, 3, 48, 48, generator=gen)
    y_in = torch.randint(3, 19, (batch, t), generator=gen)
    y_in[:, 0] = 1  # BOS
    return images, y_in


def regions_of(model: Captioner, images: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        return f64(model.encode(images))  # (B, R, D)


def transformer_by_hand(model: Captioner, images, y_in) -> tuple[list[dict], np.ndarray]:
    """Per block x + self_attn(LN1(x), causal), x + cross_attn(LN2(x), regions),
    x + MLP(LN3(x)); then LN_f and the output layer. -> ([{"self": …, "cross": …}], logits)."""
    dec, heads = model.decoder, model.config.n_head
    regions = regions_of(model, images)
    x = f64(dec.embed.weight)[y_in.numpy()] + f64(dec.pos)[: y_in.shape[1]]  # (B, T, D)
    layers = []
    for block in dec.blocks:
        h = layer_norm(x, block.ln1)
        mine = hand.attention(block.self_attn, h, h, heads, causal=True)
        x = x + mine["out"]
        cross = hand.attention(block.cross_attn, layer_norm(x, block.ln2), regions, heads)
        x = x + cross["out"]
        x = x + hand.mlp(layer_norm(x, block.ln3), block.mlp)
        layers.append({"self": mine, "cross": cross})
    return layers, linear(layer_norm(x, dec.ln_f), dec.out)


def test_the_transformer_decoders_attention_equals_the_hand_computation():
    model = model_for(TRANSFORMER)
    images, y_in = inputs(t=7)
    layers, logits = transformer_by_hand(model, images, y_in)
    hooked_logits, cache = run_with_cache(model, images, y_in)
    names = [f"decoder.blocks.{i}.{part}" for i in range(2) for part in ("self_attn", "cross_attn")]
    fused = hand.module_outputs(model, names, images, y_in)  # no hook point: fused kernel
    with hooks_attached(model, {n + ".hook_weights": lambda *_: None for n in names}):
        explicit = hand.module_outputs(model, names, images, y_in)
    for i, by_hand in enumerate(layers):
        for part, key in (("self_attn", "self"), ("cross_attn", "cross")):
            name, expected = f"decoder.blocks.{i}.{part}", by_hand[key]
            for point in ("q", "k", "weights"):
                got = cache[f"{name}.hook_{point}"]
                np.testing.assert_allclose(
                    got, expected[point], atol=1e-5, err_msg=f"{name} {point}"
                )
            np.testing.assert_allclose(cache[f"{name}.hook_out"], expected["heads"], atol=1e-5)
            np.testing.assert_allclose(explicit[name], expected["out"], atol=1e-5, err_msg=name)
            np.testing.assert_allclose(fused[name], expected["out"], atol=1e-5, err_msg=name)
        assert by_hand["cross"]["weights"].shape == (3, 2, 7, 36)
    np.testing.assert_allclose(hooked_logits, logits, atol=1e-4)
    with torch.no_grad():
        np.testing.assert_allclose(model(images, y_in), logits, atol=1e-4)
    stacked = np.stack([layer["cross"]["weights"] for layer in layers], 1)  # (B, L, H, T, R)
    np.testing.assert_allclose(
        cross_attention(model, images, y_in), stacked.transpose(0, 3, 1, 2, 4), atol=1e-5
    )


def gru_cell(x: np.ndarray, h: np.ndarray, cell: torch.nn.GRUCell) -> np.ndarray:
    """PyTorch's GRUCell written out: gates r, z, n from weight rows [r; z; n]."""
    gi = x @ f64(cell.weight_ih).T + f64(cell.bias_ih)  # (B, 3H)
    gh = h @ f64(cell.weight_hh).T + f64(cell.bias_hh)
    (i_r, i_z, i_n), (h_r, h_z, h_n) = np.split(gi, 3, -1), np.split(gh, 3, -1)
    r, z = 1 / (1 + np.exp(-(i_r + h_r))), 1 / (1 + np.exp(-(i_z + h_z)))
    n = np.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def alignment_scores(attn, s: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """The state s (B, D) against every region (B, R, D), unscaled -> (B, R)."""
    if attn.score_name == "additive":  # wᵀ tanh(W_q s + W_k r)
        hidden = np.tanh((s @ f64(attn.w_q.weight).T)[:, None] + regions @ f64(attn.w_k.weight).T)
        return hidden @ f64(attn.w)
    if attn.score_name == "general":  # sᵀ W r
        return np.einsum("bd,de,bre->br", s, f64(attn.w), regions)
    return np.einsum("bd,brd->br", s, regions)  # dot: sᵀ r


def gru_by_hand(model: Captioner, images, y_in) -> dict[str, np.ndarray]:
    """s_0 = tanh(W_b mean(regions) + b_b); step t: α = softmax(score(s_{t-1}, regions)),
    c = Σ α_r r, s_t = GRU([E y_t; c], s_{t-1}), logits = W_o [s_t; c] + b_o."""
    dec, regions = model.decoder, regions_of(model, images)
    s = np.tanh(linear(regions.mean(1), dec.bridge))  # (B, D)
    queries, weights, logits = [], [], []
    for t in range(y_in.shape[1]):
        alpha = softmax(alignment_scores(dec.attn, s, regions))  # (B, R)
        context = (alpha[..., None] * regions).sum(1)  # (B, D)
        queries.append(s)
        word = f64(dec.embed.weight)[y_in[:, t].numpy()]
        s = gru_cell(np.concatenate([word, context], -1), s, dec.cell)
        weights.append(alpha)
        logits.append(linear(np.concatenate([s, context], -1), dec.out))
    return {
        "q": np.stack(queries, 1),
        "weights": np.stack(weights, 1),
        "logits": np.stack(logits, 1),
    }


@pytest.mark.parametrize("score", GRU_SCORES)
def test_the_gru_decoders_alignment_equals_the_hand_computation(score):
    model = model_for(replace(GRU, score=score))
    images, y_in = inputs()
    expected = gru_by_hand(model, images, y_in)
    seen: dict[str, list[torch.Tensor]] = {"hook_q": [], "hook_weights": []}
    points = {f"decoder.attn.{n}": (lambda t, n, n_=n: seen[n_].append(t)) for n in seen}
    with hooks_attached(model, points), torch.no_grad():
        logits = model(images, y_in)
    q = torch.stack([step[:, 0, 0] for step in seen["hook_q"]], 1)  # (B, T, D): s_{t-1}
    hooked = torch.stack([step[:, 0, 0] for step in seen["hook_weights"]], 1)  # (B, T, R)
    np.testing.assert_allclose(q, expected["q"], atol=1e-5)
    np.testing.assert_allclose(hooked, expected["weights"], atol=1e-5)
    np.testing.assert_allclose(logits, expected["logits"], atol=1e-4)
    weights = cross_attention(model, images, y_in)  # (B, T, 1, 1, R)
    np.testing.assert_allclose(weights[:, :, 0, 0], expected["weights"], atol=1e-5)
