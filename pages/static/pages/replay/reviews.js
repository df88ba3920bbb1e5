// Coaching reviews beside the moves: the comments of the match's reviews on this hand,
// marked in the move list at their ply and shown (with their threads) while that ply is
// on the table; a user who may review comments on the current ply (their review is made
// on the first comment), answers in a thread, finishes or reopens their review.
// The API is reviews/api.py (README, "Coaching reviews"); who may do what, its answers.
import { escape } from "./cards.js";
import { csrfToken } from "./trial.js";


function failureMessage(data, status) {
  return (data && (data.message || data.detail)) || `the server refused (HTTP ${status})`;
}

async function call(url, method = "GET", body = undefined) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") { headers["Content-Type"] = "application/json"; headers["X-CSRFToken"] = csrfToken(); }
  const response = await fetch(url, { method, credentials: "same-origin", headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) throw new Error(failureMessage(data, response.status));
  return data;  // null for a 204
}

/**
 * ui: {panel, bar, list, form, text, tag, formLabel, formNote, formError, moves}; me: the username ("" when logged out);
 * lastPly: the hand's last ply (comments past it show there). Returns {start(data), load(), show(ply)}.
 */
export function createReviews({ config, ui, me, lastPly }) {
  const base = `/api/matches/${config.match}/`;
  const withShare = (path) => (config.share ? `${path}?share=${encodeURIComponent(config.share)}` : path);
  const state = { loaded: false, can: {}, owner: null, reviews: [], byPly: new Map(), ply: 0 };

  const mine = () => state.reviews.find((r) => r.author === me && r.source === "api");
  const canReply = (comment) => Boolean(state.can.review && me && (me === state.owner || comment.author === me));
  // reviews/permissions.py can_remove_review: the match's owner, or the review's author while they may review.
  const canRemove = (review) => Boolean(me && (me === state.owner || (state.can.review && review.author === me && review.source === "api")));

  function index() {
    state.byPly = new Map();
    for (const review of state.reviews) {
      for (const comment of review.comments || []) {
        if (comment.hand !== config.hand) continue;
        const at = Math.min(comment.ply, lastPly);
        if (!state.byPly.has(at)) state.byPly.set(at, []);
        state.byPly.get(at).push({ comment, review });
      }
    }
  }

  function markMoves() {
    ui.moves.querySelectorAll(".comment-badge").forEach((badge) => badge.remove());
    ui.moves.querySelectorAll(".move.has-comment").forEach((item) => item.classList.remove("has-comment"));
    for (const [ply, items] of state.byPly) {
      const item = ui.moves.querySelector(`.move[data-ply="${ply}"]`);
      if (!item) continue;
      item.classList.add("has-comment");
      const tags = items.map((i) => i.comment.tag).filter(Boolean);
      const who = [...new Set(items.map((i) => i.comment.author_name))].join(", ");
      item.insertAdjacentHTML("beforeend",
        `<span class="comment-badge" data-count="${items.length}" title="${escape(`${items.length} comment${items.length > 1 ? "s" : ""} by ${who}`)}">` +
        `&#9998; ${items.length}${tags.length ? ` ${escape(tags.join(" "))}` : ""}</span>`);
    }
  }

  function exportUrl(review) {
    return withShare(`${base}reviews/${review.id}/export/`);
  }

  function drawBar() {
    const own = mine();
    const rows = state.reviews.map((review) => (
      `<li class="review-row" data-review="${review.id}"><strong>${escape(review.author_name)}</strong>` +
      `${review.source === "record" ? " (from the record)" : ""} &middot; ${review.comment_count} comment${review.comment_count === 1 ? "" : "s"}` +
      ` &middot; <span class="review-state">${review.finished ? "finished" : "open"}</span>` +
      ` &middot; <a class="export-review" href="${escape(exportUrl(review))}" download>export review</a>` +
      (review === own ? ` <button type="button" class="finish-review" data-finished="${review.finished ? "false" : "true"}">${review.finished ? "Reopen" : "Mark finished"}</button>` : "") +
      (canRemove(review) ? ` <button type="button" class="remove-review" data-review="${review.id}">Remove</button>` : "") +
      `</li>`
    )).join("");
    ui.bar.innerHTML = state.reviews.length ? `<h2 class="reviews-title">Reviews</h2><ul class="review-rows">${rows}</ul>` : "";
    const button = ui.bar.querySelector(".finish-review");
    if (button) button.addEventListener("click", () => finish(own, button.dataset.finished === "true"));
    ui.bar.querySelectorAll(".remove-review").forEach((remover) => remover.addEventListener("click", () => {
      const review = state.reviews.find((r) => String(r.id) === remover.dataset.review);
      if (review && window.confirm(`Remove the review by ${review.author_name} with its ${review.comment_count} comment${review.comment_count === 1 ? "" : "s"}?`)) remove(review);
    }));
  }

  function commentHTML({ comment, review }) {
    const replies = (comment.replies || []).map((r) => `<li class="reply"><strong class="reply-author">${escape(r.author)}</strong> <span class="reply-text">${escape(r.text)}</span></li>`).join("");
    return (
      `<article class="comment" data-comment="${comment.id}" data-review="${review.id}">` +
      `<p class="comment-head">${comment.tag ? `<span class="comment-tag tag-${escape(comment.tag)}">${escape(comment.tag)}</span> ` : ""}` +
      `<strong class="comment-author">${escape(comment.author_name)}</strong>` +
      // A record's note names whoever the record says: not an account's word, and labelled so.
      `${comment.source === "record" ? ` <span class="comment-source" title="a note of the uploaded record, under the name the record gives">from the record's notes</span>` : ""}` +
      `${comment.ply > lastPly ? ` &middot; on ply ${comment.ply}` : ""}</p>` +
      `<p class="comment-text">${escape(comment.text)}</p>` +
      `<ol class="replies">${replies}</ol>` +
      (canReply(comment)
        ? `<form class="reply-form"><input name="text" required maxlength="5000" autocomplete="off" aria-label="your answer to ${escape(comment.author_name)}" placeholder="Answer&hellip;"> <button type="submit">Answer</button> <span class="error reply-error" hidden></span></form>`
        : "") +
      `</article>`
    );
  }

  function show(ply) {
    state.ply = ply;
    if (!state.loaded) return;
    const here = state.byPly.get(ply) || [];
    const writer = Boolean(state.can.review && me);
    ui.panel.hidden = !(here.length || writer || state.reviews.length);
    ui.list.innerHTML = here.length ? `<h3 class="comments-title">Comments on ply ${ply}</h3>${here.map(commentHTML).join("")}` : "";
    ui.list.querySelectorAll(".reply-form").forEach((form) => form.addEventListener("submit", (event) => reply(event, form)));
    ui.form.hidden = !writer;
    if (writer) {
      const own = mine();
      ui.formLabel.textContent = `Your comment on ply ${ply}`;
      const closed = Boolean(own && own.finished);
      ui.form.querySelectorAll("textarea, select, button").forEach((el) => { el.disabled = closed; });
      ui.formNote.textContent = closed ? "Your review is finished: reopen it to comment." : own ? "" : "Your first comment starts your review.";
    }
  }

  function loaded(reviews) {
    state.reviews = reviews;
    state.loaded = true;
    index();
    markMoves();
    drawBar();
    show(state.ply);
  }

  /** The reviews as the page holds them (replay.html's #review-data): no request. */
  function start(data) {
    state.can = { review: Boolean(data.review) };
    state.owner = data.owner;
    loaded(data.reviews || []);
  }

  /** Every item of a paged list (apikit/paging.py), following its `next` links. */
  async function everything(url) {
    const items = [];
    for (let next = url; next; ) {
      const page = await call(next);
      items.push(...page.results);
      next = page.next;
    }
    return items;
  }

  const listUrl = (path, query) => {
    const params = new URLSearchParams(query);
    if (config.share) params.set("share", config.share);
    return `${path}?${params}`;
  };

  /** The reviews as the API has them now (after a write): each with its comments on this hand only. */
  async function load() {
    const reviews = await everything(listUrl(`${base}reviews/`, { page_size: 100 }));
    loaded(await Promise.all(reviews.map(async (review) => ({
      ...review,
      comments: await everything(listUrl(`${base}reviews/${review.id}/comments/`, { hand: config.hand, page_size: 500 })),
    }))));
  }

  async function guarded(errorBox, work) {
    errorBox.hidden = true;
    try {
      await work();
      await load();
      return true;
    } catch (failure) {
      errorBox.hidden = false;
      errorBox.textContent = failure.message;
      return false;
    }
  }

  async function submit(event) {
    event.preventDefault();
    const text = ui.text.value.trim();
    if (!text) return;
    const ply = state.ply;
    const done = await guarded(ui.formError, async () => {
      let review = mine();
      if (!review) review = await call(`${base}reviews/`, "POST");
      await call(`${base}reviews/${review.id}/comments/`, "POST", { hand: config.hand, ply, text, tag: ui.tag.value });
    });
    if (done) { ui.text.value = ""; ui.tag.value = ""; }
  }

  async function reply(event, form) {
    event.preventDefault();
    const article = form.closest(".comment");
    const input = form.querySelector("input[name=text]");
    const text = input.value.trim();
    if (!text) return;
    await guarded(form.querySelector(".reply-error"), () => call(`${base}reviews/${article.dataset.review}/comments/${article.dataset.comment}/replies/`, "POST", { text }));
  }

  async function finish(review, finished) {
    await guarded(ui.formError, () => call(`${base}reviews/${review.id}/`, "PATCH", { finished }));
  }

  async function remove(review) {
    await guarded(ui.formError, () => call(`${base}reviews/${review.id}/`, "DELETE"));
  }

  // The tags a comment may carry: reviews/models.py TAGS, in the page's config (a record's
  // note may carry others: shown as they are).
  ui.tag.innerHTML = `<option value="">no tag</option>${config.tags.map((t) => `<option value="${escape(t)}">${escape(t)}</option>`).join("")}`;
  ui.form.addEventListener("submit", submit);
  return { start, load, show };
}
