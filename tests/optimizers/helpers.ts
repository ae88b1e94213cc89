/**
 * Test helpers for the optimizers: parse kernel C (synchronously, after `loadKernelParser`), run a
 * pipeline by pass names, compare printed C, compare evaluations bit for bit, and find the dead
 * assignments and self-copies a function still has (`leftovers`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import {
  type ArgValue,
  type Cmd,
  type EvalResult,
  type Expr,
  evaluate,
  type Fun,
  hasCall,
  KernelRuntimeError,
  listFromArray,
  listToArray,
  parseKernelSync,
  printCmd,
  printFun,
  type Program,
  type Soac,
} from '../../src/kernel/index.js';
import { assertNever, formatDiagnostic } from '../../src/common/index.js';
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

/**
 * Results (a host function's array result element by element) and output arrays equal bit for bit
 * (Object.is: -0 differs from 0, NaN equals NaN).
 */
export function sameResults(a: EvalResult, b: EvalResult): boolean {
  const x = a.result;
  const y = b.result;
  if (Array.isArray(x) && Array.isArray(y)) {
    if (x.length !== y.length || !x.every((v, i) => Object.is(v, y[i]))) return false;
  } else if (!Object.is(x, y)) return false;
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

// ---- leftover assignments, found independently of the passes ------------------------------------

/** The scalar variables an expression reads. */
function readsOf(e: Expr, acc: Set<string>): Set<string> {
  switch (e.kind) {
    case 'var':
      acc.add(e.name);
      break;
    case 'binary':
      readsOf(e.left, acc);
      readsOf(e.right, acc);
      break;
    case 'unary':
    case 'cast':
      readsOf(e.arg, acc);
      break;
    case 'load':
      readsOf(e.index, acc);
      break;
    case 'call':
      for (const a of listToArray(e.args)) readsOf(a, acc);
      break;
    case 'ternary':
      readsOf(e.cond, acc);
      readsOf(e.thenExpr, acc);
      readsOf(e.elseExpr, acc);
      break;
    default:
      break;
  }
  return acc;
}

/** The atoms of a combinator outside its closed lambdas. */
function soacAtoms(s: Soac): Expr[] {
  const atoms: Expr[] = s.ne.kind === 'some' ? [s.ne.value] : [];
  for (const a of listToArray(s.args)) {
    if (a.kind === 'argIota') atoms.push(a.len);
    else if (a.kind === 'argScalar') atoms.push(a.value);
  }
  return atoms;
}

/**
 * The assignments of `f` to a scalar that no path reads before it is overwritten or the function
 * returns (its rhs calling nothing; a scalar reduce's result too), and the self-copies `x = x;`,
 * printed: a backward liveness analysis written apart from dae.ts, so a test does not check the
 * pass against itself. Parameters are passed by value, so nothing is live at the exit.
 */
export function leftovers(f: Fun): { dead: string[]; selfCopies: string[] } {
  const dead: string[] = [];
  const selfCopies: string[] = [];
  const union = (a: Set<string>, b: Set<string>) => new Set([...a, ...b]);
  const walk = (c: Cmd, out: Set<string>, report: boolean): Set<string> => {
    switch (c.kind) {
      case 'assign': {
        if (report && c.rhs.kind === 'var' && c.rhs.name === c.name) selfCopies.push(printCmd(c));
        if (!out.has(c.name) && !hasCall(c.rhs)) {
          if (report) dead.push(printCmd(c));
          return out;
        }
        const live = new Set(out);
        live.delete(c.name);
        return readsOf(c.rhs, live);
      }
      case 'store':
        return readsOf(c.rhs, readsOf(c.index, new Set(out)));
      case 'seq':
        return walk(c.first, walk(c.second, out, report), report);
      case 'if':
        return readsOf(c.cond, union(walk(c.thenCmd, out, report), walk(c.elseCmd, out, report)));
      case 'while': {
        let head = readsOf(c.cond, new Set(out));
        for (;;) {
          const next = readsOf(c.cond, union(out, walk(c.body, head, false)));
          if ([...next].every((x) => head.has(x))) break;
          head = union(head, next);
        }
        walk(c.body, head, report);
        return head;
      }
      case 'return':
        return c.value.kind === 'some' ? readsOf(c.value.value, new Set()) : new Set();
      case 'skip':
        return out;
      case 'callCmd': {
        const live = new Set(out);
        for (const a of listToArray(c.args)) readsOf(a, live);
        return live;
      }
      case 'soac':
      case 'hfused': {
        let live = new Set(out);
        for (const s of c.kind === 'soac' ? [c] : listToArray(c.members).reverse()) {
          const scalar = s.op === 'reduce' || s.op === 'redomap';
          if (scalar && !live.has(s.dest)) {
            if (report) dead.push(`${s.dest} = ${s.op}(…);`);
            continue;
          }
          live = new Set(live);
          if (scalar) live.delete(s.dest);
          for (const a of soacAtoms(s)) readsOf(a, live);
        }
        return live;
      }
      default:
        return assertNever(c);
    }
  };
  walk(f.body, new Set(), true);
  return { dead, selfCopies };
}
