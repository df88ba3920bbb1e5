// Drawing one table: every seat's hand (or one seat's view), the piles, the melds by side, the score.
import { backHTML, cardHTML, cardName, cardShort, escape } from "./cards.js";

function markedHand(cards, drawn) {
  const pending = new Map();
  for (const card of drawn || []) pending.set(card, (pending.get(card) || 0) + 1);
  return cards.map((card) => {
    const left = pending.get(card) || 0;
    if (left > 0) { pending.set(card, left - 1); return cardHTML(card, { mark: "new" }); }
    return cardHTML(card);
  }).join("");
}

function meldHTML(meld, laid) {
  const isNew = laid !== undefined;
  const pending = new Map();
  for (const card of laid || []) pending.set(card, (pending.get(card) || 0) + 1);
  const layout = meld.layout || meld.cards.map((card) => ({ card }));
  const cards = layout.map((entry) => {
    const left = pending.get(entry.card) || 0;
    const mark = left > 0 ? "new" : undefined;
    if (left > 0) pending.set(entry.card, left - 1);
    return cardHTML(entry.card, { as: entry.as, mark });
  }).join("");
  const canasta = meld.canasta ? `<span class="canasta canasta-${escape(meld.canasta)}">${escape(meld.canasta)} canasta</span>` : "";
  const wild = meld.wild ? `<span class="sr-only">${escape(cardName(meld.wild.card))} stands for ${escape(cardName(meld.wild.as))}</span>` : "";
  const label = `${meld.id}: ${meld.type} of ${meld.cards.length}${meld.canasta ? `, ${meld.canasta} canasta` : ""}`;
  return (
    `<div class="meld${isNew ? " meld-new" : ""}${meld.canasta ? " is-canasta" : ""}" data-meld="${escape(meld.id)}" aria-label="${escape(label)}">` +
    `<span class="meld-id">${escape(meld.id)}</span><span class="cards">${cards}</span>${canasta}${wild}</div>`
  );
}

function sideName(index, sides, players) {
  const seats = sides[index] || [];
  const names = seats.map((seat) => `p${seat} ${players[seat - 1] || ""}`.trim());
  return `Side ${index + 1}${names.length ? ": " + names.join(" + ") : ""}`;
}

/**
 * The table's HTML. context: {state, info, view ("full" or a seat number), players, sides}
 */
export function tableHTML(context) {
  const { state, info, players, sides } = context;
  const view = context.view === "full" ? null : Number(context.view);
  const seats = Object.keys(state.hands || {}).map(Number).sort((a, b) => a - b);
  const sideOf = {};
  sides.forEach((seatsOfSide, index) => seatsOfSide.forEach((seat) => { sideOf[seat] = index; }));
  const out = [];

  // Hands: the viewer's own first in a seat view.
  const order = view ? [view, ...seats.filter((s) => s !== view)] : seats;
  out.push(`<div class="hands">`);
  for (const seat of order) {
    const cards = state.hands[seat] || [];
    const toPlay = state.turn === seat && !state.ended_by;
    const acted = info && info.seat === seat;
    const hidden = view !== null && seat !== view;
    const name = `p${seat} ${players[seat - 1] || ""}`.trim();
    const side = sideOf[seat] !== undefined ? ` &middot; side ${sideOf[seat] + 1}` : "";
    out.push(
      `<div class="seat${toPlay ? " to-play" : ""}${acted ? " acted" : ""}${hidden ? " hidden-hand" : ""}${view === seat ? " viewer" : ""}" data-seat="${seat}">` +
      `<div class="seat-head"><strong>${escape(name)}</strong>${side} &middot; <span class="count">${cards.length} card${cards.length === 1 ? "" : "s"}</span>` +
      `${toPlay ? ` <span class="badge">to play: ${escape(state.step || "")}</span>` : ""}${view === seat ? ` <span class="badge viewer-badge">your view</span>` : ""}</div>` +
      `<div class="cards hand${hidden ? " backs" : ""}">` +
      (hidden ? backHTML().repeat(cards.length) : markedHand(cards, acted ? info.drawn : [])) +
      `</div></div>`
    );
  }
  out.push(`</div>`);

  // Piles.
  const pile = state.discard || [];
  const thrown = info && info.thrown && pile.length && pile[pile.length - 1] === info.thrown;
  const pileCards = pile.map((card, i) => cardHTML(card, { mark: thrown && i === pile.length - 1 ? "thrown" : undefined })).join("");
  const dead = (state.dead || []).map((n) => `<span class="dead-pile" title="a dead pile of ${n} cards">${backHTML()}<span class="pile-count">${n}</span></span>`).join("");
  const taken = (state.dead_taken || []).map((t, i) => (t ? `side ${i + 1}` : null)).filter(Boolean);
  out.push(
    `<div class="piles">` +
    `<div class="pile stock" aria-label="stock: ${state.stock} cards"><span class="pile-title">Stock</span>${backHTML()}<span class="pile-count" id="stock-count">${state.stock}</span></div>` +
    `<div class="pile dead" aria-label="dead piles: ${(state.dead || []).join(", ") || "none left"}"><span class="pile-title">Dead piles</span>${dead || "<em>none left</em>"}` +
    `${taken.length ? `<span class="taken">taken by ${taken.join(", ")}</span>` : ""}</div>` +
    `<div class="pile discard${info && info.took && info.took.length ? " just-taken" : ""}" aria-label="discard pile: ${pile.length} cards"><span class="pile-title">Discard pile (${pile.length})</span>` +
    `<div class="cards pile-cards" id="discard">${pileCards || "<em>empty</em>"}</div></div>` +
    `</div>`
  );
  if (state.must_meld) out.push(`<p class="must-meld">Must meld ${escape(cardShort(state.must_meld))} (${escape(cardName(state.must_meld))}) this turn.</p>`);
  if (state.ended_by) out.push(`<p class="ended">The hand is over: ${escape(state.ended_by)}${state.out_by ? ` (p${state.out_by} went out)` : ""}.</p>`);

  // Melds by side, with the running score.
  out.push(`<div class="sides">`);
  const count = Math.max(sides.length, (state.running || []).length);
  for (let index = 0; index < count; index++) {
    const running = (state.running || [])[index] || { melded: 0, canastas: 0 };
    const melds = (state.melds || []).filter((m) => m.side === index + 1);
    out.push(
      `<section class="side side-${index + 1}" data-side="${index + 1}"><h3>${escape(sideName(index, sides, players))}` +
      ` <span class="running" data-side-score="${index + 1}">${running.melded} melded &middot; ${running.canastas} canasta${running.canastas === 1 ? "" : "s"}</span></h3>` +
      `<div class="melds">${melds.map((m) => meldHTML(m, info ? info.melds[m.id] : undefined)).join("") || "<em>no melds yet</em>"}</div></section>`
    );
  }
  out.push(`</div>`);
  return out.join("");
}
