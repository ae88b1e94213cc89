/**
 * Shared helpers of the fusion tests: parse kernel C (after `loadKernelParser`), run the fusion pass,
 * evaluate with an outcome that is either a value or an error, compare outcomes, count combinators.
 */
import { expect } from 'vitest';
import {
  type ArgValue,
  evaluate,
  findFun,
  parseKernelSync,
  type Program,
  soacStructure,
  type Structure,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { findPass, type Pass, runPipeline } from '../../src/optimizers/index.js';

/** Parses `source`; a diagnostic fails the test (its text in the message). */
export function parseClean(source: string, file: string): Program {
  const r = parseKernelSync(source, file);
  expect(
    r.diagnostics.map((d) => formatDiagnostic(d, r.sources, false)),
    `diagnostics of ${file}`,
  ).toEqual([]);
  return r.program;
}

/** The registered fusion pass (fails the test while it is missing). */
export function fusionPass(): Pass {
  const p = findPass('fusion');
  if (!p) throw new Error("no pass named 'fusion' is registered in src/optimizers/index.ts");
  return p;
}

/** `program` with the fusion pass run on each of `fns`, in order. */
export function fuse(program: Program, fns: readonly string[]): Program {
  const pass = fusionPass();
  let p = program;
  for (const fn of fns) p = runPipeline(p, fn, [pass]).program;
  return p;
}

/** What a run gives: a result and the output arrays, or an error. */
export type Outcome =
  | {
      readonly ok: true;
      readonly result: number | number[] | undefined;
      readonly outputs: Record<string, number[]>;
    }
  | { readonly ok: false; readonly error: string };

/**
 * The class of an error: its constructor's name and its message with quoted names blanked, since
 * fusion renames the arrays a message may mention (`'map' goes over 'xs' of length 2 and 'ys' …`).
 */
export function errorClass(e: unknown): string {
  if (!(e instanceof Error)) return `non-error ${String(e)}`;
  return `${e.constructor.name}: ${e.message.replace(/'[^']*'/g, "'_'")}`;
}

export function run(program: Program, fn: string, args: readonly ArgValue[]): Outcome {
  try {
    const r = evaluate(program, fn, args);
    return { ok: true, result: r.result, outputs: { ...r.outputs } };
  } catch (e) {
    return { ok: false, error: errorClass(e) };
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

/** Equal outcomes: the same values bit for bit (Object.is per element), or errors of one class. */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (!a.ok || !b.ok) return !a.ok && !b.ok && a.error === b.error;
  const ra = a.result;
  const rb = b.result;
  if (Array.isArray(ra) || Array.isArray(rb)) {
    if (!Array.isArray(ra) || !Array.isArray(rb) || !sameNumbers(ra, rb)) return false;
  } else if (!Object.is(ra, rb)) return false;
  const ka = Object.keys(a.outputs).sort();
  const kb = Object.keys(b.outputs).sort();
  return (
    ka.join() === kb.join() &&
    ka.every((k) => sameNumbers(a.outputs[k] as number[], b.outputs[k] as number[]))
  );
}

/** Expects `actual` to be the same outcome as `expected`, showing both otherwise. */
export function expectSameOutcome(expected: Outcome, actual: Outcome, what: string): void {
  if (!sameOutcome(expected, actual)) expect(actual, what).toEqual(expected);
}

/** The combinator structure of function `fn`. */
export function structureOf(program: Program, fn: string): Structure {
  const f = findFun(program, fn);
  if (!f) throw new Error(`no function '${fn}'`);
  return soacStructure(f);
}

/** The number of combinators (soac commands, counting the members of hfused groups). */
export function soacCount(st: Structure): number {
  let n = 0;
  for (const [k, v] of Object.entries(st)) if (k !== 'loops' && k !== 'hfused') n += v;
  return n;
}

/** The keys of `expected` read from `actual` (an absent kind counts 0), for a readable comparison. */
export function pickKeys(
  actual: Structure,
  expected: Readonly<Record<string, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(expected)) out[k] = (actual as Record<string, number>)[k] ?? 0;
  return out;
}
