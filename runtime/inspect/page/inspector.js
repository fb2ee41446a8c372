// The Strata inspector's page: polls the JSON API once a second and draws
// the world, its systems and their gates, its state machines, history
// graphs (with the reloads and state changes marked), hierarchy, events,
// changed sets, aspects, archetypes, entities (with their links and
// structural edits), ad-hoc queries, resources, the live reloads the game
// lists, and the schedule.
// Plain JavaScript, nothing fetched from anywhere but this server.
"use strict";

const state = {
  world: null, picked: null, search: "", offset: 0, limit: 60, editing: false,
  open: new Set(), // tree nodes expanded: "Relation/4v1"
  shownEvent: null, // the event type whose values are listed
  history: [], historyStep: 0, // samples, oldest first, each with `at` (seconds on this page's clock)
  query: null, queryOffset: 0, queryLimit: 25,
};
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : String(c));
  return node;
}

// This run's secret, which the server put in the page: every write carries it.
const token = document.querySelector('meta[name="strata-token"]').content;

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json", "X-Strata-Token": token },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const type = response.headers.get("Content-Type") || "";
  const data = type.startsWith("application/json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error((data && data.error) || response.statusText);
  return data;
}

const ENTITY = /^[0-9]+v[0-9]+$/;
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function status(text) { $("status").textContent = text; }

function drawWorld(w) {
  state.world = w;
  state.queries = new Set(w.queries);
  $("world-name").textContent = `${w.world} v${w.version}`;
  const s = $("summary");
  s.replaceChildren();
  const item = (label, value, id) => s.append(el("span", {}, `${label} `, el("b", { id }, value)));
  item("entities", w.entities, "entities-count");
  item("archetypes", w.archetypes, "archetypes-count"); // every one the world made: the table's rows
  item("bytes", w.bytes.toLocaleString("en"), "bytes-count");
  item("step", w.step, "step-count");
  item("last step", `${w.last_step_ms.toFixed(3)} ms`, "step-time");
  item("average", `${w.average_step_ms.toFixed(3)} ms`, "step-average");
  item("inspector", `${w.inspector_ms.toFixed(3)} ms`, "inspector-time"); // a step's poll: answering this page, recording
  $("pause").textContent = w.paused ? "Resume" : "Pause";
  $("pause").disabled = $("step").disabled = !w.writes;
  $("mode").textContent = w.paused ? "paused" : (w.writes ? "running; writes on" : "running; read only");
  if (!state.filled) fillChoices(w);
}

// The choices the page offers, from the schema: what to create, add, query.
function fillChoices(w) {
  state.filled = true;
  $("spawn-what").append(...w.assemblages.map((a) => el("option", { value: a }, `assemblage ${a}`)));
  $("add-what").append(...w.components.map((c) => el("option", { value: c }, c)));
  $("q-relation").append(...w.relations.map((r) => el("option", { value: r.name }, r.name)));
  $("create-box").hidden = !w.writes;
  $("graph-system-pick").append(...w.systems.map((name, i) => el("option", { value: String(i) }, name)));
  completeNames();
}

// Autocompletion of component names in the query's lists: each suggestion
// is what is typed so far with one more name in place of the last one.
function completeNames() {
  const active = document.activeElement && document.activeElement.list ? document.activeElement : $("q-with");
  const typed = active.value;
  const head = typed.includes(",") ? typed.slice(0, typed.lastIndexOf(",") + 1) : "";
  const names = (state.world ? state.world.components : []).concat(state.world ? state.world.relations.map((r) => r.name) : []);
  $("q-names").replaceChildren(...[...new Set(names)].map((n) => el("option", { value: head + n })));
}

// A system's gate and transitions in words: "Mode: playing; if Settings.music; every 0.25 s; on enter Mode: playing".
function gateText(s) {
  const parts = [];
  const g = s.gate;
  if (g) {
    for (const [machine, states] of Object.entries(g.states)) parts.push(`${machine}: ${states.join(" | ")}`);
    for (const c of g.conditions) parts.push(`if ${c.when ? "" : "not "}${c.field}`);
    if (g.every !== undefined) parts.push(`every ${g.every} ${s.rate ? "runs" : "steps"}`);
    if (g.interval !== undefined) parts.push(`every ${g.interval} s`);
  }
  for (const t of s.on) parts.push(`on ${t.enter ? "enter" : "exit"} ${t.machine}: ${t.states.join(" | ")}`);
  return parts.join("; ");
}

