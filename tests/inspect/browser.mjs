// The inspector's page in a real browser: Debian's chromium, driven by
// playwright-core (installed into build/npm by tools/deps.sh). Starts the
// swarm with the inspector on, opens its page, and checks that the page
// shows the world's counts and each system's timing (measured by the
// generated step: the swarm has no timing code), finds an entity, edits one
// of its fields (the world changes), and disables a system (it stops). Then
// the same with the inspector's test world (tests/inspect/game.c), whose
// changed set and aspect have counts known from how its entities are made:
// the page's panels and the entity view must show them. The screenshot is
// of that second page, which has every panel filled.
//
//     node tests/inspect/browser.mjs build/gcc/swarm-inspect build/release/inspect-game SCREENSHOT.png
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const BOIDS = 3000;
const GAME = 2000; // entities of the test world: Health on the even, Poisoned where i % 10 == 4

const [exe, gameExe, shot, orbitsExe, rectExe] = process.argv.slice(2);
if (!exe || !gameExe || !shot) {
  console.error("usage: node tests/inspect/browser.mjs SWARM_INSPECT INSPECT_GAME SCREENSHOT.png [ORBITS_INSPECT [RECT_INSPECT]]");
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  console.error("strata: the inspector's browser test needs chromium; run: sudo apt-get install chromium");
  process.exit(1);
}
const npm = path.resolve("build/npm/node_modules") + "/";
if (!existsSync(npm + "playwright-core")) {
  console.error("strata: playwright-core is missing; run: sh tools/deps.sh (or npm install --prefix build/npm playwright-core)");
  process.exit(1);
}
const { chromium } = createRequire(npm)("playwright-core");

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
// The bound on each wait for the page: generous, so that a loaded machine (a CI
// runner building beside the test) does not fail it; a passing run never waits it out.
const WAIT = 30000;
// Wait until fn() (async) is true, asking every 50 ms, at most `limit` ms: a bound, not a pause.
async function until(fn, limit = WAIT) {
  for (const end = Date.now() + limit; Date.now() < end;) {
    if (await fn()) return true;
    await sleep(50);
  }
  return false;
}

// A game with the inspector on a free port: its first line names the URL.
const games = [];
async function start(file, args) {
  const game = spawn(file, args, { stdio: ["ignore", "pipe", "inherit"] });
  games.push(game);
  return new Promise((resolve, reject) => {
    let out = "";
    game.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve(m[0]);
    });
    game.on("exit", (code) => reject(new Error(`${file} exited (${code}) before its inspector started`)));
    setTimeout(() => reject(new Error(`no URL from ${file} in ${(2 * WAIT) / 1000} s`)), 2 * WAIT);
  });
}
let url = await start(exe, ["--count", String(BOIDS), "--inspect", "0"]);
console.log(`swarm inspector at ${url}`);
const api = async (p) => (await fetch(url + p.slice(1))).json();

