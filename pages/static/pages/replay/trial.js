// "Try another play" and "show the better play": the engine answers each action, nothing is stored.

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content && meta.content !== "NOTPROVIDED") return meta.content;
  const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
  return cookie ? decodeURIComponent(cookie.split("=")[1]) : "";
}

/**
 * POST the actions to play after `ply` (records/api/hands.py HandTryApi). Resolves to
 * {results: [{action, state, error}], message}: each tried action's timeline entry, or the
 * sentence of the error that stopped the line.
 */
export async function tryActions(url, ply, actions) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ ply, actions }),
    });
  } catch (failure) {
    return { results: [], message: `the engine could not be reached: ${failure.message}` };
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) return { results: [], message: (data && data.message) || `the engine refused (HTTP ${response.status})` };
  const results = data.results.map((item) => ({
    action: item.action,
    state: item.entry || null,
    error: item.error ? item.error.message : null,
  }));
  return { results, message: null };
}

/** "p1 draw\np1 meld ..." -> ["p1 draw", "p1 meld ..."] (blank lines and # comments dropped). */
export function splitActions(text) {
  return text.split(/[\n;]+/).map((line) => line.replace(/#.*$/, "").trim()).filter(Boolean);
}
