// Phones (attnviz/ui/common/phone_nav.py): the sidebar folds itself after a page is picked in it.
// On a narrow screen Streamlit's sidebar covers the whole page and stays open after a link in
// it was tapped, so the page just opened (a student's room panel, "Back to the presenter's
// step") lay under it until the student found the fold button. Wide screens keep their sidebar.
// Runs in the app's page (components v2, no iframe); reads no data.
const NARROW_PX = 768; // Streamlit's own breakpoint for an overlaying sidebar
const FOLD = '[data-testid="stSidebarCollapseButton"] button, [data-testid="stSidebarHeader"] button';

function fold(doc) {
  const sidebar = doc.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("aria-expanded") === "false") return;
  if (sidebar.getAttribute("data-collapsed") === "true") return;
  const button = sidebar.querySelector(FOLD);
  if (button) button.click();
}

export default function (component) {
  const doc = component.parentElement.ownerDocument || document;
  const win = doc.defaultView;
  if (win.__attnvizPhoneNav) return; // one listener per page, however often the app reruns
  win.__attnvizPhoneNav = true;
  doc.addEventListener(
    "click",
    (event) => {
      if (win.innerWidth >= NARROW_PX) return;
      const link = event.target.closest && event.target.closest('[data-testid="stSidebar"] a');
      if (link) win.setTimeout(() => fold(doc), 50);
    },
    true,
  );
}
