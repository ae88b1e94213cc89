/**
 * The interprocedural DAE: parameter removal, dropped functions, the fixpoint's widening and
 * depth cap, the fuel stop; and the differential property — with a sound collecting semantics
 * (here: exactly the values recorded on the very runs compared, or nothing known) the pruned
 * program returns `equal` results.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, consts, top, union } from '../../src/abstract-values/index.js';
import {
  DEAD,
  type DaeOptions,
  type DaeResult,
  depthLP,
  eliminateDeadAssignments,
  type LP,
  printLP,
} from '../../src/dae/index.js';
import type { Label, Program } from '../../src/scf-lang/core.js';
import {
  compileFile,
  Interpreter,
  printCoreProgram,
  programSize,
  ScfRuntimeError,
  validateCoreProgram,
} from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import type { Cmd, Expr as F3Expr, Exprs, Func } from '../../src/optimizers/fig3/ast.js';
import { genProgram } from './gen.js';
import { Builder, ctor, fun, program, recordCs } from './helpers.js';

/** Runs `fn` on both programs for each input; where the original returns, so must the pruned one, equally. */
function expectSameResults(
  before: Program,
  after: Program,
  fn: string,
  inputs: readonly (readonly unknown[])[],
): number {
  const i1 = new Interpreter(before);
  const i2 = new Interpreter(after);
  let compared = 0;
  for (const args of inputs) {
    let v1: unknown;
    try {
      v1 = i1.run(fn, args, { maxSteps: 5_000_000 }).value;
    } catch (e) {
      if (e instanceof ScfRuntimeError) continue;
      throw e;
    }
    const v2 = i2.run(fn, args, { maxSteps: 5_000_000 }).value;
    if (!equal(v1, v2)) {
      throw new Error(
        `different results on ${JSON.stringify(args)}\n--- before\n${printCoreProgram(before, { labels: true })}\n--- after\n${printCoreProgram(after, { labels: true })}`,
      );
    }
    compared++;
  }
  return compared;
}

function checkShape(before: Program, r: DaeResult, entry: string): void {
  expect(validateCoreProgram(r.program)).toEqual([]);
  expect(r.program.funs.get(entry)?.params).toEqual(before.funs.get(entry)?.params);
  expect(programSize(r.program)).toBeLessThanOrEqual(programSize(before));
}

