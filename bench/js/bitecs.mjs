// bitecs.mjs: run the five noctjs cases on bitECS, each in a fresh worker
// (as the noctjs suite does, so no case inherits another's JIT state), and
// write what strata-bench writes for them: ns per entity-op, median, min,
// max of several runs.
//
//     node bitecs.mjs RESULTS.json    (from a directory where bitecs is installed)
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { readFileSync, writeFileSync } from "node:fs";
import { measure } from "./cases.mjs";

const RUNS = 9;
// [case, n]: the sizes of bench/<case>.c (entities per kind for simple_iter
// and frag_iter, as there).
const PLAN = [
  ["packed_5", 1000],
  ["packed_5", 1000000],
  ["simple_iter", 1000],
  ["frag_iter", 100],
  ["entity_cycle", 1000],
  ["add_remove", 1000],
  ["add_remove", 1000000],
];

if (!isMainThread) {
  parentPort.postMessage(measure(workerData.name, workerData.n, RUNS));
} else {
  const out = process.argv[2];
  const pkg = JSON.parse(readFileSync(new URL("./node_modules/bitecs/package.json", import.meta.url)));
  const summary = (s) => {
    const v = [...s].sort((a, b) => a - b);
    const m = v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    return { median: m, min: v[0], max: v[v.length - 1], samples: s };
  };
  const rows = [];
  console.log(`bitECS ${pkg.version} on Node.js ${process.version}: ${RUNS} runs a row, ns per entity-op\n`);
  console.log(`${"case".padEnd(13)} ${"entities".padStart(9)} ${"median".padStart(9)} ${"min".padStart(9)} ${"max".padStart(9)}`);
  for (const [name, n] of PLAN) {
    const r = await new Promise((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: { name, n } });
      w.on("message", resolve);
      w.on("error", reject);
    });
    const s = summary(r.samples);
    rows.push({ case: name, size: r.size, bitecs: s });
    const f = (x) => x.toFixed(3).padStart(9);
    console.log(`${name.padEnd(13)} ${String(r.size).padStart(9)} ${f(s.median)} ${f(s.min)} ${f(s.max)}`);
  }
  writeFileSync(out, JSON.stringify({ tool: "bench/js", library: "bitecs", version: pkg.version,
    node: process.version, runs: RUNS, rows }, null, 2) + "\n");
}
