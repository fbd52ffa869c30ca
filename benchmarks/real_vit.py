"""The real ViT's speed and exactness (issue 45): scikit-image's bundled photos through our PyTorch
DINOv2 ViT-S/14 (attnviz.topics.vision_patches.dino, every layer's attention captured), beside
onnxruntime running the package's own ONNX file with the 12 softmax outputs and the final
features added to the graph.

Per photo: our time (the first photo is timed too: nothing is warmed up), onnxruntime's time
for the same photo, and the largest |ours − onnxruntime| over every attention weight and every
final feature. Goals: ≤ 1000 ms per photo on one thread (≤ 300 ms is better), error ≤ 1e-4. The
last line:

    dino: <n> images, <ms> ms per image, max |ours - onnxruntime| <e>

    python -m benchmarks.real_vit              # one torch thread (the default), as a server's
    python -m benchmarks.real_vit --threads 2  # thread per session would
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from attnviz.data.photos import PHOTOS
from attnviz.topics.vision_patches import dino


def oracle(threads: int):
    """An onnxruntime session on the package's file, with the softmax and feature outputs."""
    import onnx
    import onnxruntime

    model = onnx.load(str(dino.model_file()))
    names = [f"/backbone/encoder/layer.{i}/attention/attention/Softmax_output_0" for i in range(12)]
    names.append("/backbone/layernorm/Add_1_output_0")
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = threads
    return onnxruntime.InferenceSession(model.SerializeToString(), options), names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = dino.bundled_dino()
    print(f"load: {time.perf_counter() - start:.2f} s (checksum, parse, build)")
    session, names = oracle(args.threads)
    ours_ms, theirs_ms, worst = [], [], 0.0
    for name in PHOTOS:
        image = dino.photo(name)
        start = time.perf_counter()
        look = dino.look_at(model, image)
        ours_ms.append(1000 * (time.perf_counter() - start))
        start = time.perf_counter()
        out = session.run(names, {"input_image": dino.pixels(image).numpy()})
        theirs_ms.append(1000 * (time.perf_counter() - start))
        error = max(
            float(np.abs(look.weights - np.stack(out[:-1])[:, 0]).max()),
            float(np.abs(look.features - out[-1][0]).max()),
        )
        worst = max(worst, error)
        print(
            f"{name:>10}: ours {ours_ms[-1]:6.0f} ms, onnxruntime {theirs_ms[-1]:6.0f} ms, "
            f"max |diff| {error:.1e}"
        )
    print(
        f"onnxruntime: {np.mean(theirs_ms):.0f} ms per image (the same file, {args.threads} thread)"
    )
    print(
        f"dino: {len(PHOTOS)} images, {np.mean(ours_ms):.0f} ms per image, "
        f"max |ours - onnxruntime| {worst:.1e}"
    )


if __name__ == "__main__":
    main()
