// "Try another play" and "show the better play": the engine answers each action, nothing is stored.

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content && meta.content !== "NOTPROVIDED") return meta.content;
  const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
  return cookie ? decodeURIComponent(cookie.split("=")[1]) : "";
}

function errorSentence(error) {
  if (!error) return "";
  if (typeof error === "string") return error;
  return error.message || JSON.stringify(error);
}

/**
 * POST the actions to play after `ply`. Resolves to {results: [{action, state?, error?}], unavailable?, message?}.
 * The answer may hold its results under "results" (or "answers"/"steps"), each with the
 * table under "entry", "state" or "table".
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
  if (response.status === 404 || response.status === 405) {
    const message = data && data.message && !/^Not found/i.test(data.message) ? data.message : "trying other plays is not available on this server yet";
    return { results: [], unavailable: !(data && data.message && /ply|hand/.test(data.message)), message };
  }
  if (!response.ok) return { results: [], message: (data && data.message) || `the engine refused (HTTP ${response.status})` };
  const list = (data && (data.results || data.answers || data.steps)) || (Array.isArray(data) ? data : []);
  const results = list.map((item, i) => ({
    action: item.action ?? actions[i],
    state: item.entry || item.state || item.table || null,
    error: item.error ? errorSentence(item.error) : null,
  }));
  return { results, message: data && data.error ? errorSentence(data.error) : null };
}

/** "p1 draw\np1 meld ..." -> ["p1 draw", "p1 meld ..."] (blank lines and # comments dropped). */
export function splitActions(text) {
  return text.split(/[\n;]+/).map((line) => line.replace(/#.*$/, "").trim()).filter(Boolean);
}