// A page served by a second HTTP server on another port of this machine
// (another origin, as a web site the developer has open would be) tries to
// write to the inspector at `target` with fetch: a simple request (no
// preflight: text/plain, no-cors), preflighted ones (JSON, with and without
// a guessed secret), and a read of the page that holds the secret. Each
// must fail, and the world must be as it was.
async function crossSiteWrites(context, target) {
  const evil = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<!doctype html><title>another site</title><p>elsewhere</p>");
  });
  await new Promise((done) => evil.listen(0, "127.0.0.1", done));
  const evilUrl = `http://127.0.0.1:${evil.address().port}/`;
  const page = await context.newPage();
  try {
    await page.goto(evilUrl);
    const first = (await api("/api/entities?limit=1&with=Health")).entities[0].id;
    const health0 = (await api(`/api/entity/${first}`)).components.Health;
    const score0 = (await api("/api/resources")).Score;
    const attempts = await page.evaluate(async ({ base, id }) => {
      const tries = [
        ["simple POST (text/plain, no-cors) disabling Move", `${base}api/system/Move`,
          { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: '{"enabled":false}' }],
        ["simple POST (no-cors) pausing", `${base}api/pause`,
          { method: "POST", mode: "no-cors", body: '{"paused":true}' }],
        ["preflighted JSON POST disabling Move", `${base}api/system/Move`,
          { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"enabled":false}' }],
        ["preflighted JSON POST with a guessed secret, setting Health", `${base}api/entity/${id}`,
          { method: "POST", headers: { "Content-Type": "application/json", "X-Strata-Token": "0".repeat(64) },
            body: JSON.stringify({ component: "Health", field: "value", value: -5 }) }],
        ["a read of the page that holds the secret", base, {}],
        ["a read of the API", `${base}api/world`, {}],
      ];
      const out = [];
      for (const [what, url, options] of tries) {
        try {
          const r = await fetch(url, options);
          // An opaque answer (no-cors) says nothing to the page; the world is checked below.
          out.push({ what, failed: r.type === "opaque", detail: r.type === "opaque" ? "opaque" : `read ${r.status}` });
        } catch (e) {
          out.push({ what, failed: true, detail: e.message });
        }
      }
      return out;
    }, { base: target, id: first });
    for (const a of attempts) check(a.failed, `from another origin, ${a.what}: the page gets nothing back (${a.detail})`);
    const world = await api("/api/world");
    const move = (await api("/api/systems")).systems.find((s) => s.name === "Move");
    const health1 = (await api(`/api/entity/${first}`)).components.Health;
    const score1 = (await api("/api/resources")).Score;
    check(move.enabled && !world.paused, "after the attempts Move is still on and the game not paused");
    check(health1.value === health0.value && score1.value >= score0.value,
      `the entity's Health is unchanged (${health1.value}) and the game ran on (score ${score0.value} -> ${score1.value})`);
  } finally {
    await page.close();
    evil.close();
  }
}

// The orbits example (a sun, planets, moons, moonlets: ChildOf four levels,
// each body labelled by its Name): expand the tree to a moonlet, check each
// level's count and label against the world's own index of sources, and
// query the sun's children.
async function orbitsTree(page) {
  url = await start(orbitsExe, ["--inspect", "0"]);
  console.log(`orbits inspector at ${url}`);
  await page.goto(url);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 2 * WAIT });
  const tree = '#trees [data-relation="ChildOf"]';
  const roots = await api("/api/tree?relation=ChildOf");
  const sun = roots.nodes[0];
  const sunLinks = (await api(`/api/links/${sun.id}`)).relations.find((r) => r.relation === "ChildOf");
  check(roots.total === 1 && sun.label === "Sun" && sun.children === sunLinks.source_count && sun.children === 7,
    `orbits: one root, labelled ${sun.label}, its ${sun.children} planets as the world counts them (${sunLinks.source_count})`);
  // A planet with a moon that has a moonlet: three levels below the sun.
  let path = null;
  for (const planet of (await api(`/api/tree?relation=ChildOf&parent=${sun.id}`)).nodes) {
    for (const moon of (await api(`/api/tree?relation=ChildOf&parent=${planet.id}`)).nodes) {
      if (!path && moon.children > 0) path = [sun, planet, moon];
    }
  }
  for (const node of path) {
    await page.waitForSelector(`${tree} [data-toggle="${node.id}"]`, { timeout: WAIT });
    await page.click(`${tree} [data-toggle="${node.id}"]`);
  }
  const moonlet = (await api(`/api/tree?relation=ChildOf&parent=${path[2].id}`)).nodes[0];
  const item = `${tree} li[data-node="${path[2].id}"] li[data-node="${moonlet.id}"]`;
  await page.waitForSelector(item, { timeout: WAIT });
  const labels = [];
  for (const node of [...path, moonlet]) labels.push(await page.locator(`${tree} li[data-node="${node.id}"] > .ref .label`).first().textContent());
  check(moonlet.depth === 3 && /^moonlet /.test(labels[3]) && labels[0] === "Sun" && /^planet /.test(labels[1]),
    `orbits: the tree expanded four levels, labelled ${labels.join(" > ")}`);
  const shownPlanets = await page.$$eval(`${tree} li[data-node="${sun.id}"] > ul > li[data-node]`, (l) => l.length);
  check(shownPlanets === sunLinks.source_count, `orbits: the sun's ${shownPlanets} planets are listed`);
  await page.click(`${item} > .ref`);
  await page.waitForSelector(`#entity-links [data-relation="ChildOf"] .ref[data-ref="${path[2].id}"]`, { timeout: WAIT });
  await page.click(`#entity-links [data-relation="ChildOf"] .ref[data-ref="${path[2].id}"]`);
  await page.waitForFunction((id) => document.querySelector("#entity-id").textContent.startsWith(id), path[2].id, { timeout: WAIT });
  check(true, `orbits: from ${moonlet.id} to its moon ${path[2].id} by its link`);
  await page.selectOption("#q-relation", "ChildOf");
  await page.fill("#q-target", sun.id);
  await page.click("#query-form button");
  await page.waitForFunction((n) => document.querySelector("#q-range").dataset.total === String(n), sunLinks.source_count,
    { timeout: WAIT });
  check(true, `orbits: the query ChildOf ${sun.id} finds the ${sunLinks.source_count} planets`);
}