function drawSystems(list) {
  const body = $("systems").tBodies[0];
  body.replaceChildren();
  const most = Math.max(1e-9, ...list.map((s) => s.average_ms));
  for (const s of list) {
    const box = el("input", { type: "checkbox", class: "enable", "aria-label": `enable ${s.name}` });
    box.checked = s.enabled;
    box.disabled = !(state.world && state.world.writes && s.switchable);
    box.addEventListener("change", () => api(`/api/system/${s.name}`, { enabled: box.checked }).then(refresh, fail));
    const bar = el("div", { class: "bar" });
    bar.style.width = `${(100 * s.average_ms) / most}%`;
    const row = el("tr", { "data-system": s.name, class: s.enabled ? "on" : "off" },
      el("td", { class: "num" }, s.order), el("td", { title: `reads ${s.reads.join(", ") || "-"}; writes ${s.writes.join(", ") || "-"}` }, s.name),
      el("td", {}, s.rate ? `${s.phase} (${s.rate}/s)` : s.phase),
      el("td", { class: s.gate && !s.gate.open ? "gate shut" : "gate" }, gateText(s)), el("td", { class: "num batch" }, s.batch ?? ""), el("td", {}, box), el("td", { class: "num visited" }, s.runs ? s.visited : s.matching),
      el("td", { class: "num last" }, s.last_ms.toFixed(3)), el("td", { class: "num" }, s.average_ms.toFixed(3)),
      el("td", {}, bar));
    row.dataset.runs = s.runs;
    body.append(row);
  }
}

// Each state machine, with a menu that asks for a transition (applied at the
// next step, running the on_exit and on_enter systems).
function drawStates(list) {
  if (state.editing) return;
  drawRows("states", "states-none", list.map((m) => {
    const pick = el("select", { "aria-label": `state of ${m.name}` }, ...m.states.map((name) => el("option", { value: name }, name)));
    pick.value = m.current;
    pick.disabled = !(state.world && state.world.writes);
    pick.addEventListener("focus", () => { state.editing = true; });
    pick.addEventListener("blur", () => { state.editing = false; });
    pick.addEventListener("change", () => api(`/api/state/${m.name}`, { state: pick.value })
      .then(() => { status(`${m.name} asked to go to ${pick.value}`); state.editing = false; refresh(); }, fail));
    return el("tr", { "data-machine": m.name }, el("td", {}, m.name), el("td", {}, pick), el("td", { class: "next" }, m.next ?? ""));
  }));
}

// A table of rows, or its "none" note when there are no rows.
function drawRows(table, none, rows) {
  $(table).tBodies[0].replaceChildren(...rows);
  $(table).hidden = rows.length === 0;
  $(none).hidden = rows.length !== 0;
}

function drawChanges(changes) {
  drawRows("changes", "changes-none", changes.components.map((c) => el("tr", { "data-component": c.name },
    el("td", {}, c.name), el("td", { class: "num marked" }, c.marked), el("td", {}, c.tracked_by.join(", ")))));
}

function drawAspects(list) {
  drawRows("aspects", "aspects-none", list.map((a) => el("tr", { "data-aspect": a.system },
    el("td", {}, a.system), el("td", { class: "num members" }, a.members), el("td", { class: "num" }, a.size))));
}

function drawArchetypes(list) {
  const body = $("archetypes").tBodies[0];
  body.replaceChildren();
  for (const a of list) {
    body.append(el("tr", { "data-archetype": a.id }, el("td", { class: "num" }, a.id),
      el("td", { class: "num count" }, a.count), el("td", { class: "num" }, a.row_bytes),
      el("td", {}, a.components.join(", ") || "(none)")));
  }
}

function entityQuery() {
  const text = state.search.trim();
  const page = `offset=${state.offset}&limit=${state.limit}`;
  if (text === "") return page;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text) && state.queries && state.queries.has(text)) return `${page}&query=${text}`;
  return `${page}&with=${encodeURIComponent(text.replace(/\s+/g, ""))}`;
}

