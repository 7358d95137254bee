// The review page: lists a job's requirements, shows the selected one with
// its sources, and sends decisions to the API it is served with.
"use strict";

const state = {
  listing: null,   // GET /api/requirements
  shown: [],       // the requirements the filters let through
  selected: null,  // id
  detail: null,    // GET /api/requirements/{id}
  mode: "view",    // view | reject | edit
  busy: false,
  seq: 0,          // of the latest detail request: older answers are dropped
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) throw new Error((data && data.error) || `${method} ${path}: ${res.status} ${res.statusText}`);
  return data;
}

function showError(msg) {
  const b = $("banner");
  b.textContent = msg;
  b.hidden = !msg;
}

// ---- loading -------------------------------------------------------------

async function load() {
  try {
    state.listing = await api("GET", "/api/requirements");
  } catch (e) {
    showError(e.message);
    return;
  }
  $("job").textContent = "· job " + state.listing.job + (state.listing.from === "saved" ? " (no output yet: the requirements saved so far)" : "");
  fillFilters();
  renderProgress();
  applyFilters();
  const wanted = decodeURIComponent(location.hash.slice(1));
  const first = state.shown.find((r) => r.id === wanted) || state.shown[0];
  if (first) select(first.id);
  if (state.listing.problems && state.listing.problems.length) showError(state.listing.problems.join("; "));
}

