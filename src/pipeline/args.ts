/**
 * A config's run-time arguments (`args`, config.ts's `ArgSpec`) as values: a literal as it is,
 * `{ random: N, seed: S }` N pseudo-random floats in [0, 1), with `max: M` N ints in [0, M).
 * `scf bench --kernel` draws them, and so does a page from the config it stages (scf/stage).
 *
 * Algorithm: mulberry32 (`seededRandom`), a 32-bit generator of one word of state; a float takes
 * the top 24 bits of a draw (exact in binary32). Invariant: the same spec gives the same values on
 * every machine and in every JavaScript engine (integer arithmetic with `Math.imul` and `>>> 0`).
 */
import type { ArgValue } from '../kernel/index.js';
import type { ArgSpec } from './config.js';

/** mulberry32: a small deterministic generator of uint32s from `seed`. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * The value a config's `args` entry stands for: a literal as it is; `{ random: N, seed: S }` N
 * floats in [0, 1) (24 random bits each, exact in binary32), with `max: M` N ints in [0, M); the
 * same on every machine.
 */
export function argValue(spec: ArgSpec): ArgValue {
  if (typeof spec !== 'object' || Array.isArray(spec)) return spec as ArgValue;
  const { random, seed, max } = spec as { random: number; seed: number; max?: number };
  const next = seededRandom(seed);
  const out: number[] = new Array(random);
  for (let i = 0; i < random; i++)
    out[i] = max === undefined ? (next() >>> 8) / 16777216 : Math.floor((next() / 4294967296) * max);
  return out;
}
