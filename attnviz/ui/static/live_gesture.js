// Shared by the live views (live_select.js, live_attention_row.js): attnviz/ui/common/live_component.py
// puts this file before each view's own script. It owns the round trip of a gesture: the view
// answers every move itself, sends the result once per gesture (on pointer-up, or QUIET_MS after
// the last key), and lets the server's value move the view only when no gesture is on its way.
const QUIET_MS = 300; // sync after this long without a key
const STALE_MS = 5000; // a sync the server never echoed stops holding the view after this
const VIEWS = new WeakMap(); // parentElement -> the view's state (one per mounted component)

// Send `value` under `key`, with a new gesture id appended (the server echoes it as `synced`),
// unless nothing moved or the server already has it.
function sendGesture(v, key, value, serverHasIt) {
  clearTimeout(v.timer);
  if (!v.dirty) return;
  v.dirty = false;
  if (serverHasIt && !v.pending) return; // and nothing else is on its way
  v.pending = { id: Date.now() + Math.random(), at: performance.now() };
  v.setStateValue(key, [...value, v.pending.id]);
}

// After a key: send QUIET_MS later, unless another key comes first.
function syncSoon(v, sync) {
  clearTimeout(v.timer);
  v.timer = setTimeout(() => sync(v), QUIET_MS);
}

// Whether the server's value may move the view: not while the person is moving it, and not
// while a sent gesture has not come back yet (data from an older rerun would jump it back).
function serverOwns(v, d) {
  if (v.dragging || v.dirty) return false;
  if (!v.pending) return true;
  if (d.synced === v.pending.id || performance.now() - v.pending.at > STALE_MS) {
    v.pending = null;
    return true;
  }
  return false;
}
