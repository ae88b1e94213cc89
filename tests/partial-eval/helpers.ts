/**
 * Shared by the partial evaluator's tests: SCF-lang programs compiled from source or taken from
 * the residual fixtures (tests/fixtures/residual), and the check that a residual program computes
 * what the original does on random members of its input.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { AbsValue } from '../../src/abstract-values/index.js';
import { type PeOptions, type PeResult, partialEvaluate } from '../../src/partial-eval/index.js';
import {
  compileFile,
  type CoreExpr,
  type CoreProgram,
  forEachExpr,
  Interpreter,
} from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { arbMember } from '../../src/testing.js';

export const HEADER = `import { type PMap, mapEmpty, mapFind, mapInsert, type List } from 'scf/prelude';\n`;

/** A lookup with 0 for a missing key, shared by the programs of several tests. */
export const GET = `function get(m: PMap<string, number>, k: string): number {
  const r = mapFind(m, k);
  return r.kind === 'some' ? r.value : 0;
}`;

/** The program of the residual fixture `name` (tests/fixtures/residual/NAME/input.ts), as the module `t`. */
export function fixtureProgram(name: string): CoreProgram {
  return compile(readFileSync(path.join(FIXTURES, name, 'input.ts'), 'utf8'), '');
}

/** The residual fixtures: one folder per feature of the partial evaluator. */
export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/residual');

/** `src` (after HEADER) compiled as the module `t`. */
export function compile(src: string, header = HEADER): CoreProgram {
  const r = compileFile('/virtual/t.ts', { cwd: '/virtual', readFile: () => header + src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

/** Staged ≡ unstaged on random members of `input`; returns the partial evaluation. */
export function checkExact(
  p: CoreProgram,
  entry: string,
  input: AbsValue[],
  runs = 200,
  opts: PeOptions = {},
): PeResult {
  const res = partialEvaluate(p, entry, input, opts);
  const u = new Interpreter(p);
  const s = new Interpreter(res.residual);
  fc.assert(
    fc.property(fc.tuple(...input.map((v) => arbMember(v, { ctors: p.ctors }))), (args) => {
      const a = u.run(entry, args, { maxSteps: 1e6 }).value;
      const b = s.run(res.entry, args, { maxSteps: 1e6 }).value;
      if (!equal(a, b))
        throw new Error(`${JSON.stringify(args)}: unstaged ${String(a)}, staged ${String(b)}`);
    }),
    { numRuns: runs },
  );
  return res;
}

/** How many residual nodes satisfy `pred`, over every function of `q`. */
export function countNodes(q: CoreProgram, pred: (e: CoreExpr) => boolean): number {
  let n = 0;
  for (const f of q.funs.values()) {
    forEachExpr(f.body, (e) => {
      if (pred(e)) n++;
    });
  }
  return n;
}

/** The map operations left in a residual program, by primitive. */
export function mapOpsOf(q: CoreProgram): Map<string, number> {
  const ops = new Map<string, number>();
  for (const f of q.funs.values()) {
    forEachExpr(f.body, (e) => {
      if (e.kind === 'prim' && e.op.startsWith('map_')) ops.set(e.op, (ops.get(e.op) ?? 0) + 1);
    });
  }
  return ops;
}
