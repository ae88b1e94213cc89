/**
 * Benchmark (not a test): join, equality, leq and map primitives on abstract values of about
 * 10, 100 and 1,000 nodes, to check they stay near-linear in size (SCF §3.3.3: linear
 * structural traversals). Run: `npx tsx benchmarks/abstract-values.bench.ts`.
 *
 * Method: inputs are built before timing; each operation runs in a loop for at least 200 ms
 * (after a warm-up); we report the mean time per call and the growth factor from the previous
 * size (10× more nodes ⇒ a factor near 10 is linear). `equals` runs on two separately built,
 * structurally equal values, so it cannot stop at pointer equality and must traverse both
 * after the (cached) hashes match: its worst case. Results: abstract-values.md.
 */
import {
  ABS_PRIMS,
  type AbsValue,
  absMap,
  base,
  con,
  constant,
  equals,
  join,
  leq,
  size,
} from '../src/abstract-values/index.js';

/** A balanced tree of `node`s with constant leaves; `salt` varies the leaves. */
function tree(nodes: number, salt: number): AbsValue {
  if (nodes <= 1) return constant(salt);
  const rest = nodes - 1;
  const l = Math.floor(rest / 2);
  return con('node', [tree(l, salt * 3 + 1), tree(rest - l, salt * 3 + 2)]);
}

/** A map with `n` must keys (about 2n nodes) and one may pair. */
function bigMap(n: number): AbsValue {
  const must: [number, AbsValue][] = [];
  for (let i = 0; i < n; i++) must.push([i * 2, constant(i)]);
  return absMap(must, [[base('Str'), base('Int')]]);
}

function time(f: () => void, minMs = 200): number {
  for (let i = 0; i < 3; i++) f();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    f();
    n++;
    t = performance.now();
  }
  return ((t - t0) * 1e6) / n; // ns per call
}

const SIZES = [10, 100, 1000];
const rows: { op: string; sizes: number[]; ns: number[] }[] = [];

function bench(op: string, make: (n: number) => { nodes: number; run: () => void }) {
  const row = { op, sizes: [] as number[], ns: [] as number[] };
  for (const n of SIZES) {
    const { nodes, run } = make(n);
    row.sizes.push(nodes);
    row.ns.push(time(run));
  }
  rows.push(row);
}

bench('join (different leaves → union)', (n) => {
  const a = tree(n, 1);
  const b = tree(n, 2);
  return { nodes: size(a), run: () => join(a, b) };
});
bench('join (b ≤ a, unchanged)', (n) => {
  const a = tree(n, 1);
  const b = tree(n, 1);
  return { nodes: size(a), run: () => join(a, b) };
});
bench('leq (equal shapes)', (n) => {
  const a = tree(n, 1);
  const b = tree(n, 1);
  return { nodes: size(a), run: () => leq(a, b) };
});
bench('equals (equal, built apart)', (n) => {
  const copies = Array.from({ length: 4 }, () => [tree(n, 1), tree(n, 1)] as const);
  let i = 0;
  return {
    nodes: size(tree(n, 1)),
    run: () => {
      // hashes are cached per node after the first call: the bench mostly measures the
      // structural comparison that follows a hash match (the worst case of equals)
      const [x, y] = copies[i++ % copies.length] as readonly [AbsValue, AbsValue];
      equals(x, y);
    },
  };
});
bench('map_insert (must key)', (n) => {
  const m = bigMap(n / 2);
  return { nodes: size(m), run: () => ABS_PRIMS.map_insert(m, constant(7), constant(1)) };
});
bench('map_find (must key)', (n) => {
  const m = bigMap(n / 2);
  return { nodes: size(m), run: () => ABS_PRIMS.map_find(m, constant(n / 2)) };
});
bench('map_delete (must key)', (n) => {
  const m = bigMap(n / 2);
  return { nodes: size(m), run: () => ABS_PRIMS.map_delete(m, constant(2)) };
});
bench('join of maps (must ∩, rest → may)', (n) => {
  const a = bigMap(n / 2);
  const b = ABS_PRIMS.map_insert(bigMap(n / 2), constant(1), constant(0));
  return { nodes: size(a), run: () => join(a, b) };
});

const fmt = (ns: number) =>
  ns >= 1e6
    ? `${(ns / 1e6).toFixed(2)} ms`
    : ns >= 1e3
      ? `${(ns / 1e3).toFixed(1)} µs`
      : `${ns.toFixed(0)} ns`;
console.log(`| operation | ${SIZES.map((s) => `~${s} nodes`).join(' | ')} | growth 10→100, 100→1000 |`);
console.log(`|---|${SIZES.map(() => '---').join('|')}|---|`);
for (const r of rows) {
  const cells = r.ns.map((ns, i) => `${fmt(ns)} (${r.sizes[i]})`);
  const g = r.ns.slice(1).map((ns, i) => (ns / (r.ns[i] as number)).toFixed(1));
  console.log(`| ${r.op} | ${cells.join(' | ')} | ${g.join(', ')} |`);
}
