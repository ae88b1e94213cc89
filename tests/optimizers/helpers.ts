/**
 * Test helpers for the optimizers: parse kernel C (synchronously, after `loadKernelParser`), run a
 * pipeline by pass names, compare printed C, and compare evaluations bit for bit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import {
  type ArgValue,
  type EvalResult,
  evaluate,
  type Fun,
  KernelRuntimeError,
  listFromArray,
  listToArray,
  parseKernelSync,
  printFun,
  type Program,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import {
  type Bindings,
  findPass,
  type Pass,
  type PipelineResult,
  runPipeline,
} from '../../src/optimizers/index.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const INPUTS = path.join(ROOT, 'benchmarks/inputs');

/** `program` with the function named like `f` replaced by `f`. */
export function replaceFun(program: Program, f: Fun): Program {
  return listFromArray(listToArray(program).map((g) => (g.name === f.name ? f : g)));
}

export function parseC(source: string, file = '<test>.c'): Program {
  const r = parseKernelSync(source, file);
  if (r.diagnostics.length > 0)
    throw new Error(r.diagnostics.map((d) => formatDiagnostic(d, r.sources, false)).join('\n'));
  return r.program;
}

export function passes(names: string): Pass[] {
  return names.split(',').map((n) => {
    const p = findPass(n);
    if (!p) throw new Error(`no pass ${n}`);
    return p;
  });
}

/** The only (or last) function's name. */
export function lastFunName(p: Program): string {
  const fs = listToArray(p);
  return (fs[fs.length - 1] as { name: string }).name;
}

export function optimizeC(
  passNames: string,
  source: string,
  binds: Bindings = {},
  fn?: string,
): PipelineResult {
  const program = parseC(source);
  return runPipeline(program, fn ?? lastFunName(program), passes(passNames), binds);
}

/** One-line rule test: `source` optimized by the passes prints as `expected` (normalized by parse+print). */
export function expectOpt(passNames: string, source: string, expected: string, binds: Bindings = {}): void {
  const actual = printFun(optimizeC(passNames, source, binds).fun);
  const exp = listToArray(parseC(expected));
  expect(actual).toBe(printFun(exp[exp.length - 1] as Fun));
}

export interface Kernel {
  readonly name: string;
  readonly program: Program;
  readonly fn: string;
  readonly args: Record<string, ArgValue>;
}

/** The benchmark kernels with their sample arguments (the entry is the file's last function). */
export function loadKernels(): Kernel[] {
  return readdirSync(INPUTS)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -2);
      const program = parseC(readFileSync(path.join(INPUTS, f), 'utf8'), f);
      const args = JSON.parse(readFileSync(path.join(INPUTS, `${name}.args.json`), 'utf8'));
      return { name, program, fn: lastFunName(program), args };
    });
}

/** Evaluates, or returns undefined when the program has undefined behaviour on these arguments. */
export function tryEval(
  program: Program,
  fn: string,
  args: readonly ArgValue[] | Record<string, ArgValue>,
  fuel = 2_000_000,
): EvalResult | undefined {
  try {
    return evaluate(program, fn, args, { fuel });
  } catch (e) {
    if (e instanceof KernelRuntimeError) return undefined;
    throw e;
  }
}

/** Results and output arrays equal bit for bit (Object.is: -0 differs from 0, NaN equals NaN). */
export function sameResults(a: EvalResult, b: EvalResult): boolean {
  if (!Object.is(a.result, b.result)) return false;
  const ka = Object.keys(a.outputs).sort();
  const kb = Object.keys(b.outputs).sort();
  if (ka.join() !== kb.join()) return false;
  return ka.every((k) => {
    const x = a.outputs[k] as number[];
    const y = b.outputs[k] as number[];
    return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  });
}

/** Counts `while` nodes in a function body. */
export function countLoops(x: unknown): number {
  if (typeof x !== 'object' || x === null) return 0;
  let n = (x as { kind?: string }).kind === 'while' ? 1 : 0;
  for (const v of Object.values(x)) n += countLoops(v);
  return n;
}
