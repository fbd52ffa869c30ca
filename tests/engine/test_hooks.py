"""One attention path and one hook mechanism: HookPoint's own hook list, the same hook names in
every model, hooks that do not change outputs, the fused kernel only when nothing is captured,
module hooks for models we do not own (capture, replacement, always removed), and the engine's
one entropy, RoPE angle table and score labels."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import attnviz.models.hooked_attention as hooked_attention
from attnviz.core.attention import (
    SCORE_LABELS,
    SCORE_NAMES,
    causal_mask,
    row_entropy,
    scaled_dot_product_attention,
    split_heads,
)
from attnviz.core.hooks import (
    HookPoint,
    hook_points,
    hooks_attached,
    model_is_capturing,
    module_cache,
    module_hooks,
    run_with_cache,
)
from attnviz.core.hooks import run_with_hooks as run_hooked
from attnviz.core.positional import rope, rope_angles, rope_table
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.hooked_attention import HOOK_NAMES
from attnviz.models.text_layer import TextLayerConfig, TextSelfAttention
from attnviz.models.transformer import TinyTransformer, TransformerConfig
from attnviz.topics.pretrained.analysis import entropy, query_row

GEN = torch.Generator().manual_seed(7)
X = torch.randn(2, 5, 8, generator=GEN)  # (B, T, D)


def layers() -> list[torch.nn.Module]:
    torch.manual_seed(0)
    return [
        MultiHeadSelfAttention(SelfAttentionConfig(d_model=8, n_heads=2)).eval(),
        TextSelfAttention(
            TextLayerConfig(d_model=8, n_heads=2, positional="rope", causal=True, temperature=0.7)
        ),
    ]


def test_hook_point_keeps_its_own_hooks_and_may_replace_the_tensor():
    point = HookPoint()
    seen = []
    assert not point.has_hooks and torch.equal(point(X), X)
    handle = point.add_hook(seen.append)
    doubled = point.add_hook(lambda t: t * 2)
    assert point.has_hooks and not point._forward_hooks  # torch's private list stays empty
    torch.testing.assert_close(point(X), X * 2)
    assert len(seen) == 1 and torch.equal(seen[0], X)
    handle.remove(), doubled.remove(), doubled.remove()
    assert not point.has_hooks and torch.equal(point(X), X)


def test_model_is_capturing_asks_the_hook_points():
    layer = layers()[0]
    assert not model_is_capturing(layer)
    handle = layer.hook_weights.add_hook(lambda t: None)
    assert model_is_capturing(layer)
    handle.remove()
    layer.hook_weights.register_forward_hook(lambda *a: None)  # a torch hook is not a capture
    assert not model_is_capturing(layer)


def test_every_model_exposes_the_same_hook_names():
    for layer in layers():
        assert set(hook_points(layer)) == set(HOOK_NAMES)
    net = TinyTransformer(TransformerConfig(n_layer=2, n_head=2, d_model=8))
    expected = {f"blocks.{i}.attn.{n}" for i in range(2) for n in HOOK_NAMES}
    assert set(hook_points(net)) == expected


def count_fused(monkeypatch) -> list[int]:
    calls = []
    real = hooked_attention.fused_attention

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(hooked_attention, "fused_attention", counted)
    return calls


# rejects: a fused path that forgets the temperature, and a fused kernel that runs while
# capturing (the scores and weights hooks never fire)
@pytest.mark.parametrize("which", [0, 1])
def test_hooks_do_not_change_outputs_and_fused_runs_only_when_nothing_is_captured(
    which, monkeypatch
):
    layer = layers()[which]
    calls = count_fused(monkeypatch)
    with torch.no_grad():
        plain = layer(X)  # (B, T, D)
    assert len(calls) == 1  # nothing captured: the fused kernel
    hooked, cache = run_with_cache(layer, X)
    assert len(calls) == 1  # capturing: the explicit path
    torch.testing.assert_close(hooked, plain, atol=1e-5, rtol=1e-5)
    assert set(cache) == set(HOOK_NAMES)
    out, weights = scaled_dot_product_attention(
        cache["hook_q"], cache["hook_k"], split_v(layer), mask_of(layer), temperature=temp(layer)
    )
    torch.testing.assert_close(cache["hook_weights"], weights, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(cache["hook_out"], out, atol=1e-6, rtol=1e-5)


def split_v(layer) -> torch.Tensor:
    if isinstance(layer, TextSelfAttention):
        return split_heads(X @ layer.w_v + layer.b_v, 2)
    return split_heads(layer.v_proj(X), 2).detach()


def temp(layer) -> float:
    return layer.cfg.temperature if isinstance(layer, TextSelfAttention) else 1.0


def mask_of(layer) -> torch.Tensor | None:
    return causal_mask(5) if isinstance(layer, TextSelfAttention) else None


# rejects: a HookPoint that calls its hooks but ignores the tensor they return
def test_a_hook_that_replaces_the_scores_changes_the_weights_and_the_output():
    layer = layers()[0]
    with torch.no_grad():
        plain = layer(X)
        flat = run_hooked(layer, {"hook_scores": lambda s, _n: torch.zeros_like(s)}, X)
        uniform = layer.o_proj(_mean_v(layer))  # equal scores: uniform weights
    assert (flat - plain).abs().max() > 1e-3
    torch.testing.assert_close(flat, uniform, atol=1e-5, rtol=1e-5)


def _mean_v(layer) -> torch.Tensor:
    v = layer.v_proj(X)  # (B, T, D): uniform weights give every query the mean of v
    return v.mean(1, keepdim=True).expand_as(v)


def test_one_entropy_agrees_for_numpy_and_torch_and_the_pretrained_summary():
    w = torch.softmax(torch.randn(3, 4, 6, 6, generator=GEN, dtype=torch.float64), -1)
    w[0, 0, 0] = torch.tensor([1.0, 0, 0, 0, 0, 0], dtype=torch.float64)
    ent = row_entropy(w)
    np.testing.assert_allclose(row_entropy(w.numpy()), ent.numpy())
    np.testing.assert_allclose(entropy(w.numpy()), ent.mean(-1).numpy())
    hand = -(w * w.log()).nan_to_num().sum(-1)
    torch.testing.assert_close(ent, hand)


def test_query_row_is_the_softmax_of_scaled_dot_products():
    q, keys = np.random.default_rng(0).normal(size=(2, 5, 4))
    scores, weights = query_row(q[0], keys)
    hand = keys @ q[0] / 2.0
    np.testing.assert_allclose(scores, hand)
    np.testing.assert_allclose(weights, np.exp(hand) / np.exp(hand).sum())


def test_rope_rotates_by_the_one_angle_table():
    t, d = 6, 8
    unit = torch.zeros(t, d, dtype=torch.float64)
    unit[:, 0::2] = 1.0  # every pair (1, 0): rotated, it becomes (cos θ, sin θ)
    np.testing.assert_allclose(rope(unit).numpy(), rope_table(t, d), atol=1e-6)
    positions = torch.tensor([3.0, 0.0, 5.0], dtype=torch.float64)
    got = rope(unit[:3], positions).numpy()[:, 0::2]
    np.testing.assert_allclose(got, np.cos(rope_angles(np.array([3, 0, 5]), d)), atol=1e-12)


def test_score_labels_cover_every_score_name():
    assert tuple(SCORE_LABELS) == SCORE_NAMES
    assert SCORE_LABELS["scaled_dot"] == "qᵀk / √d"


class Pair(torch.nn.Module):
    """Returns a tuple, as a Hugging Face decoder layer may: (x + y, x * y)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x + y, x * y


