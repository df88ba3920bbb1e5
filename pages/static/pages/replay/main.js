// The replay page: one timeline request, then every step is drawn from memory.
import { handChart, matchChart } from "./chart.js";
import { escape } from "./cards.js";
import { bindKeys } from "./keys.js";
import { findingLabel, markCurrent, relabelMoves, renderMoves } from "./moves.js";
import { tableHTML } from "./table.js";
import { closeWitness, showWitness, submitTry } from "./panels.js";
import { actionSeen, describePly, groupTurns, loadFindings, loadTimeline } from "./timeline.js";
import { createReviews } from "./reviews.js";

const config = JSON.parse(document.getElementById("replay-config").textContent);
const root = document.getElementById("replay");
const $ = (id) => document.getElementById(id);
const ui = {
  table: $("table"), moves: $("moves"), label: $("ply-label"), scrubber: $("scrubber"), last: $("last-action"),
  play: $("play"), speed: $("speed"), view: $("view"), help: $("help"), helpButton: $("help-button"),
  findingPanel: $("finding-panel"), loadError: $("load-error"), tryForm: $("try-form"), tryText: $("try-actions"),
  tryResults: $("try-results"), tryPanel: $("try-panel"),
  reviews: {
    panel: $("review-panel"), bar: $("review-bar"), list: $("comment-list"), form: $("comment-form"), text: $("comment-text"),
    tag: $("comment-tag"), formLabel: $("comment-label"), formNote: $("comment-note"), formError: $("comment-error"), moves: $("moves"),
  },
};

const page = {
  states: [], infos: [], turns: [], turnOf: [], findings: [], findingsByPly: new Map(),
  ply: 0, view: "full", movesView: "full", timer: null, moveChart: null, selected: null, sides: config.sides || [], reviews: null,
};
const players = config.players || [];
const PLAY_ICON = `<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 1v14l11-7z"/></svg>`;
const PAUSE_ICON = `<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z"/></svg>`;

function sideLabels() {
  return page.sides.map((seats, i) => `Side ${i + 1}: ${seats.map((s) => players[s - 1] || `p${s}`).join(" + ")}`);
}

// --- the URL: ?ply=N (and ?view=S), one history entry per ply visited -----------------

function pageUrl(ply, view = page.view) {
  const url = new URL(window.location.href);
  url.hash = "";
  url.searchParams.set("ply", String(ply));
  if (view === "full") url.searchParams.delete("view"); else url.searchParams.set("view", String(view));
  return url.pathname + url.search;
}

function fromLocation() {
  const url = new URL(window.location.href);
  const hash = /ply=(\d+)/.exec(url.hash);
  const ply = url.searchParams.has("ply") ? Number(url.searchParams.get("ply")) : hash ? Number(hash[1]) : 0;
  const view = url.searchParams.get("view") || "full";
  return { ply: Number.isFinite(ply) ? ply : 0, view };
}

function clamp(ply) {
  return Math.max(0, Math.min(page.states.length - 1, ply));
}

function go(ply, { history = "push" } = {}) {
  ply = clamp(ply);
  const changed = ply !== page.ply;
  page.ply = ply;
  draw();
  if (history === "push" && changed) window.history.pushState({ ply, view: page.view }, "", pageUrl(ply));
  else if (history === "replace" || (history === "push" && !changed)) window.history.replaceState({ ply, view: page.view }, "", pageUrl(ply));
}

// --- drawing ---------------------------------------------------------------------------

function lastActionHTML(info, state) {
  if (page.ply === 0) return `<strong>The deal.</strong> p${state.turn} ${escape(players[state.turn - 1] || "")} plays first.`;
  const auto = (info.automatic || []).map((op) => op.kind === "hand-ended" ? `the hand ended${op.how ? ` (${escape(op.how)})` : ""}` : op.kind === "dead-to-stock" ? `${op.count} dead-pile cards went to the stock` : escape(op.kind));
  return `<strong>Ply ${page.ply}</strong> &middot; <code class="just-played">${escape(actionSeen(info, page.view) || "")}</code>${auto.length ? ` &middot; then ${auto.join(", ")}` : ""}`;
}

function draw() {
  const state = page.states[page.ply], info = page.infos[page.ply];
  ui.table.innerHTML = tableHTML({ state, info, view: page.view, players, sides: page.sides });
  ui.last.innerHTML = lastActionHTML(info, state);
  const turn = page.turns[page.turnOf[page.ply]];
  ui.label.textContent = `ply ${page.ply} of ${page.states.length - 1}${turn && turn.index ? ` \u00b7 turn ${turn.index}` : ""}`;
  ui.scrubber.value = String(page.ply);
  root.dataset.ply = String(page.ply);
  root.dataset.view = String(page.view);
  if (page.movesView !== page.view) { relabelMoves(ui.moves, page.infos, page.view); page.movesView = page.view; }
  markCurrent(ui.moves, page.ply);
  if (page.moveChart) page.moveChart(page.ply);
  const here = page.findingsByPly.get(page.ply) || [];
  if (page.selected && page.selected.ply !== page.ply) page.selected = null;
  showFindings(page.selected ? [page.selected] : here);
  if (page.reviews) page.reviews.show(page.ply);
}

