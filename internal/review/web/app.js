// The review page: lists a job's requirements, shows the selected one with
// its sources, history and comments, and sends decisions to the API it is
// served with.
"use strict";

const TOKEN_KEY = "creator-review-token";
const REVIEWER_KEY = "creator-review-reviewer";
const FIELDS = ["title", "text", "type", "category", "priority"];

const state = {
  listing: null,   // GET /api/requirements
  sections: {},    // id → heading path, GET /api/sections
  sectionOrder: new Map(), // joined heading path → place in the document
  shown: [],       // the requirements the filters let through, sorted
  selected: null,  // id
  detail: null,    // GET /api/requirements/{id}
  history: null,   // GET /api/requirements/{id}/history; null while unknown
  comments: null,  // GET /api/requirements/{id}/comments
  conflict: null,  // {body, current, seen}: a decision refused as stale
  mode: "view",    // view | reject | edit
  busy: false,
  seq: 0,          // of the latest detail request: older answers are dropped
  token: "",       // the bearer token of a review served with --allow-remote
  session: { reviewers: [], auth: false, reviewer: "", default_reviewer: "" },
  reviewer: "",
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// ---- the API ---------------------------------------------------------------

class APIError extends Error {
  constructor(message, status, data) {
    super(message);
    this.status = status;
    this.data = data;
  }
}

function authHeaders() {
  return state.token ? { Authorization: "Bearer " + state.token } : {};
}

async function request(method, path, body) {
  const init = { method, headers: authHeaders() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) {
    throw new APIError("This review needs its token: open the address with #token=… that creator review printed.", 401, null);
  }
  return res;
}

async function api(method, path, body) {
  const res = await request(method, path, body);
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) throw new APIError((data && data.error) || `${method} ${path}: ${res.status} ${res.statusText}`, res.status, data);
  return data;
}

// optional answers an API the server may not offer (an older creator) with
// fallback on 404.
async function optional(path, fallback) {
  try {
    return await api("GET", path);
  } catch (e) {
    if (e.status === 404 || e.status === 405) return fallback;
    throw e;
  }
}

function showError(msg) {
  const b = $("banner");
  b.textContent = msg;
  b.hidden = !msg;
}

// ---- time ------------------------------------------------------------------

const timeFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
});

// when shows an RFC 3339 time in the reader's time zone, naming the zone.
function when(iso) {
  const d = new Date(iso);
  if (!iso || isNaN(d)) return el("span", {}, iso || "");
  return el("time", { datetime: iso, title: iso }, timeFormat.format(d));
}

// ---- token and reviewer ------------------------------------------------------