async function drawEntities() {
  const text = state.search.trim();
  const list = $("entity-list");
  if (ENTITY.test(text)) {
    list.replaceChildren(entityItem(text));
    $("entity-range").textContent = "by id";
    return;
  }
  const page = await api(`/api/entities?${entityQuery()}`);
  list.replaceChildren(...page.entities.map((e) => entityItem(e.id, e.label)));
  const last = Math.min(page.total, page.offset + page.entities.length);
  $("entity-range").textContent = `${page.total ? page.offset + 1 : 0}-${last} of ${page.total}`;
  $("entity-range").dataset.total = page.total;
}

// An entity is spelled "4v1" (its index, v, its generation) everywhere: the
// list, the picked entity's title, the API's paths and answers.
function entityItem(id, label) {
  const item = el("li", { "data-entity": id, title: `entity ${id}: index ${id.split("v")[0]}, generation ${id.split("v")[1]}` },
    el("span", { class: "eid" }, id), label ? el("span", { class: "label" }, label) : "");
  if (String(id) === String(state.picked)) item.classList.add("picked");
  item.addEventListener("click", () => pick(id));
  return item;
}

// Show entity id in the entity view (from the list, the tree, a link, a query row).
function pick(id) {
  state.picked = String(id);
  drawEntity().catch(fail);
}

// A clickable entity: "4v1" and its label, if it has one; a click picks it.
function entityRef(ref) {
  const node = el("span", { class: "ref", "data-ref": ref.id, title: `pick ${ref.id}` }, ref.id,
    ref.label ? el("span", { class: "label" }, ref.label) : "");
  node.addEventListener("click", (ev) => { ev.stopPropagation(); pick(ref.id); });
  return node;
}

// One field input (or text) for every scalar inside a component's value.
function fieldRows(prefix, value, path, onSet) {
  const rows = [];
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) rows.push(...fieldRows(prefix, v, path ? `${path}.${k}` : k, onSet));
    return rows;
  }
  const writable = state.world && state.world.writes;
  const shown = value === null ? "null" : String(value);
  const input = writable ? el("input", { "data-path": `${prefix}.${path}`, value: shown }) : el("span", { "data-path": `${prefix}.${path}` }, shown);
  if (writable) {
    input.addEventListener("focus", () => { state.editing = true; });
    input.addEventListener("blur", () => { state.editing = false; });
    input.addEventListener("change", () => {
      // The value as JSON text: a number as typed (so a 64-bit integer keeps
      // every digit), a boolean, else a string ("nan", "inf", a u64 past
      // 2^63 as digits, a name, a text); the server's codec checks it.
      const text = input.value.trim();
      const numeric = typeof value === "number" || ["nan", "inf", "-inf"].includes(value);
      let v = JSON.stringify(input.value);
      if (numeric && JSON_NUMBER.test(text)) v = text;
      else if ((value === null || ENTITY.test(value)) && text === "null") v = "null"; // an entity field emptied
      else if (typeof value === "boolean") v = text === "true" ? "true" : text === "false" ? "false" : v;
      onSet(path, v).then(() => { input.style.background = ""; status(`${prefix}.${path} set to ${input.value}`); refresh(); },
        (err) => { input.style.background = "#fbd"; fail(err); });
    });
  }
  rows.push(el("div", { class: "field" }, el("label", {}, path), input));
  return rows;
}

