"""The RNN encoder–decoder against independent oracles: the additive, general and dot scores
against their formulas written out in NumPy, the captured weights against a hand softmax of the
captured scores, a bidirectional encoder against two unidirectional `torch.nn` runs with the
weights copied, padding that changes nothing, a baseline that never attends, and greedy
decoding against teacher forcing on its own output."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.hooks import hook_points, run_with_cache, run_with_hooks
from attnviz.models.rnn import (
    ATTENTIONS,
    Seq2Seq,
    Seq2SeqConfig,
    alignment,
    attention_steps,
    greedy_decode,
)

V, BOS, EOS = 40, 1, 2


def make_model(seed: int = 0, **changes) -> Seq2Seq:
    torch.manual_seed(seed)
    return Seq2Seq(Seq2SeqConfig(vocab_size=V, **changes)).eval()


def batch(lengths=(7, 3, 5, 1), t_out: int = 6, seed: int = 1, t_in: int | None = None):
    """Random ids (PAD = 0 never drawn) with garbage after each length; decoder input from BOS."""
    gen = torch.Generator().manual_seed(seed)
    t_in = t_in or max(lengths)
    x = torch.randint(3, V, (len(lengths), t_in), generator=gen)
    y_in = torch.randint(3, V, (len(lengths), t_out), generator=gen)
    y_in[:, 0] = BOS
    return x, torch.tensor(lengths), y_in


def key_mask(lengths, t_in: int) -> np.ndarray:
    return np.arange(t_in)[None, :] < np.asarray(lengths)[:, None]  # (B, Tin)


def test_config_problems_are_readable_and_stop_the_build():
    bad = Seq2SeqConfig(cell="rnn", attention="cosine", d_hidden=0, pad_id=40)
    text = " ".join(bad.problems())
    for word in ("cell", "attention", "at least 1", "pad id"):
        assert word in text
    assert Seq2SeqConfig().problems() == []
    assert Seq2SeqConfig().d_encoder == 128 and Seq2SeqConfig(bidirectional=False).d_encoder == 64
    with pytest.raises(ValueError, match="cell"):
        Seq2Seq(bad)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_additive_scores_equal_the_bahdanau_formula(bidirectional):
    """a(q, k) = wᵀ tanh(W_q q + W_k k), by hand in NumPy from the module's parameters."""
    model = make_model(bidirectional=bidirectional, attention="additive")
    x, x_len, y_in = batch()
    steps = attention_steps(model, x, x_len, y_in)
    q, k = steps["hook_q"].double().numpy(), steps["hook_k"].double().numpy()
    attn = model.decoder.attn
    w_q, w_k = attn.w_q.weight.detach().double().numpy(), attn.w_k.weight.detach().double().numpy()
    w = attn.w.detach().double().numpy()
    hand = np.tanh((q @ w_q.T)[:, :, None, :] + k @ w_k.T) @ w  # (B, Tout, Tin)
    np.testing.assert_allclose(steps["hook_scores"].numpy(), hand, rtol=1e-5, atol=1e-5)
    assert q.shape[-1] == model.config.d_hidden and k.shape[-1] == model.config.d_encoder


