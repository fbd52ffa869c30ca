"""This machine's speed now, printed beside a benchmark's figures in the same run: the session's
virtual machine ran the same code 1.3–2× slower from one hour to the next (a page's move 212 ms,
then 435 ms with twice the CPU per move), so a figure is read against the speed it was taken at.
Two fixed loops, the median of five runs each: one in Chromium's JavaScript (what draws a chart)
and one in Python (what serves a rerun)."""

from __future__ import annotations

import statistics
import time

RUNS = 5
JS_LOOP = """() => { const t = performance.now(); let s = 0;
  for (let i = 0; i < 3e7; i++) s = (s + i * 7) % 1000003;
  return [performance.now() - t, s]; }"""


def chromium_ms(browser) -> float:
    """ms for JS_LOOP in a blank Chromium page (median of RUNS, after one to warm up)."""
    page = browser.new_page()
    try:
        times = [page.evaluate(JS_LOOP)[0] for _ in range(RUNS + 1)]
        return statistics.median(times[1:])
    finally:
        page.close()


def python_ms() -> float:
    """ms for a fixed loop of 3 million steps in this Python (median of RUNS)."""
    times = []
    for _ in range(RUNS):
        start, total = time.perf_counter(), 0
        for i in range(3_000_000):
            total = (total + i * 7) % 1_000_003
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def machine_now(browser) -> str:
    """One line: both loops' ms now (lower is faster)."""
    js, py = chromium_ms(browser), python_ms()
    return f"machine now: Chromium loop {js:.0f} ms, Python loop {py:.0f} ms"
