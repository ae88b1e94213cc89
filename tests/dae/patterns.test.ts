/**
 * Liveness patterns: canonical forms, the join/order laws (property tests), the depth cap,
 * Fig. 12's helpers against the abstract values, and the printer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  absMap,
  absSet,
  base,
  bottom,
  con,
  consts,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import {
  ALL,
  asMapLP,
  capLP,
  conLP,
  constructorsLP,
  constsLP,
  ctorOnlyLP,
  DEAD,
  depthLP,
  equalLP,
  fieldLP,
  joinLP,
  type LP,
  LP_CONST_CAP,
  leqLP,
  mapLP,
  mustBeDisjoint,
  printLP,
  projLP,
  setLP,
  sizeLP,
  toLivenessPattern,
} from '../../src/dae/index.js';

const CTORS: readonly [string, number][] = [
  ['a', 1],
  ['b', 2],
  ['c', 0],
];

const constArb = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom('x', 'y'), fc.boolean()), {
    minLength: 1,
    maxLength: 4,
  })
  .map((vs) => constsLP(vs));

const lpArb: fc.Arbitrary<LP> = fc.letrec<{ lp: LP }>((tie) => ({
  lp: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<LP>(ALL),
    fc.constant<LP>(DEAD),
    constArb as fc.Arbitrary<LP>,
    fc
      .constantFrom(...CTORS)
      .chain(([c, n]) => fc.array(tie('lp'), { minLength: n, maxLength: n }).map((fs) => conLP(c, fs) as LP)),
    fc.tuple(fc.oneof(fc.constant<LP>(ALL), constArb), tie('lp')).map(([k, v]) => mapLP(k, v) as LP),
    fc.oneof(fc.constant<LP>(ALL), constArb).map((k) => setLP(k) as LP),
    fc.tuple(tie('lp'), tie('lp')).map(([x, y]) => joinLP(x, y)),
  ),
})).lp;

const eq = (a: LP, b: LP) => equalLP(a, b);

describe('join and order', () => {
  it('join is commutative, associative and idempotent; 0 is its unit, 1 absorbs', () => {
    fc.assert(
      fc.property(lpArb, lpArb, lpArb, (a, b, c) => {
        expect(eq(joinLP(a, b), joinLP(b, a))).toBe(true);
        expect(eq(joinLP(joinLP(a, b), c), joinLP(a, joinLP(b, c)))).toBe(true);
        expect(eq(joinLP(a, a), a)).toBe(true);
        expect(eq(joinLP(a, DEAD), a)).toBe(true);
        expect(joinLP(a, ALL)).toBe(ALL);
      }),
      { numRuns: 500 },
    );
  });

  it('join is the least upper bound of leq', () => {
    fc.assert(
      fc.property(lpArb, lpArb, lpArb, (a, b, c) => {
        const j = joinLP(a, b);
        expect(leqLP(a, j) && leqLP(b, j)).toBe(true);
        expect(leqLP(a, b)).toBe(eq(j, b));
        if (leqLP(a, c) && leqLP(b, c)) expect(leqLP(j, c)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('leq is a partial order with 0 least and 1 greatest', () => {
    fc.assert(
      fc.property(lpArb, lpArb, lpArb, (a, b, c) => {
        expect(leqLP(a, a)).toBe(true);
        expect(leqLP(DEAD, a) && leqLP(a, ALL)).toBe(true);
        if (leqLP(a, b) && leqLP(b, a)) expect(eq(a, b)).toBe(true);
        if (leqLP(a, b) && leqLP(b, c)) expect(leqLP(a, c)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('capLP only goes up and bounds depth', () => {
    fc.assert(
      fc.property(lpArb, fc.integer({ min: 1, max: 4 }), (a, d) => {
        const c = capLP(a, d);
        expect(leqLP(a, c)).toBe(true);
        expect(depthLP(c)).toBeLessThanOrEqual(d);
        if (depthLP(a) <= d) expect(c).toBe(a);
      }),
      { numRuns: 300 },
    );
  });

  it('capLP cuts wide patterns shallower until they fit the size bound', () => {
    // six levels of b(·, ·) over 1s: depth 7, 127 nodes
    const tree = (d: number): LP => (d === 0 ? ALL : conLP('b', [tree(d - 1), tree(d - 1)]));
    const t = tree(6);
    expect(sizeLP(t)).toBe(127);
    expect(capLP(t, 10, 1000)).toBe(t);
    const c = capLP(t, 10, 40);
    expect(sizeLP(c)).toBeLessThanOrEqual(40);
    expect(depthLP(c)).toBe(5);
    expect(leqLP(t, c)).toBe(true);
    expect(capLP(t, 10, 1)).toBe(ALL);
  });

  it('keeps one alternative per shape', () => {
    const u = joinLP(joinLP(conLP('b', [ALL, DEAD]), conLP('b', [DEAD, constsLP([3])])), constsLP([1, 2]));
    expect(printLP(u)).toBe('{1|2|b(1, {3})}');
    expect(printLP(joinLP(mapLP(constsLP([1]), DEAD), mapLP(constsLP([2]), ALL)))).toBe('[{1|2}, 1]');
    expect(printLP(joinLP(setLP(constsLP(['x'])), setLP(ALL)))).toBe('set[1]');
  });

  it('caps constant patterns', () => {
    const many = Array.from({ length: LP_CONST_CAP + 1 }, (_, i) => i);
    expect(constsLP(many)).toBe(ALL);
    expect(constsLP(many.slice(1))).toEqual({ kind: 'consts', values: many.slice(1) });
    expect(joinLP(constsLP(many.slice(0, 8)), constsLP(many.slice(8)))).toBe(ALL);
    expect(constsLP([])).toBe(DEAD);
    expect(printLP(constsLP([2, -0, 2, 'k', true]))).toBe('{true|0|2|"k"}');
  });

  it('a map or set pattern needing no key is dead', () => {
    expect(mapLP(DEAD, ALL)).toBe(DEAD);
    expect(setLP(DEAD)).toBe(DEAD);
    expect(mapLP(conLP('a', [ALL]), ALL)).toBe(DEAD);
    expect(printLP(mapLP(joinLP(constsLP([4]), conLP('a', [ALL])), ALL))).toBe('[{4}, 1]');
  });
});

describe('views', () => {
  it('fieldLP', () => {
    const tr = conLP('tr', [mapLP(constsLP([44, 46]), ALL), DEAD, constsLP([44, 46])]);
    expect(printLP(fieldLP(tr, 'tr', 0))).toBe('[{44|46}, 1]');
    expect(fieldLP(tr, 'tr', 1)).toBe(DEAD);
    expect(fieldLP(tr, 'other', 0)).toBe(DEAD);
    expect(fieldLP(ALL, 'tr', 2)).toBe(ALL);
    expect(fieldLP(DEAD, 'tr', 2)).toBe(DEAD);
    const u = joinLP(tr, conLP('some', [constsLP([1])]));
    expect(printLP(fieldLP(u, 'some', 0))).toBe('{1}');
    expect(printLP(fieldLP(u, 'tr', 2))).toBe('{44|46}');
    expect(fieldLP(constsLP([1]), 'some', 0)).toBe(DEAD);
  });

  it('projLP and ctorOnlyLP', () => {
    expect(printLP(projLP('tr', 3, 1, ALL))).toBe('tr(0, 1, 0)');
    expect(printLP(ctorOnlyLP('#2', 2))).toBe('(0, 0)');
    expect(printLP(ctorOnlyLP('none', 0))).toBe('none');
  });

  it('asMapLP: 1 and type-confused patterns need everything', () => {
    expect(printLP(asMapLP(ALL))).toBe('[1, 1]');
    expect(printLP(asMapLP(conLP('a', [ALL])))).toBe('[1, 1]');
    expect(printLP(asMapLP(joinLP(conLP('a', [ALL]), mapLP(constsLP([1]), DEAD))))).toBe('[{1}, 0]');
  });
});

describe("Fig. 12's helpers", () => {
  it('toLivenessPattern', () => {
    expect(printLP(toLivenessPattern(consts([44, 46])))).toBe('{44|46}');
    expect(toLivenessPattern(undefined)).toBe(ALL);
    expect(toLivenessPattern(top())).toBe(ALL);
    expect(toLivenessPattern(base('Int'))).toBe(ALL);
    expect(toLivenessPattern(bottom())).toBe(DEAD);
    expect(toLivenessPattern(con('some', [top()]))).toBe(ALL);
    expect(toLivenessPattern(consts(Array.from({ length: LP_CONST_CAP + 1 }, (_, i) => i)))).toBe(ALL);
  });

  it('constructorsLP', () => {
    expect(printLP(constructorsLP(union([con('some', [top()]), con('none', [])])))).toBe('{none|some(0)}');
    expect(constructorsLP(union([con('some', [top()]), consts([1])]))).toBe(ALL);
    expect(constructorsLP(undefined)).toBe(ALL);
    expect(constructorsLP(bottom())).toBe(DEAD);
  });

  it('mustBeDisjoint', () => {
    const k = constsLP([44, 46]);
    expect(mustBeDisjoint(k, consts([22, 32]))).toBe(true);
    expect(mustBeDisjoint(k, consts([22, 46]))).toBe(false);
    expect(mustBeDisjoint(k, base('Int'))).toBe(false);
    expect(mustBeDisjoint(k, base('Str'))).toBe(true);
    expect(mustBeDisjoint(k, top())).toBe(false);
    expect(mustBeDisjoint(k, undefined)).toBe(false);
    expect(mustBeDisjoint(k, bottom())).toBe(true);
    expect(mustBeDisjoint(DEAD, top())).toBe(true);
    expect(mustBeDisjoint(ALL, consts([1]))).toBe(false);
    expect(mustBeDisjoint(ALL, bottom())).toBe(true);
    expect(mustBeDisjoint(conLP('a', [ALL]), con('b', [top(), top()]))).toBe(true);
    expect(mustBeDisjoint(conLP('a', [DEAD]), union([con('a', [top()]), consts([1])]))).toBe(false);
    expect(mustBeDisjoint(mapLP(ALL, ALL), absSet([1], bottom()))).toBe(true);
    expect(mustBeDisjoint(setLP(ALL), absSet([1], bottom()))).toBe(false);
    expect(mustBeDisjoint(mapLP(ALL, ALL), absMap([[1, top()]], []))).toBe(false);
  });

  it('mustBeDisjoint is sound: no member of the value lies in the constant pattern', () => {
    const absArb = fc.oneof(
      fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 4 }).map((vs) => consts(vs)),
      fc.constant(base('Int')),
      fc.constant(base('Str')),
      fc.constant(top()),
    );
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 4 }),
        absArb,
        fc.integer(),
        (ks, v: AbsValue, seed) => {
          const lp = constsLP(ks);
          if (!mustBeDisjoint(lp, v)) return;
          const member = fc.sample(arbMember(v), { seed, numRuns: 5 });
          for (const m of member) expect(ks).not.toContain(m);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('printer', () => {
  it("prints the paper's notation", () => {
    expect(printLP(ALL)).toBe('1');
    expect(printLP(DEAD)).toBe('0');
    expect(printLP(conLP('tr', [mapLP(constsLP([46, 44]), ALL), DEAD, constsLP([44, 46])]))).toBe(
      'tr([{44|46}, 1], 0, {44|46})',
    );
    expect(printLP(joinLP(conLP('some', [ALL]), conLP('none', [])))).toBe('{none|some(1)}');
    expect(printLP(conLP('#2', [ALL, DEAD]))).toBe('(1, 0)');
  });
});
