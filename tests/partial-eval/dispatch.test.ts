/**
 * Dispatch (src/partial-eval/dispatch.ts): a call whose key argument is a conditional is
 * specialized to each branch, and one whose key argument is a union of records told apart by a
 * field becomes a residual test of that field with a call specialized to each group
 * (`splitKey`, `dispatchTests`).
 */
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, con, constant, printAbs, union } from '../../src/abstract-values/index.js';
import { splitKey } from '../../src/partial-eval/dispatch.js';
import { SPLIT_MAX } from '../../src/partial-eval/limits.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { forEachExpr } from '../../src/scf-lang/index.js';
import { checkExact, fixtureProgram } from './helpers.js';

describe('splitKey', () => {
  const op = (lbl: AbsValue, w: AbsValue) => con('op', [lbl, w]);
  const at = (v: AbsValue) => ({ v });

  it('splits a key argument that is a union of records by the field whose known values tell them apart', () => {
    const a = op(constant(1), constant(5));
    const b = op(constant(2), constant(5));
    const c = op(constant(1), constant(6));
    const split = splitKey([false, true], [at(base('Int')), at(union([a, b, c]))]);
    expect(split?.index).toBe(1);
    expect(split?.ctor).toBe('op');
    // field 0 tells two groups apart (1 and 2), in order of first occurrence
    expect(split?.field).toBe(0);
    expect(split?.groups.map((g) => [g.value, g.alts.length])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('leaves alone what is not a key, not records of one constructor, one group or too wide', () => {
    const two = union([op(constant(1), base('Int')), op(constant(2), base('Int'))]);
    expect(splitKey([false], [at(two)])).toBeUndefined();
    expect(
      splitKey([true], [at(union([op(constant(1), base('Int')), con('q', [constant(2)])]))]),
    ).toBeUndefined();
    expect(
      splitKey([true], [at(union([op(constant(1), constant(1)), op(constant(1), constant(1))]))]),
    ).toBeUndefined();
    // a boolean field is narrowed by a test, not dispatched on
    expect(
      splitKey([true], [at(union([op(constant(true), base('Int')), op(constant(false), base('Int'))]))]),
    ).toBeUndefined();
    const wide = union(Array.from({ length: SPLIT_MAX + 1 }, (_, i) => op(constant(i), base('Int'))));
    expect(splitKey([true], [at(wide)])).toBeUndefined();
  });
});

describe('calls on a key argument', () => {
  it('a call whose key argument is a conditional is specialized to each branch', () => {
    // `size(c ? e.l : e.r)` with c late: keyed on the union of both subtrees, `size` would be
    // specialized to a tree it cannot tell apart (kind tests and calls left in the residual
    // code); split into `c ? size(e.l) : size(e.r)`, each call has a known tree and folds
    const q = fixtureProgram('conditional-key');
    const leaf = con('leaf', []);
    const tree = con('node', [leaf, con('node', [leaf, con('node', [leaf, leaf])])]);
    const inp = [tree, union([constant(true), constant(false)])];
    const res = partialEvaluate(q, 't.run', inp);
    expect(printAbs(res.output)).toBe('1 | 5');
    let calls = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'call' || e.kind === 'test') calls++;
      });
    }
    expect(calls).toBe(0);
    checkExact(q, 't.run', inp, 50);
  });

  it('a call whose key argument is a union of labelled records is dispatched on the label', () => {
    // `cost(c)` past a late test with c one of two programs (a command list and its suffix, as
    // after a loop that may have been emitted or not): specialized to the union, its projections
    // mix the two programs (kind tests and a generic walk left); dispatched on the label, each
    // branch walks one known program
    const q = fixtureProgram('dispatch-label');
    const op = (l: number, w: number) => con('op', [constant(l), constant(w)]);
    const suffix = con('seq', [constant(3), op(4, 5), op(5, 7)]);
    const whole = con('seq', [constant(1), op(2, 3), suffix]);
    const inp = [union([whole, suffix]), base('Int'), union([constant(true), constant(false)])];
    const res = partialEvaluate(q, 't.run', inp);
    expect(res.stats.dispatches).toBeGreaterThan(0);
    let tests = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'test') tests++;
      });
    }
    expect(tests).toBe(0);
    checkExact(q, 't.run', inp, 100);
  });
});