// takeToken keeps the token a link carries (#token=…) and takes it out of
// the address, so that it is neither bookmarked nor shown.
function takeToken() {
  const m = /^#token=([^&]*)/.exec(location.hash);
  if (m) {
    localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  state.token = localStorage.getItem(TOKEN_KEY) || "";
}

async function loadSession() {
  const s = await optional("/api/session", null);
  if (s) state.session = { reviewers: s.reviewers || [], auth: !!s.auth, reviewer: s.reviewer || "", default_reviewer: s.default_reviewer || "" };
  const stored = localStorage.getItem(REVIEWER_KEY) || "";
  if (state.session.reviewer) state.reviewer = state.session.reviewer;
  else if (stored && (!state.session.reviewers.length || state.session.reviewers.includes(stored))) state.reviewer = stored;
  renderReviewer();
  if (!state.reviewer) askReviewer();
}

function renderReviewer() {
  const who = $("who-am-i");
  if (!state.reviewer) { who.replaceChildren(); return; }
  const fixed = !!state.session.reviewer; // the token names the reviewer
  who.replaceChildren(el("span", { class: "reviewer", id: "reviewer-name", title: "your decisions are recorded under this name" }, state.reviewer),
    fixed ? null : el("button", { type: "button", id: "reviewer-change", class: "link", onclick: () => askReviewer() }, "change"));
}

let afterNaming = null;

// askReviewer asks the reviewer's name once (kept in the browser), from
// the server's list of reviewers when it has one; then runs then().
function askReviewer(then) {
  afterNaming = then || null;
  const names = state.session.reviewers;
  const pick = $("who-pick");
  $("who-pick-label").hidden = !names.length;
  $("who-name-label").hidden = !!names.length;
  $("who-name").required = !names.length;
  pick.replaceChildren(...names.map((n) => el("option", { value: n, selected: n === (state.reviewer || state.session.default_reviewer) }, n)));
  $("who-name").value = state.reviewer || state.session.default_reviewer || "";
  if (!$("who").open) $("who").showModal();
}

$("who-form").addEventListener("submit", (e) => {
  const name = (state.session.reviewers.length ? $("who-pick").value : $("who-name").value).trim();
  if (!name) { e.preventDefault(); return; }
  state.reviewer = name;
  localStorage.setItem(REVIEWER_KEY, name);
  renderReviewer();
  const then = afterNaming;
  afterNaming = null;
  if (then) setTimeout(then);
});

// named runs f once the reviewer has a name.
function named(f) {
  if (state.reviewer) f();
  else askReviewer(f);
}

// ---- loading -------------------------------------------------------------

async function load() {
  takeToken();
  try {
    await loadSession();
    const [listing, sections] = await Promise.all([api("GET", "/api/requirements"), optional("/api/sections", { sections: {} })]);
    state.listing = listing;
    state.sections = sections.sections || {};
  } catch (e) {
    showError(e.message);
    return;
  }
  $("job").textContent = "· job " + state.listing.job + (state.listing.from === "saved" ? " (no output yet: the requirements saved so far)" : "");
  // The review log can be downloaded before the job has an output; its
  // requirements cannot.
  const exportable = () => {
    const ok = state.listing.from === "output" || $("export-format").value.startsWith("audit-");
    $("export-button").disabled = !ok;
    $("export-button").title = ok ? "download the job's requirements with their review, or the review log" : "the job has no output to export yet";
  };
  $("export-format").addEventListener("input", exportable);
  exportable();
  fillFilters();
  renderProgress();
  applyFilters();
  const wanted = hashID();
  const first = state.listing.requirements.find((r) => r.id === wanted) || state.shown[0];
  if (first) select(first.id);
  if (state.listing.problems && state.listing.problems.length) showError(state.listing.problems.join("; "));
}

// hashID is the requirement the address names (#REQ-042).
function hashID() {
  try { return decodeURIComponent(location.hash.slice(1)); } catch (_) { return ""; }
}

window.addEventListener("hashchange", () => {
  // A link with a token opened on the page already: start over with it.
  if (/^#token=/.test(location.hash)) { takeToken(); location.reload(); return; }
  const id = hashID();
  if (state.listing && id !== state.selected && state.listing.requirements.some((r) => r.id === id)) select(id);
});

const sectionKey = (path) => (path || []).join(" › ");

function fillFilters() {
  const v = state.listing.vocabulary;
  const fill = (id, values) => {
    const s = $(id);
    for (const x of values) s.append(el("option", { value: x }, x));
  };
  fill("f-status", ["pending", ...v.decisions.filter((d) => d !== "pending")]);
  fill("f-type", v.types);
  fill("f-category", v.categories);
  fill("f-priority", v.priorities);
  const frameworks = new Set();
  for (const r of state.listing.requirements) for (const f of r.frameworks) frameworks.add(f);
  fill("f-framework", [...frameworks].sort());
  // Every section and the sections above it, in the order the
  // requirements (in the document's order) first reach them.
  const section = $("f-section");
  for (const r of state.listing.requirements) {
    const path = state.sections[r.id] || [];
    for (let depth = 1; depth <= path.length; depth++) {
      const key = sectionKey(path.slice(0, depth));
      if (state.sectionOrder.has(key)) continue;
      state.sectionOrder.set(key, state.sectionOrder.size);
      section.append(el("option", { value: key, title: key }, "\u00a0\u00a0".repeat(depth - 1) + path[depth - 1]));
    }
  }
  section.hidden = state.sectionOrder.size === 0;
  for (const id of ["f-text", "f-section", "f-status", "f-type", "f-category", "f-priority", "f-framework", "f-confidence", "f-sort"]) {
    $(id).addEventListener("input", () => { applyFilters(); });
  }
  $("filters").addEventListener("submit", (e) => e.preventDefault());
}

function renderProgress() {
  const p = state.listing.progress;
  const pct = p.total ? (100 * p.reviewed) / p.total : 0;
  $("bar-fill").style.width = pct + "%";
  const parts = [];
  if (p.accepted) parts.push(`${p.accepted} accepted`);
  if (p.edited) parts.push(`${p.edited} edited`);
  if (p.rejected) parts.push(`${p.rejected} rejected`);
  $("progress-text").textContent = `reviewed ${p.reviewed} of ${p.total}` + (parts.length ? ` — ${parts.join(", ")}` : "");
}

// ---- the list ------------------------------------------------------------

const byID = new Intl.Collator(undefined, { numeric: true }).compare;

function applyFilters() {
  const q = $("f-text").value.trim().toLowerCase();
  const want = {
    review_status: $("f-status").value, type: $("f-type").value,
    category: $("f-category").value, priority: $("f-priority").value,
  };
  const framework = $("f-framework").value;
  const section = $("f-section").value;
  const [op, limit] = $("f-confidence").value.split(":");
  state.shown = state.listing.requirements.filter((r) => {
    for (const [k, v] of Object.entries(want)) if (v && r[k] !== v) return false;
    if (framework && !r.frameworks.includes(framework)) return false;
    if (op === "lt" && !(r.confidence < Number(limit))) return false;
    if (op === "ge" && !(r.confidence >= Number(limit))) return false;
    if (section) {
      const key = sectionKey(state.sections[r.id]);
      if (key !== section && !key.startsWith(section + " › ")) return false;
    }
    if (!q) return true;
    const hay = [r.id, r.source_id || "", r.title, r.text, r.rationale, ...r.citations.map((c) => c.quote),
      ...Object.entries(r.attributes || {}).map(([k, v]) => k + ": " + v)].join("\n").toLowerCase();
    return hay.includes(q);
  });
  sortShown();
  renderList();
}

function sortShown() {
  const statuses = ["pending", ...state.listing.vocabulary.decisions.filter((d) => d !== "pending")];
  const place = (r) => {
    const at = state.sectionOrder.get(sectionKey(state.sections[r.id]));
    return at === undefined ? Infinity : at;
  };
  const by = {
    id: (a, b) => byID(a.id, b.id),
    section: (a, b) => place(a) - place(b),
    confidence: (a, b) => a.confidence - b.confidence,
    status: (a, b) => statuses.indexOf(a.review_status) - statuses.indexOf(b.review_status),
  }[$("f-sort").value] || (() => 0);
  state.shown.sort((a, b) => by(a, b) || byID(a.id, b.id));
}

function renderList() {
  const list = $("list");
  list.replaceChildren(...state.shown.map((r) =>
    el("li", { "data-id": r.id, class: r.id === state.selected ? "selected" : "", onclick: () => select(r.id) },
      el("span", { class: "id" }, r.id),
      el("span", { class: "title" }, r.source_id ? el("span", { class: "sid" }, r.source_id) : null, r.title),
      el("span", { class: "badge " + r.review_status }, r.review_status))));
  const total = state.listing.requirements.length;
  $("list-count").textContent = state.shown.length === total ? `${total} requirements` : `${state.shown.length} of ${total} requirements`;
  $("bulk-accept").disabled = $("bulk-reject").disabled = !state.shown.length;
  const sel = list.querySelector("li.selected");
  if (sel) sel.scrollIntoView({ block: "nearest" });
}

async function select(id) {
  const seq = ++state.seq;
  if (state.selected !== id) state.conflict = null;
  state.selected = id;
  state.mode = "view";
  if (hashID() !== id) history.replaceState(null, "", "#" + encodeURIComponent(id));
  for (const li of $("list").children) li.classList.toggle("selected", li.dataset.id === id);
  const sel = $("list").querySelector("li.selected");
  if (sel) sel.scrollIntoView({ block: "nearest" });
  const path = "/api/requirements/" + encodeURIComponent(id);
  try {
    const [d, hist, comments] = await Promise.all([api("GET", path), optional(path + "/history", null), optional(path + "/comments", null)]);
    // Another was selected meanwhile, or a form opened on this one: an
    // older answer must not redraw over it.
    if (seq !== state.seq) return;
    state.detail = d;
    state.history = hist;
    state.comments = comments;
    updateItem(d);
    showError("");
    renderDetail();
  } catch (e) {
    showError(e.message);
  }
}

// updateItem puts a requirement as the server now has it into the list.
function updateItem(r) {
  const i = state.listing.requirements.findIndex((x) => x.id === r.id);
  if (i < 0) return;
  const item = { ...state.listing.requirements[i] };
  for (const k of Object.keys(item)) if (k in r) item[k] = r[k];
  if (!("review" in r)) delete item.review;
  if ("version" in r) item.version = r.version;
  const changed = item.review_status !== state.listing.requirements[i].review_status || item.title !== state.listing.requirements[i].title;
  state.listing.requirements[i] = item;
  const j = state.shown.findIndex((x) => x.id === r.id);
  if (j >= 0) state.shown[j] = item;
  if (changed) renderList();
}

function move(step, pendingOnly) {
  const n = state.shown.length;
  if (!n) return;
  const i = state.shown.findIndex((r) => r.id === state.selected);
  if (!pendingOnly) {
    select(state.shown[Math.min(n - 1, Math.max(0, i + step))].id);
    return;
  }
  for (let k = 1; k <= n; k++) {
    const r = state.shown[(Math.max(i, -1) + k) % n];
    if (r.review_status === "pending") { select(r.id); return; }
  }
  showError("Every requirement in the list has a decision.");
}

// ---- the selected requirement ---------------------------------------------

function renderDetail() {
  const d = state.detail;
  const pane = $("detail");
  const meta = el("div", { class: "meta" },
    el("span", {}, d.type), el("span", {}, d.category), el("span", {}, d.priority + " priority"),
    ...d.frameworks.map((f) => el("span", {}, f)),
    el("span", {}, "confidence " + d.confidence));
  // The document's own id of the requirement and its columns.
  const attrs = Object.keys(d.attributes || {}).sort();
  const source = d.source_id || attrs.length ? el("div", { class: "meta source-fields" },
    d.source_id ? el("span", { class: "sid" }, d.source_id) : null,
    ...attrs.map((k) => el("span", { class: "attr" }, el("b", {}, k + ":"), " " + d.attributes[k]))) : null;
  const parts = [
    el("div", { class: "head" },
      el("span", { class: "rid" }, d.id), el("h2", {}, d.title),
      el("span", { class: "badge " + d.review_status }, d.review_status),
      d.version !== undefined ? el("span", { class: "version", title: "the requirement's version: each decision makes a new one" }, "v" + d.version) : null),
    state.conflict ? conflictBox() : null,
    actions(),
    el("p", { class: "text" }, d.text), meta, source,
    el("div", { class: "label" }, "Rationale"), el("div", {}, d.rationale),
    d.review ? renderDecision(d.review) : null,
    state.mode === "reject" ? rejectForm() : null,
    state.mode === "edit" ? editForm() : null,
    el("div", { class: "label" }, d.sources.length > 1 ? "Sources" : "Source"), ...d.sources.map(renderSource),
    renderHistory(),
    renderComments(),
  ];
  pane.replaceChildren(...parts.filter((p) => p !== null));
  for (const m of pane.querySelectorAll(".passage mark")) {
    const box = m.parentElement;
    box.scrollTop = Math.max(0, m.offsetTop - box.offsetTop - box.clientHeight / 3);
  }
  const focus = pane.querySelector("[data-autofocus]");
  if (focus) focus.focus();
}

function isPDF(name) { return /\.pdf$/i.test(name); }

// documentLink links the job's copy of a document, a PDF at the page.
function documentLink(s) {
  const page = s.page || s.first_page;
  const href = "/api/documents/" + encodeURIComponent(s.document) + (isPDF(s.document) && page ? "#page=" + page : "");
  const label = isPDF(s.document) && page ? `open the PDF at page ${page}` : "open the document";
  return el("a", { class: "doc-link", href, target: "_blank", rel: "noopener", onclick: (e) => openDocument(e, s.document, href) }, label);
}

// openDocument opens a document in a new tab. With a token the browser
// cannot send it on a plain link, so the page asks the server for the
// document's own address, which opens it without the token, sandboxed as
// the plain link is, at the same page. (Never from memory: a blob: address
// is of this page's origin and unsandboxed, where a hostile HTML document
// would read the token.)
async function openDocument(e, name, href) {
  if (!state.token) return;
  e.preventDefault();
  // Opened now, while the click lets the page open a tab; cut from this
  // page, as rel=noopener would.
  const tab = window.open("", "_blank");
  if (tab) tab.opener = null;
  try {
    const { url } = await api("GET", "/api/documents/" + encodeURIComponent(name) + "/link");
    const hash = href.indexOf("#");
    const target = url + (hash >= 0 ? href.slice(hash) : "");
    if (tab) tab.location.href = target;
    else window.open(target, "_blank", "noopener");
  } catch (err) {
    if (tab) tab.close();
    showError(err.message);
  }
}

function renderSource(s) {
  const pages = s.page ? "page " + s.page : s.first_page ? (s.last_page && s.last_page !== s.first_page ? `pages ${s.first_page}–${s.last_page}` : "page " + s.first_page) : null;
  const where = el("div", { class: "where" },
    el("b", {}, s.document),
    pages ? el("span", { class: "page" }, pages) : null,
    s.section && s.section.length ? el("span", { class: "section" }, s.section.join(" › ")) : null,
    el("span", {}, s.chunk),
    documentLink(s));
  const passage = el("pre", { class: "passage" }, s.before, el("mark", {}, s.quote), s.after);
  return el("div", { class: "source" }, where, s.problem ? el("div", { class: "problem" }, s.problem) : null, passage);
}

function renderDecision(rv) {
  const rows = Object.entries(rv.changes || {}).map(([k, c]) =>
    el("tr", {}, el("td", {}, k), el("td", {}, c.from), el("td", {}, c.to)));
  return el("div", { class: "decision " + rv.status },
    el("div", {}, el("b", {}, rv.status), rv.by ? ` by ${rv.by}` : "", rv.at ? [" on ", when(rv.at)] : null),
    rv.note ? el("div", {}, (rv.status === "rejected" ? "Reason: " : "Note: ") + rv.note) : null,
    rows.length ? el("div", { class: "scroll" }, el("table", { class: "changes" }, el("tr", {}, el("th", {}, "field"), el("th", {}, "extracted"), el("th", {}, "now")), rows)) : null);
}

function actions() {
  const d = state.detail;
  const canUndo = state.history === null || state.history.length > 0;
  return el("div", { class: "actions" },
    el("button", { class: "accept", id: "accept", type: "button", onclick: () => decide({ decision: "accepted" }) }, "Accept ", el("kbd", {}, "a")),
    el("button", { class: "reject", id: "reject", type: "button", onclick: () => setMode("reject") }, "Reject… ", el("kbd", {}, "r")),
    el("button", { class: "edit", id: "edit", type: "button", onclick: () => setMode("edit") }, "Edit… ", el("kbd", {}, "e")),
    el("button", { id: "undo", type: "button", disabled: !canUndo, title: "take back the last decision on this requirement", onclick: () => undo() }, "Undo ", el("kbd", {}, "u")),
    el("button", { id: "reset", type: "button", disabled: d.review_status === "pending", title: "no decision: back to pending", onclick: () => decide({ decision: "pending" }, { stay: true }) }, "Reset to pending"),
    el("span", { class: "nav" },
      el("button", { id: "prev", type: "button", onclick: () => move(-1) }, "Previous ", el("kbd", {}, "k")),
      el("button", { id: "next", type: "button", onclick: () => move(1) }, "Next ", el("kbd", {}, "j")),
      el("button", { id: "next-pending", type: "button", onclick: () => move(1, true) }, "Next pending ", el("kbd", {}, "n"))));
}

// loaded reports whether the requirement shown is the one selected.
function loaded() {
  return state.detail !== null && state.detail.id === state.selected;
}

function setMode(mode) {
  if (!loaded()) return;
  state.seq++;
  state.mode = mode;
  renderDetail();
}

function rejectForm() {
  const reason = el("textarea", { id: "reject-reason", "data-autofocus": true, placeholder: "Why is this not a requirement, or not this one?" });
  const submit = () => {
    const note = reason.value.trim();
    if (!note) { showError("A rejection needs its reason."); reason.focus(); return; }
    decide({ decision: "rejected", note });
  };
  reason.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); } });
  return el("form", { class: "form", id: "reject-form", onsubmit: (e) => { e.preventDefault(); submit(); } },
    el("label", {}, "Reason for rejecting " + state.detail.id, reason),
    el("div", {}, el("button", { class: "primary", id: "reject-save", type: "submit" }, "Reject ", el("kbd", {}, "Ctrl+Enter")), " ",
      el("button", { type: "button", onclick: () => setMode("view") }, "Cancel ", el("kbd", {}, "Esc"))));
}

