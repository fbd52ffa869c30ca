// The browser's navigation, every page (attnviz/ui/common/navigation.py):
// 1. Back goes to the previous page. Streamlit pushes a history entry each time the app writes
//    the address (a page's settings, a room's code: three entries for one page opened from the
//    sidebar, so Back took several presses to leave a page). An entry pushed for the page
//    already shown (same path) replaces the current one instead; a new page still gets its own.
// 2. Phones: the sidebar folds itself after a page is picked in it. On a narrow screen
//    Streamlit's sidebar covers the whole page and stayed open over the page just opened (a
//    student's room panel, "Back to the presenter's step", under it).
// Runs in the app's page (components v2, no iframe); reads no data.
const NARROW_PX = 768; // Streamlit's own breakpoint for a sidebar that overlays the page
const FOLD = '[data-testid="stSidebarCollapseButton"] button, [data-testid="stSidebarHeader"] button';

function samePage(win, url) {
  if (url === undefined || url === null) return true; // a state change only
  return new URL(String(url), win.location.href).pathname === win.location.pathname;
}

function backGoesToThePreviousPage(win) {
  const history = win.history;
  const push = history.pushState.bind(history);
  history.pushState = (state, unused, url) =>
    samePage(win, url) ? history.replaceState(state, unused, url) : push(state, unused, url);
}

function fold(doc) {
  const sidebar = doc.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("aria-expanded") === "false") return;
  const button = sidebar.querySelector(FOLD);
  if (button) button.click();
}

function foldOnPhones(doc, win) {
  const picked = (event) => {
    if (win.innerWidth >= NARROW_PX || !event.target.closest) return;
    if (event.target.closest('[data-testid="stSidebar"] a')) win.setTimeout(() => fold(doc), 50);
  };
  doc.addEventListener("click", picked, true);
}

export default function (component) {
  const doc = component.parentElement.ownerDocument || document;
  const win = doc.defaultView;
  if (win.__attnvizNavigation) return; // once per page, however often the app reruns
  win.__attnvizNavigation = true;
  backGoesToThePreviousPage(win);
  foldOnPhones(doc, win);
}