async function drawEntity() {
  if (state.picked === null || state.editing) return;
  const box = $("entity");
  $("entity-id").textContent = state.picked;
  let e, more;
  try {
    e = await api(`/api/entity/${state.picked}`);
    more = await api(`/api/entity-state/${state.picked}`);
  } catch (err) {
    box.replaceChildren(el("p", { class: "hint" }, `${err.message}`));
    $("entity-links").replaceChildren();
    $("entity-actions").hidden = true;
    return;
  }
  $("entity-id").textContent = state.picked;
  $("entity-id").title = e.label || "";
  const parts = [];
  const writes = state.world && state.world.writes;
  for (const [name, value] of Object.entries(e.components)) {
    const set = (field, v) => api(`/api/entity/${state.picked}`,
      `{"component":${JSON.stringify(name)},"field":${JSON.stringify(field)},"value":${v}}`);
    const marked = more.marked.includes(name);
    const remove = writes ? el("button", { type: "button", class: "remove", title: `remove ${name}` }, "remove") : "";
    if (remove) remove.addEventListener("click", () => edit(`/api/remove/${state.picked}`, { component: name }, `${name} removed`));
    const title = el("h3", {}, name, marked ? el("span", { class: "marked", title: "written since the systems watching it last ran" }, "changed") : "", remove);
    const fields = value && Array.isArray(value.targets)
      ? [el("div", { class: "field" }, el("label", {}, "targets"), ...value.targets.map((t) => entityRef({ id: t })))]
      : fieldRows(name, value || {}, "", set);
    parts.push(el("div", { class: "component", "data-component": name }, title, ...fields));
  }
  for (const a of more.aspects) {
    parts.push(el("div", { class: "component aspect", "data-aspect": a.system }, el("h3", {}, `aspect of ${a.system}`),
      el("div", { class: "field" }, el("label", {}, "bytes"), el("code", {}, a.bytes || "(empty)"))));
  }
  box.replaceChildren(...parts);
  if (e.label) $("entity-id").append(el("span", { class: "label" }, e.label));
  for (const li of $("entity-list").children) li.classList.toggle("picked", li.dataset.entity === state.picked);
  $("entity-actions").hidden = !writes;
  drawLinks(await api(`/api/links/${state.picked}`));
}

// The picked entity's links in every relation, each entity clickable.
function drawLinks(links) {
  const parts = [];
  for (const r of links.relations) {
    if (r.targets.length === 0 && r.source_count === 0) continue;
    const row = el("div", { class: "links", "data-relation": r.relation }, el("h3", {}, r.relation));
    if (r.targets.length) row.append(el("div", { class: "field" }, el("label", {}, r.exclusive ? "target" : "targets"), ...r.targets.map(entityRef)));
    if (r.source_count) {
      row.append(el("div", { class: "field sources" }, el("label", {}, `sources (${r.source_count})`), ...r.sources.map(entityRef),
        r.source_count > r.sources.length ? el("span", { class: "count" }, `and ${r.source_count - r.sources.length} more`) : ""));
    }
    parts.push(row);
  }
  $("entity-links").replaceChildren(...parts);
}

// A structural edit: POST it, say what happened, and redraw.
function edit(path, body, done) {
  return api(path, body).then((answer) => { status(typeof done === "function" ? done(answer) : done); return refresh(); }, fail);
}

async function drawResources() {
  if (state.editing) return;
  const res = await api("/api/resources");
  const parts = [];
  for (const [name, value] of Object.entries(res)) {
    const set = (field, v) => api("/api/resource",
      `{"resource":${JSON.stringify(name)},"field":${JSON.stringify(field)},"value":${v}}`);
    parts.push(el("div", { class: "component", "data-resource": name }, el("h3", {}, name), ...fieldRows(name, value, "", set)));
  }
  $("resources").replaceChildren(...parts);
}

// The live reloads (docs/live.md), newest first; the panel shows only when there are some.
function drawReloads(list) {
  $("reloads-section").hidden = list.length === 0;
  $("reloads").tBodies[0].replaceChildren(...list.map((r) => el("tr", { "data-reload": r.number, class: r.outcome },
    el("td", { class: "num" }, r.number), el("td", { class: "outcome" }, r.outcome),
    el("td", { class: "num" }, r.at.toFixed(1)), el("td", { class: "num" }, r.ms ? r.ms.toFixed(0) : ""),
    el("td", {}, el("pre", {}, r.text.trimEnd())))));
}

async function drawSchedule() {
  const svg = await api("/api/schedule.svg");
  $("schedule").innerHTML = svg; // our own server's SVG of schema names
}

// --- The hierarchy: a tree per exclusive relation ---------------------------------

