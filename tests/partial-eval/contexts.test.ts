/**
 * Specialization contexts (src/partial-eval/context.ts, SCF §3.4) and the cursor the evaluator
 * passes down (src/partial-eval/cursor.ts): call chains keep at most k instances of a key and at
 * most maxDepth keys; a cursor is never changed, only extended, and an analysis starts on a
 * static path of its own.
 */
import { describe, expect, it } from 'vitest';
import { constant, top } from '../../src/abstract-values/index.js';
import { Contexts } from '../../src/partial-eval/index.js';
import { atAnalysis, inUnfolded, pastLateTest } from '../../src/partial-eval/cursor.js';
import { SpecTable } from '../../src/partial-eval/table.js';
import { compile } from './helpers.js';

describe('call chains (SCF §3.4)', () => {
  it('keep at most k instances of a key, cutting to the shortest top part', () => {
    const c = new Contexts(2);
    const a = c.key('f', [top()]);
    const b = c.key('g', [undefined]);
    const c1 = c.push(a, undefined);
    const c2 = c.push(b, c1);
    const c3 = c.push(a, c2); // [a, b, a]: two instances
    expect(c3.length).toBe(3);
    const c4 = c.push(a, c3); // would be three: [a, a] (down to the most recent earlier a)
    expect(c4.length).toBe(2);
    expect(c.push(a, c4).id).toBe(c4.id); // folds back onto itself: a fixpoint context
  });

  it('keep at most maxDepth keys, the most recent ones', () => {
    const c = new Contexts(2, 3);
    const keys = ['f', 'g', 'h', 'i'].map((n) => c.key(n, [undefined]));
    let chain = c.push(keys[0] as never, undefined);
    for (const k of keys.slice(1)) chain = c.push(k, chain);
    expect(chain.length).toBe(3);
    expect([chain.key.fn, chain.parent?.key.fn, chain.parent?.parent?.key.fn]).toEqual(['i', 'h', 'g']);
  });
});

describe('the cursor', () => {
  const p = compile('export function f(x: number): number { return x; }');
  const fn = p.funs.get('t.f') as NonNullable<ReturnType<typeof p.funs.get>>;
  const contexts = new Contexts(2);
  const ctx = contexts.push(contexts.key('t.f', [undefined]), undefined);
  const spec = new SpecTable().create(fn, ctx, [top()], []);

  it('an analysis starts on a static path of its own, outside any unfolding, in its own context', () => {
    expect(atAnalysis(spec, 3)).toEqual({ spec, late: 0, unfolding: 0, ctx, nest: 3 });
  });

  it('is extended, never changed: past a late test, inside an unfolded call', () => {
    const at = atAnalysis(spec, 0);
    const late = pastLateTest(at);
    const other = contexts.push(contexts.key('t.g', [constant(1)]), ctx);
    const inner = inUnfolded(late, other);
    expect([at.late, late.late, inner.late]).toEqual([0, 1, 1]);
    expect([at.unfolding, late.unfolding, inner.unfolding]).toEqual([0, 0, 1]);
    // an unfolding is one level of nesting; a late test is none
    expect([at.nest, late.nest, inner.nest]).toEqual([0, 0, 1]);
    expect([at.ctx, late.ctx, inner.ctx]).toEqual([ctx, ctx, other]);
    expect(inner.spec).toBe(spec);
  });
});