@pytest.mark.parametrize("bidirectional", [True, False])
def test_general_scores_equal_the_luong_formula(bidirectional):
    """a(q, k) = qᵀ W k, the query being the decoder state itself."""
    model = make_model(bidirectional=bidirectional, attention="general")
    x, x_len, y_in = batch()
    steps = attention_steps(model, x, x_len, y_in)
    q, k = steps["hook_q"].double().numpy(), steps["hook_k"].double().numpy()
    w = model.decoder.attn.w.detach().double().numpy()  # (Dq, Dk)
    hand = np.einsum("btq,qk,btsk->bts", q, w, k)
    np.testing.assert_allclose(steps["hook_scores"].numpy(), hand, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_dot_scores_are_unscaled_q_dot_k_and_fused_equals_explicit(bidirectional):
    model = make_model(bidirectional=bidirectional, attention="dot")
    x, x_len, y_in = batch()
    steps = attention_steps(model, x, x_len, y_in)
    q, k = steps["hook_q"].double().numpy(), steps["hook_k"].double().numpy()
    hand = np.einsum("btd,btsd->bts", q, k)
    np.testing.assert_allclose(steps["hook_scores"].numpy(), hand, rtol=1e-5, atol=1e-5)
    projects = isinstance(model.decoder.attn.q_proj, torch.nn.Linear)
    assert projects == bidirectional  # a linear map only where d_hidden ≠ H_enc
    with torch.no_grad():
        fused = model(x, x_len, y_in)  # nothing captured: PyTorch's fused kernel
    captured, _ = run_with_cache(model, x, x_len, y_in)
    torch.testing.assert_close(fused, captured, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_a_two_way_dot_score_is_the_general_score_with_w_the_transposed_map(cell):
    """Two-way, the keys are twice as wide as the decoder state s, so "dot" scores (P s)ᵀk with a
    learned P: the same weights in a "general" model with W = Pᵀ give the same logits and
    alignment (what the page's help says). One-way, "dot" has no map: sᵀk itself."""
    dot = make_model(cell=cell, attention="dot")
    general = make_model(cell=cell, attention="general")
    p = dot.decoder.attn.q_proj.weight.detach()  # (H_enc, d_hidden)
    weights = {k: v for k, v in dot.state_dict().items() if "q_proj" not in k}
    general.load_state_dict(weights | {"decoder.attn.w": p.T.clone()})
    x, x_len, y_in = batch()
    with torch.no_grad():
        torch.testing.assert_close(general(x, x_len, y_in), dot(x, x_len, y_in))
    torch.testing.assert_close(alignment(general, x, x_len, y_in), alignment(dot, x, x_len, y_in))
    one_way = make_model(cell=cell, attention="dot", bidirectional=False).decoder.attn
    assert not [name for name, _ in one_way.named_parameters()], "one-way dot learns nothing"


@pytest.mark.parametrize("score", ["additive", "dot", "general"])
def test_weights_are_a_hand_softmax_of_the_captured_scores_with_padding_masked(score):
    model = make_model(attention=score)
    x, x_len, y_in = batch()
    steps = attention_steps(model, x, x_len, y_in)
    scores = steps["hook_scores"].double().numpy()  # (B, Tout, Tin)
    keep = key_mask(x_len, x.shape[1])[:, None, :]
    exps = np.where(
        keep, np.exp(scores - np.where(keep, scores, -np.inf).max(-1, keepdims=True)), 0
    )
    hand = exps / exps.sum(-1, keepdims=True)
    weights = steps["hook_weights"].numpy()
    np.testing.assert_allclose(weights, hand, rtol=1e-5, atol=1e-6)
    assert (weights[np.broadcast_to(~keep, weights.shape)] == 0).all()  # exactly 0
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
    torch.testing.assert_close(alignment(model, x, x_len, y_in), steps["hook_weights"])


def test_run_with_cache_keeps_the_last_steps_weights():
    model = make_model()
    x, x_len, y_in = batch()
    _, cache = run_with_cache(model, x, x_len, y_in)
    assert cache["decoder.attn.hook_weights"].shape == (4, 1, 1, x.shape[1])
    assert cache["encoder.hook_states"].shape == (4, x.shape[1], 128)
    last = alignment(model, x, x_len, y_in)[:, -1]
    torch.testing.assert_close(cache["decoder.attn.hook_weights"][:, 0, 0], last)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_bidirectional_states_equal_two_unidirectional_runs(cell):
    """Oracle: nn.GRU/nn.LSTM forward on x[:L], and on x[:L] reversed then reversed back, with the
    weights copied from the bidirectional layer's `*_l0` and `*_l0_reverse`."""
    model = make_model(cell=cell, bidirectional=True, d_hidden=16)
    enc = model.encoder
    layer = torch.nn.GRU if cell == "gru" else torch.nn.LSTM
    fwd, bwd = (layer(enc.config.d_embed, 16, batch_first=True) for _ in range(2))
    with torch.no_grad():
        for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"):
            getattr(fwd, name).copy_(getattr(enc.rnn, name))
            getattr(bwd, name).copy_(getattr(enc.rnn, name + "_reverse"))
    x, x_len, _ = batch(lengths=(6, 2, 4, 1))
    _, cache = run_with_cache(model, x, x_len, x[:, :1])
    states = cache["encoder.hook_states"]  # (B, Tin, 32)
    with torch.no_grad():
        _, summary = enc(x, x_len)
        for b, length in enumerate(x_len.tolist()):
            emb = enc.embed(x[b : b + 1, :length])  # (1, L, E)
            ahead, _ = fwd(emb)
            back = bwd(emb.flip(1))[0].flip(1)
            torch.testing.assert_close(states[b, :length], torch.cat([ahead, back], -1)[0])
            assert (states[b, length:] == 0).all()  # padded positions
            torch.testing.assert_close(summary[b], torch.cat([ahead[0, -1], back[0, 0]]))


@pytest.mark.parametrize("cell", ["gru", "lstm"])
@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_padding_and_what_follows_the_length_change_nothing(cell, bidirectional, attention):
    model = make_model(cell=cell, bidirectional=bidirectional, attention=attention)
    x, x_len, y_in = batch()
    with torch.no_grad():
        logits = model(x, x_len, y_in)
        assert logits.shape == (4, y_in.shape[1], V)
        padded = torch.cat([x, torch.zeros(4, 5, dtype=torch.long)], dim=1)  # 5 PAD columns
        torch.testing.assert_close(model(padded, x_len, y_in), logits, rtol=1e-5, atol=1e-6)
        beyond = torch.where(torch.from_numpy(key_mask(x_len, x.shape[1])), x, 0)  # PAD after L
        torch.testing.assert_close(model(beyond, x_len, y_in), logits, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_every_parameter_learns(cell, attention):
    model = make_model(cell=cell, attention=attention).train()
    x, x_len, y_in = batch()
    logits = model(x, x_len, y_in)
    torch.nn.functional.cross_entropy(logits.flatten(0, 1), x[:, :6].flatten()).backward()
    silent = [n for n, p in model.named_parameters() if p.grad is None or not p.grad.any()]
    assert silent == []


def test_the_baseline_never_attends_and_sees_only_the_summary():
    """Attention "none" (Sutskever et al.): no attention hook point exists or fires, and noise in
    place of every encoder state leaves its logits unchanged (it does change an attention model)."""
    x, x_len, y_in = batch()

    def noise(states, _name):
        return torch.randn_like(states) * 10

    for attention, changes in (("none", False), ("additive", True)):
        model = make_model(attention=attention)
        _, cache = run_with_cache(model, x, x_len, y_in)
        assert any("hook_weights" in name for name in cache) == changes
        assert alignment(model, x, x_len, y_in) is None or changes
        with torch.no_grad():
            plain = model(x, x_len, y_in)
            noisy = run_with_hooks(model, {"encoder.hook_states": noise}, x, x_len, y_in)
        assert (not torch.allclose(plain, noisy)) == changes
    baseline = make_model(attention="none")
    assert not any("attn" in name for name in hook_points(baseline))
    assert greedy_decode(baseline, x, x_len, BOS, EOS)[1] is None


def test_greedy_decoding_stops_when_every_row_has_emitted_eos():
    model = make_model()
    x, x_len, _ = batch()
    with torch.no_grad():
        model.decoder.out.bias[EOS] = 1e4  # EOS is always the most likely token
    ids, align = greedy_decode(model, x, x_len, BOS, EOS)
    assert ids.tolist() == [[EOS]] * 4 and align.shape == (4, 1, x.shape[1])
    with torch.no_grad():
        model.decoder.out.bias[EOS], model.decoder.out.bias[7] = -1e4, 1e4  # never EOS
    ids, align = greedy_decode(model, x, x_len, BOS, EOS, max_out=5)
    assert ids.shape == (4, 5) and (ids == 7).all() and align.shape == (4, 5, x.shape[1])
    assert greedy_decode(model, x, x_len, BOS, EOS)[0].shape == (4, model.config.max_out)


@pytest.mark.parametrize("attention", ["additive", "general", "dot"])
def test_greedy_decoding_agrees_with_teacher_forcing_on_its_own_output(attention):
    """Teacher-forced on BOS + its own tokens, the model predicts the same tokens with the same
    alignment; a row that emits EOS keeps it, then holds PAD with alignment rows of 0."""
    model = make_model(seed=3, attention=attention)
    x, x_len, _ = batch()
    ids, align = greedy_decode(model, x, x_len, BOS, eos=-1, max_out=8)  # never stops
    y_in = torch.cat([torch.full((4, 1), BOS), ids[:, :-1]], dim=1)
    with torch.no_grad():
        assert torch.equal(model(x, x_len, y_in).argmax(-1), ids)
    torch.testing.assert_close(alignment(model, x, x_len, y_in), align)
    eos = int(ids[0, 2])  # row 0 emits this token by step 3
    stopped, stopped_align = greedy_decode(model, x, x_len, BOS, eos, max_out=8)
    for b in range(4):
        hits = (ids[b] == eos).nonzero()
        end = int(hits[0]) + 1 if len(hits) else 8
        assert torch.equal(stopped[b, :end], ids[b, :end])
        assert (stopped[b, end:] == model.config.pad_id).all()
        torch.testing.assert_close(stopped_align[b, :end], align[b, :end])
        assert (stopped_align[b, end:] == 0).all()


@pytest.mark.parametrize("bad", [[0, 3, 3, 3], [8, 3, 3, 3], [3, 3]])
def test_lengths_outside_the_input_are_refused(bad):
    model = make_model()
    x, _, y_in = batch()
    with pytest.raises(ValueError, match="length"):
        model(x, torch.tensor(bad), y_in)


@settings(max_examples=25, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 9), min_size=1, max_size=5),
    extra=st.integers(0, 3),
    cell=st.sampled_from(["gru", "lstm"]),
    score=st.sampled_from(["additive", "dot", "general"]),
)
def test_alignment_rows_sum_to_one_over_the_real_tokens(lengths, extra, cell, score):
    model = make_model(cell=cell, attention=score, d_hidden=8, d_embed=8)
    x, x_len, y_in = batch(lengths=lengths, t_out=3, t_in=max(lengths) + extra)
    align = alignment(model, x, x_len, y_in).numpy()  # (B, 3, Tin)
    keep = np.broadcast_to(key_mask(lengths, x.shape[1])[:, None, :], align.shape)
    np.testing.assert_allclose(align.sum(-1), 1.0, atol=1e-6)
    assert (align[~keep] == 0).all() and (align >= 0).all()
