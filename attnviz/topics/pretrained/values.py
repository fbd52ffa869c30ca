"""What each head moves from each token, for "what flows" (Kobayashi et al., 2020): head h's
output at a query is Σ_j α_ij W_O^h v_j^h, so the vector it moves from token j is W_O^h v_j^h,
and its length ‖W_O^h v_j^h‖ weighs the attention weight α_ij. The value projection's output is
read per call (model.PretrainedModel.extract taps it); W_O^h is head h's block of the attention
output projection. The families whose projections are named here: BERT (MiniLM), DistilBERT,
Llama-style (q_proj … o_proj, grouped-query heads too) and GPT-2 (a fused c_attn, a Conv1D
c_proj); for any other, no norms (the page keeps the weights and says so)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

# (the value projection's name, the output projection's), after a layer's own prefix
PAIRS = (
    (".attention.self.value", ".attention.output.dense"),
    (".self_attn.v_proj", ".self_attn.o_proj"),
    (".attention.v_lin", ".attention.out_lin"),
    (".attn.c_attn", ".attn.c_proj"),  # GPT-2: q|k|v fused, the value its last third
)


@dataclass(frozen=True)
class ValueOutput:
    """One layer's value projection (or fused q|k|v) and attention output projection."""

    value: torch.nn.Module
    output: torch.nn.Module
    fused: bool  # the value is the last third of a fused q|k|v projection's output


def find_value_outputs(model: torch.nn.Module) -> list[ValueOutput]:
    """Every layer's ValueOutput, in order; [] unless every named value has its output."""
    named = dict(model.named_modules())
    found = []
    for name, module in named.items():
        for value_name, output_name in PAIRS:
            if name.endswith(value_name):
                output = named.get(name[: -len(value_name)] + output_name)
                if output is None:
                    return []
                found.append(ValueOutput(module, output, value_name == PAIRS[-1][0]))
    return found


def head_norms(
    value_out: torch.Tensor, layer: ValueOutput, n_heads: int, head_dim: int
) -> torch.Tensor:
    """(H, T): ‖W_O^h v_j^h‖ for each query head h and token j, from the layer's value output
    (T, D_kv) (or its fused q|k|v output (T, 3D)); a grouped-query head reads its group's v."""
    v = value_out.chunk(3, dim=-1)[2] if layer.fused else value_out  # (T, D_kv)
    weight = layer.output.weight.detach()
    # Linear: (D_out, H·d), applied as x Wᵀ; GPT-2's Conv1D: (H·d, D_out), applied as x W
    w = weight if type(layer.output).__name__ == "Conv1D" else weight.T  # (H·d, D_out)
    t, n_kv = v.shape[0], v.shape[-1] // head_dim
    v = v.float().view(t, n_kv, head_dim).transpose(0, 1)  # (H_kv, T, d)
    group = n_heads // n_kv
    moved = [v[h // group] @ w[h * head_dim : (h + 1) * head_dim].float() for h in range(n_heads)]
    return torch.stack(moved).norm(dim=-1)  # (H, T)