function fillFilters() {
  const v = state.listing.vocabulary;
  const fill = (id, values) => {
    const s = $(id);
    for (const x of values) s.append(el("option", { value: x }, x));
  };
  fill("f-status", ["pending", ...v.decisions]);
  fill("f-type", v.types);
  fill("f-category", v.categories);
  fill("f-priority", v.priorities);
  const frameworks = new Set();
  for (const r of state.listing.requirements) for (const f of r.frameworks) frameworks.add(f);
  fill("f-framework", [...frameworks].sort());
  for (const id of ["f-text", "f-status", "f-type", "f-category", "f-priority", "f-framework"]) {
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

function applyFilters() {
  const q = $("f-text").value.trim().toLowerCase();
  const want = {
    review_status: $("f-status").value, type: $("f-type").value,
    category: $("f-category").value, priority: $("f-priority").value,
  };
  const framework = $("f-framework").value;
  state.shown = state.listing.requirements.filter((r) => {
    for (const [k, v] of Object.entries(want)) if (v && r[k] !== v) return false;
    if (framework && !r.frameworks.includes(framework)) return false;
    if (!q) return true;
    const hay = [r.id, r.source_id || "", r.title, r.text, r.rationale, ...r.citations.map((c) => c.quote),
      ...Object.entries(r.attributes || {}).map(([k, v]) => k + ": " + v)].join("\n").toLowerCase();
    return hay.includes(q);
  });
  renderList();
}

function renderList() {
  const list = $("list");
  list.replaceChildren(...state.shown.map((r) =>
    el("li", { "data-id": r.id, class: r.id === state.selected ? "selected" : "", onclick: () => select(r.id) },
      el("span", { class: "id" }, r.id),
      el("span", { class: "title", title: r.title }, r.source_id ? el("span", { class: "sid" }, r.source_id) : null, r.title),
      el("span", { class: "badge " + r.review_status }, r.review_status))));
  const total = state.listing.requirements.length;
  $("list-count").textContent = state.shown.length === total ? `${total} requirements` : `${state.shown.length} of ${total} requirements`;
  const sel = list.querySelector("li.selected");
  if (sel) sel.scrollIntoView({ block: "nearest" });
}

async function select(id) {
  const seq = ++state.seq;
  state.selected = id;
  state.mode = "view";
  history.replaceState(null, "", "#" + encodeURIComponent(id));
  for (const li of $("list").children) li.classList.toggle("selected", li.dataset.id === id);
  const sel = $("list").querySelector("li.selected");
  if (sel) sel.scrollIntoView({ block: "nearest" });
  try {
    const d = await api("GET", "/api/requirements/" + encodeURIComponent(id));
    // Another was selected meanwhile, or a form opened on this one: an
    // older answer must not redraw over it.
    if (seq !== state.seq) return;
    state.detail = d;
    showError("");
    renderDetail();
  } catch (e) {
    showError(e.message);
  }
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
  const sources = d.sources.map((s) => {
    const where = el("div", { class: "where" },
      el("b", {}, s.document),
      s.page ? el("span", {}, "page " + s.page) : null,
      s.section && s.section.length ? el("span", { class: "section" }, s.section.join(" › ")) : null,
      el("span", {}, s.chunk));
    const passage = el("pre", { class: "passage" }, s.before, el("mark", {}, s.quote), s.after);
    return el("div", { class: "source" }, where, s.problem ? el("div", { class: "problem" }, s.problem) : null, passage);
  });
  const parts = [
    el("div", { class: "head" },
      el("span", { class: "rid" }, d.id), el("h2", {}, d.title),
      el("span", { class: "badge " + d.review_status }, d.review_status)),
    actions(),
    el("p", { class: "text" }, d.text), meta, source,
    el("div", { class: "label" }, "Rationale"), el("div", {}, d.rationale),
    d.review ? renderDecision(d.review) : null,
    state.mode === "reject" ? rejectForm() : null,
    state.mode === "edit" ? editForm() : null,
    el("div", { class: "label" }, d.sources.length > 1 ? "Sources" : "Source"), ...sources,
  ];
  pane.replaceChildren(...parts.filter((p) => p !== null));
  for (const m of pane.querySelectorAll(".passage mark")) {
    const box = m.parentElement;
    box.scrollTop = Math.max(0, m.offsetTop - box.offsetTop - box.clientHeight / 3);
  }
  const focus = pane.querySelector("[data-autofocus]");
  if (focus) focus.focus();
}

function renderDecision(rv) {
  const rows = Object.entries(rv.changes || {}).map(([k, c]) =>
    el("tr", {}, el("td", {}, k), el("td", {}, c.from), el("td", {}, c.to)));
  return el("div", { class: "decision " + rv.status },
    el("div", {}, el("b", {}, rv.status), rv.by ? ` by ${rv.by}` : "", ` at ${rv.at}`),
    rv.note ? el("div", {}, (rv.status === "rejected" ? "Reason: " : "Note: ") + rv.note) : null,
    rows.length ? el("table", { class: "changes" }, el("tr", {}, el("th", {}, "field"), el("th", {}, "extracted"), el("th", {}, "now")), rows) : null);
}

function actions() {
  return el("div", { class: "actions" },
    el("button", { class: "accept", id: "accept", type: "button", onclick: () => decide({ decision: "accepted" }) }, "Accept ", el("kbd", {}, "a")),
    el("button", { class: "reject", id: "reject", type: "button", onclick: () => setMode("reject") }, "Reject… ", el("kbd", {}, "r")),
    el("button", { class: "edit", id: "edit", type: "button", onclick: () => setMode("edit") }, "Edit… ", el("kbd", {}, "e")),
    el("button", { id: "prev", type: "button", onclick: () => move(-1) }, "Previous ", el("kbd", {}, "k")),
    el("button", { id: "next", type: "button", onclick: () => move(1) }, "Next ", el("kbd", {}, "j")),
    el("button", { id: "next-pending", type: "button", onclick: () => move(1, true) }, "Next pending ", el("kbd", {}, "n")));
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

async function decide(body) {
  if (!loaded() || state.busy) return;
  const id = state.detail.id;
  state.busy = true;
  try {
    const res = await api("POST", `/api/requirements/${encodeURIComponent(id)}/review`, body);
    showError("");
    const i = state.listing.requirements.findIndex((r) => r.id === id);
    if (i >= 0) state.listing.requirements[i] = res.requirement;
    state.listing.progress = res.progress;
    renderProgress();
    // Go on with the first requirement after this one, in the list as it
    // was, that the filters still show.
    const after = state.shown.slice(state.shown.findIndex((r) => r.id === id) + 1).map((r) => r.id);
    applyFilters();
    const next = after.find((x) => state.shown.some((r) => r.id === x));
    state.mode = "view";
    select(next || id);
  } catch (e) {
    showError(e.message);
  } finally {
    state.busy = false;
  }
}

// ---- keyboard --------------------------------------------------------------

document.addEventListener("keydown", (e) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
  if (e.key === "Escape") {
    if (state.mode !== "view") { e.preventDefault(); setMode("view"); }
    else if (typing) document.activeElement.blur();
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey || $("help").open) return;
  const keys = {
    a: () => decide({ decision: "accepted" }),
    r: () => setMode("reject"),
    e: () => setMode("edit"),
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
