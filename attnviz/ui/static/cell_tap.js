// A tap on a clickable map (attnviz/figures/clickable.py: a trace whose meta is "clickable
// cells") picks its cell, as a mouse click does. With a mouse, Plotly hovers the cell, then the
// click selects it and emits `plotly_selected`, which Streamlit's on_select reads. On a touch
// screen nothing is hovered before the tap: Plotly emits the click and selects nothing, so a
// phone needed a second tap. Here a click that no selection came with is handed to Streamlit as
// the selection of the tapped cell. Runs in the app's page (components v2, no iframe); reads
// nothing but the figure's own points.
const MARK = "clickable cells";
const WITHIN_MS = 500; // a selection this close before the click came with it (a mouse)

function hook(plot, win) {
  if (plot.__attnvizCellTap || !Array.isArray(plot.data) || typeof plot.on !== "function") return;
  if (!plot.data.some((trace) => trace.meta === MARK)) return;
  plot.__attnvizCellTap = true;
  let selectedAt = -Infinity;
  plot.on("plotly_selected", () => {
    selectedAt = win.performance.now();
  });
  plot.on("plotly_click", (event) => {
    if (win.performance.now() - selectedAt < WITHIN_MS) return;
    const points = ((event && event.points) || []).filter((p) => p.data && p.data.meta === MARK);
    if (!points.length) return;
    selectedAt = win.performance.now();
    const p = points[0]; // as a selection's point: no axis objects (they refer back to the page)
    const point = {
      curveNumber: p.curveNumber,
      pointNumber: p.pointNumber,
      pointIndex: p.pointIndex,
      x: p.x,
      y: p.y,
      customdata: p.customdata,
    };
    plot.emit("plotly_selected", { points: [point] });
  });
}

export function hookAll(doc) {
  for (const plot of doc.querySelectorAll(".js-plotly-plot")) hook(plot, doc.defaultView);
}

export default function (component) {
  const doc = component.parentElement.ownerDocument || document;
  const win = doc.defaultView;
  hookAll(doc);
  if (win.__attnvizCellTap) return undefined; // one observer per page, not per rerun
  const observer = new win.MutationObserver(() => hookAll(doc));
  observer.observe(doc.body, { childList: true, subtree: true });
  win.__attnvizCellTap = observer;
  return undefined;
}
