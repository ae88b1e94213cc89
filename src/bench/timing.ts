/**
 * The benchmarks' timing loops, shared by the Table 3 benchmark (table3.ts) and the kernel
 * benchmarks (kernel-latency.ts, kernel-config.ts): every timed call feeds one sink, so no call
 * can be optimized away, and a batch is as many calls as take about a given time.
 */
import { median } from './report.js';

let sink = 0;

/** Runs `f` `n` times, feeding the sink; the elapsed milliseconds. */
export function timeBatch(f: () => unknown, n: number): number {
  const t = performance.now();
  for (let i = 0; i < n; i++) sink ^= f() === undefined ? 1 : 0;
  return performance.now() - t;
}

/**
 * Calls of `f` that take about `ms` milliseconds (at least 1): the batch doubles until it takes
 * `probe` × `ms`, then is scaled to `ms`. A `probe` of 1 also makes the probing a warm-up of about
 * `ms`; a smaller one finds the size sooner.
 */
export function batchSize(f: () => unknown, ms: number, probe = 1): number {
  let n = 1;
  for (;;) {
    const dt = timeBatch(f, n);
    if (dt >= ms * probe || n >= 1 << 20) return Math.max(1, Math.ceil((n * ms) / Math.max(dt, 1e-3)));
    n *= 2;
  }
}

/**
 * Times synchronous functions side by side: each is first warmed up (run for about `warmupMs`,
 * long enough for V8 to optimize the large unstaged optimizers), then `rounds` rounds run every
 * function for a batch of about `batchMs` (the order rotated per round). Per function: the median
 * over rounds of the per-call time in microseconds. `onRound` is called after each round.
 */
export function alternate<K extends string>(
  fns: Readonly<Record<K, () => unknown>>,
  rounds: number,
  batchMs: number,
  onRound?: (round: number) => void,
  warmupMs = 300,
): Record<K, number> {
  const keys = Object.keys(fns) as K[];
  for (const k of keys) batchSize(fns[k], warmupMs);
  const sizes = keys.map((k) => batchSize(fns[k], batchMs));
  const times = keys.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < keys.length; j++) {
      const i = (j + r) % keys.length;
      const n = sizes[i] as number;
      (times[i] as number[]).push((timeBatch(fns[keys[i] as K], n) * 1000) / n);
    }
    onRound?.(r);
  }
  return Object.fromEntries(keys.map((k, i) => [k, median(times[i] as number[])])) as Record<K, number>;
}

/** Reads the sink that every timed call feeds, keeping the timing loops' results observable. */
export function benchSink(): number {
  return sink;
}