function editForm() {
  const d = state.detail;
  const v = state.listing.vocabulary;
  const choice = (name, values) => el("select", { id: "edit-" + name, name },
    values.map((x) => el("option", { value: x, selected: x === d[name] }, x)));
  const title = el("input", { id: "edit-title", name: "title", value: d.title, maxlength: 80, "data-autofocus": true });
  const text = el("textarea", { id: "edit-text", name: "text" }, d.text);
  const note = el("input", { id: "edit-note", name: "note", placeholder: "note (optional)" });
  const submit = () => {
    const changes = {};
    const now = { title: title.value.trim(), text: text.value.trim(), type: $("edit-type").value, category: $("edit-category").value, priority: $("edit-priority").value };
    for (const [k, x] of Object.entries(now)) if (x !== d[k]) changes[k] = x;
    if (!Object.keys(changes).length) { showError("Nothing was changed; to keep the requirement as it is, accept it."); return; }
    const body = { decision: "edited", changes };
    if (note.value.trim()) body.note = note.value.trim();
    decide(body);
  };
  const form = el("form", { class: "form", id: "edit-form", onsubmit: (e) => { e.preventDefault(); submit(); } },
    el("label", {}, "Title", title),
    el("label", {}, "Text", text),
    el("div", { class: "row" },
      el("label", {}, "Type", choice("type", v.types)),
      el("label", {}, "Category", choice("category", v.categories)),
      el("label", {}, "Priority", choice("priority", v.priorities))),
    el("label", {}, "Note", note),
    el("div", { class: "hint" }, "The quote cannot be edited: it must stand verbatim in the source."),
    el("div", {}, el("button", { class: "primary", id: "edit-save", type: "submit" }, "Save edit ", el("kbd", {}, "Ctrl+Enter")), " ",
      el("button", { type: "button", onclick: () => setMode("view") }, "Cancel ", el("kbd", {}, "Esc"))));
  form.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); } });
  return form;
}