async function drawTrees() {
  const relations = state.world.relations.filter((r) => r.exclusive);
  $("trees-none").hidden = relations.length !== 0;
  const parts = [];
  for (const r of relations) {
    const roots = await api(`/api/tree?relation=${r.name}&limit=200`);
    parts.push(el("div", { class: "tree-box", "data-relation": r.name }, el("h3", {}, `${r.name} `, el("span", { class: "count" }, `${roots.total} roots`)),
      await treeLevel(r.name, roots)));
  }
  $("trees").replaceChildren(...parts);
}

// One level of a tree: each node with its count of sources, expandable.
async function treeLevel(relation, level) {
  const list = el("ul", { class: "tree" });
  for (const node of level.nodes) {
    const key = `${relation}/${node.id}`;
    const open = state.open.has(key) && node.children > 0;
    const toggle = el("span", { class: "toggle", "data-toggle": node.id }, node.children ? (open ? "\u25be" : "\u25b8") : "\u00b7");
    toggle.addEventListener("click", () => {
      if (state.open.has(key)) state.open.delete(key); else state.open.add(key);
      drawTrees().catch(fail);
    });
    const item = el("li", { "data-node": node.id }, toggle, entityRef(node), el("span", { class: "count children" }, node.children ? `(${node.children})` : ""));
    if (open) item.append(await treeLevel(relation, await api(`/api/tree?relation=${relation}&parent=${node.id}&limit=200`)));
    list.append(item);
  }
  if (level.total > level.offset + level.nodes.length) list.append(el("li", { class: "count" }, `${level.total - level.nodes.length} more`));
  return list;
}

// --- Events ------------------------------------------------------------------------

function drawEvents(events) {
  drawRows("events", "events-none", events.events.map((e) => {
    const row = el("tr", { "data-event": e.name, class: "pickable" }, el("td", { class: "ref" }, e.name),
      el("td", { class: "num last-step" }, e.last_step), el("td", { class: "num" }, e.total), el("td", { class: "num" }, e.held));
    row.addEventListener("click", () => { state.shownEvent = e.name; drawEvents(events); });
    return row;
  }));
  const shown = events.events.find((e) => e.name === state.shownEvent) || events.events[0];
  const box = $("event-values");
  if (!shown) { box.replaceChildren(); return; }
  box.replaceChildren(el("h3", {}, `${shown.name}: the last ${shown.recent.length}, newest first`),
    ...shown.recent.map((v) => el("div", { class: "event-value", "data-step": v.step }, `step ${v.step}, ${v.system}: `, eventValue(v.value))));
}

// An event's value: its fields, entities clickable.
function eventValue(value) {
  const parts = [];
  for (const [k, v] of Object.entries(value)) {
    parts.push(el("span", { "data-field": k }, `${k} `, typeof v === "string" && ENTITY.test(v) ? entityRef({ id: v }) : JSON.stringify(v), " "));
  }
  return el("span", {}, ...parts);
}

// --- History: graphs of the last 10 s ----------------------------------------------

const COLOURS = ["#3a6fd8", "#d8843a", "#2f8a5b", "#b04f7a", "#7a4fb0", "#8a8a2f", "#2f7f8a", "#c0392b"];
// The same, lighter: a stacked graph's areas (opaque, so each hides the one below it).
const TINTS = ["#b3c8f1", "#f1d0b3", "#acd5bf", "#e2b8cb", "#cbb8e2", "#d5d5ac", "#acd0d5", "#ebb3ad"];

