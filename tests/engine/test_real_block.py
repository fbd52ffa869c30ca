"""Every number of "Inside one block of a real model" (attnviz.topics.real_block.block) against
the model's own forward pass: the outputs of its modules (norms, projections, MLP, the decoder
layer), its eager attention weights, Hugging Face's own rotary embedding (`rotary_emb`,
`apply_rotary_pos_emb`) and its logits, read with torch hooks here (not the engine's), on a tiny
random Llama with grouped-query heads, and on SmolLM2 once. Each within 1e-5 of the tensor's
largest value (float32 sums in another order differ by about that)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from attnviz.topics.real_block.block import trace
from tests.support.tiny_llama import tiny_llama

TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def tiny():
    return tiny_llama()


def model_forward(lm, ids: list[int], layer: int) -> dict:
    """The model's own tensors of block `layer` on `ids`, read with forward hooks."""
    block, seen, handles = lm.model.model.layers[layer], {}, []

    def keep(name, inputs=False):
        def hook(module, args, output):
            value = args[0] if inputs else output
            seen[name] = (value[0] if isinstance(value, tuple) else value).detach()[0].float()

        return hook

    att, mlp = block.self_attn, block.mlp
    taps = {
        "stream_in": (block.input_layernorm, True),
        "norm1": (block.input_layernorm, False),
        "q": (att.q_proj, False),
        "k": (att.k_proj, False),
        "v": (att.v_proj, False),
        "concat": (att.o_proj, True),
        "attn_out": (att.o_proj, False),
        "norm2_in": (block.post_attention_layernorm, True),
        "norm2": (block.post_attention_layernorm, False),
        "gate": (mlp.gate_proj, False),
        "up": (mlp.up_proj, False),
        "product": (mlp.down_proj, True),
        "mlp_out": (mlp, False),
        "stream_out": (block, False),
        "final_in": (lm.model.model.norm, True),
        "final": (lm.model.model.norm, False),
    }
    for name, (module, inputs) in taps.items():
        handles.append(module.register_forward_hook(keep(name, inputs)))
    try:
        with torch.no_grad():
            out = lm.model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
    finally:
        for handle in handles:
            handle.remove()
    seen["weights"] = out.attentions[layer][0].float()  # (H, T, T)
    seen["logits"] = out.logits[0, -1].float()
    return seen


def heads(flat: torch.Tensor, d: int) -> np.ndarray:
    """(T, n·d) -> (n, T, d)"""
    return flat.reshape(flat.shape[0], -1, d).transpose(0, 1).numpy()


def rotated(lm, seen: dict, d: int) -> tuple[np.ndarray, np.ndarray]:
    """q and k after Hugging Face's own rotary embedding."""
    q, k = (torch.from_numpy(heads(seen[n], d))[None] for n in ("q", "k"))  # (1, n, T, d)
    positions = torch.arange(q.shape[2])[None]
    cos, sin = lm.model.model.rotary_emb(q, positions)
    q_rot, k_rot = apply_rotary_pos_emb(q, k, cos, sin)
    return q_rot[0].numpy(), k_rot[0].numpy()


def close(mine: np.ndarray, theirs, what: str) -> None:
    theirs = np.asarray(theirs, dtype=np.float64)
    scale = max(1.0, float(np.abs(theirs).max()))
    worst = float(np.abs(np.asarray(mine, dtype=np.float64) - theirs).max())
    assert worst <= TOLERANCE * scale, f"{what}: off by {worst:.3g} (scale {scale:.3g})"