// --- findings and their witness --------------------------------------------------------

function showFindings(findings) {
  if (!findings.length) { ui.findingPanel.hidden = true; ui.findingPanel.innerHTML = ""; return; }
  ui.findingPanel.hidden = false;
  ui.findingPanel.innerHTML = findings.map((f, i) => (
    `<div class="finding kind-${escape(f.kind)}" data-index="${i}"><p><span class="finding-badge kind-${escape(f.kind)}">${escape(findingLabel(f))}</span>` +
    ` ${f.seat ? `p${f.seat}` : `side ${f.side}`} &middot; ply ${f.ply}</p><p class="finding-message">${escape(f.message || "")}</p>` +
    (f.witness && f.witness.length
      ? `<div class="witness-line">The better play:<ol>${f.witness.map((a) => `<li><code>${escape(a)}</code></li>`).join("")}</ol></div>` +
        `<button type="button" class="show-witness" data-index="${i}" aria-controls="witness-area">Show the better play</button>`
      : "") + `</div>`
  )).join("");
  ui.findingPanel.querySelectorAll(".show-witness").forEach((button) => {
    button.addEventListener("click", () => showWitness(app, findings[Number(button.dataset.index)]));
  });
}

/** To the next (previous) ply with a finding at least as grave as `least` (any finding when null). */
function jumpFinding(direction, least = null) {
  const rank = (severity) => config.severities.indexOf(severity);
  const grave = (found) => least === null || found.some((f) => rank(f.severity) >= rank(least));
  const plies = [...page.findingsByPly.entries()].filter(([, found]) => grave(found)).map(([ply]) => ply).sort((a, b) => a - b);
  const target = direction > 0 ? plies.find((p) => p > page.ply) : [...plies].reverse().find((p) => p < page.ply);
  if (target === undefined) return;
  page.selected = null;
  go(target);
}

// --- playing, turns, views ----------------------------------------------------------------

function stop() {
  if (page.timer) clearInterval(page.timer);
  page.timer = null;
  ui.play.setAttribute("aria-pressed", "false");
  ui.play.innerHTML = PLAY_ICON;
  ui.play.setAttribute("aria-label", "play");
}

function play() {
  if (page.timer) { stop(); return; }
  if (page.ply >= page.states.length - 1) go(0);
  ui.play.setAttribute("aria-pressed", "true");
  ui.play.innerHTML = PAUSE_ICON;
  ui.play.setAttribute("aria-label", "pause");
  page.timer = setInterval(() => {
    if (page.ply >= page.states.length - 1) { stop(); window.history.pushState({ ply: page.ply, view: page.view }, "", pageUrl(page.ply)); return; }
    go(page.ply + 1, { history: "replace" });
  }, Number(ui.speed.value) || 900);
}

function turnStep(direction) {
  const index = page.turnOf[page.ply];
  const turn = page.turns[index];
  if (direction < 0 && page.ply > turn.plies[0]) return go(turn.plies[0]);
  const next = page.turns[index + direction];
  if (next) go(next.plies[0]); else go(direction > 0 ? page.states.length - 1 : 0);
}

function setView(view, history = "replace") {
  page.view = String(view);
  ui.view.value = page.view;
  draw();
  if (history === "replace") window.history.replaceState({ ply: page.ply, view: page.view }, "", pageUrl(page.ply));
}

function flip() {
  const options = [...ui.view.options].map((o) => o.value);
  setView(options[(options.indexOf(page.view) + 1) % options.length]);
}

function toggleHelp(force) {
  const show = force ?? ui.help.hidden;
  ui.help.hidden = !show;
  ui.helpButton.setAttribute("aria-expanded", String(show));
}

// What the panels (panels.js) read and call.
const app = { page, config, players, go, pageUrl, stop };

const COMMANDS = {
  prev: () => go(page.ply - 1), next: () => go(page.ply + 1), first: () => go(0), last: () => go(page.states.length - 1),
  "prev-turn": () => turnStep(-1), "next-turn": () => turnStep(1),
  "next-finding": () => jumpFinding(1), "prev-finding": () => jumpFinding(-1),
  // As lichess's b, m, i: the next (shifted: previous) blunder, mistake or worse, inaccuracy or worse.
  "next-blunder": () => jumpFinding(1, "blunder"), "prev-blunder": () => jumpFinding(-1, "blunder"),
  "next-mistake": () => jumpFinding(1, "mistake"), "prev-mistake": () => jumpFinding(-1, "mistake"),
  "next-inaccuracy": () => jumpFinding(1, "inaccuracy"), "prev-inaccuracy": () => jumpFinding(-1, "inaccuracy"),
  play, flip, help: () => toggleHelp(), close: () => { toggleHelp(false); closeWitness(); },
};

