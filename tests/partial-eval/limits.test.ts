/**
 * The partial evaluator's limits and budgets (src/partial-eval/limits.ts): a divergent optimizer
 * stages in bounded work with stop: fuel and stays exact where it returns; the visit budget and
 * the node budget bound everything; the options resolve against the defaults, which
 * docs/config.md gives as the code has them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, con, constant } from '../../src/abstract-values/index.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { zeroStats } from '../../src/partial-eval/types.js';
import * as L from '../../src/partial-eval/limits.js';
import { Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { checkExact, compile, fixtureProgram } from './helpers.js';

describe('fuel', () => {
  it('a divergent optimizer stages in bounded time with stop: fuel, and stays exact where it returns', () => {
    const q = compile(`
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: number; readonly t: L };
      // grows a list without bound unless n is 0: abstractly the list never stops growing
      export function grow(n: number, acc: L): L { return n === 0 ? acc : grow(n - 1, { kind: 'c', h: n, t: acc }); }
      export function spin(n: number): L { return grow(n, { kind: 'end' }); }
    `);
    const t0 = performance.now();
    const res = partialEvaluate(q, 't.spin', [base('Int')], { specFuel: 3, joinsBeforeWiden: 99 });
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(res.stop).toBe('fuel');
    expect(res.reason).toMatch(/widened to 1|given up/);
    const u = new Interpreter(q);
    const s = new Interpreter(res.residual);
    for (const n of [0, 1, 5, 20])
      expect(equal(s.run(res.entry, [n]).value, u.run('t.spin', [n]).value)).toBe(true);
  });

  it('the visit budget bounds everything, and the result is still exact', () => {
    const p = fixtureProgram('interpreter');
    const e = add3(6);
    const res = partialEvaluate(p, 't.run', [e, base('Int')], { budget: 20 });
    expect(res.stop).toBe('fuel');
    const u = new Interpreter(p);
    const s = new Interpreter(res.residual);
    for (const x of [0, 3, -9]) {
      const c = concreteAdd3(6);
      expect(s.run(res.entry, [c, x]).value).toBe(u.run('t.run', [c, x]).value);
    }
  });
});

function add3(depth: number): AbsValue {
  return depth === 0
    ? con('v', [constant('x')])
    : con('add', [add3(depth - 1), con('num', [constant(depth)])]);
}
function concreteAdd3(depth: number): unknown {
  return depth === 0
    ? { kind: 'v', name: 'x' }
    : { kind: 'add', l: concreteAdd3(depth - 1), r: { kind: 'num', n: depth } };
}

describe('the node budget', () => {
  it('past the node budget (maxNodes) the original program is kept, sound, with the reason', () => {
    // a list doubled n times by sharing: small as the interpreter builds it, 2^n cells as abstract
    // nodes, built by one static call
    const DOUBLE = `
function dbl(xs: List<number>, n: number): List<number> {
  return n === 0 ? xs : dbl({ kind: 'cons', head: n, tail: xs }, n - 1);
}
function pair(a: List<number>, n: number): List<List<number>> {
  return n === 0 ? { kind: 'cons', head: a, tail: { kind: 'nil' } } : pair(dbl(a, 2), n - 1);
}
export function run(x: number, n: number): number {
  const l = pair({ kind: 'cons', head: x, tail: { kind: 'nil' } }, n);
  return l.kind === 'cons' ? x + 1 : x;
}
`;
    const q = compile(DOUBLE);
    const inp = [base('Int'), constant(400)];
    const res = partialEvaluate(q, 't.run', inp, { maxNodes: 500 });
    expect(res.stop).toBe('fuel');
    expect(res.reason).toMatch(/^the node budget ran out \(500 abstract values built/);
    expect(res.residual).toBe(q);
    checkExact(q, 't.run', inp, 20, { maxNodes: 500 });
    // with room enough the same program is specialized
    expect(partialEvaluate(q, 't.run', inp).stop).not.toBe('fuel');
  });
});

describe('limits', () => {
  it('options resolve against the defaults, each given or not', () => {
    expect(L.limitsOf({})).toEqual({
      k: L.K,
      chainDepth: L.CHAIN_DEPTH,
      joinsBeforeWiden: L.JOINS_BEFORE_WIDEN,
      specFuel: L.SPEC_FUEL,
      growCap: L.GROW_CAP,
      budget: L.BUDGET,
      hardBudget: L.BUDGET * L.HARD_BUDGET_FACTOR,
      maxSpecs: L.MAX_SPECS,
      maxNodes: L.MAX_NODES,
      staticCallSteps: L.STATIC_CALL_STEPS,
      unfoldDepth: L.UNFOLD_DEPTH,
      raiseMaps: true,
      keyEqualArgs: false,
    });
    const o = L.limitsOf({ k: 3, budget: 10, unfoldDepth: 0, raiseMaps: false, keyEqualArgs: true });
    expect([o.k, o.budget, o.hardBudget, o.unfoldDepth, o.raiseMaps, o.keyEqualArgs]).toEqual([
      3,
      10,
      10 * L.HARD_BUDGET_FACTOR,
      0,
      false,
      true,
    ]);
  });

  it('the budget is exhausted past its visits, and throws past the hard budget', () => {
    const stats = zeroStats();
    const b = new L.Budget(L.limitsOf({ budget: 3 }), stats, undefined);
    for (let i = 0; i < 3; i++) b.visit();
    expect(b.exhausted).toBe(false);
    b.visit();
    expect(b.exhausted).toBe(true);
    expect(b.exhaustedBy).toBe('the budget of 3 expression visits ran out');
    while (stats.visits < 3 * L.HARD_BUDGET_FACTOR) b.visit();
    expect(() => b.visit()).toThrow(L.BudgetExceeded);
  });

  it('the budget is exhausted by maxSpecs specializations, and keeps the first reason', () => {
    const stats = zeroStats();
    const b = new L.Budget(L.limitsOf({ maxSpecs: 2 }), stats, undefined);
    b.specMade(1);
    expect(b.exhausted).toBe(false);
    b.specMade(2);
    expect(stats.specs).toBe(2);
    expect(b.exhaustedBy).toBe('2 specializations were made');
    b.exhaust('something else');
    expect(b.exhaustedBy).toBe('2 specializations were made');
  });

  it('reports progress every PROGRESS_EVERY visits, and static calls while static work is left', () => {
    const stats = zeroStats();
    const seen: number[] = [];
    const b = new L.Budget(L.limitsOf({}), stats, (s) => seen.push(s.visits));
    for (let i = 0; i < 2 * L.PROGRESS_EVERY + 1; i++) b.visit();
    expect(seen).toEqual([L.PROGRESS_EVERY, 2 * L.PROGRESS_EVERY]);
    expect(b.staticCallsLeft()).toBe(true);
    stats.staticWork = L.STATIC_WORK;
    expect(b.staticCallsLeft()).toBe(false);
    expect(new L.Budget(L.limitsOf({ staticCallSteps: 0 }), zeroStats(), undefined).staticCallsLeft()).toBe(
      false,
    );
  });

  it('docs/config.md gives every bound as limits.ts has it', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/config.md'), 'utf8');
    const row = (name: string) => new RegExp(`^\\| \`${name}\` +\\| (\\d+) +\\|`, 'm').exec(doc)?.[1];
    const bounds: [string, number][] = [
      ['growCap', L.GROW_CAP],
      ['specFuel', L.SPEC_FUEL],
      ['unfoldDepth', L.UNFOLD_DEPTH],
      ['k', L.K],
      ['chainDepth', L.CHAIN_DEPTH],
      ['joinsBeforeWiden', L.JOINS_BEFORE_WIDEN],
      ['budget', L.BUDGET],
      ['maxSpecs', L.MAX_SPECS],
      ['maxNodes', L.MAX_NODES],
      ['staticCallSteps', L.STATIC_CALL_STEPS],
      ['STATIC_WORK', L.STATIC_WORK],
      ['NEST_LIMIT', L.NEST_LIMIT],
    ];
    for (const [name, value] of bounds) expect(row(name), name).toBe(String(value));
    expect(doc).toContain(`${L.HARD_BUDGET_FACTOR} times as many keep the original program`);
  });
});