def tiny_net() -> torch.nn.Sequential:
    """Linear(2 -> 2), ReLU, Linear(2 -> 1) with weights written out, for hand-computed values."""
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    with torch.no_grad():
        net[0].weight.copy_(torch.tensor([[1.0, -1.0], [2.0, 0.5]]))
        net[0].bias.copy_(torch.tensor([0.5, -3.0]))
        net[2].weight.copy_(torch.tensor([[3.0, -2.0]]))
        net[2].bias.copy_(torch.tensor([0.25]))
    return net


def torch_hooks_left(net: torch.nn.Module) -> int:
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in net.modules())


XS = torch.tensor([[1.0, 2.0], [3.0, -1.0]])  # (B=2, 2)
# by hand: net[0](XS) = [[1 - 2 + 0.5, 2 + 1 - 3], [3 + 1 + 0.5, 6 - 0.5 - 3]]
HIDDEN = torch.tensor([[-0.5, 0.0], [4.5, 2.5]])
RELU = torch.tensor([[0.0, 0.0], [4.5, 2.5]])
OUT = torch.tensor([[0.25], [13.5 - 5.0 + 0.25]])  # 3 * relu_0 - 2 * relu_1 + 0.25


def test_module_cache_keeps_outputs_and_inputs_detached_and_removes_its_hooks():
    net = tiny_net()
    taps = module_cache(outputs={"hidden": [net[0]]}, inputs={"into_last": [net[2]]})
    with taps as cache:
        out = net(XS)
        net(XS * 0)  # a second call appends: (0 @ W.T + b) = the first layer's bias
    torch.testing.assert_close(out, OUT)
    torch.testing.assert_close(cache["hidden"][0], HIDDEN)
    torch.testing.assert_close(cache["hidden"][1], torch.tensor([[0.5, -3.0]] * 2))
    torch.testing.assert_close(cache["into_last"][0], RELU)
    assert len(cache["into_last"]) == 2 and not cache["hidden"][0].requires_grad
    assert torch_hooks_left(net) == 0


