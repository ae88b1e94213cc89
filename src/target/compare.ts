/**
 * A kernel's outputs against a reference's: identical, or within a GPU's tolerance. A device may
 * fuse a multiply and an add into one rounding (WGSL leaves that to it), and where terms cancel,
 * one rounding of a term is many ulps of a result near zero: so a GPU's output is within
 * tolerance when each number is within GPU_ULPS ulps of its own value or of the data's scale (the
 * largest magnitude among the inputs and outputs, `dataScale`). A kernel calling C's math functions
 * gets the WGSL bound of each (kernel/builtins.ts `gpuUlps`) on top (`toleranceUlps`). Used by
 * `scf bench --kernel` and by pages (the playground) through `scf/gpu`.
 */
import { builtin, type Program } from '../kernel/index.js';
import type { KernelResult } from './tiers.js';

/** How many ulps (of the value or of the data's scale) a GPU's output may be from the reference. */
export const GPU_ULPS = 4;

/**
 * The ulps a GPU's outputs of `program` may be off: GPU_ULPS, plus the largest WGSL bound of the
 * builtins it calls (`expf` 64, `sinf` 4096, …; docs/kernel-math.md).
 */
export function toleranceUlps(program: Program): number {
  let extra = 0;
  const stack: unknown[] = [program];
  for (let x = stack.pop(); x !== undefined; x = stack.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    const node = x as { kind?: unknown; name?: unknown };
    if (node.kind === 'call' && typeof node.name === 'string')
      extra = Math.max(extra, builtin(node.name)?.gpuUlps ?? 0);
    for (const v of Object.values(x)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  return GPU_ULPS + extra;
}

/** `x` as an int whose order is that of the binary32 values (so ulp distances are differences). */
function orderedBits(x: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x);
  const bits = view.getInt32(0);
  return bits < 0 ? -2147483648 - bits : bits;
}

/** The binary32 ulp at magnitude |x| (the subnormal step below the normal range). */
function ulp32(x: number): number {
  const a = Math.abs(x);
  if (!(a >= 2 ** -126)) return 2 ** -149;
  return 2 ** (Math.floor(Math.log2(a)) - 23);
}

/** Every number in a result, an output or an argument (arrays flattened; booleans skipped). */
function numbersOf(v: unknown): number[] {
  if (typeof v === 'number') return [v];
  if (ArrayBuffer.isView(v) || Array.isArray(v))
    return Array.from(v as ArrayLike<unknown>).filter((x): x is number => typeof x === 'number');
  return [];
}

/** The data's scale: the largest finite magnitude among `values` (arguments, late values, outputs). */
export function dataScale(...values: readonly unknown[]): number {
  let m = 0;
  for (const v of values) for (const x of numbersOf(v)) if (Number.isFinite(x)) m = Math.max(m, Math.abs(x));
  return m;
}

export interface Comparison {
  /** Every element identical (Object.is). */
  readonly equal: boolean;
  /** Every element within the tolerance (GPU_ULPS by default) in ulps of the reference value or of `scale`. */
  readonly withinTolerance: boolean;
  readonly diff: number;
  readonly ulps: number;
}

/**
 * `a` against the reference `b` over the result and outputs: identical, within `tolerance` ulps
 * (GPU_ULPS, or `toleranceUlps` of the program) at data scale `scale`, largest |a − b| and ulp
 * distance (Infinity when shapes differ).
 */
export function compareResults(
  a: KernelResult,
  b: KernelResult,
  scale: number,
  tolerance: number = GPU_ULPS,
): Comparison {
  let equal = true;
  let within = true;
  let diff = 0;
  let ulps = 0;
  const floor = tolerance * ulp32(scale);
  const one = (x: unknown, y: unknown) => {
    const xs = numbersOf(x);
    const ys = numbersOf(y);
    if (xs.length !== ys.length) {
      equal = within = false;
      diff = ulps = Number.POSITIVE_INFINITY;
      return;
    }
    for (let i = 0; i < xs.length; i++) {
      const p = xs[i] as number;
      const q = ys[i] as number;
      if (Object.is(p, q)) continue;
      equal = false;
      const u = Math.abs(orderedBits(p) - orderedBits(q));
      ulps = Math.max(ulps, Number.isNaN(u) ? Number.POSITIVE_INFINITY : u);
      const d = Math.abs(p - q);
      diff = Number.isNaN(d) ? Number.POSITIVE_INFINITY : Math.max(diff, d);
      if (!(d <= Math.max(tolerance * ulp32(q), floor))) within = false;
    }
  };
  one(a.result, b.result);
  for (const k of new Set([...Object.keys(a.outputs), ...Object.keys(b.outputs)]))
    one(a.outputs[k], b.outputs[k]);
  return { equal, withinTolerance: within, diff, ulps };
}