def check_block(lm, ids: list[int], layer: int, head: int) -> None:
    block, seen, d = trace(lm, ids, layer, head), model_forward(lm, ids, layer), lm.head_dim
    q_rot, k_rot = rotated(lm, seen, d)
    n = len(ids)
    pairs = {
        "stream in": (block.stream_in, seen["stream_in"]),
        "first norm": (block.norm1.out, seen["norm1"]),
        "q": (block.q, heads(seen["q"], d)),
        "k": (block.k, heads(seen["k"], d)),
        "v": (block.v, heads(seen["v"], d)),
        "q rotated": (block.q_rot, q_rot),
        "k rotated": (block.k_rot, k_rot),
        "weights": (block.weights, seen["weights"]),
        "heads concatenated": (block.heads_out.transpose(1, 0, 2).reshape(n, -1), seen["concat"]),
        "W_O out": (block.attn_out, seen["attn_out"]),
        "second norm": (block.norm2.out, seen["norm2"]),
        "gate": (block.gate, seen["gate"]),
        "up": (block.up, seen["up"]),
        "SiLU(gate) ⊙ up": (block.product, seen["product"]),
        "MLP out": (block.mlp_out, seen["mlp_out"]),
        "stream out": (block.stream_out, seen["stream_out"]),
    }
    for what, (mine, theirs) in pairs.items():
        close(mine, theirs, what)
    for what, norm, x in (
        ("first rms", block.norm1, seen["stream_in"]),
        ("second rms", block.norm2, seen["norm2_in"]),
    ):
        close(norm.rms, rms_of(x, lm.model.config.rms_norm_eps), what)
    assert block.sharing == tuple(
        h for h in range(lm.n_heads) if h // (lm.n_heads // lm.n_kv_heads) == block.kv_head
    )
    if layer == lm.n_layers - 1:
        close(block.logits, seen["logits"], "logits")
        close(block.final.out, seen["final"], "final norm")
        close(block.final.rms, rms_of(seen["final_in"], lm.model.config.rms_norm_eps), "final rms")
    else:
        assert block.logits is None and block.final is None


def rms_of(x: torch.Tensor, eps: float) -> np.ndarray:
    """Each row's √(mean x² + ε), from the tensor the model's norm was given."""
    return np.sqrt((x.double().numpy() ** 2).mean(-1) + eps)


@pytest.mark.parametrize("layer", [0, 1])
def test_every_step_of_a_block_is_the_models_own(tiny, layer):
    ids = tiny.tokenizer("the cat sat on the mat and the dog")["input_ids"]
    check_block(tiny, ids, layer, head=3)  # head 3 reads key/value head 1 of 2


def test_another_block_or_head_of_the_same_prompt_runs_the_model_no_more(tiny):
    """The page's block and head sliders: one forward pass per prompt keeps the stream into
    every block (a move took a whole pass, ~95 ms on SmolLM2; now ~4 ms), each block still the
    model's own (test above)."""
    ids = tiny.tokenizer("a prompt seen once here")["input_ids"]
    calls = []
    handle = tiny.model.register_forward_hook(lambda *_: calls.append(1))
    try:
        first = trace(tiny, ids, 1, 0)
        trace(tiny, ids, 0, 3)
        again = trace(tiny, ids, 1, 0)
        trace(tiny, ids[:-1], 1, 0)  # another prompt: its own pass
    finally:
        handle.remove()
    assert len(calls) == 2
    np.testing.assert_array_equal(first.stream_out, again.stream_out)


def test_rotation_turns_pairs_and_keeps_their_lengths(tiny):
    ids = tiny.tokenizer("one two three four five")["input_ids"]
    block = trace(tiny, ids, 0, 0)
    half = block.q.shape[-1] // 2

    def lengths(x):  # (…, d) -> (…, d/2): each pair (i, i + d/2)'s length
        return np.hypot(x[..., :half], x[..., half:])

    np.testing.assert_allclose(lengths(block.q_rot), lengths(block.q), rtol=1e-5)
    np.testing.assert_allclose(lengths(block.k_rot), lengths(block.k), rtol=1e-5)
    before = block.q[..., :half] + 1j * block.q[..., half:]  # each pair as a complex number
    after = block.q_rot[..., :half] + 1j * block.q_rot[..., half:]
    turn = np.exp(1j * block.angles.astype(np.float64))  # (T, d/2): position × frequency
    np.testing.assert_allclose(after / before, np.broadcast_to(turn, after.shape), atol=1e-5)


@pytest.mark.slow
@pytest.mark.xdist_group("llm-real")
def test_smollm2s_last_block_and_a_middle_one_are_the_models_own():
    from attnviz.topics.language_model.scene import model

    lm = model("cpu")
    ids = lm.tokenizer("The capital of France is")["input_ids"]
    check_block(lm, ids, 18, head=6)
    check_block(lm, ids, lm.n_layers - 1, head=0)