def test_a_module_hook_that_returns_a_tensor_replaces_the_output_or_the_input():
    net = tiny_net()
    with module_hooks([(net[0], torch.zeros_like)]):  # relu(0) = 0: the last layer's bias
        torch.testing.assert_close(net(XS), torch.full((2, 1), 0.25))
    with module_hooks([(net[2], lambda t: t * 2)], kind="input"):
        torch.testing.assert_close(net(XS), 2 * (OUT - 0.25) + 0.25)
    with module_hooks([(net[1], lambda t: None)]):  # None: left as it is
        torch.testing.assert_close(net(XS), OUT)
    assert torch_hooks_left(net) == 0
    torch.testing.assert_close(net(XS), OUT)


def test_module_hooks_read_and_replace_a_tuples_first_element_keeping_the_rest():
    pair, x, y = Pair(), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    with module_cache(outputs={"sum": [pair]}) as cache, module_hooks([(pair, torch.neg)]):
        total, product = pair(x, y)
    torch.testing.assert_close(cache["sum"][0], torch.tensor([4.0, 6.0]))  # before the negation
    torch.testing.assert_close(total, torch.tensor([-4.0, -6.0]))
    torch.testing.assert_close(product, torch.tensor([3.0, 8.0]))
    with module_hooks([(pair, lambda t: t * 10)], kind="input"):  # x replaced, y kept
        torch.testing.assert_close(pair(x, y)[1], torch.tensor([30.0, 80.0]))


def test_module_hooks_are_removed_after_an_error_in_the_block_a_hook_or_registering():
    net = tiny_net()
    with pytest.raises(RuntimeError, match="in the block"), module_hooks([(net[0], torch.neg)]):
        raise RuntimeError("in the block")
    assert torch_hooks_left(net) == 0

    def fails(_t: torch.Tensor) -> None:
        raise ValueError("in a hook")

    taps, failing = module_cache(outputs={"h": [net[0]]}), module_hooks([(net[2], fails)], "input")
    with pytest.raises(ValueError, match="in a hook"), taps, failing:
        net(XS)
    assert torch_hooks_left(net) == 0
    with pytest.raises(AttributeError), module_hooks([(net[0], torch.neg), (object(), torch.neg)]):
        pass  # the second is no module: the first one's hook is removed as well
    assert torch_hooks_left(net) == 0
    with pytest.raises(ValueError, match="kind"), module_hooks([(net[0], torch.neg)], kind="grad"):
        pass
    torch.testing.assert_close(net(XS), OUT)


def test_a_hook_acts_only_in_the_thread_that_attached_it():
    """A model shared by two sessions (threads): while one runs it with a head zeroed and its
    attention captured, the other's forward pass at that moment is the model's own."""
    torch.manual_seed(0)
    layer = MultiHeadSelfAttention(SelfAttentionConfig(d_model=8, n_heads=2)).eval()
    linear = torch.nn.Linear(8, 8)
    with torch.no_grad():
        plain, plain_linear = layer(X)[0], X @ linear.weight.T + linear.bias  # (B, T, D)
    inside, done, other = threading.Event(), threading.Event(), {}

    def other_session() -> None:
        inside.wait(10)
        with torch.no_grad():
            other["layer"], other["linear"] = layer(X)[0], linear(X)
            other["capturing"] = model_is_capturing(layer)
        done.set()

    thread = threading.Thread(target=other_session)
    thread.start()
    zero = {name: (lambda t, _n: t * 0) for name in hook_points(layer) if "weights" in name}
    with module_hooks([(linear, lambda t: t * 0)]), hooks_attached(layer, zero), torch.no_grad():
        inside.set()
        assert done.wait(10), "the other session's pass did not finish"
        mine = layer(X)[0]
        assert model_is_capturing(layer)
        assert torch.count_nonzero(linear(X)) == 0
    thread.join()
    torch.testing.assert_close(other["layer"], plain)
    torch.testing.assert_close(other["linear"], plain_linear)
    assert other["capturing"] is False
    assert not torch.allclose(mine, plain)  # zeroed weights: this thread's pass was edited
