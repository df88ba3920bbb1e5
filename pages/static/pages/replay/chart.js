// Score charts as inline SVG, drawn here (no library).
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#1d4ed8", "#c2410c", "#15803d", "#7e22ce"];
const DASHES = ["", "6 3", "2 2", "8 2 2 2"]; // told apart without colour too

function el(name, attrs = {}, text) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function frame(width, height, min, max, pad) {
  const span = max - min || 1;
  return {
    x: (i, n) => pad.left + (n <= 1 ? 0 : (i * (width - pad.left - pad.right)) / (n - 1)),
    y: (v) => height - pad.bottom - ((v - min) * (height - pad.top - pad.bottom)) / span,
  };
}

function legend(svg, labels, x, y) {
  labels.forEach((label, i) => {
    const at = x + labels.slice(0, i).reduce((sum, l) => sum + 30 + l.length * 6.2, 0);
    svg.append(el("line", { x1: at, y1: y, x2: at + 18, y2: y, stroke: COLOURS[i % 4], "stroke-width": 2.5, "stroke-dasharray": DASHES[i % 4] }));
    svg.append(el("text", { x: at + 22, y: y + 4, class: "chart-legend" }, label));
  });
}

/** Each side's running melded points by ply; returns a function that moves the ply marker. */
export function handChart(figure, states, sideLabels) {
  const width = 600, height = 170, pad = { left: 38, right: 10, top: 22, bottom: 20 };
  const sides = Math.max(...states.map((s) => (s.running || []).length), 0);
  const values = states.flatMap((s) => (s.running || []).map((r) => r.melded));
  const max = Math.max(50, ...values), min = Math.min(0, ...values);
  const f = frame(width, height, min, max, pad);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart", "aria-labelledby": "hand-chart-title" });
  svg.append(el("title", { id: "hand-chart-title" }, "Melded points of each side by ply"));
  svg.append(el("line", { x1: pad.left, y1: f.y(0), x2: width - pad.right, y2: f.y(0), class: "axis" }));
  for (const v of [max]) {
    svg.append(el("text", { x: pad.left - 4, y: f.y(v) + 4, "text-anchor": "end", class: "tick" }, String(v)));
  }
  svg.append(el("text", { x: pad.left - 4, y: f.y(0) + 4, "text-anchor": "end", class: "tick" }, "0"));
  svg.append(el("text", { x: width - pad.right, y: height - 4, "text-anchor": "end", class: "tick" }, `ply ${states.length - 1}`));
  for (let side = 0; side < sides; side++) {
    const points = states.map((s, i) => `${f.x(i, states.length).toFixed(1)},${f.y(((s.running || [])[side] || { melded: 0 }).melded).toFixed(1)}`);
    svg.append(el("polyline", { points: points.join(" "), fill: "none", stroke: COLOURS[side % 4], "stroke-width": 2, "stroke-dasharray": DASHES[side % 4], class: `line side-${side + 1}` }));
  }
  legend(svg, sideLabels.slice(0, sides), pad.left + 4, 10);
  const marker = el("line", { y1: pad.top - 4, y2: height - pad.bottom, class: "marker" });
  const markerText = el("text", { y: pad.top + 8, class: "marker-text" });
  svg.append(marker, markerText);
  figure.replaceChildren(svg);
  return (ply) => {
    const x = f.x(ply, states.length).toFixed(1);
    marker.setAttribute("x1", x); marker.setAttribute("x2", x);
    const running = (states[ply].running || []).map((r) => r.melded).join(" / ");
    markerText.setAttribute("x", Math.min(Number(x) + 4, width - 80));
    markerText.textContent = running;
  };
}

/**
 * Each side's total after every hand, with the target line. With one hand scored the chart
 * is one step from 0 to the totals, which its summary already says: it is folded away then
 * (a <details> opened on request), so that on a phone the controls stay near the top.
 */
export function matchChart(figure, matchScores, target, sideLabels, current) {
  const rows = matchScores.filter((row) => Array.isArray(row.totals));
  if (!rows.length) { figure.hidden = true; return; }
  const width = 320, height = 120, pad = { left: 44, right: 10, top: 20, bottom: 18 };
  const sides = rows[0].totals.length;
  const all = rows.flatMap((r) => r.totals);
  const max = Math.max(target || 0, ...all), min = Math.min(0, ...all);
  const n = rows.length + 1; // the start (0 each) and then every hand
  const f = frame(width, height, min, max, pad);
  const last = rows[rows.length - 1].totals;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart", "aria-labelledby": "match-chart-title" });
  svg.append(el("title", { id: "match-chart-title" }, `Totals after every hand${target ? `, target ${target}` : ""}`));
  svg.append(el("line", { x1: pad.left, y1: f.y(0), x2: width - pad.right, y2: f.y(0), class: "axis" }));
  if (target) {
    // The target's value and name in the left margin, where no line is drawn: under the
    // value, or above it when the target line lies low (totals far past it) near the 0 tick.
    // (Text boxes reach about 10 units above the baseline and 3 below.)
    const at = f.y(target);
    const nameY = at + 19 + 3 < f.y(0) + 4 - 11 ? at + 19 : at - 10;
    svg.append(el("line", { x1: pad.left, y1: at, x2: width - pad.right, y2: at, class: "target" }));
    svg.append(el("text", { x: pad.left - 4, y: at + 4, "text-anchor": "end", class: "tick" }, String(target)));
    svg.append(el("text", { x: pad.left - 4, y: nameY, "text-anchor": "end", class: "tick target-label" }, "target"));
  }
  for (let side = 0; side < sides; side++) {
    const points = [`${f.x(0, n)},${f.y(0)}`, ...rows.map((r, i) => `${f.x(i + 1, n).toFixed(1)},${f.y(r.totals[side]).toFixed(1)}`)];
    svg.append(el("polyline", { points: points.join(" "), fill: "none", stroke: COLOURS[side % 4], "stroke-width": 2, "stroke-dasharray": DASHES[side % 4] }));
  }
  rows.forEach((r, i) => {
    const label = el("text", { x: f.x(i + 1, n), y: height - 4, "text-anchor": "middle", class: `tick${r.hand === current ? " current" : ""}` }, String(r.hand));
    svg.append(label);
  });
  legend(svg, sideLabels.slice(0, sides).map((l, i) => `${l.split(":")[0]} ${last[i]}`), pad.left + 4, 9);
  if (rows.length > 1) { figure.replaceChildren(svg); return; }
  const fold = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = `Totals: ${sideLabels.slice(0, sides).map((l, i) => `${l.split(":")[0]} ${last[i]}`).join(" \u00b7 ")}` +
    `${target ? ` \u00b7 target ${target}` : ""}`;
  fold.append(summary, svg);
  figure.classList.add("folded");
  figure.replaceChildren(fold);
}
