// Cards drawn as inline SVG: rank and suit symbol in the corner, a large symbol in the middle.
// Four colours (clubs green, diamonds blue, hearts red, spades black) and always the symbol,
// so suits are told apart without colour; every card has a text alternative.

export const SUITS = {
  c: { name: "clubs", symbol: "\u2663" },
  d: { name: "diamonds", symbol: "\u2666" },
  h: { name: "hearts", symbol: "\u2665" },
  s: { name: "spades", symbol: "\u2660" },
};
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RANK_SHOWN = { T: "10" };

export function cardName(text) {
  if (!text) return "";
  if (text.toUpperCase() === "JK") return "joker";
  if (!SUITS[text.slice(-1).toLowerCase()]) return `a ${RANK_NAMES[text] || text}`; // a set's stand-in: a rank
  const rank = text.slice(0, -1), suit = SUITS[text.slice(-1).toLowerCase()];
  return `${RANK_NAMES[rank] || rank} of ${suit ? suit.name : text.slice(-1)}`;
}

/** "7h" -> "7♥", for short text such as a stand-in. */
export function cardShort(text) {
  if (!text) return "";
  if (text.toUpperCase() === "JK") return "JK";
  if (!SUITS[text.slice(-1).toLowerCase()]) return RANK_SHOWN[text] || text;
  const suit = SUITS[text.slice(-1).toLowerCase()];
  const rank = text.slice(0, -1);
  return (RANK_SHOWN[rank] || rank) + (suit ? suit.symbol : text.slice(-1));
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * One card's HTML. options: as (the card a wild stands for), mark (highlight: "new", "thrown"),
 * extra class names.
 */
export function cardHTML(text, options = {}) {
  const joker = text.toUpperCase() === "JK";
  const suitKey = joker ? "j" : text.slice(-1).toLowerCase();
  const suit = SUITS[suitKey];
  const rank = joker ? "JK" : text.slice(0, -1);
  const shown = joker ? "\u2605" : RANK_SHOWN[rank] || rank;
  const symbol = joker ? "JK" : suit ? suit.symbol : "?";
  let label = cardName(text);
  if (options.as) label += `, standing for ${cardName(options.as)}`;
  if (options.mark === "new") label += " (just played)";
  if (options.mark === "thrown") label += " (just thrown)";
  const classes = ["pc", `s-${suitKey}`];
  if (options.mark) classes.push(`mark-${options.mark}`);
  if (options.as) classes.push("wild");
  if (options.className) classes.push(options.className);
  const center = joker
    ? `<text x="18" y="36" class="big" text-anchor="middle">\u2605</text>`
    : `<text x="19" y="40" class="big" text-anchor="middle">${symbol}</text>`;
  const corner = joker
    ? `<text x="3.5" y="13" class="rank joker-text">JK</text>`
    : `<text x="3.5" y="15" class="rank${shown.length > 1 ? " narrow" : ""}">${escape(shown)}</text>` +
      `<text x="4" y="26" class="suit">${symbol}</text>`;
  const badge = options.as ? `<span class="as" aria-hidden="true">=${escape(cardShort(options.as))}</span>` : "";
  return (
    `<span class="${classes.join(" ")}" role="img" aria-label="${escape(label)}" title="${escape(label)}" data-card="${escape(text)}">` +
    `<svg viewBox="0 0 36 50" aria-hidden="true" focusable="false"><rect class="face" x="0.75" y="0.75" width="34.5" height="48.5" rx="4"/>` +
    corner + center + `</svg>${badge}</span>`
  );
}

/** A face-down card. */
export function backHTML() {
  return (
    `<span class="pc back" aria-hidden="true"><svg viewBox="0 0 36 50" focusable="false">` +
    `<rect class="face" x="0.75" y="0.75" width="34.5" height="48.5" rx="4"/>` +
    `<rect class="inner" x="4" y="4" width="28" height="42" rx="2"/></svg></span>`
  );
}

export { escape };