// describe says what a decision body does, for the conflict box.
function describe(body) {
  if (body.decision === "edited") return "edit of " + Object.keys(body.changes || {}).join(", ");
  if (body.decision === "pending") return "reset to pending";
  return body.decision === "accepted" ? "acceptance" : "rejection";
}

// decide sends a decision on the requirement shown, made on the version
// shown; opts.stay keeps it selected instead of going on to the next.
function decide(body, opts) {
  if (!loaded() || state.busy) return;
  named(() => send(body, opts || {}));
}

async function send(body, opts) {
  if (!loaded() || state.busy) return;
  const id = state.detail.id;
  state.busy = true;
  try {
    const sent = { ...body, reviewer: state.reviewer };
    if (state.detail.version !== undefined) sent.version = state.detail.version;
    const res = await api("POST", `/api/requirements/${encodeURIComponent(id)}/review`, sent);
    state.conflict = null;
    showError("");
    afterChange(id, res, !opts.stay);
  } catch (e) {
    if (e.status === 409 && e.data && e.data.requirement) {
      // Someone else decided on this requirement since it was loaded.
      state.conflict = { body, current: e.data.requirement, seen: state.detail };
      state.mode = "view";
      updateItem(e.data.requirement);
      showError("");
      renderDetail();
      $("conflict").scrollIntoView({ block: "nearest" });
    } else {
      showError(e.message);
    }
  } finally {
    state.busy = false;
  }
}

