/**
 * The paper's Fig. 3 dead-assignment elimination, written in SCF-lang, must give the same
 * result run natively (as TypeScript over Immutable.js) and desugared to Core on the counting
 * interpreter, on random programs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cmd, Expr, Exprs, Func } from '../../src/optimizers/fig3/ast.js';
import { optimize } from '../../src/optimizers/fig3/fig3-dae.js';
import { compileFile, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';

const VARS = ['a', 'b', 'c', 'x', 'y'];

/** Random Fig. 3 programs; labels are renumbered afterwards so they are unique. */
const arbitraries = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('var_ref' as const), v: fc.constantFrom(...VARS), lbl: fc.constant(0) }),
    fc.record({
      kind: fc.constant('int_const' as const),
      n: fc.integer({ min: -3, max: 9 }),
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('primop' as const),
      op: fc.constantFrom('+', '*', '<'),
      args: fc.array(tie('expr') as fc.Arbitrary<Expr>, { maxLength: 3 }).map(toExprs),
      lbl: fc.constant(0),
    }),
  ),
  cmd: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('assign' as const),
      v: fc.constantFrom(...VARS),
      e: tie('expr') as fc.Arbitrary<Expr>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('return' as const),
      e: tie('expr') as fc.Arbitrary<Expr>,
      lbl: fc.constant(0),
    }),
    fc.record({ kind: fc.constant('skip' as const), lbl: fc.constant(0) }),
    fc.record({
      kind: fc.constant('seq' as const),
      first: tie('cmd') as fc.Arbitrary<Cmd>,
      second: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('while_do' as const),
      test: tie('expr') as fc.Arbitrary<Expr>,
      body: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('if_then_else' as const),
      test: tie('expr') as fc.Arbitrary<Expr>,
      thenC: tie('cmd') as fc.Arbitrary<Cmd>,
      elseC: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
  ),
}));

function toExprs(es: readonly Expr[]): Exprs {
  let out: Exprs = { kind: 'exprs_none' };
  for (let i = es.length - 1; i >= 0; i--) out = { kind: 'exprs', e: es[i] as Expr, rest: out };
  return out;
}

function relabel(f: Func): Func {
  let next = 1;
  const e = (x: Expr): Expr => {
    switch (x.kind) {
      case 'var_ref':
      case 'int_const':
        return { ...x, lbl: next++ };
      case 'primop':
        return { ...x, args: es(x.args), lbl: next++ };
    }
  };
  const es = (x: Exprs): Exprs =>
    x.kind === 'exprs_none' ? x : { kind: 'exprs', e: e(x.e), rest: es(x.rest) };
  const c = (x: Cmd): Cmd => {
    switch (x.kind) {
      case 'assign':
        return { ...x, e: e(x.e), lbl: next++ };
      case 'return':
        return { ...x, e: e(x.e), lbl: next++ };
      case 'skip':
        return { ...x, lbl: next++ };
      case 'seq':
        return { ...x, first: c(x.first), second: c(x.second), lbl: next++ };
      case 'while_do':
        return { ...x, test: e(x.test), body: c(x.body), lbl: next++ };
      case 'if_then_else':
        return { ...x, test: e(x.test), thenC: c(x.thenC), elseC: c(x.elseC), lbl: next++ };
    }
  };
  return { ...f, body: c(f.body), lbl: next++ };
}

const funcArb: fc.Arbitrary<Func> = (arbitraries.cmd as fc.Arbitrary<Cmd>).map((body) =>
  relabel({
    kind: 'func',
    name: 'f',
    formals: { kind: 'cons', head: 'a', tail: { kind: 'nil' } },
    body,
    lbl: 0,
  }),
);

describe('Fig. 3 DAE in SCF-lang', () => {
  const compiled = compileFile('src/optimizers/fig3/fig3-dae.ts');
  it('is in the subset', () => {
    expect(compiled.diagnostics).toEqual([]);
  });
  const interp = new Interpreter(compiled.program as NonNullable<typeof compiled.program>);

  it('removes the dead assignment of a small example', () => {
    // u = x * a; w = u + y; u = 3; return w;   — the second assignment to u is dead
    const v = (name: string, lbl: number): Expr => ({ kind: 'var_ref', v: name, lbl });
    const prim = (op: string, l: Expr, r: Expr, lbl: number): Expr => ({
      kind: 'primop',
      op,
      args: toExprs([l, r]),
      lbl,
    });
    const body: Cmd = {
      kind: 'seq',
      first: { kind: 'assign', v: 'u', e: prim('*', v('x', 1), v('a', 2), 3), lbl: 4 },
      second: {
        kind: 'seq',
        first: { kind: 'assign', v: 'w', e: prim('+', v('u', 5), v('y', 6), 7), lbl: 8 },
        second: {
          kind: 'seq',
          first: { kind: 'assign', v: 'u', e: { kind: 'int_const', n: 3, lbl: 9 }, lbl: 10 },
          second: { kind: 'return', e: v('w', 11), lbl: 12 },
          lbl: 13,
        },
        lbl: 14,
      },
      lbl: 15,
    };
    const f: Func = { kind: 'func', name: 'mul_add', formals: { kind: 'nil' }, body, lbl: 16 };
    const out = optimize(f);
    const expected = JSON.parse(JSON.stringify(f));
    expected.body.second.second.first = { kind: 'skip', lbl: 10 };
    expect(equal(out, expected)).toBe(true);
    const run = interp.run('fig3-dae.optimize', [f]);
    expect(equal(run.value, out)).toBe(true);
    expect(run.counts.collectionOps).toBeGreaterThan(0);
  });

  it('gives the same result natively and on the Core interpreter', () => {
    fc.assert(
      fc.property(funcArb, (f) => {
        const native = optimize(f);
        const { value, counts } = interp.run('fig3-dae.optimize', [f]);
        expect(equal(value, native)).toBe(true);
        expect(counts.total).toBeGreaterThan(counts.collectionOps);
      }),
      { numRuns: 300 },
    );
  });
});
