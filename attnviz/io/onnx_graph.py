"""Reading weights out of an ONNX file by following its graph (the `onnx` package; no runtime).

Exporters keep a module's own parameter names for some weights (`backbone.encoder.layer.0.norm1.
weight`) but fold others into anonymous initializers (`onnx::MatMul_1966`, already transposed to
(in, out) for `x @ W`). So a weight is found by the node that uses it (`weight_of(node, i)`: the
tensor behind input i of the named node), never by the order of the initializers. Constants may
live in initializers or in Constant nodes; `value` reads both.

A file that is not a readable ONNX model, or a graph without a node or tensor asked for, raises
`OnnxFormatError` with a sentence a person can act on (never the file's path).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class OnnxFormatError(ValueError):
    """The file is not the ONNX model expected (unreadable, or a node or tensor is missing)."""


class OnnxGraph:
    """An ONNX model's tensors and nodes, looked up by name."""

    def __init__(self, model) -> None:
        from onnx import numpy_helper

        graph = model.graph
        self.tensors = {t.name: t for t in graph.initializer}  # name -> TensorProto (lazy)
        self.nodes = {n.name: n for n in graph.node}
        self.constants = {
            n.output[0]: n.attribute[0].t
            for n in graph.node
            if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value"
        }
        self._to_array = numpy_helper.to_array

    def node(self, name: str):
        """The node called `name`; OnnxFormatError if the graph has none."""
        if name not in self.nodes:
            raise OnnxFormatError(f"the model has no node {name!r}, so it is not the one expected")
        return self.nodes[name]

    def value(self, tensor: str) -> np.ndarray:
        """A constant tensor (an initializer or a Constant node's output) as a float32 or integer
        array."""
        proto = self.tensors.get(tensor) or self.constants.get(tensor)
        if proto is None:
            raise OnnxFormatError(f"the model has no constant tensor {tensor!r}")
        array = self._to_array(proto)
        return array.astype(np.float32) if array.dtype.kind == "f" else array

    def weight_of(self, node: str, index: int) -> np.ndarray:
        """The constant behind input `index` of the node called `node`."""
        inputs = self.node(node).input
        if index >= len(inputs):
            raise OnnxFormatError(f"the node {node!r} has no input {index}")
        return self.value(inputs[index])

    def has_node(self, name: str) -> bool:
        return name in self.nodes


def read_onnx(path: Path) -> OnnxGraph:
    """The graph of the ONNX file at `path`; OnnxFormatError when it cannot be parsed."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(str(path))
    except (DecodeError, OSError, ValueError, RuntimeError) as err:
        raise OnnxFormatError(
            f"the file is not a readable ONNX model ({type(err).__name__})"
        ) from None
    if not model.graph.node:
        raise OnnxFormatError("the file holds no ONNX graph")
    return OnnxGraph(model)
