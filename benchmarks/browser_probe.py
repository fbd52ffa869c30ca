"""What benchmarks.browser records in the page: the probe (an init script that wraps the
WebSocket and watches the DOM and long tasks, timestamps from performance.now()), one move's
timings (`Move`), the server's CPU and the wait until the page is calm."""

from __future__ import annotations

import time
from dataclasses import dataclass

from benchmarks.load_procs import ProcessTree
from tests.support.browser import IDLE

CALM_MS = 400  # the page counts as idle once nothing changed for this long
PROBE = """
(() => {
  const av = window.__av = {sent: [], recv: [], bytes: 0, mut: 0, longEnd: 0, input: 0};
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        av.recv.push(performance.now());
        av.bytes += e.data.byteLength || e.data.size || e.data.length || 0;
      });
    }
    send(data) { av.sent.push(performance.now()); return super.send(data); }
  };
  new MutationObserver(() => { av.mut = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        av.longEnd = Math.max(av.longEnd, e.startTime + e.duration);
      }
    }).observe({type: 'longtask', buffered: true});
  } catch (e) {}
  for (const kind of ['keydown', 'pointerdown', 'input']) {
    addEventListener(kind, (e) => { if (!av.input) av.input = e.timeStamp; }, true);
  }
})();
"""
RESET = "() => { const a = window.__av; a.sent = []; a.recv = []; a.bytes = 0; a.input = 0; }"
READ = "() => ({...window.__av, now: performance.now()})"


@dataclass
class Move:
    send: float
    server: float
    render: float
    total: float
    bytes: int
    cpu_ms: float


def move_of(rec: dict, cpu_ms: float) -> Move:
    """A rerun's timings from `wait_calm`'s record: input → send → last message (the send when
    none came) → idle (the last DOM change or long task)."""
    sent = rec["sent"][0]
    last = max(rec["recv"] or [sent])
    idle = max(last, rec["mut"], rec["longEnd"])
    return Move(
        sent - rec["input"], last - sent, idle - last, idle - rec["input"], rec["bytes"], cpu_ms
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the server process itself (not its training workers)."""
    return ProcessTree([pid]).cpu_seconds(roots_only=True)


def wait_calm(page, timeout: float = 60) -> dict:
    """Wait until the script is not running and nothing changed for CALM_MS; the probe's record."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        page.wait_for_timeout(100)
        rec = page.evaluate(READ)
        last = max(rec["mut"], rec["longEnd"], *(rec["recv"] or [0]))
        if page.locator(IDLE).count() and rec["now"] - last > CALM_MS:
            return rec
    raise TimeoutError("the page kept changing")