// Rectangle Eater played by its autopilot: the player eats, Collide emits
// Eaten; the events panel shows them with their values (eaten by the
// player), and a query counts the food as the world does.
async function rectangleEater(page) {
  url = await start(rectExe, ["--inspect", "0"]);
  console.log(`rectangle eater inspector at ${url}`);
  await page.goto(url);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 2 * WAIT });
  const eaten = '#events tr[data-event="Eaten"]';
  await page.waitForSelector(eaten, { timeout: WAIT });
  const ate = await until(async () => Number(await page.textContent(`${eaten} td:nth-child(3)`)) > 0);
  await page.click(`${eaten} .ref`);
  await page.waitForSelector('#event-values .event-value [data-field="by"] .ref', { timeout: WAIT });
  const by = await page.locator('#event-values .event-value [data-field="by"] .ref').first().getAttribute("data-ref");
  const system = await page.locator("#event-values .event-value").first().textContent();
  const player = (await api("/api/resources")).Game.player;
  check(ate && by === player && / Collide: /.test(system),
    `rectangle eater: Eaten events seen, the last eaten by ${by} (the player, ${player}), emitted by Collide`);
  // Paused from the page, so that the page's count and the world's are of one moment.
  await page.click("#pause");
  await page.waitForFunction(() => document.querySelector("#mode").textContent === "paused", null, { timeout: WAIT });
  await page.fill("#q-with", "Health,Collision");
  await page.fill("#q-without", "PlayerControlled");
  await page.click("#query-form button");
  await page.waitForFunction(() => (document.querySelector("#q-range").dataset.total || "") !== "", null, { timeout: WAIT });
  const shown = Number(await page.getAttribute("#q-range", "data-total"));
  const all = (await api("/api/entities?with=Health,Collision&limit=1")).total;
  const players = (await api("/api/entities?with=Health,Collision,PlayerControlled&limit=1")).total;
  check(shown === all - players && shown > 0,
    `rectangle eater, paused: the decaying food by a typed query, ${shown}; the world's, ${all} - ${players} (the player)`);
  await page.click("#pause");
}

