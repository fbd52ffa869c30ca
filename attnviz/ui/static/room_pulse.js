// A phone in a live classroom room hears of the presenter's move at once (attnviz/ui/lecture/
// pulse.py): every PULSE_MS it asks the server for the room's signature (its step and open
// round; one small JSON answer, no script run) and, when it differs from the one this page was
// drawn for, sends it as its state: the app reruns and follows the room. The panel's own
// two-second poll stays behind it. Components v2: runs in the app's page; reads JSON only.
const PULSE_MS = 700;

export default function (component) {
  const { data, parentElement } = component;
  const win = (parentElement.ownerDocument || document).defaultView;
  if (win.__attnvizPulse) win.__attnvizPulse(); // the previous page's
  if (!data || !data.path) return () => {};
  const drawn = JSON.stringify(data.seen);
  let sent = false;
  let busy = false;
  const ask = async () => {
    if (busy || sent) return;
    busy = true;
    try {
      const answer = await win.fetch(data.path, { cache: "no-store", credentials: "same-origin" });
      if (answer.ok) {
        const found = await answer.json();
        const now = JSON.stringify(found && "s" in found ? found.s : data.seen);
        if (now !== drawn) {
          sent = true; // one rerun per change: the next page mounts a fresh pulse
          component.setStateValue("seen", now);
        }
      }
    } catch {
      // offline or the server restarting: the panel's poll says so
    } finally {
      busy = false;
    }
  };
  const timer = win.setInterval(ask, PULSE_MS);
  const cleanup = () => {
    win.clearInterval(timer);
    if (win.__attnvizPulse === cleanup) delete win.__attnvizPulse;
  };
  win.__attnvizPulse = cleanup;
  return cleanup;
}