describe('interprocedural', () => {
  it('removes dead parameters and their arguments; the entry keeps its signature', () => {
    const b = new Builder();
    // g(x, y, z) = x + 1;   main(a, b, unused) = g(a, b * b, g(b, a, a))
    const g = fun('g', ['x', 'y', 'z'], b.prim('add', [b.v('x'), b.lit(1)]));
    const main = fun(
      'main',
      ['a', 'b', 'unused'],
      b.call('g', [
        b.v('a'),
        b.prim('mul', [b.v('b'), b.v('b')]),
        b.call('g', [b.v('b'), b.v('a'), b.v('a')]),
      ]),
    );
    const p = program([main, g]);
    const r = eliminateDeadAssignments(p, new Map(), 'main');
    expect(r.stop).toBe('fixpoint');
    expect(printCoreProgram(r.program)).toBe('fun main(a, b, unused) =\n  g(a)\n\nfun g(x) =\n  (x + 1)\n');
    expect(r.removed).toMatchObject({ params: 2, funs: 0 });
    expect(r.liveness.params.get('main')?.map(printLP)).toEqual(['1', '0', '0']);
    checkShape(p, r, 'main');
    expectSameResults(p, r.program, 'main', [[1, 2, 3]]);
  });

  it('a parameter only passed to itself recursively is dead (least fixpoint)', () => {
    const b = new Builder();
    // sum(n, acc, junk) = if n = 0 then acc else sum(n - 1, acc + n, junk * 2)
    const sum = fun(
      'sum',
      ['n', 'acc', 'junk'],
      b.if(
        b.prim('eq', [b.v('n'), b.lit(0)]),
        b.v('acc'),
        b.call('sum', [
          b.prim('sub', [b.v('n'), b.lit(1)]),
          b.prim('add', [b.v('acc'), b.v('n')]),
          b.prim('mul', [b.v('junk'), b.lit(2)]),
        ]),
      ),
    );
    const main = fun('main', ['n'], b.call('sum', [b.v('n'), b.lit(0), b.v('n')]));
    const p = program([main, sum]);
    const r = eliminateDeadAssignments(p, new Map(), 'main');
    expect(r.program.funs.get('sum')?.params).toEqual(['n', 'acc']);
    expect(printCoreProgram(r.program)).not.toContain('junk');
    checkShape(p, r, 'main');
    expect(expectSameResults(p, r.program, 'main', [[0], [5], [30]])).toBe(3);
  });

  it('a parameter whose field is never read: only the projected part is live', () => {
    const b = new Builder();
    // fst(t) = tuple⁻¹(t);  main(x, y) = fst((x, y * 100))
    const fst = fun('fst', ['t'], b.proj('#2', 0, b.v('t')));
    const main = fun(
      'main',
      ['x', 'y'],
      b.call('fst', [b.con('#2', [b.v('x'), b.prim('mul', [b.v('y'), b.lit(100)])])]),
    );
    const p = program([main, fst]);
    const r = eliminateDeadAssignments(p, new Map(), 'main');
    expect(printCoreProgram(r.program)).toContain('fst((x, 0))');
    expect(printLP(r.liveness.params.get('fst')?.[0] as LP)).toBe('(1, 0)');
    expect(r.removed.exprs).toBe(1);
    expectSameResults(p, r.program, 'main', [[4, 5]]);
  });

  it('return patterns flow to callees: a component nobody reads is not computed', () => {
    const b = new Builder();
    // pair(a) = (a + 1, expensive(a));  expensive(a) = a * a;  main(a) = tuple⁻¹(pair(a))
    const pair = fun(
      'pair',
      ['a'],
      b.con('#2', [b.prim('add', [b.v('a'), b.lit(1)]), b.call('expensive', [b.v('a')])]),
    );
    const expensive = fun('expensive', ['a'], b.prim('mul', [b.v('a'), b.v('a')]));
    const unused = fun('unused', [], b.lit(1));
    const main = fun('main', ['a'], b.proj('#2', 0, b.call('pair', [b.v('a')])));
    const p = program([main, pair, expensive, unused]);
    const r = eliminateDeadAssignments(p, new Map(), 'main');
    expect([...r.program.funs.keys()]).toEqual(['main', 'pair']);
    expect(r.removed.funs).toBe(2);
    expect(printLP(r.liveness.returns.get('pair') as LP)).toBe('(1, 0)');
    expect(r.liveness.returns.get('expensive')).toBe(DEAD);
    expectSameResults(p, r.program, 'main', [[7]]);
  });

  it('unknown entry is an error', () => {
    expect(() => eliminateDeadAssignments(program([]), new Map(), 'nope')).toThrow(/no function 'nope'/);
  });
});

