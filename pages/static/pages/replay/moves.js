// The move list: one entry per turn, its plies inside; findings marked by kind and points.
import { escape } from "./cards.js";
import { actionSeen } from "./timeline.js";

export function findingLabel(finding) {
  const span = finding.turns > 1 ? ` over ${finding.turns} turns` : "";
  return `${finding.severity ? `${finding.severity}: ` : ""}${finding.kind}${finding.points != null ? ` ${finding.points}` : ""}${span}`;
}

function moveText(info, view) {
  return info.ply === 0 ? "the deal" : actionSeen(info, view) || `ply ${info.ply}`;
}

/**
 * Draw the list once, as `view` sees the moves. onPick(ply) is called when a move is chosen.
 * findingsByPly: Map ply -> [finding]
 */
export function renderMoves(list, { turns, infos, players, findingsByPly, pageUrl, onPick, error, view }) {
  const parts = [];
  for (const turn of turns) {
    const who = turn.seat ? `p${turn.seat} ${players[turn.seat - 1] || ""}`.trim() : "";
    parts.push(`<li class="turn" data-turn="${turn.index}"><span class="turn-head">${turn.index === 0 ? "Deal" : `Turn ${turn.index} &middot; ${escape(who)}`}</span><ol>`);
    for (const ply of turn.plies) {
      const info = infos[ply];
      const text = moveText(info, view);
      const findings = findingsByPly.get(ply) || [];
      const badges = findings.map((f) => `<span class="finding-badge kind-${escape(f.kind)}" title="${escape(f.message || "")}">${escape(findingLabel(f))}</span>`).join("");
      const auto = (info.automatic || []).map((op) => `<span class="auto">${escape(op.kind)}${op.how ? `: ${escape(op.how)}` : ""}</span>`).join("");
      parts.push(
        `<li class="move${findings.length ? " has-finding" : ""}" data-ply="${ply}"><a href="${escape(pageUrl(ply))}" data-ply="${ply}">` +
        `<span class="ply-number">${ply}</span> <code>${escape(text)}</code></a>${auto}${badges}</li>`
      );
    }
    parts.push(`</ol></li>`);
  }
  if (error && error.ply) {
    parts.push(
      `<li class="turn illegal"><span class="turn-head">Illegal</span><ol><li class="move illegal-move"><span class="ply-number">${error.ply}</span> ` +
      `<code>${escape(error.action || "")}</code> <span class="error">${escape(error.message || "")}</span></li></ol></li>`
    );
  }
  list.innerHTML = parts.join("");
  list.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-ply]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    onPick(Number(link.dataset.ply));
  });
}

/** Write each move as another view sees it (in place: the badges beside the moves stay). */
export function relabelMoves(list, infos, view) {
  for (const code of list.querySelectorAll(".move[data-ply] > a > code")) {
    const info = infos[Number(code.parentElement.dataset.ply)];
    if (info) code.textContent = moveText(info, view);
  }
}

export function markCurrent(list, ply) {
  const old = list.querySelector(".move.current");
  if (old) { old.classList.remove("current"); old.querySelector("a").removeAttribute("aria-current"); }
  const item = list.querySelector(`.move[data-ply="${ply}"]`);
  if (!item) return;
  item.classList.add("current");
  item.querySelector("a").setAttribute("aria-current", "step");
  const box = list.getBoundingClientRect(), at = item.getBoundingClientRect();
  if (at.top < box.top || at.bottom > box.bottom) list.scrollTop += at.top - box.top - box.height / 3;
}
