// The Strata inspector's page: polls the JSON API once a second and draws
// the world, its systems and their gates, its state machines, changed sets, aspects, archetypes, entities,
// resources, the live reloads the game lists, and the schedule.
// Plain JavaScript, nothing fetched from anywhere but this server.
"use strict";

const state = { world: null, picked: null, search: "", offset: 0, limit: 60, editing: false };
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
  $("pause").textContent = w.paused ? "Resume" : "Pause";
  $("pause").disabled = $("step").disabled = !w.writes;
  $("mode").textContent = w.paused ? "paused" : (w.writes ? "running; writes on" : "running; read only");
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
  list.replaceChildren(...page.entities.map((e) => entityItem(e.id)));
  const last = Math.min(page.total, page.offset + page.entities.length);
  $("entity-range").textContent = `${page.total ? page.offset + 1 : 0}-${last} of ${page.total}`;
  $("entity-range").dataset.total = page.total;
}

// An entity is spelled "4v1" (its index, v, its generation) everywhere: the
// list, the picked entity's title, the API's paths and answers.
function entityItem(id) {
  const item = el("li", { "data-entity": id, title: `entity ${id}: index ${id.split("v")[0]}, generation ${id.split("v")[1]}` }, id);
  if (String(id) === String(state.picked)) item.classList.add("picked");
  item.addEventListener("click", () => { state.picked = String(id); drawEntity().catch(fail); });
  return item;
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
    return;
  }
  const parts = [];
  for (const [name, value] of Object.entries(e.components)) {
    const set = (field, v) => api(`/api/entity/${state.picked}`,
      `{"component":${JSON.stringify(name)},"field":${JSON.stringify(field)},"value":${v}}`);
    const marked = more.marked.includes(name);
    const title = el("h3", {}, name, marked ? el("span", { class: "marked", title: "written since the systems watching it last ran" }, "changed") : "");
    parts.push(el("div", { class: "component", "data-component": name }, title, ...fieldRows(name, value || {}, "", set)));
  }
  for (const a of more.aspects) {
    parts.push(el("div", { class: "component aspect", "data-aspect": a.system }, el("h3", {}, `aspect of ${a.system}`),
      el("div", { class: "field" }, el("label", {}, "bytes"), el("code", {}, a.bytes || "(empty)"))));
  }
  box.replaceChildren(...parts);
  for (const li of $("entity-list").children) li.classList.toggle("picked", li.dataset.entity === state.picked);
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
$("pause").addEventListener("click", () => api("/api/pause", { paused: !state.world.paused }).then(refresh, fail));
$("step").addEventListener("click", () => api("/api/step", {}).then(refresh, fail));

state.queries = new Set();
refresh();
setInterval(refresh, 1000);
