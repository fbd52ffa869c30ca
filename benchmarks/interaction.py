"""Median server-side time of a page rerun after its main widget changes (Streamlit AppTest).

Each page is measured in its own interpreter (so pages measured earlier do not slow later ones).

For every page in app.py's navigation: open it, then flip its first slider/selectbox between two
values 20 times and time each rerun. Also times a rerun with nothing changed as the reference
(what Streamlit's own machinery costs), and prints the ratio.

    python -m benchmarks.interaction [--reruns 20] [--page soft-select]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from tests.support.apptest import keyed_widgets, open_page, other_values, set_widget
from tests.support.pages import ROOT, app_pages

TEXT_PAGE = "pages/attention_on_text.py"


def time_page(path: str, reruns: int, query: dict | None = None) -> tuple[str, float, float]:
    at = open_page(path, query=query)
    widgets = [
        kw
        for kw in keyed_widgets(at, ("slider", "selectbox"))
        if other_values(getattr(at, kw[0])(key=kw[1]))
    ]
    if not widgets:
        return "-", float("nan"), float("nan")
    kind, key = widgets[0]
    widget = getattr(at, kind)(key=key)
    first = widget.options[widget.index] if kind == "selectbox" else widget.value
    values = [other_values(widget)[0], first]
    changed, idle = [], []
    for i in range(reruns):
        set_widget(at, kind, key, values[i % 2])
        start = time.perf_counter()
        at.run()
        changed.append(time.perf_counter() - start)
        start = time.perf_counter()
        at.run()
        idle.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    return f"{kind} {key}", statistics.median(changed) * 1000, statistics.median(idle) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=20)
    parser.add_argument("--page", help="only this url path")
    args = parser.parse_args()
    print(
        f"{'page':<28} {'widget changed':<26} {'median ms':>10} {'no-change ms':>13} {'ratio':>6}"
    )
    if args.page is None:  # each page in a fresh interpreter, so pages do not slow each other down
        for _path, _title, url in app_pages():
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.interaction",
                "--page",
                url,
                "--reruns",
                str(args.reruns),
            ]
            out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout
            print("\n".join(out.strip().splitlines()[1:]))
        return
    rows = [p for p in app_pages() if p[2] == args.page]
    for path, _title, url in rows:
        variants = [(url, None)]
        if path == TEXT_PAGE:  # the text page at two sentence lengths
            variants = [
                (f"{url} ({n} tokens)", {"ta_text": " ".join(["word"] * n)}) for n in (16, 256)
            ]
        for label, query in variants:
            widget, ms, idle = time_page(path, args.reruns, query)
            ratio = ms / idle if idle == idle and idle > 0 else float("nan")
            print(f"{label:<28} {widget:<26} {ms:>10.1f} {idle:>13.1f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