async function drawHistory() {
  const h = await api(`/api/history?since=${state.historyStep}`);
  const now = performance.now() / 1000;
  for (let i = 0; i < h.step.length; i++) {
    state.history.push({ at: now - h.ago[i], step: h.step[i], step_ms: h.step_ms[i], entities: h.entities[i],
      tables: h.tables[i], bytes: h.bytes[i], systems: h.system_ms[i] });
  }
  if (h.step.length) state.historyStep = h.step[h.step.length - 1];
  state.marks = h.marks.map((m) => ({ at: now - m.ago, kind: m.kind, text: m.text })); // the span's, every time
  state.history = state.history.filter((s) => now - s.at <= h.seconds);
  const samples = state.history;
  $("history-section").dataset.samples = samples.length;
  $("history-section").dataset.last = state.historyStep;
  const last = samples[samples.length - 1];
  $("graph-step-value").textContent = last ? `${last.step_ms.toFixed(3)}` : "";
  $("graph-entities-value").textContent = last ? last.entities : "";
  $("graph-tables-value").textContent = last ? last.tables : "";
  $("graph-bytes-value").textContent = last ? last.bytes.toLocaleString("en") : "";
  plot("graph-step", samples, now, h.seconds, [(s) => s.step_ms]);
  plot("graph-entities", samples, now, h.seconds, [(s) => s.entities]);
  plot("graph-tables", samples, now, h.seconds, [(s) => s.tables]);
  plot("graph-bytes", samples, now, h.seconds, [(s) => s.bytes]);
  const pickSystem = $("graph-system-pick").value;
  const which = pickSystem === "" ? h.systems.map((_, i) => i) : [Number(pickSystem)];
  // Stacked: line k is the sum of the systems up to k.
  plot("graph-systems", samples, now, h.seconds,
    which.map((_, k) => (s) => which.slice(0, k + 1).reduce((sum, i) => sum + (s.systems[i] || 0), 0)), which.length > 1);
  $("graph-legend").replaceChildren(...which.map((i, k) => el("span", {}, el("i", { class: `c${k % COLOURS.length}` }), h.systems[i])));
  for (const [k, node] of [...$("graph-legend").querySelectorAll("i")].entries()) node.style.background = COLOURS[k % COLOURS.length];
}

// Lines of samples against time (the last `span` seconds, now at the right
// edge), scaled to the largest value; `fill`: stacked areas.
function plot(id, samples, now, span, lines, fill = false) {
  const canvas = $(id);
  const g = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  g.clearRect(0, 0, w, h);
  let top = 0;
  for (const s of samples) for (const f of lines) top = Math.max(top, f(s));
  top = top > 0 ? top * 1.1 : 1;
  const x = (s) => w - ((now - s.at) / span) * w;
  const y = (v) => h - 2 - (v / top) * (h - 14);
  g.font = "10px sans-serif";
  g.fillStyle = "#5b6478";
  g.fillText(top >= 100 ? Math.round(top).toLocaleString("en") : top.toPrecision(3), 2, 10);
  for (let k = lines.length - 1; k >= 0; k--) {
    g.beginPath();
    samples.forEach((s, i) => (i ? g.lineTo(x(s), y(lines[k](s))) : g.moveTo(x(s), y(lines[k](s)))));
    if (fill && samples.length) { // the area under line k: the systems up to k; the next one paints over it
      g.lineTo(x(samples[samples.length - 1]), h);
      g.lineTo(x(samples[0]), h);
      g.fillStyle = TINTS[k % TINTS.length];
      g.fill();
      g.beginPath();
      samples.forEach((s, i) => (i ? g.lineTo(x(s), y(lines[k](s))) : g.moveTo(x(s), y(lines[k](s)))));
    }
    g.strokeStyle = COLOURS[k % COLOURS.length];
    g.stroke();
  }
  // What changed the world's course: a state machine's change, a reload; labelled on the step's graph.
  for (const m of state.marks || []) {
    g.strokeStyle = g.fillStyle = m.kind === "reload" ? "#c0392b" : "#7a4fb0";
    g.setLineDash([3, 3]);
    g.beginPath();
    g.moveTo(x(m), 0);
    g.lineTo(x(m), h);
    g.stroke();
    g.setLineDash([]);
    if (id === "graph-step") g.fillText(m.text, Math.min(x(m) + 3, w - 90), 20);
  }
  canvas.dataset.points = samples.length;
  canvas.dataset.marks = (state.marks || []).map((m) => m.text).join("|");
}

// --- Ad-hoc queries ------------------------------------------------------------------

function readQuery() {
  const list = (id) => $(id).value.replace(/\s+/g, "");
  const q = new URLSearchParams();
  for (const [key, id] of [["with", "q-with"], ["without", "q-without"], ["optional", "q-optional"]]) if (list(id)) q.set(key, list(id));
  if ($("q-relation").value) q.set("relation", $("q-relation").value);
  if ($("q-target").value.trim()) q.set("target", $("q-target").value.trim());
  return q;
}

