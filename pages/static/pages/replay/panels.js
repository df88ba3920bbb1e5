// The panels that ask the engine: a finding's better play beside what was played, and
// "try another play from here". Both post to the try endpoint (trial.js); nothing is stored.
import { escape } from "./cards.js";
import { findingLabel } from "./moves.js";
import { tableHTML } from "./table.js";
import { actionSeen, describePly, witnessStart } from "./timeline.js";
import { splitActions, tryActions } from "./trial.js";

export function closeWitness() {
  const box = document.getElementById("witness-area");
  box.hidden = true;
  box.innerHTML = "";
}

export async function showWitness(app, finding) {
  const { page, config, players, go, pageUrl, stop } = app;
  stop();
  const box = document.getElementById("witness-area");
  box.hidden = false;
  const start = witnessStart(finding, page.states); // the ply of the turn's draw
  const from = start - 1; // the table the witness is played on
  box.innerHTML = `<p>Asking the engine&hellip;</p>`;
  const answer = await tryActions(config.urls.try, from, finding.witness);
  if (!answer.results.length) {
    box.innerHTML = `<p class="error try-error">${escape(answer.message || "no answer")}</p><button type="button" class="close-witness">Close</button>`;
    box.querySelector(".close-witness").addEventListener("click", closeWitness);
    return;
  }
  const turn = page.turns[page.turnOf[start]];
  const played = turn ? turn.plies : [start];
  const witnessStates = [page.states[from], ...answer.results.filter((r) => r.state).map((r) => r.state)];
  let step = witnessStates.length - 1;
  const render = () => {
    const stepped = [witnessStates[step - 1] || witnessStates[0], witnessStates[step]];
    const info = step ? describePly(stepped, 1) : page.infos[from];
    const playedEnd = played[played.length - 1];
    box.innerHTML =
      `<h2>The better play for ${escape(findingLabel(finding))} at ply ${finding.ply}, from ply ${from} <button type="button" class="close-witness">Close</button></h2>` +
      `<div class="witness-steps"><button type="button" data-step="-1" aria-label="previous step of the better play">&larr;</button>` +
      ` <span class="witness-step">step ${step} of ${witnessStates.length - 1}${step ? `: <code>${escape(answer.results[step - 1].action)}</code>` : ": the table at the draw step"}</span> ` +
      `<button type="button" data-step="1" aria-label="next step of the better play">&rarr;</button></div>` +
      answer.results.filter((r) => r.error).map((r) => `<p class="error try-error"><code>${escape(r.action)}</code>: ${escape(r.error)}</p>`).join("") +
      `<div class="compare"><div class="compare-col better"><h4>The better play</h4><ol class="witness-actions">` +
      answer.results.map((r, i) => `<li class="${i + 1 === step ? "current" : ""}"><code>${escape(r.action)}</code></li>`).join("") +
      `</ol><div class="table small-table witness-table">${tableHTML({ state: witnessStates[step], info, view: page.view, players, sides: page.sides })}</div></div>` +
      `<div class="compare-col played"><h4>As played</h4><ol class="played-actions">${played.map((p) => `<li><a href="${escape(pageUrl(p))}" data-ply="${p}"><code>${escape(actionSeen(page.infos[p], page.view) || "")}</code></a></li>`).join("")}</ol>` +
      `<div class="table small-table played-table">${tableHTML({ state: page.states[playedEnd], info: page.infos[playedEnd], view: page.view, players, sides: page.sides })}</div></div></div>`;
    box.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => {
      step = Math.max(0, Math.min(witnessStates.length - 1, step + Number(b.dataset.step)));
      render();
    }));
    box.querySelectorAll("a[data-ply]").forEach((a) => a.addEventListener("click", (event) => { event.preventDefault(); go(Number(a.dataset.ply)); }));
    box.querySelector(".close-witness").addEventListener("click", closeWitness);
  };
  render();
  box.scrollIntoView({ block: "nearest" });
}

export async function submitTry(app, event) {
  const { page, config, players, stop } = app;
  const ui = { tryText: document.getElementById("try-actions"), tryResults: document.getElementById("try-results") };
  event.preventDefault();
  stop();
  const actions = splitActions(ui.tryText.value);
  if (!actions.length) return;
  const from = page.ply;
  ui.tryResults.innerHTML = `<li>Asking the engine&hellip;</li>`;
  const answer = await tryActions(config.urls.try, from, actions);
  const items = [];
  if (answer.message && !answer.results.length) items.push(`<li class="error try-error">${escape(answer.message)}</li>`);
  let before = page.states[from];
  answer.results.forEach((result, i) => {
    if (result.error) {
      items.push(`<li class="try-result try-error"><code>${escape(result.action)}</code>: <span class="error">${escape(result.error)}</span></li>`);
      return;
    }
    const info = describePly([before, result.state], 1);
    const last = i === answer.results.length - 1 || answer.results[i + 1].error;
    items.push(
      `<li class="try-result try-ok"><details${last ? " open" : ""}><summary><code>${escape(result.action)}</code>: played (ply ${from + i + 1})</summary>` +
      `<div class="table small-table">${tableHTML({ state: result.state, info, view: page.view, players, sides: page.sides })}</div></details></li>`
    );
    before = result.state;
  });
  ui.tryResults.innerHTML = `<li class="try-from">From ply ${from}:</li>` + items.join("");
}