// afterChange takes the answer {requirement, progress} of a change to id,
// then shows the next requirement (goOn) or id again.
function afterChange(id, res, goOn) {
  state.listing.progress = res.progress;
  renderProgress();
  const i = state.listing.requirements.findIndex((r) => r.id === id);
  if (i >= 0) state.listing.requirements[i] = res.requirement;
  // Go on with the first requirement after this one, in the list as it
  // was, that the filters still show.
  const after = state.shown.slice(state.shown.findIndex((r) => r.id === id) + 1).map((r) => r.id);
  applyFilters();
  const next = goOn ? after.find((x) => state.shown.some((r) => r.id === x)) : null;
  state.mode = "view";
  select(next || id);
}

function conflictBox() {
  const { body, current, seen } = state.conflict;
  const rows = [];
  for (const k of [...FIELDS, "review_status"]) {
    if (seen[k] !== current[k]) rows.push(el("tr", {}, el("td", {}, k), el("td", {}, seen[k]), el("td", {}, current[k])));
  }
  const note = (r) => (r.review && r.review.note) || "";
  if (note(seen) !== note(current)) rows.push(el("tr", {}, el("td", {}, "note"), el("td", {}, note(seen)), el("td", {}, note(current))));
  const rv = current.review;
  const reapply = () => {
    const { body: mine, current: now } = state.conflict;
    state.detail = { ...state.detail, ...now };
    if (!now.review) delete state.detail.review;
    state.conflict = null;
    send(mine, { stay: true });
  };
  const discard = () => { state.conflict = null; select(current.id); };
  return el("div", { class: "conflict", id: "conflict", role: "alert" },
    el("div", {}, el("b", {}, "Changed meanwhile. "),
      `Your ${describe(body)} was not saved: ${current.id} changed after you opened it` +
        (seen.version !== undefined ? ` (you saw version ${seen.version}, it is now ${current.version})` : "") + ". ",
      rv ? [`Now ${rv.status}`, rv.by ? ` by ${rv.by}` : "", rv.at ? [" on ", when(rv.at)] : null, "."] : "It is now pending."),
    rows.length ? el("div", { class: "scroll" }, el("table", { class: "changes" },
      el("tr", {}, el("th", {}, "field"), el("th", {}, "you saw"), el("th", {}, "now")), rows)) : null,
    el("div", { class: "conflict-actions" },
      el("button", { class: "primary", id: "conflict-reapply", type: "button", onclick: reapply }, `Apply my ${describe(body)} to version ${current.version}`), " ",
      el("button", { id: "conflict-discard", type: "button", onclick: discard }, "Discard mine")));
}

