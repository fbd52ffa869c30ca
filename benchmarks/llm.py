"""The language-model page's speed (issue 40), each figure beside the model's own floor measured in
the same run:

- warm load (the converted copy in the cache) against reading its safetensors file alone;
- a new ~64-token prompt: the scene's run and default views on the server, against one forward
  pass with attentions;
- the logit lens at 64 tokens, against the same forward pass;
- 20 greedy tokens with every step's attention, against transformers' `generate` of 20 tokens
  without attentions;
- 30 students each sending a new ~64-token prompt within 30 s to one server (over Streamlit's
  websocket protocol): p50 / p95 / max of a prompt, and the server's RSS with the model loaded.

Goals: warm load ≤ 3 s; a new prompt's views ≤ 1.0 s; the lens ≤ 1 s; 20 tokens ≤ 4 s; the
students' p95 ≤ 2 s; RSS ≤ 1.5 GB. The last line:

    llm: load <a> s (floor <f>), prompt <b> s, lens <c> s, 20 tokens <d> s,
         30 students p95 <e> s, RSS <r> MB

    python -m benchmarks.llm                  # all of it (starts a server for the students)
    python -m benchmarks.llm --students 0     # the engine's figures only
    python -m benchmarks.llm --threads 1      # torch threads in this process (default 2, as
                                              # a server's torch uses both cores)
    python -m benchmarks.llm --students 0 --device cuda   # the model on a GPU, and how far its
                                              # numbers are from the CPU's
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import torch

WORDS = [
    *("river", "stone", "lamp", "orbit", "violet", "marble", "engine", "tiger", "window"),
    *("garden", "silver", "copper", "harbour", "planet", "canvas", "meadow", "thunder"),
    *("pencil", "ladder", "candle", "forest", "island", "rocket", "bridge"),
]


def prompt_of(rng: random.Random, words: int = 29) -> str:
    """A new prompt of about 64 tokens."""
    return "Here is a list: " + ", ".join(rng.choice(WORDS) for _ in range(words)) + " and"


def timed(work) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def load_figures(device: str = "cpu") -> tuple[float, float]:
    """(warm load s onto `device`, reading the weights file's bytes alone s)."""
    from attnviz.topics.language_model import bundled

    bundled.convert()  # so the load below is a warm one
    bundled.import_loaders()  # as the server's warm-up does before anyone opens the page

    floor, _ = timed((bundled.cache_folder() / "model.safetensors").read_bytes)
    seconds, _ = timed(lambda: bundled.load_llm(device=device))
    return seconds, floor


def against_cpu(lm, ids: list[int], fwd) -> None:
    """How far the model on another device is from the CPU's on the same prompt."""
    from attnviz.topics.language_model import forward
    from attnviz.topics.language_model.bundled import bundled_llm

    ref = forward.run(bundled_llm("cpu"), ids)
    logits = abs(fwd.last_logits - ref.last_logits).max()
    weights = abs(fwd.attentions - ref.attentions).max()
    same = fwd.last_logits.argmax() == ref.last_logits.argmax()
    print(
        f"against the CPU: max |logit difference| {logits:.2e}, max |attention weight "
        f"difference| {weights:.2e}, same next token {bool(same)}"
    )


def engine_figures(rng: random.Random, device: str = "cpu") -> dict[str, float]:
    from attnviz.topics.language_model import forward, readouts
    from attnviz.topics.language_model.bundled import bundled_llm
    from attnviz.topics.language_model.decoding import Decoding
    from attnviz.topics.language_model.scene import SCENE

    lm = bundled_llm(device)
    warm = forward.encode(lm, prompt_of(rng))[0]
    forward.run(lm, warm)  # torch's first-call costs
    values = SCENE.values(lm_text=prompt_of(rng), device=device)
    ids = forward.encode(lm, values["lm_text"])[0]
    floor, fwd = timed(lambda: forward.run(lm, ids))
    views, _ = timed(lambda: SCENE.views(SCENE.run(SCENE.config(values)), values))
    lens, _ = timed(lambda: readouts.lens_view(lm, fwd))
    gen, _ = timed(lambda: readouts.generation(lm, tuple(ids), 20, Decoding()))
    with torch.no_grad():
        plain, _ = timed(
            lambda: lm.model.generate(
                torch.tensor([ids], device=device),
                max_new_tokens=20,
                do_sample=False,
                min_new_tokens=20,
            )
        )
    print(f"tokens in the prompt: {len(ids)}, model on {device}")
    if device != "cpu":
        against_cpu(lm, ids, fwd)
    print(f"forward pass with attentions: {floor:.3f} s (the floor of a prompt and of the lens)")
    print(f"new prompt, run and default views: {views:.3f} s (goal ≤ 1.0)")
    print(f"logit lens, 30 layers × {len(ids)} positions: {lens:.3f} s (goal ≤ 1)")
    print(f"20 greedy tokens with attention: {gen:.3f} s (goal ≤ 4; generate alone {plain:.3f} s)")
    return {"prompt": views, "lens": lens, "tokens": gen}


async def one_student(url: str, index: int, window: float, times: list, errors: list) -> None:
    from benchmarks.load import LevelStats, open_tab
    from benchmarks.load_client import WidgetState

    rng = random.Random(index)
    stats = LevelStats(1)
    tab = await open_tab(url, "language-model", stats)
    if tab is None:
        errors.append(f"open: {dict(stats.errors)}")
        return
    try:
        await asyncio.sleep(rng.uniform(0, window))
        widget = next((w for w in tab.widgets.values() if w.id.endswith("-lm_text")), None)
        if widget is None:
            errors.append("no prompt box")
            return
        tab.states[widget.id] = WidgetState(id=widget.id, string_value=prompt_of(rng))
        result = await tab.run(widget.fragment_id)
        (times if result.ok else errors).append(result.seconds if result.ok else result.status)
    finally:
        await tab.close()


async def students(url: str, count: int, window: float) -> tuple[list[float], list]:
    from benchmarks.load import LevelStats, open_tab

    first = await open_tab(url, "language-model", LevelStats(1))  # the server loads the model
    if first is not None:
        await first.close()
    times: list[float] = []
    errors: list = []
    await asyncio.gather(*(one_student(url, i, window, times, errors) for i in range(count)))
    return times, errors


def load_figures_of_students(args: argparse.Namespace) -> tuple[float, float]:
    from benchmarks.load import percentile, served
    from benchmarks.load_procs import ProcessTree

    with served(args):
        times, errors = asyncio.run(students(args.url, args.students, args.window))
        rss = ProcessTree(args.pid).rss_mb()
    p95 = percentile(times, 95)
    print(
        f"{args.students} students, a new prompt each within {args.window:g} s: p50 "
        f"{percentile(times, 50):.2f} s, p95 {p95:.2f} s (goal ≤ 2), max {max(times):.2f} s, "
        f"errors {len(errors)} {errors[:3]}; server RSS {rss:.0f} MB (goal ≤ 1,500)"
    )
    return p95, rss


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--window", type=float, default=30.0, help="seconds the prompts spread")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument("--pid", type=int, nargs="*", default=[])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    load, floor = load_figures(args.device)
    print(f"warm load: {load:.2f} s (goal ≤ 3; reading the weights file alone {floor:.2f} s)")
    figures = engine_figures(random.Random(0), args.device)
    p95, rss = load_figures_of_students(args) if args.students else (float("nan"),) * 2
    print(
        f"llm: load {load:.2f} s (floor {floor:.2f}), prompt {figures['prompt']:.2f} s, lens "
        f"{figures['lens']:.2f} s, 20 tokens {figures['tokens']:.2f} s, {args.students} students "
        f"p95 {p95:.2f} s, RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    main()