// --- start ----------------------------------------------------------------------------

async function start() {
  const findingsPromise = loadFindings(config.urls.findings);
  let data;
  try {
    data = await loadTimeline(config.urls.timeline);
  } catch (failure) {
    ui.loadError.hidden = false;
    ui.loadError.textContent = failure.message;
    ui.label.textContent = "";
    return;
  }
  page.states = data.states || [];
  if (!page.states.length) {
    ui.loadError.hidden = false;
    ui.loadError.textContent = data.error ? `The deal cannot be replayed: ${data.error.message}` : "This hand has no table to show.";
    return;
  }
  if (data.error) {
    ui.loadError.hidden = false;
    ui.loadError.textContent = `The record stops being legal at ply ${data.error.ply}: ${data.error.message}`;
  }
  if (!page.sides.length) {
    const count = (page.states[0].running || []).length || 2;
    page.sides = Array.from({ length: count }, () => []);
    Object.keys(page.states[0].hands).map(Number).forEach((seat) => page.sides[(seat - 1) % count].push(seat));
  }
  page.infos = page.states.map((_, i) => describePly(page.states, i));
  page.turns = groupTurns(page.infos);
  page.turnOf = [];
  page.turns.forEach((turn) => turn.plies.forEach((p) => { page.turnOf[p] = turn.index; }));
  ui.scrubber.max = String(page.states.length - 1);
  page.moveChart = handChart($("hand-chart"), page.states, sideLabels());
  matchChart($("match-chart"), config.match_scores || [], config.target, sideLabels(), config.hand);

  const found = await findingsPromise;
  page.findings = (found.findings || []).filter((f) => f.hand === undefined || f.hand === config.hand);
  page.findingsByPly = new Map();
  for (const f of page.findings) {
    if (f.ply == null) continue;
    const at = Math.min(f.ply, page.states.length - 1);
    if (!page.findingsByPly.has(at)) page.findingsByPly.set(at, []);
    page.findingsByPly.get(at).push(f);
  }
  renderMoves(ui.moves, { turns: page.turns, infos: page.infos, players, findingsByPly: page.findingsByPly, pageUrl, onPick: (p) => go(p), error: data.error, view: page.movesView });
  const analysis = found.analysis && found.analysis.status;
  if (analysis !== "done") {
    $("moves-title").insertAdjacentHTML("afterend", `<p class="analysis-note">Analysis: ${escape(analysis || "not yet")}; its findings show here once it is done.</p>`);
  }
  const handFindings = page.findings.filter((f) => f.ply == null);
  if (handFindings.length) {
    ui.moves.insertAdjacentHTML("beforebegin", `<ul class="hand-findings">${handFindings.map((f) => `<li><span class="finding-badge kind-${escape(f.kind)}">${escape(findingLabel(f))}</span> ${escape(f.message || "")}</li>`).join("")}</ul>`);
  }

  const reviewData = JSON.parse($("review-data").textContent);
  page.reviews = createReviews({ config, ui: ui.reviews, me: reviewData.me || "", lastPly: page.states.length - 1 });
  page.reviews.start(reviewData);

  const where = fromLocation();
  page.view = [...ui.view.options].some((o) => o.value === where.view) ? where.view : "full";
  ui.view.value = page.view;
  page.ply = clamp(where.ply);
  draw();
  window.history.replaceState({ ply: page.ply, view: page.view }, "", pageUrl(page.ply));

  window.addEventListener("popstate", (event) => {
    const at = event.state && typeof event.state.ply === "number" ? event.state : fromLocation();
    stop();
    page.view = String(at.view || "full");
    ui.view.value = page.view;
    page.ply = clamp(at.ply);
    draw();
  });
  bindKeys(document, (command) => { if (command !== "play") stop(); COMMANDS[command](); });
  root.querySelectorAll("[data-go]").forEach((button) => button.addEventListener("click", () => {
    stop();
    COMMANDS[button.dataset.go]();
  }));
  ui.play.addEventListener("click", play);
  ui.speed.addEventListener("change", () => { if (page.timer) { stop(); play(); } });
  ui.view.addEventListener("change", () => setView(ui.view.value));
  ui.helpButton.addEventListener("click", () => toggleHelp());
  ui.scrubber.addEventListener("input", () => { stop(); page.ply = clamp(Number(ui.scrubber.value)); draw(); });
  ui.scrubber.addEventListener("change", () => window.history.pushState({ ply: page.ply, view: page.view }, "", pageUrl(page.ply)));
  ui.tryForm.addEventListener("submit", (event) => submitTry(app, event));
  $("try-clear").addEventListener("click", () => { ui.tryResults.innerHTML = ""; ui.tryText.value = ""; });
  root.dataset.ready = "true";
}

start();