function undo() {
  if (!loaded() || state.busy) return;
  named(async () => {
    const id = state.detail.id;
    state.busy = true;
    try {
      const res = await api("POST", `/api/requirements/${encodeURIComponent(id)}/undo`, { reviewer: state.reviewer });
      state.conflict = null;
      showError("");
      afterChange(id, res, false);
    } catch (e) {
      showError(e.status === 409 ? `Nothing to undo on ${id}: ${e.message}` : e.message);
    } finally {
      state.busy = false;
    }
  });
}

// ---- history and comments --------------------------------------------------

// action says what a history entry did.
function action(e) {
  const was = e.from !== e.to ? ` (was ${e.from})` : "";
  if (e.action === "undo") return `undid the last change: ${e.from} → ${e.to}`;
  if (e.action === "bulk") return `${e.to} in bulk${was}`;
  return e.to + was;
}

function renderHistory() {
  const h = state.history;
  if (h === null) return null;
  const items = h.slice().reverse().map((e) => {
    const changes = Object.entries(e.changes || {}).map(([k, c]) =>
      el("li", {}, el("b", {}, k), ": ", el("del", {}, c.old ?? ""), " → ", el("ins", {}, c.new ?? "")));
    return el("li", { class: "event" },
      el("div", { class: "event-head" }, when(e.time), " ", el("b", {}, e.reviewer || "someone"), " ", action(e),
        e.version !== undefined ? el("span", { class: "version" }, " v" + e.version) : null),
      e.note ? el("div", { class: "event-note" }, e.note) : null,
      changes.length ? el("ul", { class: "event-changes" }, changes) : null);
  });
  return el("section", { class: "history", id: "history" },
    el("div", { class: "label" }, "History"),
    items.length ? el("ol", { class: "events" }, items) : el("p", { class: "hint" }, "No decision yet."));
}