describe('termination: widening, depth cap, fuel', () => {
  // f(n, x) = if n = 0 then x else c⁻¹(f(n - 1, x));  main(n, x) = box⁻¹(f(n, x))
  // f's return pattern grows box(1), {box(1)|c(box(1))}, {box(1)|c({box(1)|c(box(1))})}, …
  const b = new Builder();
  const f = fun(
    'f',
    ['n', 'x'],
    b.if(
      b.prim('eq', [b.v('n'), b.lit(0)]),
      b.v('x'),
      b.proj('c', 0, b.call('f', [b.prim('sub', [b.v('n'), b.lit(1)]), b.v('x')])),
    ),
  );
  const main = fun('main', ['n', 'x'], b.proj('box', 0, b.call('f', [b.v('n'), b.v('x')])));
  const p = program([main, f], [ctor('c', 'inner'), ctor('box', 'content')]);
  const input = [[2, { kind: 'c', inner: { kind: 'c', inner: { kind: 'box', content: 5 } } }]];

  const run = (opts: DaeOptions) => {
    const r = eliminateDeadAssignments(p, new Map(), 'main', opts);
    expect(r.stop).toBe('fixpoint');
    expectSameResults(p, r.program, 'main', input);
    return r;
  };

  it('widens a return pattern that keeps changing to 1', () => {
    const r = run({ widenAfter: 3, depthCap: 100 });
    expect(printLP(r.liveness.returns.get('f') as LP)).toBe('1');
  });

  it('the depth cap alone makes the chain finite', () => {
    const r = run({ widenAfter: 1000, depthCap: 4 });
    const ret = r.liveness.returns.get('f') as LP;
    expect(depthLP(ret)).toBeLessThanOrEqual(4);
    expect(printLP(ret)).not.toBe('1');
    expect(r.rounds).toBeLessThan(20);
  });

  it('defaults terminate', () => {
    run({});
  });

  it('out of fuel: the program comes back unchanged', () => {
    const r = eliminateDeadAssignments(p, new Map(), 'main', { fuel: 1 });
    expect(r.stop).toBe('fuel');
    expect(r.program).toBe(p);
    expect(r.rounds).toBe(1);
    expect(r.removed).toEqual({ exprs: 0, lets: 0, params: 0, mapOps: 0, funs: 0 });
    expect(eliminateDeadAssignments(p, new Map(), 'main', { fuel: 0 }).stop).toBe('fuel');
  });
});

describe('differential: random programs', () => {
  const totals = { mapOps: 0, lets: 0, exprs: 0, params: 0, compared: 0 };

  it('with the exact collecting semantics of the runs compared', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const g = genProgram(seed);
        const cs = recordCs(g.program, g.entry, g.inputs);
        const r = eliminateDeadAssignments(g.program, cs, g.entry);
        expect(r.stop).toBe('fixpoint');
        checkShape(g.program, r, g.entry);
        totals.compared += expectSameResults(g.program, r.program, g.entry, g.inputs);
        totals.mapOps += r.removed.mapOps;
        totals.lets += r.removed.lets;
        totals.exprs += r.removed.exprs;
        totals.params += r.removed.params;
      }),
      { numRuns: 400 },
    );
    // the property is not vacuous: every kind of pruning happened
    expect(totals.compared).toBeGreaterThan(1000);
    expect(totals.mapOps).toBeGreaterThan(20);
    expect(totals.lets).toBeGreaterThan(100);
    expect(totals.exprs).toBeGreaterThan(20);
    expect(totals.params).toBeGreaterThan(5);
  });

  it('with part of the collecting semantics unknown', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 0, max: 3 }), (seed, keep) => {
        const g = genProgram(seed);
        const full = recordCs(g.program, g.entry, g.inputs);
        const cs = new Map<Label, AbsValue>();
        for (const [l, v] of full) if ((l * 7 + seed) % 4 < keep) cs.set(l, v);
        const r = eliminateDeadAssignments(g.program, cs, g.entry);
        checkShape(g.program, r, g.entry);
        expectSameResults(g.program, r.program, g.entry, g.inputs);
      }),
      { numRuns: 200 },
    );
  });

  it('with a coarser sound collecting semantics (entries widened to supersets)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const g = genProgram(seed);
        const exact = recordCs(g.program, g.entry, g.inputs);
        const cs = new Map<Label, AbsValue>();
        for (const [l, v] of exact) {
          switch ((l + seed) % 5) {
            case 0:
              cs.set(l, union([v, consts([1, 3, 'z'])]));
              break;
            case 1:
              cs.set(l, union([v, base('Int')]));
              break;
            case 2:
              cs.set(l, top());
              break;
            default:
              cs.set(l, v);
          }
        }
        const r = eliminateDeadAssignments(g.program, cs, g.entry);
        checkShape(g.program, r, g.entry);
        expectSameResults(g.program, r.program, g.entry, g.inputs);
      }),
      { numRuns: 200 },
    );
  });

  it('with no collecting semantics at all', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const g = genProgram(seed);
        const r = eliminateDeadAssignments(g.program, new Map(), g.entry);
        expect(r.removed.mapOps).toBe(0);
        checkShape(g.program, r, g.entry);
        expectSameResults(g.program, r.program, g.entry, g.inputs);
      }),
      { numRuns: 200 },
    );
  });
});

