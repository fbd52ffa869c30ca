"""CircuitsVis's names (issue 56): `av.attention_heads(attention, tokens, attention_head_names)`
and `av.attention_patterns(tokens, attention)` take one layer's (heads, query, key) weights as
CircuitsVis does and draw them: the heads' maps hold the weights given (read back from the
figure), the head view's lines are those weights, and the names label the maps."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.scene import SceneInputError

TOKENS = ["When", " Mary", " and", " John"]


@pytest.fixture(scope="module")
def weights() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.softmax(torch.randn(3, 4, 4), dim=-1)  # (heads, query, key)


def test_attention_heads_draws_each_heads_weights_under_its_name(weights):
    fig = av.attention_heads(weights, TOKENS, ["L0H0", "L0H1", "L0H2"])
    assert fig.layout.xaxis.ticktext == ("L0H0", "L0H1", "L0H2")
    assert fig.layout.title.text.startswith("Model view: 1 layer ×")
    z = np.asarray(fig.data[0].z, dtype=float)  # the heads tiled side by side, gaps between
    tiles = [z[:, c] for c in range(z.shape[1]) if not np.isnan(z[:, c]).all()]
    drawn = np.stack(tiles, axis=1).reshape(4, 3, 4).transpose(1, 0, 2)  # (heads, query, key)
    np.testing.assert_allclose(drawn, weights.numpy(), atol=1e-6)


def test_a_wrong_number_of_head_names_is_told(weights):
    with pytest.raises(SceneInputError, match="2 names for 3 heads"):
        av.attention_heads(weights, TOKENS, ["L0H0", "L0H1"])


def test_attention_patterns_takes_circuitsvis_order_and_draws_the_head_view(weights):
    view = av.attention_patterns(TOKENS, weights.numpy())
    assert view.data["tokens"] == ["When", "␣Mary", "␣and", "␣John"]  # spaces shown as ␣
    assert [lines["head"] for lines in view.data["heads"]] == [0, 1, 2]
    for h, lines in enumerate(view.data["heads"]):  # each line: (query, key) and its weight
        drawn = dict(zip(zip(lines["q"], lines["k"], strict=True), lines["w"], strict=True))
        for (q, k), w in drawn.items():
            assert w == pytest.approx(float(weights[h, q, k]), abs=5e-4)
        assert len(drawn) >= 4  # the lines kept: at least the largest per query
    assert "attention_heads" in dir(av) and "attention_patterns" in av.__all__
