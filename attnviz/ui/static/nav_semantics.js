// Every page (attnviz/ui/common/accessible.py): give Streamlit's sidebar navigation a structure
// that assistive technology can read (WCAG 1.3.1; axe's `list` and `listitem`). Streamlit 1.67
// draws it as <nav aria-label="App pages"><ul> whose children are one <div> per section (its
// <header> and the section's <li>s): a list whose items are not its children. Nothing in
// st.navigation changes that, and drawing the navigation anew would lose what it does well (the
// page switch in the same session, aria-current on the page shown, the sections), so the
// markup keeps its elements and gets roles: the <ul> and its <li>s become plain containers
// (role="none") and each section a group named by its header:
//   nav "App pages" > group "Foundations" > link "Soft select" (aria-current on the page shown)
// Roles are set again whenever Streamlit redraws the navigation (a MutationObserver; cheap: one
// query per batch of changes). Runs in the app's page (components v2, no iframe); reads no data.
// The same observer makes the box a static table scrolls in (st.table, wider than a phone: a
// number slice of "Inside one block of a real model") reachable by keyboard, a named region
// (WCAG 2.1.1; axe's `scrollable-region-focusable`).
const NAV = '[data-testid="stSidebarNavItems"]';
const TABLE_BOX = '[data-testid="stTable"] > div';

function label(section) {
  const name = section.querySelector(
    ':scope > [data-testid="stNavSectionHeader"] [data-testid="stMarkdownContainer"]',
  );
  return name ? name.textContent.trim() : "";
}

function focusableTables(doc) {
  for (const box of doc.querySelectorAll(TABLE_BOX)) {
    const scrolls = box.scrollWidth > box.clientWidth + 1; // only then a stop of its own
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table (scrolls sideways)");
    } else if (!scrolls && box.hasAttribute("tabindex")) {
      for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
    }
  }
}

export function mend(doc) {
  focusableTables(doc);
  for (const list of doc.querySelectorAll(NAV)) {
    if (list.getAttribute("role") !== "none") list.setAttribute("role", "none");
    for (const child of list.children) {
      if (child.tagName === "LI") {
        if (child.getAttribute("role") !== "none") child.setAttribute("role", "none");
        continue;
      }
      if (child.getAttribute("role") !== "group") child.setAttribute("role", "group");
      const name = label(child);
      if (name && child.getAttribute("aria-label") !== name) child.setAttribute("aria-label", name);
      for (const item of child.querySelectorAll(":scope > li:not([role])")) {
        item.setAttribute("role", "none");
      }
    }
  }
}

export default function (component) {
  const doc = component.parentElement.ownerDocument || document;
  const win = doc.defaultView;
  mend(doc);
  if (win.__attnvizNavSemantics) return undefined; // one observer per page, not per rerun
  const observer = new win.MutationObserver(() => mend(doc));
  observer.observe(doc.body, { childList: true, subtree: true });
  win.__attnvizNavSemantics = observer;
  return undefined;
}
