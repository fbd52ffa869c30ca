"""Timings of a new text typed into a page (benchmarks.browser): the pretrained page's 512- and
64-token inputs and the language model's new prompts, and the model's own forward pass beside
them (the page's physical floor)."""

from __future__ import annotations

import statistics
import time

from benchmarks.browser_probe import PROBE, RESET, Move, cpu_seconds, move_of, wait_calm

LONG_TEXT = " ".join(["the cat sat on the mat because it was warm"] * 52)  # ~520 tokens
SHORT_TEXT = " ".join(["the cat sat on the mat because it was warm"] * 6) + " and dry"  # 64
SHORT_RUNS = 3  # new 64-token sentences timed (each ends on another word: never a cached one)


def long_input(
    browser, url: str, pid: int, text: str = LONG_TEXT, path: str = "pretrained"
) -> Move:
    """The page at `path` (pretrained, language-model) with a new input typed in its first text
    area (Ctrl+Enter commits the text): LONG_TEXT, 512 tokens, or SHORT_TEXT, 64 tokens with
    [CLS] and [SEP] (about as many for the language model's tokenizer)."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.add_init_script(PROBE)
    page.goto(f"{url}/{path}")
    page.wait_for_selector("[data-testid='stMain'] textarea", timeout=90_000)
    wait_calm(page, timeout=120)
    area = page.locator("[data-testid='stMain'] textarea").first
    area.fill(text)
    page.evaluate(RESET)
    cpu = cpu_seconds(pid)
    area.press("Control+Enter")
    rec = wait_calm(page, timeout=120)
    page.close()
    return move_of(rec, (cpu_seconds(pid) - cpu) * 1000)


def model_floor(text: str, runs: int = 5) -> float:
    """ms for the bundled model alone on `text` (truncated to 512 tokens, as the page does):
    one forward pass with output_attentions, median of `runs`: the page's physical floor."""
    import torch

    from attnviz.topics.pretrained.model import load

    model = load()
    enc = model.tokenizer(text, truncation=True, max_length=512, return_tensors="pt")
    times = []
    with torch.no_grad():
        for _ in range(runs + 1):  # the first run warms up
            start = time.perf_counter()
            model.model(**enc, output_attentions=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times[1:]) * 1000