// The test world's second-round panels (tests/inspect/game.c links each
// run of 50: 0 <- 10 <- 20 <- 30, 0 <- 40; 10 likes 5 and 15): the tree,
// links followed, the events, the graphs moving, a typed query, and
// structural edits, each checked against the world through the API.
async function secondRound(page, poisoned, healthy) {
  const text = async (sel) => (await page.locator(sel).first().textContent()).trim();
  // The hierarchy: 2000 / 50 roots; expand 0v1, then 10v1, then 20v1: three deep.
  const roots = await api("/api/tree?relation=ChildOf");
  await page.waitForSelector('#trees [data-relation="ChildOf"] li[data-node="0v1"]', { timeout: WAIT });
  check(roots.total === GAME / 50 && (await text('#trees [data-relation="ChildOf"] h3 .count')) === `${roots.total} roots`,
    `the ChildOf tree shows its ${roots.total} roots`);
  const tree = '#trees [data-relation="ChildOf"]';
  for (const [node, child] of [["0v1", "10v1"], ["10v1", "20v1"], ["20v1", "30v1"]]) {
    await page.click(`${tree} [data-toggle="${node}"]`);
    await page.waitForSelector(`${tree} li[data-node="${node}"] li[data-node="${child}"]`, { timeout: WAIT });
  }
  const below0 = (await api("/api/tree?relation=ChildOf&parent=0v1")).total;
  const shown0 = await page.$$eval(`${tree} li[data-node="0v1"] > ul > li[data-node]`, (l) => l.length);
  check(below0 === 2 && shown0 === below0 && (await text(`${tree} li[data-node="0v1"] > .children`)) === "(2)",
    `expanded: 0v1 shows its ${shown0} children (the world: ${below0}), 10v1 > 20v1 > 30v1 three deep`);
  // Follow links: 30v1 from the tree, then its target, then a Likes link.
  await page.click(`${tree} li[data-node="30v1"] > .ref`);
  await page.waitForFunction(() => document.querySelector("#entity-id").textContent.startsWith("30v1"), null, { timeout: WAIT });
  await page.waitForSelector('#entity-links [data-relation="ChildOf"] .ref[data-ref="20v1"]', { timeout: WAIT });
  await page.click('#entity-links [data-relation="ChildOf"] .ref[data-ref="20v1"]');
  await page.waitForFunction(() => document.querySelector("#entity-id").textContent.startsWith("20v1"), null, { timeout: WAIT });
  check(true, "a link followed from the tree (30v1) to its target (20v1)");
  await page.click(`${tree} li[data-node="10v1"] > .ref`);
  await page.waitForSelector('#entity-links [data-relation="Likes"] .ref[data-ref="15v1"]', { timeout: WAIT });
  const likes = (await api("/api/links/10v1")).relations.find((r) => r.relation === "Likes").targets.map((t) => t.id).sort();
  check(likes.join() === "15v1,5v1", `10v1's Likes links are listed (${likes.join(", ")}) and clickable`);
  check((await text("#entity-id .label")) === "box", "10v1's label (Label.text) is in its title");

  // Events: Hurt sends a Hit for each poisoned entity a step.
  await page.waitForFunction((n) => document.querySelector('#events tr[data-event="Hit"] .last-step')?.textContent === String(n),
    poisoned, { timeout: WAIT });
  check(true, `the events panel: ${poisoned} Hit last step (one a poisoned entity)`);
  await page.waitForSelector("#event-values .event-value", { timeout: WAIT });
  const value = await text("#event-values .event-value");
  const who = await page.locator('#event-values .event-value [data-field="who"] .ref').first().getAttribute("data-ref");
  const whom = await api(`/api/entity/${who}`);
  check(/Hurt/.test(value) && /amount 1/.test(value) && "Poisoned" in whom.components,
    `an event's value is read: "${value.slice(0, 60)}", ${who} is poisoned`);

  // History: the graphs move.
  const samples0 = Number(await page.getAttribute("#history-section", "data-last"));
  const moved = await until(async () => Number(await page.getAttribute("#history-section", "data-last")) > samples0 + 20);
  const points = Number(await page.getAttribute("#graph-step", "data-points"));
  const systems = await page.$$eval("#graph-legend span", (l) => l.map((x) => x.textContent));
  const schedule = (await api("/api/world")).systems;
  check(moved && points > 20 && systems.join() === schedule.join(),
    `the history graphs move (${points} samples drawn, step ${samples0} and on), a line a system`);
  check(Number(await text("#graph-entities-value")) === (await api("/api/world")).entities, "the entities graph ends at the world's count");

  // A typed query, with autocompletion of names, counted as the world counts.
  await page.fill("#q-with", "Posi");
  await page.dispatchEvent("#q-with", "input");
  const names = await page.$$eval("#q-names option", (o) => o.map((x) => x.value));
  check(names.includes("Position") && names.includes("Health"), "the query box completes component names");
  await page.fill("#q-with", "Health");
  await page.fill("#q-without", "Poisoned");
  await page.click("#query-form button");
  await page.waitForFunction(() => document.querySelector("#q-range").dataset.total !== undefined && document.querySelector("#q-range").dataset.total !== "", null, { timeout: WAIT });
  const withHealth = (await api("/api/entities?with=Health&limit=1")).total, both = (await api("/api/entities?with=Health,Poisoned&limit=1")).total;
  const total = Number(await page.getAttribute("#q-range", "data-total"));
  const rows = await page.$$eval("#q-results tbody tr", (r) => r.length);
  check(total === withHealth - both && total === healthy - poisoned && rows === 25,
    `Health without Poisoned: ${total} in the page, ${withHealth} - ${both} in the world, ${rows} rows a page`);
  await page.fill("#q-with", "");
  await page.fill("#q-without", "");
  await page.selectOption("#q-relation", "ChildOf");
  await page.fill("#q-target", "0v1");
  await page.click("#query-form button");
  await page.waitForFunction(() => document.querySelector("#q-range").dataset.total === "2", null, { timeout: WAIT });
  check(true, "ChildOf with target 0v1: its 2 sources");

  // Structural edits: create, add and remove a component, destroy.
  const count0 = (await api("/api/world")).entities;
  await page.selectOption("#spawn-what", "");
  await page.click("#create");
  await page.waitForFunction(() => /^created /.test(document.querySelector("#status").textContent), null, { timeout: WAIT });
  const made = (await text("#status")).split(" ")[1];
  check((await api("/api/world")).entities === count0 + 1 && (await api(`/api/entity/${made}`)).id === made,
    `Create makes ${made}: the world has ${count0 + 1} entities`);
  await page.waitForFunction((id) => document.querySelector("#entity-id").textContent.startsWith(id), made, { timeout: WAIT });
  await page.selectOption("#add-what", "Frozen");
  await page.click("#add");
  check(await until(async () => "Frozen" in (await api(`/api/entity/${made}`)).components), `Frozen added to ${made}`);
  await page.waitForSelector('#entity [data-component="Frozen"] .remove', { timeout: WAIT });
  await page.click('#entity [data-component="Frozen"] .remove');
  check(await until(async () => !("Frozen" in (await api(`/api/entity/${made}`)).components)), `Frozen removed from ${made}`);
  await page.click("#destroy");
  check(await until(async () => (await fetch(`${url}api/entity/${made}`)).status === 404 && (await api("/api/world")).entities === count0),
    `${made} destroyed: the world is back to ${count0} entities`);
  // Spawn an assemblage: its label shows in the list.
  await page.selectOption("#spawn-what", "Crate");
  await page.click("#create");
  await page.waitForFunction(() => /^created /.test(document.querySelector("#status").textContent), null, { timeout: WAIT });
  const crate = (await text("#status")).split(" ")[1];
  const spawned = await api(`/api/entity/${crate}`);
  check(spawned.label === "crate" && spawned.components.Position.x >= 5 && "Velocity" in spawned.components,
    `Crate spawned as ${crate} (from x = 5, moving), labelled "crate"`);
  await page.waitForFunction(() => document.querySelector("#entity-id .label")?.textContent === "crate", null, { timeout: WAIT });
  // Leave the tree expanded and 30v1 picked for the screenshot.
  await page.click(`${tree} li[data-node="30v1"] > .ref`);
  await page.waitForFunction(() => document.querySelector("#entity-id").textContent.startsWith("30v1"), null, { timeout: WAIT });
}

