// Training pages (attnviz/ui/common/keyboard_focus.py): make Space reach the training buttons on a page
// just opened. Streamlit listens for a button's shortcut on the app's document, so a key only
// counts once the page holds the keyboard focus. Two cases where it did not:
// 1. nothing in the page was focused yet: the window asks for the focus and the page's main
//    area takes it (no scrolling, no focus ring), unless something in the page already has it
//    (a text box keeps it); not inside a frame, whose page keeps its own focus;
// 2. the app shown inside a page of the same origin (a frame) that holds the focus: Space
//    pressed there is handed to the app, unless it was typed into a text field of that page.
// Runs in the app's page (components v2, no iframe); reads no data.
const EDITABLE = new Set(["INPUT", "TEXTAREA", "SELECT"]);

const typing = (el) => !!el && (EDITABLE.has(el.tagName) || el.isContentEditable);

function focusPage(doc) {
  const win = doc.defaultView;
  if (win.top !== win) return; // framed: case 2
  if (!doc.hasFocus()) win.focus();
  const active = doc.activeElement;
  if (active && active !== doc.body && active !== doc.documentElement) return; // already focused
  const main = doc.querySelector('[data-testid="stMain"]');
  if (!main) return;
  if (!main.hasAttribute("tabindex")) main.setAttribute("tabindex", "-1");
  main.style.outline = "none";
  main.focus({ preventScroll: true, focusVisible: false });
}

// A KeyboardEvent as a keyboard makes it: Streamlit's shortcuts read the legacy keyCode too.
function press(doc, type, source) {
  const event = new doc.defaultView.KeyboardEvent(type, {
    key: source.key, code: source.code, bubbles: true, cancelable: true,
  });
  for (const name of ["keyCode", "which"]) Object.defineProperty(event, name, { get: () => 32 });
  (doc.activeElement || doc.body).dispatchEvent(event);
  return event.defaultPrevented;
}

// Hand Space from the framing page to the app; returns the function that stops listening.
function listenOnTop(doc) {
  const win = doc.defaultView;
  let top;
  try {
    top = win.top !== win && win.top.document ? win.top : null; // throws across origins
  } catch {
    top = null;
  }
  if (!top) return () => {};
  const handlers = {
    keydown: (event) => {
      if (event.code !== "Space" || typing(event.target) || event.defaultPrevented) return;
      if (press(doc, "keydown", event)) event.preventDefault(); // the app took it: no scrolling
    },
    keyup: (event) => {
      if (event.code === "Space" && !typing(event.target)) press(doc, "keyup", event);
    },
  };
  for (const [name, handler] of Object.entries(handlers)) top.addEventListener(name, handler);
  return () => {
    for (const [name, handler] of Object.entries(handlers)) top.removeEventListener(name, handler);
  };
}

export default function (component) {
  const doc = component.parentElement.ownerDocument || document;
  const win = doc.defaultView;
  if (win.__attnvizKeyboard) win.__attnvizKeyboard(); // one listener per page, not per rerun
  focusPage(doc);
  const unlisten = listenOnTop(doc);
  const cleanup = () => {
    unlisten();
    if (win.__attnvizKeyboard === cleanup) delete win.__attnvizKeyboard;
  };
  win.__attnvizKeyboard = cleanup;
  return cleanup;
}
