/**
 * Fig. 11's rules one at a time (DAE_e on small expressions), and Fig. 13 reproduced exactly.
 */
import { Map as IMap } from 'immutable';
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, con, consts, top, union } from '../../src/abstract-values/index.js';
import {
  ALL,
  conLP,
  constsLP,
  DEAD,
  daeExpr,
  eliminateDeadAssignments,
  type LP,
  type LPMap,
  mapLP,
  printLP,
  setLP,
} from '../../src/dae/index.js';
import type { Expr, Label } from '../../src/scf-lang/core.js';
import { Interpreter, printCoreExpr, validateCoreProgram } from '../../src/scf-lang/index.js';
import { equal, mapEmpty, mapInsert } from '../../src/scf-lang/prelude.js';
import { Builder, ctor, fun, program } from './helpers.js';

const TR = ctor('tr', 'm', 'x', 'y');

function showLive(live: LPMap): string {
  return [...live]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([x, l]) => `${x}: ${printLP(l)}`)
    .join('; ');
}

/** DAE_e e l cs, printed: [pruned expression, live variables]. */
function dae(e: Expr, lp: LP = ALL, cs: ReadonlyMap<Label, AbsValue> = new Map()): [string, string] {
  const r = daeExpr(e, lp, cs, { ctors: program([], [TR]).ctors });
  return [printCoreExpr(r.expr).replaceAll('\n', ' '), showLive(r.live)];
}

/** Fig. 13(a): foo a = let m = tr⁻¹ a in let x = tr⁻² a in let y = tr⁻³ a in … */
function fig13(b: Builder): Expr {
  return b.let(
    'm',
    b.proj('tr', 0, b.v('a')),
    b.let(
      'x',
      b.proj('tr', 1, b.v('a')),
      b.let(
        'y',
        b.proj('tr', 2, b.v('a')),
        b.let(
          "m'",
          b.prim('map_insert', [b.v('m'), b.v('x', 2), b.lit(10)]),
          b.prim('map_find', [b.v("m'"), b.v('y', 5)]),
        ),
      ),
    ),
  );
}

const FIG13_CS = new Map<Label, AbsValue>([
  [2, consts([22, 32])],
  [5, consts([44, 46])],
]);

describe('Fig. 13', () => {
  it('DAE_e prunes the insert and the binding of x, and finds a: tr([{44|46}, 1], 0, {44|46})', () => {
    const b = new Builder();
    const r = daeExpr(fig13(b), ALL, FIG13_CS, { ctors: program([], [TR]).ctors });
    // Fig. 13(b)
    const e = new Builder();
    const expected = e.let(
      'm',
      e.proj('tr', 0, e.v('a')),
      e.let('y', e.proj('tr', 2, e.v('a')), e.let("m'", e.v('m'), e.prim('map_find', [e.v("m'"), e.v('y')]))),
    );
    expect(printCoreExpr(r.expr)).toBe(printCoreExpr(expected));
    expect(printCoreExpr(r.expr, { width: 30 })).toBe(
      ['let m = tr⁻¹(a) in', 'let y = tr⁻³(a) in', "let m' = m in", "Map.find(m', y)"].join('\n'),
    );
    expect(showLive(r.live)).toBe('a: tr([{44|46}, 1], 0, {44|46})');
  });

  it('eliminateDeadAssignments on foo: same body, stats, and the same results as the original', () => {
    const p = program([fun('foo', ['a'], fig13(new Builder()))], [TR]);
    const r = eliminateDeadAssignments(p, FIG13_CS, 'foo');
    expect(r.stop).toBe('fixpoint');
    expect(r.removed).toEqual({ exprs: 0, lets: 1, params: 0, mapOps: 1, funs: 0 });
    expect(printLP(r.liveness.params.get('foo')?.[0] as LP)).toBe('tr([{44|46}, 1], 0, {44|46})');
    expect(validateCoreProgram(r.program)).toEqual([]);
    const before = new Interpreter(p);
    const after = new Interpreter(r.program);
    const m0 = mapInsert(mapInsert(mapEmpty<number, unknown>(), 44, 'a'), 22, 'b');
    for (const x of [22, 32])
      for (const y of [44, 46]) {
        const a = { kind: 'tr', m: m0, x, y };
        const v1 = before.run('foo', [a]);
        const v2 = after.run('foo', [a]);
        expect(equal(v1.value, v2.value)).toBe(true);
        expect(v2.counts.collectionOps).toBeLessThan(v1.counts.collectionOps);
      }
  });

  it('with an unknown key (no cs entry for x) the insert stays', () => {
    const r = daeExpr(fig13(new Builder()), ALL, new Map([[5, consts([44, 46])]]), {
      ctors: program([], [TR]).ctors,
    });
    expect(printCoreExpr(r.expr)).toContain('Map.insert');
    expect(showLive(r.live)).toBe('a: tr([{44|46}, 1], 1, {44|46})');
  });
});

