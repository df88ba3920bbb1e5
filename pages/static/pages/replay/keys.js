// Keys: Left/Right step, Home/End, Up/Down a turn, n/p findings, b/m/i (B/M/I back) the next blunder,
// mistake or worse, inaccuracy or worse, Space plays, f flips the view, ? the keys.
const BINDINGS = {
  ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", ArrowUp: "prev-turn", ArrowDown: "next-turn",
  n: "next-finding", p: "prev-finding", " ": "play", f: "flip", "?": "help", Escape: "close",
  b: "next-blunder", B: "prev-blunder", m: "next-mistake", M: "prev-mistake", i: "next-inaccuracy", I: "prev-inaccuracy",
};

export function bindKeys(target, run) {
  target.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const where = event.target;
    if (where && (where.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(where.tagName))) {
      if (event.key !== "Escape" || where.tagName === "INPUT") return;
    }
    const command = BINDINGS[event.key] || (/^[A-Z]$/.test(event.key) ? undefined : BINDINGS[event.key.toLowerCase?.()]);
    if (!command) return;
    if (command === "play" && where && where.tagName === "BUTTON") return; // a focused button answers Space itself
    event.preventDefault();
    run(command);
  });
}