async function drawQuery() {
  if (state.query === null) return;
  const q = new URLSearchParams(state.query);
  q.set("offset", state.queryOffset);
  q.set("limit", state.queryLimit);
  let result;
  try {
    result = await api(`/api/query?${q}`);
  } catch (err) {
    $("q-range").textContent = err.message;
    $("q-range").dataset.total = "";
    $("q-results").tHead.replaceChildren();
    $("q-results").tBodies[0].replaceChildren();
    return;
  }
  const last = result.offset + result.entities.length;
  $("q-range").textContent = `${result.total ? result.offset + 1 : 0}-${last} of ${result.total}`;
  $("q-range").dataset.total = result.total;
  $("q-results").tHead.replaceChildren(el("tr", {}, el("th", {}, "entity"), ...result.columns.map((c) => el("th", {}, c))));
  $("q-results").tBodies[0].replaceChildren(...result.entities.map((e) => el("tr", { "data-entity": e.id }, el("td", {}, entityRef(e)),
    ...result.columns.map((c) => el("td", {}, e.values[c] === null ? "-" : JSON.stringify(e.values[c]))))));
}

function fail(err) { status(`error: ${err.message}`); }

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    drawWorld(await api("/api/world"));
    const systems = (await api("/api/systems")).systems;
    drawSystems(systems);
    drawStates((await api("/api/states")).machines);
    drawChanges(await api("/api/changes"));
    drawAspects((await api("/api/aspects")).aspects);
    drawArchetypes((await api("/api/archetypes")).archetypes);
    await drawHistory();
    await drawTrees();
    drawEvents(await api("/api/events"));
    await drawQuery();
    await drawEntities();
    await drawEntity();
    await drawResources();
    drawReloads((await api("/api/reloads")).reloads);
    await drawSchedule();
    document.body.dataset.ready = "yes";
    if (!$("status").textContent.startsWith("error")) status(`updated ${new Date().toLocaleTimeString()}`);
  } catch (err) {
    fail(err);
  } finally {
    busy = false;
  }
}

$("search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  state.search = $("search").value;
  state.offset = 0;
  refresh();
});
$("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - state.limit); refresh(); });
$("next").addEventListener("click", () => {
  const total = Number($("entity-range").dataset.total || 0);
  if (state.offset + state.limit < total) state.offset += state.limit;
  refresh();
});
$("query-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  state.query = readQuery().toString();
  state.queryOffset = 0;
  drawQuery().catch(fail);
});
for (const id of ["q-with", "q-without", "q-optional"]) $(id).addEventListener("input", completeNames);
$("q-prev").addEventListener("click", () => { state.queryOffset = Math.max(0, state.queryOffset - state.queryLimit); drawQuery().catch(fail); });
$("q-next").addEventListener("click", () => {
  if (state.queryOffset + state.queryLimit < Number($("q-range").dataset.total || 0)) state.queryOffset += state.queryLimit;
  drawQuery().catch(fail);
});
$("create").addEventListener("click", () => {
  const what = $("spawn-what").value;
  edit("/api/create", what ? { assemblage: what } : {}, (a) => { state.picked = a.id; return `created ${a.id}`; });
});
$("destroy").addEventListener("click", () => {
  const id = state.picked;
  edit(`/api/destroy/${id}`, {}, () => { state.picked = null; $("entity").replaceChildren(); $("entity-links").replaceChildren(); return `destroyed ${id}`; });
});
$("add-what").addEventListener("change", () => {
  const relation = state.world.relations.some((r) => r.name === $("add-what").value);
  $("add-target").hidden = !relation;
});
$("add").addEventListener("click", () => {
  const body = { component: $("add-what").value };
  if (!$("add-target").hidden) body.target = $("add-target").value.trim();
  edit(`/api/add/${state.picked}`, body, () => `${body.component} added to ${state.picked}`);
});
$("pause").addEventListener("click", () => api("/api/pause", { paused: !state.world.paused }).then(refresh, fail));
$("step").addEventListener("click", () => api("/api/step", {}).then(refresh, fail));

state.queries = new Set();
refresh();
setInterval(refresh, 1000);