const profile = mkdtempSync(path.join(tmpdir(), "strata-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 1000 },
  });
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 2 * WAIT });

  // Counts: what the page shows is what the world holds.
  const world = await api("/api/world");
  check(world.entities === BOIDS, `the world has ${world.entities} entities`);
  check(await page.textContent("#entities-count") === String(world.entities), "the page shows the entity count");
  check(await page.textContent("#archetypes-count") === String(world.archetypes), "the page shows the archetype count");
  const archetypeRows = await page.$$eval("#archetypes tbody tr", (r) => r.length);
  check(archetypeRows === world.archetypes,
    `the header counts the archetypes the table shows (${world.archetypes} and ${archetypeRows} rows, the empty one among them)`);
  const rows = await page.$$eval("#archetypes tbody tr .count", (cells) => cells.map((c) => Number(c.textContent)));
  check(rows.reduce((a, b) => a + b, 0) === BOIDS, `the archetype rows sum to the entities (${rows.join(" + ")})`);
  check(await page.$$eval("#systems tbody tr", (r) => r.length) === world.systems.length, "every system has a row");

  // Timing without game code: the generated step reports each system once the page asks.
  await page.waitForFunction(() => Number(document.querySelector('#systems tr[data-system="Integrate"]').dataset.runs) > 0,
    null, { timeout: WAIT });
  const timed = (await api("/api/systems")).systems;
  const integrate0 = timed.find((s) => s.name === "Integrate");
  check(integrate0.runs > 0 && integrate0.last_ms > 0 && integrate0.visited === BOIDS,
    `Integrate is timed by swarm_world_step: ${integrate0.runs} runs, ${integrate0.last_ms} ms, ${integrate0.visited} boids`);
  // The swarm shares batches (threads: true): each system shows the batch of
  // swarm_schedule.txt, and Bin and Colour, which touch disjoint data, share one.
  const batchOf = (name) => timed.find((s) => s.name === name).batch;
  check(timed.every((s) => Number.isInteger(s.batch)), "every system has a batch");
  check(batchOf("Colour") === batchOf("Bin") && batchOf("Steer") > batchOf("Bin") && batchOf("Wrap") > batchOf("Integrate"),
    `the batches follow the schedule: ${timed.map((s) => `${s.name} ${s.batch}`).join(", ")}`);
  check((await page.$$eval("#systems tbody tr .batch", (c) => c.map((x) => x.textContent))).every((t) => t !== ""),
    "the batch column is filled");

  // Find the fast boids (a tenth of the flock) and pick one.
  await page.fill("#search", "Position,Fast");
  await page.click("#search-form button");
  await page.waitForFunction(() => document.querySelector("#entity-range").dataset.total === "300", null, { timeout: WAIT });
  check(true, "searching Position,Fast finds the 300 fast boids");
  // A locator, not an element handle: the live list is redrawn while the test
  // runs, and a locator finds the item again instead of clicking a detached one.
  const first = page.locator("#entity-list li").first();
  const id = await first.getAttribute("data-entity");
  await page.locator(`#entity-list li[data-entity="${id}"]`).click();
  await page.waitForSelector('#entity [data-component="Fast"]', { timeout: WAIT });
  check(true, `entity ${id}: its components are shown, Fast among them`);
  // One spelling: the list, the title, the API's path and answer all say 4v1.
  const label = await page.locator(`#entity-list li[data-entity="${id}"] .eid`).textContent();
  const title = await page.textContent("#entity-id");
  const answer = await api(`/api/entity/${id}`);
  check(/^[0-9]+v[0-9]+$/.test(id) && label === id && title === id && answer.id === id,
    `the entity is spelled ${id} in the list (${label}), the title (${title}) and the API (${answer.id})`);

  // Disable Integrate: positions stop changing, its run count stops.
  const integrate = '#systems tr[data-system="Integrate"]';
  await page.click(`${integrate} input.enable`);
  await page.waitForSelector(`${integrate}.off`, { timeout: WAIT });
  const runs0 = (await api("/api/systems")).systems.find((s) => s.name === "Integrate").runs;
  const before = (await api(`/api/entity/${id}`)).components.Position;
  const step0 = (await api("/api/world")).step;
  await until(async () => (await api("/api/world")).step >= step0 + 10); // ten steps with Integrate off
  const after = (await api(`/api/entity/${id}`)).components.Position;
  const runs1 = (await api("/api/systems")).systems.find((s) => s.name === "Integrate").runs;
  const stepped = (await api("/api/world")).step > world.step;
  check(stepped && runs1 === runs0, `Integrate is off: ${runs0} runs, then ${runs1}, while the world steps`);
  check(before.x === after.x && before.y === after.y, "with Integrate off, the boid stays put");

  // Edit its x on the page: the world changes.
  const x = page.locator('#entity input[data-path="Position.x"]');
  await x.fill("123.5");
  await x.press("Enter");
  await x.blur();
  const moved = await until(async () => (await api(`/api/entity/${id}`)).components.Position.x === 123.5);
  check(moved, "editing Position.x to 123.5 on the page sets it in the world");

  // Integrate on again: the boid moves off 123.5.
  await page.click(`${integrate} input.enable`);
  await page.waitForSelector(`${integrate}.on`, { timeout: WAIT });
  check(await until(async () => (await api(`/api/entity/${id}`)).components.Position.x !== 123.5),
    "with Integrate on again, the boid moves");

  await page.waitForFunction(() => document.querySelector("#schedule svg") !== null, null, { timeout: WAIT });
  check(true, "the schedule is drawn");
  // The history of a world without events (its events' clock does not move): a sample a step all the same.
  check(await until(async () => Number(await page.getAttribute("#graph-step", "data-points")) > 10),
    `the swarm's history is drawn (${await page.getAttribute("#graph-step", "data-points")} samples)`);
  check(!(await page.isVisible("#changes")) && (await page.isVisible("#changes-none")), "the swarm tracks no changes: said so");
  check(await page.isHidden("#reloads-section"), "the swarm lists no reload: no reloads panel");
  check(requests.every((r) => r.startsWith(url)), "the page fetched nothing from elsewhere");

  // The test world: a changed set and an aspect, with counts known from its layout.
  const swarmUrl = url;
  url = await start(gameExe, [String(GAME), "0"]);
  console.log(`test world inspector at ${url}`);
  await page.goto(url);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 2 * WAIT });
  const poisoned = GAME / 10, healthy = GAME / 2;
  // Hurt writes the poisoned's Health each step after Watch ran: between steps, they wait in Watch's set.
  const changes = await api("/api/changes");
  const health = changes.components.find((c) => c.name === "Health");
  check(health && health.marked === poisoned && health.tracked_by.join() === "Watch",
    `the API: Health marked on ${health && health.marked} entities (the ${poisoned} poisoned), tracked by Watch`);
  await page.waitForSelector('#changes tr[data-component="Health"]', { timeout: WAIT });
  check(Number(await page.textContent('#changes tr[data-component="Health"] .marked')) === poisoned,
    "the page shows the Health changed count");
  const aspects = (await api("/api/aspects")).aspects;
  check(aspects.length === 1 && aspects[0].system === "Watch" && aspects[0].members === healthy,
    `the API: Watch's aspect held by ${aspects[0] && aspects[0].members} entities (the ${healthy} with Health)`);
  check(Number(await page.textContent('#aspects tr[data-aspect="Watch"] .members')) === healthy,
    "the page shows the aspect's member count");
  const watch = (await api("/api/systems")).systems.find((s) => s.name === "Watch");
  check(watch.changed, "Watch is listed with changed terms");
  // It migrated its world into a new one as it started, as a live reload does: listed in the reloads panel.
  const reloads = (await api("/api/reloads")).reloads;
  check(reloads.length === 1 && reloads[0].outcome === "reloaded", "the API lists the test world's reload");
  await page.waitForSelector('#reloads tr[data-reload="1"]', { timeout: WAIT });
  check(await page.textContent('#reloads tr[data-reload="1"] .outcome') === "reloaded" &&
    !(await page.isHidden("#reloads-section")), "the page shows it in the reloads panel");

  // One poisoned entity: Health marked, an aspect of Watch.
  await page.fill("#search", "Poisoned");
  await page.click("#search-form button");
  await page.waitForFunction((n) => document.querySelector("#entity-range").dataset.total === String(n), poisoned,
    { timeout: WAIT });
  await page.locator("#entity-list li").first().click();
  await page.waitForSelector('#entity [data-component="Health"] .marked', { timeout: WAIT });
  check(await page.isVisible('#entity [data-aspect="Watch"]'), "a poisoned entity: Health shown changed, Watch's aspect shown");
  check(!(await page.isVisible('#entity [data-component="Position"] .marked')), "its Position is not marked");
  await secondRound(page, poisoned, healthy);
  check(requests.every((r) => r.startsWith(swarmUrl) || r.startsWith(url)), "the page fetched nothing from elsewhere");

  // The loop: Blink's gate in words, and the Mode machine set from its menu (the next step enters it).
  await page.waitForSelector('#systems tr[data-system="Blink"] .gate', { timeout: WAIT });
  const gate = await page.textContent('#systems tr[data-system="Blink"] .gate');
  check(gate === "Mode: playing; if Settings.music; every 0.25 s", `Blink's gate shown: ${gate}`);
  await page.waitForSelector('#states tr[data-machine="Mode"] select', { timeout: WAIT });
  await page.selectOption('#states tr[data-machine="Mode"] select', "playing");
  let mode = "";
  for (let tries = 0; tries < 100 && mode !== "playing"; tries++) {
    mode = (await api("/api/states")).machines[0].current;
    if (mode !== "playing") await page.waitForTimeout(100); // polls the game's state, no fixed wait
  }
  check(mode === "playing", `the page's menu set Mode to playing (it is ${mode})`);
  check(await until(async () => /Mode: playing/.test(await page.getAttribute("#graph-step", "data-marks"))),
    "the history marks the state change (Mode: playing)");
  check(errors.length === 0, `no script errors${errors.length ? ": " + errors.join("; ") : ""}`);

  // A page on another local server (another origin) tries to change the game.
  await crossSiteWrites(context, url);

  mkdirSync(path.dirname(shot), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  for (const panel of ["history", "hierarchy", "events", "query", "entity"]) {
    await page.locator(`#${panel}-section`).screenshot({ path: shot.replace(/\.png$/, `-${panel}.png`) });
  }
  console.log(`screenshots: ${shot} and one a panel beside it`);
  if (orbitsExe) {
    await orbitsTree(page);
    check(errors.length === 0, `no script errors on the orbits page${errors.length ? ": " + errors.join("; ") : ""}`);
  }
  if (rectExe) {
    await rectangleEater(page);
    check(errors.length === 0, `no script errors on Rectangle Eater's page${errors.length ? ": " + errors.join("; ") : ""}`);
  }
} catch (err) {
  console.log(`FAIL ${err.stack || err}`);
  failures++;
} finally {
  if (context) await context.close();
  for (const game of games) game.kill("SIGTERM");
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures ? `${failures} check(s) failed` : "the inspector's page works in chromium");
process.exit(failures ? 1 : 0);
