// The hand's timeline: loaded once, then every step reads from memory.
// Each state may carry seat / action / operation / automatic (newer servers);
// without them the page falls back on the record's action list and on comparing tables.

export async function loadTimeline(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) {
    let message = `the timeline could not be read (HTTP ${response.status})`;
    try { message = (await response.json()).message || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response.json();
}

export async function loadFindings(url) {
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return { findings: [], analysis: null };
    return await response.json();
  } catch (_) {
    return { findings: [], analysis: null };
  }
}

const DRAWS = new Set(["draw", "take"]);

/** "p2 meld 5h 6h 7h" -> {seat: 2, verb: "meld", args: ["5h", "6h", "7h"]} */
export function parseAction(text) {
  if (!text) return { seat: null, verb: null, args: [] };
  const words = String(text).trim().split(/\s+/);
  const match = /^p(\d+)$/i.exec(words[0] || "");
  return { seat: match ? Number(match[1]) : null, verb: (words[1] || "").toLowerCase(), args: words.slice(2) };
}

function countCards(cards) {
  const counts = new Map();
  for (const card of cards || []) counts.set(card, (counts.get(card) || 0) + 1);
  return counts;
}

/** Cards in `after` that were not in `before` (as a multiset). */
function added(before, after) {
  const left = countCards(before);
  const out = [];
  for (const card of after || []) {
    if ((left.get(card) || 0) > 0) left.set(card, left.get(card) - 1);
    else out.push(card);
  }
  return out;
}

/**
 * What ply `index` did, for the move list and the highlight:
 * {ply, seat, action, verb, drawn: [cards now in the hand], melds: {id: [cards laid]}, thrown, took, dead, automatic}
 */
export function describePly(states, index, actions) {
  const state = states[index];
  const info = { ply: index, seat: null, action: null, verb: null, drawn: [], melds: {}, thrown: null, took: [], dead: false, automatic: [] };
  if (index === 0) return info;
  const before = states[index - 1];
  info.action = state.action ?? (actions ? actions[index - 1] : null) ?? null;
  const parsed = parseAction(info.action);
  info.seat = state.seat ?? parsed.seat;
  info.verb = parsed.verb;
  info.automatic = Array.isArray(state.automatic) ? state.automatic : [];
  const op = state.operation;
  if (op && op.kind) {
    if (op.kind === "drew") info.drawn = [op.card];
    else if (op.kind === "took") { info.took = op.cards || []; info.drawn = info.took.slice(); }
    else if (op.kind === "melded") info.melds[op.meld] = op.cards || [];
    else if (op.kind === "laid-off") info.melds[op.meld] = op.cards || [];
    else if (op.kind === "discarded") info.thrown = op.card;
    else if (op.kind === "picked-dead") { info.dead = true; info.drawn = op.cards || []; }
    if (!info.verb) info.verb = { drew: "draw", took: "take", melded: "meld", "laid-off": "add", discarded: "discard", "picked-dead": "dead" }[op.kind] || null;
    return info;
  }
  // No operation from the server: compare the tables.
  const seat = info.seat;
  if (seat) info.drawn = added((before.hands || {})[seat], (state.hands || {})[seat]);
  const old = new Map((before.melds || []).map((m) => [m.id, m.cards]));
  for (const meld of state.melds || []) {
    const was = old.get(meld.id);
    if (!was) info.melds[meld.id] = meld.cards;
    else if (was.length !== meld.cards.length || was.join() !== meld.cards.join()) info.melds[meld.id] = added(was, meld.cards);
  }
  const pile = state.discard || [], oldPile = before.discard || [];
  if (pile.length === oldPile.length + 1) info.thrown = pile[pile.length - 1];
  if (pile.length < oldPile.length) info.took = info.drawn.slice();
  if ((state.dead || []).length < (before.dead || []).length && info.verb === "dead") info.dead = true;
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

/** The ply whose action begins a finding's witness: the draw step of the turn it judges. */
export function witnessStart(finding, infos) {
  let ply = Math.min(finding.ply, infos.length - 1);
  while (ply > 1 && !(DRAWS.has(infos[ply].verb) && (!finding.seat || infos[ply].seat === finding.seat))) ply -= 1;
  return ply;
}
