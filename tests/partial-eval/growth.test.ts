/**
 * Growth of a specialization's parameters and result (src/partial-eval/growth.ts), driven
 * directly on abstract values: exact joins before widening, the size cap with products capped
 * part by part, folding of growing chains, the fuel, pinning, tuple merging and the result cap.
 * Every grown value must be an upper bound of both the old and the new value.
 */
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  absMap,
  base,
  con,
  constant,
  consts,
  isConcrete,
  leq,
  size,
  top,
  union,
} from '../../src/abstract-values/index.js';
import {
  capParts,
  ctorBelow,
  type GrowLimits,
  grow,
  inputKeyed,
  isProduct,
  isTupleCtor,
  mergeTuples,
  pin,
  resultCap,
} from '../../src/partial-eval/growth.js';
import { RESULT_CAP_PER_KEY_NODE } from '../../src/partial-eval/limits.js';

const LIMITS: GrowLimits = { joins: 3, specFuel: 8, cap: 256 };

/** A known list of the numbers `from`, `from + 1`, … (`n` of them). */
function list(n: number, from = 0): AbsValue {
  let v: AbsValue = con('nil', []);
  for (let i = n - 1; i >= 0; i--) v = con('cons', [constant(from + i), v]);
  return v;
}

/** A list of `n` cells `v('Int, k)`, k from `from` on: a chain that is not fully known. */
function openList(n: number, from = 0): AbsValue {
  let v: AbsValue = con('nil', []);
  for (let i = n - 1; i >= 0; i--) v = con('cons', [con('v', [base('Int'), constant(from + i)]), v]);
  return v;
}

function expectUpperBound(g: AbsValue, ...vs: AbsValue[]): void {
  for (const v of vs) expect(leq(v, g)).toBe(true);
}

describe('grow', () => {
  it('joins exactly before `joins` changes, without widening or loss', () => {
    const old = con('pair', [constant(1), constant('a')]);
    const next = con('pair', [constant(2), constant('a')]);
    const g = grow(old, next, 0, LIMITS);
    expect(g.widened).toBe(false);
    expect(g.loss).toBeUndefined();
    expectUpperBound(g.value, old, next);
    expect(g.value.kind).toBe('con');
  });

  it('widens from the `joins`-th change on', () => {
    const old = list(2);
    const next = list(3);
    const g = grow(old, next, LIMITS.joins, LIMITS);
    expect(g.widened).toBe(true);
    expectUpperBound(g.value, old, next);
  });

  it('folds chains that grew past the cap into a recursive value that fits, and says so', () => {
    const old = con('node', [openList(40, 0), openList(40, 100)]);
    const next = con('node', [openList(40, 200), openList(40, 300)]);
    const g = grow(old, next, 0, { ...LIMITS, cap: 20 });
    expectUpperBound(g.value, old, next);
    expect(g.widened).toBe(true);
    expect(g.loss).toMatchObject({ reason: 'size-cap', kind: 'folded' });
    expect(size(g.value)).toBeLessThanOrEqual(20);
  });

  it('keeps only a skeleton with numeric leaves `1` once the fuel is spent', () => {
    const old = con('box', [constant(1), constant('a')]);
    const next = con('box', [constant(2), constant('a')]);
    const g = grow(old, next, LIMITS.specFuel, LIMITS);
    expectUpperBound(g.value, old, next);
    expect(g.loss?.reason).toBe('spec-fuel');
    expect(g.value).toMatchObject({ kind: 'con', ctor: 'box', args: [{ kind: 'top' }, {}] });
  });

  it('caps the parts of a tuple one by one: a small part keeps its shape', () => {
    const small = con('st', [constant(true), constant(3)]);
    const old = con('#2', [openList(60, 0), small]);
    const next = con('#2', [openList(60, 1000), small]);
    const g = grow(old, next, 0, { ...LIMITS, cap: 30 });
    expectUpperBound(g.value, old, next);
    expect(g.value.kind).toBe('con');
    const parts = (g.value as AbsValue & { kind: 'con' }).args;
    expect(parts[1]).toEqual(small);
    expect(isConcrete(parts[1] as AbsValue)).toBe(true);
  });

  it('leaves a fully known value alone however big', () => {
    const v = list(400);
    const g = grow(v, v, 0, { ...LIMITS, cap: 10 });
    expect(g.value).toBe(v);
    expect(g.loss).toBeUndefined();
  });
});

describe('pin', () => {
  it('keeps constructors and map keys, everything else `1`', () => {
    const p = pin(con('st', [constant(1), absMap([['x', constant(2)]], [])]));
    expect(p.top).toBe(false);
    expect(p.to).toMatch(/constructors and map keys/);
    expect(p.value.kind).toBe('con');
  });

  it('is `1` for a value without constructors', () => {
    const p = pin(consts([1, 2]));
    expect(p.top).toBe(true);
    expect(p.to).toBe('1');
  });
});

describe('products and tuples', () => {
  it('merges the alternatives of a union that are tuples of one arity', () => {
    const a = con('#2', [constant(1), constant('a')]);
    const b = con('#2', [constant(2), constant('b')]);
    const m = mergeTuples(union([a, b]));
    expect(m.kind).toBe('con');
    expectUpperBound(m, a, b);
    const notTuples = union([con('some', [constant(1)]), con('none', [])]);
    expect(mergeTuples(notTuples)).toBe(notTuples);
  });

  it('tells tuple constructors, records and maps with known keys', () => {
    expect(isTupleCtor('#3')).toBe(true);
    expect(isTupleCtor('cons')).toBe(false);
    expect(isProduct(con('st', [constant(1)]))).toBe(true);
    expect(isProduct(list(2))).toBe(false);
    expect(ctorBelow('cons', [list(1)])).toBe(true);
    expect(isProduct(absMap([['x', constant(1)]], []))).toBe(true);
    expect(isProduct(absMap([], [[base('Str'), constant(1)]]))).toBe(false);
  });

  it('applies a cap to each part of a product', () => {
    const capped = capParts(con('st', [constant(1), constant(2)]), () => top());
    expect(capped).toMatchObject({ kind: 'con', ctor: 'st', args: [{ kind: 'top' }, { kind: 'top' }] });
    const m = capParts(absMap([['x', constant(1)]], []), () => top());
    expect(m).toMatchObject({ kind: 'map', must: [['x', { kind: 'top' }]] });
  });
});

describe('result cap', () => {
  it('is growCap, or RESULT_CAP_PER_KEY_NODE per node of the key values when that is more', () => {
    expect(resultCap([undefined], 256)).toBe(256);
    const key = list(100);
    expect(resultCap([key, undefined], 256)).toBe(RESULT_CAP_PER_KEY_NODE * size(key));
  });

  it('knows a specialization keyed on a known input node', () => {
    expect(inputKeyed([undefined, list(2)])).toBe(true);
    expect(inputKeyed([constant(3)])).toBe(false);
    expect(inputKeyed([con('box', [base('Int')])])).toBe(false);
  });
});
