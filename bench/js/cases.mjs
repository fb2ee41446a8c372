// cases.mjs: the five noctjs cases on bitECS 0.4 (its own API, components
// as typed arrays of i32, as the suite's bitECS cases use), with the sizes,
// per-op counts and timing of strata-bench (bench/main.c, bench/<case>.c),
// so the two tables line up row by row.
import { createWorld, addEntity, removeEntity, addComponent, removeComponent, query } from "bitecs";

// A component of one i32, for entity ids below `capacity`.
const i32 = (capacity) => ({ value: new Int32Array(capacity) });

function check(ok, what) {
  if (!ok) throw new Error(`bitecs: ${what} failed`);
}

// Each case: build the world, return { size, ops, pass, verify }: entities
// in the world, entity-ops in one pass, one pass, a check after the runs.
export const CASES = {
  packed_5(n) {
    const world = createWorld();
    const comps = [i32(n + 1), i32(n + 1), i32(n + 1), i32(n + 1), i32(n + 1)];
    for (let i = 0; i < n; i++) {
      const e = addEntity(world);
      for (const c of comps) {
        addComponent(world, e, c);
        c.value[e] = 1;
      }
    }
    const pass = () => {
      for (const c of comps) {
        const ents = query(world, [c]);
        const v = c.value;
        for (let i = 0; i < ents.length; i++) v[ents[i]] *= 2;
      }
    };
    return { size: n, ops: 5 * n, pass, verify: () => check(query(world, [comps[4]]).length === n, "packed_5 count") };
  },

  simple_iter(n) {
    const world = createWorld();
    const [A, B, C, D, E] = [0, 1, 2, 3, 4].map(() => i32(4 * n + 1));
    const kinds = [[A, B], [A, B, C], [A, B, C, D], [A, B, C, E]];
    for (const kind of kinds) {
      for (let i = 0; i < n; i++) {
        const e = addEntity(world);
        kind.forEach((c, k) => {
          addComponent(world, e, c);
          c.value[e] = k;
        });
      }
    }
    const swap = (x, y) => {
      const ents = query(world, [x, y]);
      const xv = x.value, yv = y.value;
      for (let i = 0; i < ents.length; i++) {
        const e = ents[i];
        const t = xv[e];
        xv[e] = yv[e];
        yv[e] = t;
      }
    };
    const pass = () => {
      swap(A, B);
      swap(C, D);
      swap(C, E);
    };
    return { size: 4 * n, ops: 6 * n, pass, verify: () => check(query(world, [A, B]).length === 4 * n, "simple_iter count") };
  },

  frag_iter(n) {
    const world = createWorld();
    const letters = Array.from({ length: 26 }, () => i32(26 * n + 1));
    const Data = i32(26 * n + 1);
    const Z = letters[25];
    for (const X of letters) {
      for (let i = 0; i < n; i++) {
        const e = addEntity(world);
        addComponent(world, e, X);
        addComponent(world, e, Data);
        X.value[e] = 1;
        Data.value[e] = 1;
      }
    }
    const double = (c) => {
      const ents = query(world, [c]);
      const v = c.value;
      for (let i = 0; i < ents.length; i++) v[ents[i]] *= 2;
    };
    const pass = () => {
      double(Data);
      double(Z);
    };
    return { size: 26 * n, ops: 27 * n, pass, verify: () => check(query(world, [Data]).length === 26 * n, "frag_iter count") };
  },

  entity_cycle(n) {
    const world = createWorld();
    const A = i32(2 * n + 16), B = i32(2 * n + 16);
    for (let i = 0; i < n; i++) {
      const e = addEntity(world);
      addComponent(world, e, A);
      A.value[e] = i;
    }
    const pass = () => {
      const as = query(world, [A]);
      for (let i = 0; i < as.length; i++) {
        const e = addEntity(world);
        addComponent(world, e, B);
        B.value[e] = A.value[as[i]];
      }
      const bs = query(world, [B]);
      for (let i = 0; i < bs.length; i++) removeEntity(world, bs[i]);
    };
    const verify = () => check(query(world, [B]).length === 0 && query(world, [A]).length === n, "entity_cycle counts");
    return { size: n, ops: 2 * n, pass, verify };
  },

  add_remove(n) {
    const world = createWorld();
    const A = i32(n + 1), B = i32(n + 1);
    for (let i = 0; i < n; i++) {
      const e = addEntity(world);
      addComponent(world, e, A);
      A.value[e] = 1;
    }
    const pass = () => {
      const as = query(world, [A]);
      for (let i = 0; i < as.length; i++) addComponent(world, as[i], B);
      const bs = query(world, [B]);
      for (let i = 0; i < bs.length; i++) removeComponent(world, bs[i], B);
    };
    const verify = () => check(query(world, [B]).length === 0 && query(world, [A]).length === n, "add_remove counts");
    return { size: n, ops: 2 * n, pass, verify };
  },
};

// strata-bench's method: untimed passes (here at least 0.1 s of them, for
// the JIT), then passes enough for a run of about 20 ms, then `runs` runs;
// a sample is ns per entity-op of one run.
export function measure(name, n, runs) {
  const c = CASES[name](n);
  const now = () => Number(process.hrtime.bigint());
  let one = 0;
  const warmEnd = now() + 100e6;
  for (let k = 0; k < 2 || now() < warmEnd; k++) {
    const t0 = now();
    c.pass();
    one = now() - t0;
  }
  const passes = Math.min(Math.floor(20e6 / Math.max(one, 1)) + 1, 1 << 22);
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const t0 = now();
    for (let k = 0; k < passes; k++) c.pass();
    samples.push((now() - t0) / passes / c.ops);
  }
  c.verify();
  return { size: c.size, samples };
}
