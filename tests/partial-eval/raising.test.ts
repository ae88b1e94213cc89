/**
 * Arity raising of maps with known keys (src/partial-eval/raise.ts) and where representations
 * meet (`Raiser.meeting`, `meet`, `meetAll`): lookups and updates become tuple operations, a
 * differing representation makes both sides plain unless a constant side can take the other's,
 * helpers are specialized apart per representation, and the staged result stays exact.
 */
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  absMap,
  base,
  bottom,
  con,
  constant,
  union,
  withPrelude,
} from '../../src/abstract-values/index.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { zeroStats } from '../../src/partial-eval/types.js';
import { Raiser, tupleRep } from '../../src/partial-eval/raise.js';
import { type Binding, ResidualCode } from '../../src/partial-eval/residual.js';
import { forEachExpr, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { checkExact, compile, GET, mapOpsOf, fixtureProgram } from './helpers.js';

describe('where representations meet', () => {
  const span = { file: '', start: 0, end: 0 };
  const KEYS = tupleRep(['a', 'b']);
  const env = (a: AbsValue, b: AbsValue) =>
    absMap(
      [
        ['a', a],
        ['b', b],
      ],
      [],
    );
  /** A raised map held by a variable, a plain one, and a map constant. */
  function bindings() {
    const code = new ResidualCode(withPrelude(new Map()));
    const s = zeroStats();
    const raise = new Raiser(code, s, true);
    const raised: Binding = code.bind(
      env(base('Int'), base('Int')),
      () => code.node({ kind: 'var', name: 'm' }, span),
      span,
      KEYS,
    );
    const plain: Binding = code.bind(
      env(base('Int'), base('Int')),
      () => code.node({ kind: 'var', name: 'p' }, span),
      span,
      undefined,
    );
    const known: Binding = code.bind(
      env(constant(1), constant(2)),
      () => code.node({ kind: 'var', name: 'k' }, span),
      span,
      undefined,
    );
    return { code, stats: s, raise, raised, plain, known };
  }

  it('one rule: the same representation, a constant that takes it, or a difference', () => {
    const { raise, raised, plain, known } = bindings();
    expect(known.r.kind).toBe('lit');
    expect(raise.meeting(raised, KEYS)).toBe('same');
    expect(raise.meeting(known, KEYS)).toBe('takes');
    expect(raise.meeting(plain, KEYS)).toBe('differs');
    expect(raise.meeting(raised, undefined)).toBe('differs');
    expect(raise.meeting(plain, undefined)).toBe('same');
  });

  it('meet: a constant takes the representation as a literal of its view; a difference makes it plain', () => {
    const { raise, raised, known, stats: s } = bindings();
    const taken = raise.meet(known, KEYS, span);
    expect(taken.rep).toEqual(KEYS);
    expect(taken.r.kind).toBe('lit');
    const made = raise.meet(raised, undefined, span);
    expect(made.rep).toBeUndefined();
    expect(s.materialized).toBe(1);
  });

  it('meetAll: branches share one representation; constants take it where allowed, else all are plain', () => {
    const { raise, raised, known, code } = bindings();
    const ifs = raise.meetAll([known, raised], span, true);
    expect(ifs.rep).toEqual(KEYS);
    expect(ifs.bs[1]).toBe(raised);
    const calls = raise.meetAll([known, raised], span, false);
    expect(calls.rep).toBeUndefined();
    expect(calls.bs.every((b) => b.rep === undefined)).toBe(true);
    // a branch that cannot return does not count, and is left as it is
    const none: Binding = { v: bottom(), r: code.node({ kind: 'var', name: 'z' }, span) };
    const stuck = raise.meetAll([none, raised], span, false);
    expect(stuck.rep).toEqual(KEYS);
    expect(stuck.bs[0]).toBe(none);
  });
});

describe('arity raising of maps with known keys', () => {
  // an environment with known keys and unknown values, threaded through a loop-like recursion
  // with updates, lookups, a join of two branches and a map handed to a caller as a whole
  const p = fixtureProgram('raise-env');
  const input = [base('Int'), base('Int'), union([constant(0), constant(1), constant(2), constant(3)])];

  it('lookups and updates become tuple operations; the staged result is exact', () => {
    const res = partialEvaluate(p, 't.run', input);
    expect(res.stats.raisedOps).toBeGreaterThan(0);
    let mapOps = 0;
    let tuples = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && (e.op === 'map_find' || e.op === 'map_insert')) mapOps++;
        if (e.kind === 'con' && e.ctor.startsWith('#')) tuples++;
      });
    }
    expect(tuples).toBeGreaterThan(0);
    // only the entry's result is built as a map again (the interface is plain): three inserts
    expect(mapOps).toBeLessThanOrEqual(3);
    checkExact(p, 't.run', input, 300);
    // the counting interpreter sees the map operations go
    const args = [4, 9, 3];
    const u = new Interpreter(p).run('t.run', args);
    const s = new Interpreter(res.residual).run(res.entry, args);
    expect(equal(u.value, s.value)).toBe(true);
    expect(s.counts.collectionOps).toBeLessThan(u.counts.collectionOps / 2);
  });

  it('is exact where representations meet and differ (branches with different keys, unknown keys)', () => {
    const MIXED = `
export function f(x: number, key: string, c: boolean): PMap<string, number> {
  const m = mapInsert(mapEmpty(), 'a', x);
  const n = c ? mapInsert(m, 'b', 1) : m;
  const o = mapInsert(n, key, 2);
  const got = mapFind(o, 'a');
  return got.kind === 'some' ? mapInsert(o, 'z', got.value) : o;
}
`;
    const q = compile(MIXED);
    const inp = [
      base('Int'),
      union([constant('a'), constant('q')]),
      union([constant(true), constant(false)]),
    ];
    const res = partialEvaluate(q, 't.f', inp);
    expect(res.stats.materialized).toBeGreaterThan(0);
    checkExact(q, 't.f', inp, 300);
  });

  it('a helper called with a raised map and with a plain one is specialized apart for each', () => {
    // without a specialization per representation, the plain call would make `get`'s parameter
    // plain, and the raised map would be built as a map again to be passed to it
    const SHARED = `
${GET}
export function run(x: number, y: number, key: string): number {
  const known = mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', y);
  const other = mapInsert(mapEmpty(), key, y);
  return get(known, 'a') + get(other, 'a') + get(known, 'b');
}
`;
    const q = compile(SHARED);
    const inp = [base('Int'), base('Int'), union([constant('a'), constant('q')])];
    const res = partialEvaluate(q, 't.run', inp);
    let mapOps = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && (e.op === 'map_find' || e.op === 'map_insert')) mapOps++;
      });
    }
    // the plain map's insert and lookup; the raised one's lookups are tuple reads
    expect(mapOps).toBe(2);
    checkExact(q, 't.run', inp, 300);
  });

  it('a constant map passed where raised ones are passed too does not make the parameter plain', () => {
    // `get` is called with the constant map {a: 1, b: 2} and with raised maps of the same keys;
    // held plainly, the constant would make `get`'s parameter plain (its lookups map operations)
    const CONST = `
${GET}
function pick(c: boolean, x: number): PMap<string, number> {
  return c ? mapInsert(mapInsert(mapEmpty(), 'a', 1), 'b', 2) : mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', x);
}
export function run(c: boolean, x: number, y: number): number {
  const known = mapInsert(mapInsert(mapEmpty(), 'a', 1), 'b', 2);
  const other = mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', y);
  return get(known, 'a') + get(other, 'b') + get(pick(c, x), 'a') + get(other, 'a');
}
`;
    const q = compile(CONST);
    const inp = [union([constant(true), constant(false)]), base('Int'), base('Int')];
    const res = partialEvaluate(q, 't.run', inp);
    let mapOps = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && e.op.startsWith('map_')) mapOps++;
      });
    }
    expect(mapOps).toBe(0);
    checkExact(q, 't.run', inp, 200);
  });

  /** Lists of at most `n` elements, each `item`. */
  function consList(item: AbsValue, n: number): AbsValue {
    const lists: AbsValue[] = [con('nil', [])];
    for (let i = 0; i < n; i++) lists.push(con('cons', [item, lists[i] as AbsValue]));
    return union(lists);
  }

  it('a lookup whose key is late compares the key with the keys it may be, instead of a map lookup', () => {
    // `name` is one of three variables or a fourth name: the lookup becomes a chain of string
    // comparisons, each reading its slot, rather than building the raised map again (an insert
    // per key) to look one key up
    const LATE = `
export function run(x: number, y: number, name: string): number {
  const env = mapInsert(mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', y), 'c', x + y);
  const r = mapFind(env, name);
  return r.kind === 'some' ? r.value : -1;
}
`;
    const q = compile(LATE);
    const inp = [base('Int'), base('Int'), union([constant('a'), constant('c'), constant('q')])];
    const res = partialEvaluate(q, 't.run', inp);
    expect(mapOpsOf(res.residual).size).toBe(0);
    // only the keys the name may be are compared ('b' cannot be it)
    const compared = new Set<unknown>();
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && e.op === 'eq')
          for (const a of e.args) if (a.kind === 'lit') compared.add(a.value);
      });
    }
    expect([...compared].sort()).toEqual(['a', 'c']);
    checkExact(q, 't.run', inp, 200);
  });

  it('states whose map is a constant on some paths and raised on others stay raised and exact', () => {
    // `step` returns the state as it came (its map a constant until an update was made), a new
    // state with a raised update, or a state with the flag changed and the map kept; the staged
    // code keeps one tuple per map throughout (configuration 9's copy-prop, in
    // tests/partial-eval/precision.test.ts, is the case where a constant state would make them plain)
    const STATE = `
type St = { readonly kind: 'st'; readonly live: boolean; readonly m: PMap<string, number> };
${GET}
function step(s: St, x: number, live: boolean): St {
  if (!s.live) return s;
  if (x > 0) return { kind: 'st', live, m: mapInsert(s.m, 'a', get(s.m, 'a') + x) };
  return { kind: 'st', live: false, m: s.m };
}
function loop(s: St, xs: List<number>): St {
  if (xs.kind === 'nil') return s;
  return loop(step(s, xs.head, xs.head !== 3), xs.tail);
}
export function run(xs: List<number>): number {
  const s = loop({ kind: 'st', live: true, m: mapInsert(mapInsert(mapEmpty(), 'a', 0), 'b', 0) }, xs);
  return get(s.m, 'a') + get(s.m, 'b');
}
`;
    const q = compile(STATE);
    const item = union([constant(1), constant(3), constant(-2), base('Int')]);
    const inp = [consList(item, 6)];
    const res = partialEvaluate(q, 't.run', inp);
    const ops = mapOpsOf(res.residual);
    // the entry's interface is plain (it returns a number): no map is built at all
    expect([...ops.values()].reduce((a, b) => a + b, 0)).toBe(0);
    checkExact(q, 't.run', inp, 300);
  });

  it('an update of an existing key under a late test replaces one element (tuple_with)', () => {
    // a kill over every variable: each key's fact is reset when it mentions x; written as a
    // chain of conditional updates, a tuple literal per update would make the code quadratic in
    // the number of keys
    const q = fixtureProgram('tuple-with');
    const name = union([constant('a'), constant('b'), constant('c'), constant('d')]);
    const inp = [name, name, name, name, name];
    const res = partialEvaluate(q, 't.run', inp);
    let updates = 0;
    let literals = 0;
    for (const f of res.residual.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && e.op === 'tuple_with') updates++;
        if (e.kind === 'con' && e.ctor === '#4') literals++;
      });
    }
    expect(updates).toBe(4);
    // the map built once from the arguments; none per update
    expect(literals).toBeLessThanOrEqual(1);
    checkExact(q, 't.run', inp, 300);
  });

  it('can be turned off (raiseMaps: false): no tuple operations, same results', () => {
    const res = partialEvaluate(p, 't.run', input, { raiseMaps: false });
    expect(res.stats.raisedOps).toBe(0);
    const args = [1, 2, 2];
    expect(
      equal(
        new Interpreter(res.residual).run(res.entry, args).value,
        new Interpreter(p).run('t.run', args).value,
      ),
    ).toBe(true);
  });
});