describe('DAE_e rules', () => {
  const b = new Builder();

  it('0: the dead placeholder keeps the label', () => {
    const e = b.prim('add', [b.v('x'), b.lit(1)], 77);
    const r = daeExpr(e, DEAD, new Map());
    expect(r.expr).toEqual({ kind: 'lit', value: 0, label: 77, span: e.span });
    expect(r.live.size).toBe(0);
  });

  it('var and lit', () => {
    expect(dae(b.v('x'), constsLP([3]))).toEqual(['x', 'x: {3}']);
    expect(dae(b.lit(5), ALL)).toEqual(['5', '']);
  });

  it('con: fields get their sub-patterns, dead ones placeholders', () => {
    const e = b.con('tr', [b.v('p'), b.v('q'), b.prim('add', [b.v('r'), b.v('s')])]);
    expect(dae(e, conLP('tr', [ALL, DEAD, DEAD]))).toEqual(['tr(p, 0, 0)', 'p: 1']);
    expect(dae(e, conLP('other', []))).toEqual(['tr(0, 0, 0)', '']);
    expect(dae(e, ALL)[1]).toBe('p: 1; q: 1; r: 1; s: 1');
  });

  it('proj: the argument needs the projected field only', () => {
    expect(dae(b.proj('tr', 1, b.v('a')), constsLP([1]))).toEqual(['tr⁻²(a)', 'a: tr(0, {1}, 0)']);
    expect(dae(b.proj('#2', 0, b.v('t')))).toEqual(['tuple⁻¹(t)', 't: (1, 0)']);
  });

  it('test: only the constructors cs allows', () => {
    const x = b.v('x', 300);
    const e = b.test('some', x);
    const cs = new Map([[300, union([con('some', [top()]), con('none', [])])]]);
    expect(dae(e, ALL, cs)).toEqual(['some?(x)', 'x: {none|some(0)}']);
    expect(dae(e, ALL)).toEqual(['some?(x)', 'x: 1']);
    // the field of a tested constructor is dead: c(big) under c(0) keeps c
    const t = b.test('some', b.con('some', [b.prim('mul', [b.v('y'), b.v('y')])], 301));
    expect(dae(t, ALL, new Map([[301, con('some', [top()])]]))).toEqual(['some?(some(0))', '']);
  });

  it('if: the condition is needed, branches get the pattern', () => {
    const e = b.if(b.v('c'), b.con('#2', [b.v('p'), b.v('q')]), b.v('r'));
    expect(dae(e, conLP('#2', [DEAD, ALL]))).toEqual(['(if c then (0, q) else r)', 'c: 1; q: 1; r: (0, 1)']);
  });

  it('let: dead bindings go; live ones get the variable pattern; shadowing', () => {
    const e = b.let(
      'x',
      b.prim('mul', [b.v('a'), b.v('a')]),
      b.let('y', b.v('b'), b.con('#2', [b.v('x'), b.v('y')])),
    );
    expect(dae(e, conLP('#2', [DEAD, ALL]))).toEqual(['let y = b in (0, y)', 'b: 1']);
    expect(dae(e, conLP('#2', [ALL, DEAD]))).toEqual(['let x = (a * a) in (x, 0)', 'a: 1']);
    const s = b.let('a', b.v('a'), b.v('a'));
    expect(dae(s, constsLP([2]))).toEqual(['let a = a in a', 'a: {2}']);
  });

  it('call: arguments get the callee parameter patterns', () => {
    const seen: [string, string][] = [];
    const r = daeExpr(b.call('g', [b.v('p'), b.v('q')]), constsLP([1]), new Map(), {
      paramLP: (_fn, i) => (i === 0 ? DEAD : ALL),
      onCall: (fn, lp) => seen.push([fn, printLP(lp)]),
    });
    expect(printCoreExpr(r.expr)).toBe('g(0, q)');
    expect(showLive(r.live)).toBe('q: 1');
    expect(seen).toEqual([['g', '{1}']]);
    const k = daeExpr(b.call('g', [b.v('p'), b.v('q')]), ALL, new Map(), { keepArg: (_fn, i) => i === 1 });
    expect(printCoreExpr(k.expr)).toBe('g(q)');
  });

  it('tuple_with: the tuple without the replaced element, the value under its field; a dead one is no copy', () => {
    const e = b.prim('tuple_with', [b.v('t'), b.lit(1), b.v('x')]);
    // `#3(1, {4}, 0)`: t needs `#3(1, 0, 0)`, x the replaced field's pattern
    expect(dae(e, conLP('#3', [ALL, constsLP([4]), DEAD]))[1]).toBe('t: (1, 0, 0); x: {4}');
    // the replaced element dead: the result is t itself, x is not needed
    expect(dae(e, conLP('#3', [ALL, DEAD, ALL]))).toEqual(['t', 't: (1, 0, 1)']);
    // any other pattern: everything
    expect(dae(e, ALL)[1]).toBe('t: 1; x: 1');
  });

  it('arithmetic, comparison, string and equality primitives need their arguments', () => {
    expect(dae(b.prim('lt', [b.v('x'), b.v('y')]), constsLP([true]))[1]).toBe('x: 1; y: 1');
    expect(dae(b.prim('equal', [b.v('x'), b.v('y')]))[1]).toBe('x: 1; y: 1');
    expect(dae(b.prim('concat', [b.v('x'), b.lit('s')]))[1]).toBe('x: 1');
  });

  describe('maps', () => {
    const k = b.v('k', 400);
    const k2 = b.v('k2', 401);
    const cs = new Map<Label, AbsValue>([
      [400, consts([1, 2])],
      [401, consts([7])],
    ]);

    it('map_find: the map needs the keys cs gives, the value pattern is the some-field', () => {
      const e = b.prim('map_find', [b.v('m'), k]);
      expect(dae(e, ALL, cs)[1]).toBe('k: {1|2}; m: [{1|2}, 1]');
      expect(dae(e, conLP('some', [constsLP([0])]), cs)[1]).toBe('k: {1|2}; m: [{1|2}, {0}]');
      expect(dae(e, conLP('none', []), cs)[1]).toBe('k: {1|2}; m: [{1|2}, 0]');
      expect(dae(e, ALL)[1]).toBe('k: 1; m: [1, 1]');
    });

    it('map_insert: disjoint keys remove the insert; otherwise key 1, value lv', () => {
      const ins = b.prim('map_insert', [b.v('m'), k2, b.v('v')]);
      expect(dae(ins, mapLP(constsLP([1, 2]), ALL), cs)).toEqual(['m', 'm: [{1|2}, 1]']);
      expect(dae(ins, mapLP(constsLP([7]), conLP('#2', [ALL, DEAD])), cs)).toEqual([
        'Map.insert(m, k2, v)',
        'k2: 1; m: [{7}, (1, 0)]; v: (1, 0)',
      ]);
      expect(dae(ins, ALL, cs)[1]).toBe('k2: 1; m: 1; v: 1');
      expect(dae(ins, mapLP(ALL, ALL), cs)[1]).toBe('k2: 1; m: [1, 1]; v: 1');
      // a value never observed: [K, 0] still keeps the key
      expect(dae(ins, mapLP(constsLP([7]), DEAD), cs)).toEqual([
        'Map.insert(m, k2, 0)',
        'k2: 1; m: [{7}, 0]',
      ]);
    });

    it('chains of disjoint inserts collapse (insert into insert into empty)', () => {
      const e = b.prim('map_find', [
        b.prim('map_insert', [b.prim('map_insert', [b.prim('map_empty', []), k2, b.lit(1)]), k, b.lit(2)]),
        b.v('j', 402),
      ]);
      const cs2 = new Map<Label, AbsValue>([...cs, [402, consts([7])]]);
      expect(dae(e, ALL, cs2)).toEqual(['Map.find(Map.insert(Map.empty(), k2, 1), j)', 'j: {7}; k2: 1']);
    });

    it('map_delete like insert; map_has needs presence only; size and keys', () => {
      const del = b.prim('map_delete', [b.v('m'), k2]);
      expect(dae(del, mapLP(constsLP([1]), ALL), cs)).toEqual(['m', 'm: [{1}, 1]']);
      expect(dae(del, mapLP(constsLP([7]), ALL), cs)[1]).toBe('k2: 1; m: [{7}, 1]');
      expect(dae(b.prim('map_has', [b.v('m'), k]), ALL, cs)[1]).toBe('k: {1|2}; m: [{1|2}, 0]');
      expect(dae(b.prim('map_size', [b.v('m')]))[1]).toBe('m: [1, 0]');
      expect(dae(b.prim('map_keys', [b.v('m')]), setLP(constsLP([3])))[1]).toBe('m: [{3}, 0]');
    });
  });

  describe('sets', () => {
    const x = b.v('x', 500);
    const cs = new Map<Label, AbsValue>([[500, consts(['u'])]]);

    it('set_add / set_delete: disjoint elements remove the update', () => {
      const add = b.prim('set_add', [b.v('s'), x]);
      expect(dae(add, setLP(constsLP(['w'])), cs)).toEqual(['s', 's: set[{"w"}]']);
      expect(dae(add, setLP(constsLP(['u', 'w'])), cs)[1]).toBe('s: set[{"u"|"w"}]; x: 1');
      expect(dae(b.prim('set_delete', [b.v('s'), x]), setLP(constsLP(['w'])), cs)[0]).toBe('s');
      expect(dae(add, ALL, cs)[1]).toBe('s: set[1]; x: 1');
    });

    it('set_has asks for the elements cs gives; union, intersect, diff pass the pattern on', () => {
      expect(dae(b.prim('set_has', [b.v('s'), x]), ALL, cs)[1]).toBe('s: set[{"u"}]; x: {"u"}');
      const u = b.prim('set_union', [b.v('s'), b.prim('set_diff', [b.v('t'), b.v('r')])]);
      expect(dae(u, setLP(constsLP(['u'])), cs)[1]).toBe('r: set[{"u"}]; s: set[{"u"}]; t: set[{"u"}]');
      expect(dae(b.prim('set_size', [b.v('s')]))[1]).toBe('s: set[1]');
      expect(dae(b.prim('set_subset', [b.v('s'), b.v('t')]))[1]).toBe('s: set[1]; t: set[1]');
    });

    it('set_singleton of a disjoint element is the empty set, with the same label', () => {
      const s = b.prim('set_singleton', [x], 510);
      const r = daeExpr(s, setLP(constsLP(['w'])), cs);
      expect(r.expr).toMatchObject({ kind: 'prim', op: 'set_empty', args: [], label: 510 });
      expect(dae(s, setLP(constsLP(['u'])), cs)[1]).toBe('x: 1');
    });

    it("Fig. 7's pruning: adding w to the live set is dead when later tests only ask about u and x", () => {
      // let l1 = add(l0, w) in let l2 = add(l1, v) in has(l2, u)  with v ∈ {u, x}
      const e = b.let(
        'l1',
        b.prim('set_add', [b.v('l0'), b.v('w', 520)]),
        b.let(
          'l2',
          b.prim('set_add', [b.v('l1'), b.v('v', 521)]),
          b.prim('set_has', [b.v('l2'), b.v('q', 522)]),
        ),
      );
      const cs2 = new Map<Label, AbsValue>([
        [520, consts(['w'])],
        [521, consts(['u', 'x'])],
        [522, consts(['u'])],
      ]);
      expect(dae(e, ALL, cs2)).toEqual([
        'let l1 = l0 in let l2 = Set.add(l1, v) in Set.has(l2, q)',
        'l0: set[{"u"}]; q: {"u"}; v: 1',
      ]);
    });
  });

  it('base-typed keys are never disjoint from a constant pattern they contain', () => {
    const ins = b.prim('map_insert', [b.v('m'), b.v('k', 600), b.v('v')]);
    expect(dae(ins, mapLP(constsLP([3]), ALL), new Map([[600, base('Int')]]))[0]).toBe('Map.insert(m, k, v)');
    expect(dae(ins, mapLP(constsLP(['a']), ALL), new Map([[600, base('Int')]]))[0]).toBe('m');
  });

  it('literal maps folded by the partial evaluator stay', () => {
    const lit: Expr = { kind: 'lit', value: IMap([[1, 2]]), label: 700, span: b.v('z').span };
    expect(dae(b.prim('map_find', [lit, b.v('k')]))).toEqual(['Map.find(map{1 ↦ 2}, k)', 'k: 1']);
  });
});