function renderComments() {
  const c = state.comments;
  if (c === null) return null;
  const text = el("textarea", { id: "comment-text", placeholder: "Add a comment for the other reviewers" });
  const submit = () => {
    const t = text.value.trim();
    if (!t) return;
    named(() => addComment(t));
  };
  text.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); } });
  return el("section", { class: "comments", id: "comments" },
    el("div", { class: "label" }, c.length ? `Comments (${c.length})` : "Comments"),
    el("ol", { class: "comment-list" }, c.map((x) =>
      el("li", { class: "comment" }, el("div", { class: "event-head" }, el("b", {}, x.reviewer || "someone"), " ", when(x.time)), el("div", { class: "comment-text" }, x.text)))),
    el("form", { class: "form", id: "comment-form", onsubmit: (e) => { e.preventDefault(); submit(); } },
      text, el("div", {}, el("button", { id: "comment-save", type: "submit" }, "Add comment ", el("kbd", {}, "Ctrl+Enter")))));
}

async function addComment(text) {
  if (!loaded()) return;
  const id = state.detail.id;
  try {
    const c = await api("POST", `/api/requirements/${encodeURIComponent(id)}/comments`, { reviewer: state.reviewer, text });
    if (state.selected !== id || state.comments === null) return;
    state.comments.push(c);
    showError("");
    const box = $("comments");
    if (box) box.replaceWith(renderComments());
  } catch (e) {
    showError(e.message);
  }
}

// ---- bulk decisions --------------------------------------------------------

let bulkDecision = "";

function openBulk(decision) {
  if (!state.shown.length) return;
  bulkDecision = decision;
  const n = state.shown.length;
  const decided = state.shown.filter((r) => r.review_status !== "pending" && r.review_status !== decision).length;
  $("bulk-title").textContent = `${decision === "accepted" ? "Accept" : "Reject"} ${n} requirement${n === 1 ? "" : "s"}?`;
  $("bulk-text").textContent = `Every requirement the filters show (${n} of ${state.listing.requirements.length}) gets this decision.` +
    (decided ? ` ${decided} of them have another decision now, which this replaces.` : "") +
    " A requirement someone else changed since this page showed it keeps that change.";
  $("bulk-note").value = "";
  $("bulk-note").required = decision === "rejected";
  $("bulk-note").placeholder = decision === "rejected" ? "the reason, for each of them (required)" : "note (optional)";
  $("bulk").showModal();
}

