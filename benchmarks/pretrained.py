"""Pretrained explorer speed: attention extraction at 16/128/512 tokens, and the time until the
model view of 512 tokens is drawn in Chromium, ours against BertViz's model_view HTML.

    python -m benchmarks.pretrained [--bertviz-libs DIR] [--timeout 120]

BertViz is only for this benchmark: `pip install bertviz`. Its HTML loads require.js, d3 and
jQuery from a CDN, which this machine cannot reach; give their files in DIR (as unpacked by
`npm pack requirejs@2.3.6 d3@5.7.0 jquery@2.2.4` and `tar xzf` each into DIR/<name>-<version>/).
Without bertviz or DIR that comparison is skipped. Our time includes the server computing the
attentions; BertViz's starts from precomputed attentions, so the comparison favours BertViz.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import urllib.parse
from pathlib import Path

from attnviz.topics.pretrained.model import load
from tests.support.browser import launch_args
from tests.support.server import serving

SENTENCE = "the lecture hall was full of students listening to a talk about attention"


def text_of(n_tokens: int, model) -> str:
    words = (SENTENCE.split() * 100)[: n_tokens * 2]
    while len(model.tokenizer(" ".join(words))["input_ids"]) > n_tokens:
        words.pop()
    return " ".join(words)


def extraction_times(model) -> list[tuple[int, float]]:
    rows = []
    for n in (16, 128, 512):
        text = text_of(n, model)
        model.extract(text)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            model.extract(text)
            runs.append(time.perf_counter() - start)
        rows.append((n, statistics.median(runs) * 1000))
    return rows


def ours_in_browser(text: str, timeout: float) -> float:
    from playwright.sync_api import sync_playwright

    with serving() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        page = browser.new_page()
        page.goto(f"{app.url}/pretrained?pe_text=hello")  # warm: model loaded once per server
        page.wait_for_function(DRAWN_OURS, timeout=timeout * 1000)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(f"{app.url}/pretrained?pe_text={urllib.parse.quote(text)}")
        page.wait_for_function(DRAWN_OURS, timeout=timeout * 1000)
        elapsed = time.perf_counter() - start
        browser.close()
    return elapsed


DRAWN_OURS = """() => [...document.querySelectorAll('.js-plotly-plot')].some(
  e => e._fullLayout && (e._fullLayout.title.text || '').includes('Model view')
    && e.querySelector('.hm, image'))"""


def bertviz_in_browser(model, text: str, libs: Path, timeout: float) -> float | None:
    from bertviz import model_view
    from playwright.sync_api import sync_playwright

    result = model.extract(text)
    import torch

    html = model_view(
        tuple(torch.from_numpy(a[None]) for a in result.attentions),
        result.tokens,
        html_action="return",
    ).data
    html = (
        html.replace(
            "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js",
            (libs / "requirejs-2.3.6/package/require.js").as_uri(),
        )
        .replace(
            "https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min",
            (libs / "d3-5.7.0/package/dist/d3.min").as_uri(),
        )
        .replace(
            "https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min",
            (libs / "jquery-2.2.4/package/dist/jquery.min").as_uri(),
        )
    )
    page_file = Path(tempfile.mkdtemp()) / "bertviz.html"
    page_file.write_text(f"<html><body>{html}</body></html>")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args("--allow-file-access-from-files"))
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(page_file.as_uri())
        try:
            page.wait_for_function(
                "() => document.querySelectorAll('svg line, svg path, svg rect').length > 100",
                timeout=timeout * 1000,
            )
            page.wait_for_load_state("networkidle", timeout=timeout * 1000)
            elapsed = time.perf_counter() - start
        except Exception:
            elapsed = None
        browser.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bertviz-libs", type=Path)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    model = load()
    print(f"{'tokens':>7} {'extraction ms (median of 5)':>28}")
    for n, ms in extraction_times(model):
        print(f"{n:>7} {ms:>28.1f}")
    text = text_of(512, model)
    ours = ours_in_browser(text, args.timeout)
    print(f"model view, 512 tokens, ours (server compute + draw): {ours:.2f} s")
    try:
        import bertviz  # noqa: F401
    except ImportError:
        print("BertViz comparison skipped: pip install bertviz")
        return
    if args.bertviz_libs is None:
        print("BertViz comparison skipped: give --bertviz-libs (see the module docstring)")
        return
    small = bertviz_in_browser(model, text_of(16, model), args.bertviz_libs, args.timeout)
    print(
        f"BertViz sanity check, 16 tokens: drawn in {small:.2f} s"
        if small
        else "BertViz did not draw even 16 tokens"
    )
    theirs = bertviz_in_browser(model, text, args.bertviz_libs, args.timeout)
    if theirs is None:
        print(
            f"model view, 512 tokens, BertViz: not drawn within {args.timeout:.0f} s; "
            f"ratio ≥ {args.timeout / ours:.1f}× (goal ≥ 5×)"
        )
    else:
        print(
            f"model view, 512 tokens, BertViz: {theirs:.2f} s; "
            f"BertViz / ours = {theirs / ours:.1f}× (goal ≥ 5×)"
        )


if __name__ == "__main__":
    main()
