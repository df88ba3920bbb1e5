// The hand's timeline: loaded once, then every step reads from memory. Each state after the
// deal says what was played (seat, action as written, operation, automatic steps: the
// engine's operations, records/timelines.py): the page reads them and parses no action text.

export async function loadTimeline(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) {
    let message = `the timeline could not be read (HTTP ${response.status})`;
    try { message = (await response.json()).message || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response.json();
}

/** Every finding of the hand (the API pages them: every page is read) and how its analysis stands. */
export async function loadFindings(url) {
  const findings = [];
  let analysis = null;
  try {
    const first = new URL(url, window.location.href);
    first.searchParams.set("page_size", "500");
    for (let next = first.toString(); next; ) {
      const response = await fetch(next, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) break;
      const page = await response.json();
      findings.push(...page.results);
      analysis = page.analysis;
      next = page.next;
    }
  } catch (_) { /* no findings to show: the replay works without them */ }
  return { findings, analysis };
}

const DRAWS = new Set(["draw", "take"]);

// The verb each operation kind answers (buraco.state's operations, as the timeline writes them).
const VERB_OF = { drew: "draw", took: "take", melded: "meld", "laid-off": "add", discarded: "discard", "picked-dead": "dead" };

/**
 * What ply `index` did, for the move list and the highlight, from its state's operation:
 * {ply, seat, action, verb, drawn: [cards now in the hand], melds: {id: [cards laid]}, thrown, took, dead, automatic}
 */
export function describePly(states, index) {
  const state = states[index];
  const info = { ply: index, seat: null, action: null, verb: null, drawn: [], melds: {}, thrown: null, took: [], dead: false, automatic: [] };
  if (index === 0) return info;
  info.action = state.action;
  info.seat = state.seat;
  info.automatic = state.automatic || [];
  const op = state.operation;
  info.verb = VERB_OF[op.kind] || null;
  if (op.kind === "drew") info.drawn = [op.card];
  else if (op.kind === "took") { info.took = op.cards; info.drawn = op.cards.slice(); }
  else if (op.kind === "melded" || op.kind === "laid-off") info.melds[op.meld] = op.cards;
  else if (op.kind === "discarded") info.thrown = op.card;
  else if (op.kind === "picked-dead") { info.dead = true; info.drawn = op.cards || []; }
  return info;
}

/**
 * The action of `info` as `view` saw it ("full", or a seat's number): in a seat's view another
 * seat's stock draw is "p2 drew a card", as that seat saw it; its own draws, and every take,
 * meld, lay-off, dead pile and discard (played face up), are shown as written.
 */
export function actionSeen(info, view) {
  if (view === "full" || view == null || info.verb !== "draw" || !info.seat) return info.action;
  return info.seat === Number(view) ? info.action : `p${info.seat} drew a card`;
}

/**
 * Turns in play order: [{index, seat, plies: [ply, ...]}]; the deal is turn 0 with ply 0.
 * A turn starts at a draw or a take, or when another seat acts.
 */
export function groupTurns(infos) {
  const turns = [{ index: 0, seat: null, plies: [0] }];
  for (let ply = 1; ply < infos.length; ply++) {
    const info = infos[ply];
    const last = turns[turns.length - 1];
    if (last.index === 0 || DRAWS.has(info.verb) || (info.seat && last.seat && info.seat !== last.seat)) {
      turns.push({ index: turns.length, seat: info.seat, plies: [ply] });
    } else {
      last.plies.push(ply);
      if (!last.seat) last.seat = info.seat;
    }
  }
  return turns;
}

// The operations that begin a turn, as the timeline names them (buraco.state.OperationKind).
const DRAW_KINDS = new Set(["drew", "took"]);

/**
 * The ply whose action begins a finding's witness: the draw step of the turn it judges, the
 * last ply up to the finding's own whose state says its seat drew or took
 * (buraco.analysis.witness.witness_start, read from the timeline's states).
 */
export function witnessStart(finding, states) {
  let ply = finding.ply;
  while (ply > 1 && !(DRAW_KINDS.has(states[ply].operation.kind) && states[ply].seat === finding.seat)) ply -= 1;
  return ply;
}