$("bulk-form").addEventListener("submit", (e) => {
  const note = $("bulk-note").value.trim();
  if (bulkDecision === "rejected" && !note) { e.preventDefault(); $("bulk-note").focus(); return; }
  const ids = state.shown.map((r) => r.id);
  // The versions the reviewer saw: a requirement changed since by someone
  // else keeps that change, and the banner says so.
  const versions = Object.fromEntries(state.shown.map((r) => [r.id, r.version || 0]));
  named(() => bulk(ids, bulkDecision, note, versions));
});
$("bulk-cancel").addEventListener("click", () => $("bulk").close());
$("bulk-accept").addEventListener("click", () => openBulk("accepted"));
$("bulk-reject").addEventListener("click", () => openBulk("rejected"));

async function bulk(ids, decision, note, versions) {
  try {
    const body = { ids, decision, reviewer: state.reviewer, versions };
    if (note) body.note = note;
    const res = await api("POST", "/api/review/bulk", body);
    const failed = [];
    for (const r of res.results) {
      if (r.error) failed.push(`${r.id}: ${r.error}`);
      if (r.requirement) {
        const i = state.listing.requirements.findIndex((x) => x.id === r.id);
        if (i >= 0) state.listing.requirements[i] = r.requirement;
      }
    }
    state.listing.progress = res.progress;
    renderProgress();
    applyFilters();
    showError(failed.length ? `${failed.length} of ${ids.length} not changed: ${failed.join("; ")}` : "");
    if (state.selected) {
      const msg = $("banner").textContent;
      await select(state.selected);
      if (msg) showError(msg);
    }
  } catch (e) {
    showError(e.message);
  }
}

// ---- export ----------------------------------------------------------------

$("export").addEventListener("submit", async (e) => {
  e.preventDefault();
  const format = $("export-format").value;
  try {
    const res = await request("GET", "/api/export?format=" + encodeURIComponent(format));
    if (!res.ok) {
      let msg = `export: ${res.status} ${res.statusText}`;
      try { msg = (await res.json()).error || msg; } catch (_) { /* not JSON */ }
      throw new Error(msg);
    }
    const m = /filename="?([^";]+)"?/.exec(res.headers.get("Content-Disposition") || "");
    const url = URL.createObjectURL(await res.blob());
    const a = el("a", { href: url, download: m ? m[1] : "requirements." + format, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    showError("");
  } catch (err) {
    showError(err.message);
  }
});

// ---- others' decisions -------------------------------------------------------

// refreshList takes in what other reviewers decided meanwhile when the
// reviewer comes back to the page: the list and the progress, and the
// requirement shown unless a form or a conflict is open on it.
async function refreshList() {
  if (!state.listing || document.hidden) return;
  try {
    const l = await api("GET", "/api/requirements");
    state.listing.requirements = l.requirements;
    state.listing.progress = l.progress;
    renderProgress();
    applyFilters();
    if (loaded() && state.mode === "view" && !state.conflict && !state.busy) {
      const now = l.requirements.find((r) => r.id === state.selected);
      if (now && now.version !== state.detail.version) select(state.selected);
    }
  } catch (e) {
    showError(e.message);
  }
}
document.addEventListener("visibilitychange", refreshList);
window.addEventListener("focus", refreshList);

// ---- keyboard --------------------------------------------------------------

document.addEventListener("keydown", (e) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
  if (e.key === "Escape") {
    if (state.mode !== "view") { e.preventDefault(); setMode("view"); }
    else if (typing) document.activeElement.blur();
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey || document.querySelector("dialog[open]")) return;
  const keys = {
    a: () => decide({ decision: "accepted" }),
    r: () => setMode("reject"),
    e: () => setMode("edit"),
    u: () => undo(),
    j: () => move(1), ArrowDown: () => move(1),
    k: () => move(-1), ArrowUp: () => move(-1),
    n: () => move(1, true),
    "/": () => $("f-text").focus(),
    "?": () => $("help").showModal(),
  };
  const f = keys[e.key];
  if (f) { e.preventDefault(); f(); }
});

$("help-button").addEventListener("click", () => $("help").showModal());
load();