// ---- the paper's own optimizer: Fig. 3's DAE, written in SCF-lang ------------------------------

const VARS = ['a', 'b', 'x', 'y', 'u'];

const f3 = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('var_ref' as const), v: fc.constantFrom(...VARS), lbl: fc.constant(0) }),
    fc.record({
      kind: fc.constant('int_const' as const),
      n: fc.integer({ min: 0, max: 5 }),
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('primop' as const),
      op: fc.constantFrom('+', '*'),
      args: fc.array(tie('expr') as fc.Arbitrary<F3Expr>, { maxLength: 2 }).map(toExprs),
      lbl: fc.constant(0),
    }),
  ),
  cmd: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('assign' as const),
      v: fc.constantFrom(...VARS),
      e: tie('expr') as fc.Arbitrary<F3Expr>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('return' as const),
      e: tie('expr') as fc.Arbitrary<F3Expr>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('seq' as const),
      first: tie('cmd') as fc.Arbitrary<Cmd>,
      second: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('while_do' as const),
      test: tie('expr') as fc.Arbitrary<F3Expr>,
      body: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('if_then_else' as const),
      test: tie('expr') as fc.Arbitrary<F3Expr>,
      thenC: tie('cmd') as fc.Arbitrary<Cmd>,
      elseC: tie('cmd') as fc.Arbitrary<Cmd>,
      lbl: fc.constant(0),
    }),
  ),
}));

function toExprs(es: readonly F3Expr[]): Exprs {
  let out: Exprs = { kind: 'exprs_none' };
  for (let i = es.length - 1; i >= 0; i--) out = { kind: 'exprs', e: es[i] as F3Expr, rest: out };
  return out;
}

/** Gives every node of a random Fig. 3 function a unique label (JSON round trip + walk). */
function relabel(body: Cmd): Func {
  let next = 1;
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x) || typeof x !== 'object' || x === null) return x;
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) o[k] = walk(v);
    if ('lbl' in o) o.lbl = next++;
    return o;
  };
  return walk({
    kind: 'func',
    name: 'f',
    formals: { kind: 'cons', head: 'a', tail: { kind: 'nil' } },
    body,
    lbl: 0,
  }) as Func;
}

const funcArb = (f3.cmd as fc.Arbitrary<Cmd>).map(relabel);

describe("differential: Fig. 3's DAE optimizer compiled from SCF-lang", () => {
  const compiled = compileFile('src/optimizers/fig3/fig3-dae.ts');
  const p = compiled.program as Program;
  const entry = compiled.entries.get('optimize') as string;

  it('specialized to one input function (cs recorded on that run), the pruned optimizer gives the same result', () => {
    let mapOps = 0;
    fc.assert(
      fc.property(funcArb, (f) => {
        const cs = recordCs(p, entry, [[f]]);
        const r = eliminateDeadAssignments(p, cs, entry);
        expect(r.stop).toBe('fixpoint');
        checkShape(p, r, entry);
        expect(expectSameResults(p, r.program, entry, [[f]])).toBe(1);
        mapOps += r.removed.mapOps;
      }),
      { numRuns: 60 },
    );
    expect(mapOps).toBeGreaterThan(0);
  });

  it('with cs recorded over several inputs, on all of them', () => {
    fc.assert(
      fc.property(fc.array(funcArb, { minLength: 2, maxLength: 5 }), (fs) => {
        const inputs = fs.map((f) => [f]);
        const r = eliminateDeadAssignments(p, recordCs(p, entry, inputs), entry);
        checkShape(p, r, entry);
        expectSameResults(p, r.program, entry, inputs);
      }),
      { numRuns: 30 },
    );
  });

  it('with no collecting semantics the whole optimizer survives, params and all', () => {
    const r = eliminateDeadAssignments(p, new Map(), entry);
    checkShape(p, r, entry);
    expect(r.removed.mapOps).toBe(0);
    fc.assert(
      fc.property(funcArb, (f) => {
        expectSameResults(p, r.program, entry, [[f]]);
      }),
      { numRuns: 50 },
    );
  });
});
