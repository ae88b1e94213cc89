import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  absEqual,
  absMap,
  base,
  boundedSkeleton,
  compare,
  con,
  conforms,
  constant,
  consts,
  equals,
  equalsWithTags,
  fix,
  foldSpines,
  hash,
  join,
  LIST_ARRAYS,
  leq,
  meet,
  openSize,
  printAbs,
  rec,
  shapeJoin,
  shapeTop,
  size,
  top,
  union,
  widen,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import { anyAbs, CTORS, primAbs } from './gen.js';

const opts = { ctors: CTORS };
const pair = fc.tuple(anyAbs, anyAbs);
/** Two values and a member of each. */
const withMembers = pair.chain(([a, b]) =>
  fc.tuple(fc.constant(a), fc.constant(b), arbMember(a, opts), arbMember(b, opts)),
);
const cfg = { numRuns: Number(process.env.SCF_LATTICE_RUNS ?? 200) };

describe('lattice', () => {
  it('members drawn from a value conform to it', () => {
    fc.assert(
      fc.property(
        anyAbs.chain((a) => fc.tuple(fc.constant(a), arbMember(a, opts))),
        ([a, t]) => conforms(t, a, CTORS),
      ),
      cfg,
    );
  });

  it('leq is sound: leq(a, b) ⇒ every member of a conforms to b', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta]) => !leq(a, b) || conforms(ta, b, CTORS)),
      cfg,
    );
  });

  it('leq is reflexive and 0 ≤ a ≤ 1', () => {
    fc.assert(
      fc.property(anyAbs, (a) => leq(a, a)),
      cfg,
    );
  });

  it('join is an upper bound; unchanged joins keep the structure of a', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta, tb]) => {
        const j = join(a, b);
        expect(conforms(ta, j.value, CTORS)).toBe(true);
        expect(conforms(tb, j.value, CTORS)).toBe(true);
        if (!j.changed) expect(equals(j.value, a)).toBe(true);
        expect(join(j.value, b).changed).toBe(false);
      }),
      cfg,
    );
  });

  it('widen is an upper bound', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta, tb]) => {
        const w = widen(a, b);
        expect(conforms(ta, w.value, CTORS)).toBe(true);
        expect(conforms(tb, w.value, CTORS)).toBe(true);
      }),
      cfg,
    );
  });

  it('shapeJoin is an upper bound', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta, tb]) => {
        const j = shapeJoin(a, b);
        expect(conforms(ta, j, CTORS)).toBe(true);
        expect(conforms(tb, j, CTORS)).toBe(true);
      }),
      cfg,
    );
  });

  it('shapeJoin keeps one constructor and widens numeric leaves that grew to their base set', () => {
    const pair = (x: number, y: string) => con('node', [constant(x), constant(y)]);
    // {0} ⊔ {1} under the same constructor: one constructor node, 'Int leaf, string union kept
    expect(printAbs(shapeJoin(pair(0, 'a'), pair(1, 'b')))).toBe(
      printAbs(con('node', [base('Int'), consts(['a', 'b'])])),
    );
    // a numeric constant never joins into the string base set (found by the property above)
    const sn = shapeJoin(base('Str'), consts([0]));
    expect(leq(consts([0]), sn) && leq(base('Str'), sn)).toBe(true);
    expect(printAbs(shapeJoin(base('Int'), consts([0.5])))).toBe(printAbs(base('Float')));
    // different constructors stay apart
    const j = shapeJoin(con('nil', []), pair(0, 'a'));
    expect(j.kind).toBe('union');
    // a later member with a constructor already present joins that member only
    const k = shapeJoin(j, pair(2, 'a'));
    expect(k.kind === 'union' && k.alts.length).toBe(2);
    expect(leq(pair(2, 'a'), k) && leq(pair(0, 'a'), k) && leq(con('nil', []), k)).toBe(true);
  });

  it('shapeJoin keeps records told apart by a known field apart; a leaf still joins pointwise', () => {
    // two commands of one program (a label each, and structure): joined pointwise they would be
    // seq('Int, assign | while, …), mixing the first command of one with that of the other
    const asg = (l: number) => con('assign', [constant('x'), constant(l)]);
    const seq = (l: number, a: AbsValue, b: AbsValue) => con('seq', [constant(l), a, b]);
    const s1 = seq(1, asg(2), asg(3));
    const s3 = seq(3, asg(4), con('skip', [constant(5)]));
    const j = shapeJoin(s1, s3);
    expect(j.kind === 'union' && j.alts.length).toBe(2);
    expect(leq(s1, j) && leq(s3, j)).toBe(true);
    // a third record of another label joins neither; one with a label already there joins it
    const k = shapeJoin(j, seq(1, asg(9), asg(3)));
    expect(k.kind === 'union' && k.alts.length).toBe(2);
    // leaves (no structure besides the field) join pointwise as before: a changing literal
    expect(printAbs(shapeJoin(asg(2), asg(3)))).toBe(printAbs(con('assign', [constant('x'), base('Int')])));
    // pointwise when asked (the size caps' merges), and the upper bound property holds either way
    expect(shapeJoin(s1, s3, false).kind).toBe('con');
  });

  it('shapeJoin keeps a chain cell apart from a chain end (nestsApart)', () => {
    // seq(seq(a, b), c) against seq(a, b): joined pointwise the first would put the block `seq(a, b)`
    // and the command `a` in one place (and `b` with `c`), mixing a chain's cells with its end
    const a = con('assign', [constant('x'), base('Int')]);
    const b = con('store', [constant('y'), base('Int')]);
    const cell = con('seq', [con('seq', [a, b]), con('seq', [a, b])]);
    const end = con('seq', [a, b]);
    const j = shapeJoin(end, cell);
    expect(j.kind === 'union' && j.alts.length).toBe(2);
    expect(leq(cell, j) && leq(end, j)).toBe(true);
  });

  it('foldSpines is an upper bound, on chains that fold and values that do not', () => {
    // chains of 2–9 cells of one kind (cons through its tail, node through either side), heads of
    // one shape family (so about a third fold), union branches at some cells, ending in a random
    // value, another chain, or a fold of one; and random values
    const head = fc.oneof(
      { weight: 4, arbitrary: primAbs.map((x) => con('wrap', [x])) },
      { weight: 2, arbitrary: fc.tuple(primAbs, primAbs).map(([a, b]) => con('node', [a, b])) },
      { weight: 1, arbitrary: anyAbs },
    );
    const kinds = [
      (h: AbsValue, t: AbsValue) => con('cons', [h, t]),
      (h: AbsValue, t: AbsValue) => con('node', [t, h]),
      (h: AbsValue, t: AbsValue) => con('node', [h, t]),
    ];
    const chain = fc
      .tuple(
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.tuple(head, fc.option(anyAbs, { freq: 4 })), { minLength: 2, maxLength: 9 }),
        fc.oneof(
          anyAbs,
          anyAbs.map((x) => union([x, con('nil', [])])),
        ),
        fc.boolean(),
      )
      .map(([k, cells, end, folded]) => {
        const cell = kinds[k] as (h: AbsValue, t: AbsValue) => AbsValue;
        const last = folded ? fix(union([end, cell((cells[0] as [AbsValue, unknown])[0], rec(0))])) : end;
        return cells.reduceRight<AbsValue>(
          (tail, [h, branch]) => cell(h, branch === null ? tail : union([tail, branch])),
          last,
        );
      });
    const deep = { ctors: CTORS, maxDepth: 14 };
    fc.assert(
      fc.property(
        fc
          .oneof(chain, anyAbs)
          .chain((v) =>
            fc.tuple(fc.constant(v), fc.array(arbMember(v, deep), { minLength: 3, maxLength: 3 })),
          ),
        ([v, ts]) => {
          const f = foldSpines(v);
          expect(leq(v, f)).toBe(true);
          for (const t of ts) expect(conforms(t, f, CTORS)).toBe(true);
        },
      ),
      cfg,
    );
  });

  it('foldSpines folds a chain of copies of one shape, not a sequence of different cells', () => {
    const copy = (k: number) =>
      con('node', [con('wrap', [constant(k)]), con('node', [con('wrap', [base('Int')]), con('leaf', [])])]);
    // cons(copy 0, cons(copy 1, … cons(copy 5, nil))): one cell shape, a growing list
    let list: AbsValue = con('nil', []);
    for (let k = 5; k >= 0; k--) list = con('cons', [copy(k), list]);
    const f = foldSpines(list);
    expect(f.kind).toBe('fix');
    expect(printAbs(f)).toBe("fix α. nil | cons(node(wrap('Int), node(wrap('Int), leaf)), α)");
    expect(leq(list, f)).toBe(true);
    expect(size(f)).toBeLessThan(size(list));
    // short chains and chains of different heads (a program's commands) stay as they are
    const two = con('cons', [copy(0), con('cons', [copy(1), con('nil', [])])]);
    expect(foldSpines(two)).toBe(two);
    const mixed = con('cons', [
      con('leaf', []),
      con('cons', [copy(3), con('cons', [con('wrap', [con('some', [copy(4)])]), con('nil', [])])]),
    ]);
    expect(foldSpines(mixed)).toBe(mixed);
    // a fully known chain is kept whole (the size caps count it as one node)
    let known: AbsValue = con('nil', []);
    for (let k = 5; k >= 0; k--) known = con('cons', [con('wrap', [constant(k)]), known]);
    expect(foldSpines(known)).toBe(known);
  });

  it('foldSpines: a chain ending in 1 is not folded to 1; the joined head has tags of its own', () => {
    let chain: AbsValue = top();
    for (let k = 0; k < 5; k++)
      chain = con('cons', [con('wrap', [union([constant(k), base('Int')])]), chain]);
    expect(foldSpines(chain).kind).not.toBe('top');
    // (x, [x, 2, 2]) with x = 1|2 one node: the fold's head stands for x and for 2, so it must not
    // claim to be the same value as the first component
    const x = consts([1, 2]);
    const two = consts([2]);
    const v = con('node', [x, con('cons', [x, con('cons', [two, con('cons', [two, con('nil', [])])])])]);
    const f = foldSpines(v);
    expect(f.kind).toBe('con');
    const [first, list] = (f as AbsValue & { kind: 'con' }).args as [AbsValue, AbsValue];
    expect(list.kind).toBe('fix');
    const cell = (list as AbsValue & { kind: 'fix' }).body;
    const cellHead =
      cell.kind === 'union'
        ? (cell.alts.find((a) => a.kind === 'con' && a.ctor === 'cons') as AbsValue & { kind: 'con' }).args[0]
        : undefined;
    expect(cellHead).toBeDefined();
    expect(printAbs(absEqual(first, cellHead as AbsValue))).not.toBe('true');
  });

  it('foldSpines takes linear work on a long chain that does not fold, and does not overflow the stack', () => {
    // 3,000 cells of different heads (no fold): each cell tried once, chains measured to a bound
    let chain: AbsValue = con('nil', []);
    for (let k = 0; k < 3000; k++)
      chain = con('cons', [k % 2 === 0 ? con('wrap', [base('Int')]) : con('some', [base('Str')]), chain]);
    const t0 = performance.now();
    expect(foldSpines(chain)).toBe(chain);
    // a generous bound: a cubic algorithm takes minutes on a tenth of this
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('shapeTop is an upper bound no larger than its argument that keeps constructors and map keys', () => {
    fc.assert(
      fc.property(
        anyAbs.chain((a) => fc.tuple(fc.constant(a), arbMember(a, opts))),
        ([a, ta]) => {
          const s = shapeTop(a);
          expect(conforms(ta, s, CTORS)).toBe(true);
          expect(leq(a, s)).toBe(true);
          expect(size(s) <= size(a) || s.kind === 'top').toBe(true);
          // idempotent: a pinned value pinned again does not change
          expect(equals(shapeTop(s), s)).toBe(true);
        },
      ),
      cfg,
    );
    // an environment keeps its keys, its values become `1`; a record keeps its constructor
    const env = absMap(
      [
        ['x', con('const', [constant(3)])],
        ['y', union([con('nonConst', []), con('undef', [])])],
      ],
      [],
    );
    expect(printAbs(shapeTop(con('state', [constant(true), env])))).toBe(
      `state('Any, {"x": 'Any, "y": 'Any})`,
    );
    // a map with may-entries keeps its must-keys and one `1: 1` entry
    expect(printAbs(shapeTop(absMap([['x', base('Int')]], [[base('Str'), base('Int')]])))).toBe(
      `{"x": 'Any, 'Any: 'Any}`,
    );
    // a union with a non-constructor alternative has no shape to keep
    expect(shapeTop(union([con('nil', []), base('Int')])).kind).toBe('top');
  });

  it('boundedSkeleton is an upper bound within the cap, keeping constructors where it can', () => {
    fc.assert(
      fc.property(
        anyAbs.chain((a) => fc.tuple(fc.constant(a), arbMember(a, opts), fc.integer({ min: 1, max: 40 }))),
        ([a, ta, cap]) => {
          const s = boundedSkeleton(a, cap);
          expect(conforms(ta, s, CTORS)).toBe(true);
          expect(openSize(s) <= cap || s.kind === 'top').toBe(true);
          expect(leq(a, s)).toBe(true);
        },
      ),
      cfg,
    );
    // a deep list of unknown numbers keeps its first cells
    let list: AbsValue = con('nil', []);
    for (let i = 0; i < 50; i++) list = con('cons', [base('Int'), list]);
    const s = boundedSkeleton(list, 12);
    expect(s.kind).toBe('con');
    expect(size(s)).toBeLessThanOrEqual(12);
    expect(leq(list, s)).toBe(true);
    expect(boundedSkeleton(list, 1).kind).toBe(top().kind);
    // a fully known part counts as one node and is kept whole
    let known: AbsValue = con('nil', []);
    for (let i = 0; i < 50; i++) known = con('cons', [constant(i), known]);
    const k = boundedSkeleton(con('node', [known, list]), 12);
    expect(k.kind === 'con' && k.args[0]).toBe(known);
    // the biggest part is cut first: a small open sibling of a long list stays exact, however
    // deep it sits (a cut by depth would have made it `1` along with the list's tail)
    let small: AbsValue = base('Int');
    for (let i = 0; i < 6; i++) small = con('box', [small]);
    const w = boundedSkeleton(con('node', [list, small]), 20);
    expect(w.kind === 'con' && equals(w.args[1] as AbsValue, small)).toBe(true);
    expect(leq(con('node', [list, small]), w)).toBe(true);
    expect(openSize(w)).toBeLessThanOrEqual(20);
  });

  it('meet over-approximates the intersection', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta, tb]) => {
        const m = meet(a, b);
        if (conforms(ta, b, CTORS)) expect(conforms(ta, m, CTORS)).toBe(true);
        if (conforms(tb, a, CTORS)) expect(conforms(tb, m, CTORS)).toBe(true);
      }),
      cfg,
    );
  });

  it('widening stabilises on random ascending chains', () => {
    fc.assert(
      fc.property(fc.array(anyAbs, { minLength: 1, maxLength: 40 }), (xs) => {
        let w = xs[0] as AbsValue;
        let acc = w;
        let changes = 0;
        for (let round = 0; round < 3; round++) {
          for (const x of xs) {
            acc = join(acc, x).value; // the ascending chain
            const r = widen(w, acc);
            if (r.changed) changes++;
            w = r.value;
          }
        }
        // a second pass over the same chain changes nothing
        for (const x of xs) expect(widen(w, x).changed).toBe(false);
        expect(changes).toBeLessThan(3 * xs.length + 1);
      }),
      { numRuns: 60 },
    );
  });

  it('widen terminates on a 10,000-step ascending chain of lists', () => {
    const t0 = performance.now();
    let w: AbsValue = con('nil', []);
    let chain: AbsValue = con('nil', []);
    let changes = 0;
    for (let i = 0; i < 10_000; i++) {
      // lists of growing length (restarting every 20) of ever new constants
      chain = con('cons', [constant(i), i % 20 === 0 ? con('nil', []) : chain]);
      const r = widen(w, chain);
      if (r.changed) changes++;
      w = r.value;
    }
    expect(changes).toBeLessThan(40);
    expect(printAbs(w)).toBe("fix α. nil | cons('Int, α)");
    expect(performance.now() - t0).toBeLessThan(5000); // generous: shared CI machines
  });

  it('widen terminates on a 10,000-step chain of constants and of growing trees', () => {
    let w: AbsValue = constant(0);
    let changes = 0;
    for (let i = 1; i < 10_000; i++) {
      const r = widen(w, constant(i % 3 === 0 ? i : i + 0.5));
      if (r.changed) changes++;
      w = r.value;
    }
    expect(changes).toBeLessThan(20);
    expect(printAbs(w)).toBe("'Float");
    let t: AbsValue = con('leaf', []);
    let wt: AbsValue = t;
    changes = 0;
    for (let i = 0; i < 10_000; i++) {
      t = i % 30 === 0 ? con('leaf', []) : con('node', [t, i % 2 === 0 ? constant(i % 7) : t]);
      const r = widen(wt, t);
      if (r.changed) changes++;
      wt = r.value;
    }
    expect(changes).toBeLessThan(40);
  });
});

describe('canonical forms, order, equality', () => {
  it('compare is a total order consistent with equals and hash', () => {
    fc.assert(
      fc.property(anyAbs, anyAbs, anyAbs, (a, b, c) => {
        expect(compare(a, a)).toBe(0);
        expect(Math.sign(compare(a, b)) + Math.sign(compare(b, a))).toBe(0);
        if (compare(a, b) <= 0 && compare(b, c) <= 0) expect(compare(a, c)).toBeLessThanOrEqual(0);
        expect(equals(a, b)).toBe(compare(a, b) === 0);
        if (equals(a, b)) expect(hash(a)).toBe(hash(b));
      }),
      cfg,
    );
  });

  it('equal values have the same members', () => {
    fc.assert(
      fc.property(withMembers, ([a, b, ta]) => {
        if (equals(a, b)) expect(conforms(ta, b, CTORS)).toBe(true);
      }),
      cfg,
    );
  });

  it('unions are independent of member order and duplication', () => {
    fc.assert(
      fc.property(fc.array(anyAbs, { minLength: 1, maxLength: 5 }), (xs) => {
        const u1 = union(xs);
        const u2 = union([...xs].reverse().concat(xs));
        expect(equals(u1, u2)).toBe(true);
        if (u1.kind === 'union') {
          for (let i = 1; i < u1.alts.length; i++) {
            expect(compare(u1.alts[i - 1] as AbsValue, u1.alts[i] as AbsValue)).toBeLessThan(0);
          }
        }
      }),
      cfg,
    );
  });

  it('a rebuilt value is equal (tags ignored), equalsWithTags tells them apart', () => {
    const a = con('node', [consts([1, 2]), base('Int')]);
    const b = con('node', [consts([2, 1]), base('Int')]);
    expect(equals(a, b)).toBe(true);
    expect(equalsWithTags(a, b)).toBe(false);
    expect(equalsWithTags(a, a)).toBe(true);
  });

  it('primitive parts merge: constants inside a base set vanish, sets past the cap widen', () => {
    expect(printAbs(union([consts([1, 2.5]), base('Int')]))).toBe("2.5 | 'Int");
    expect(printAbs(union([consts([1, 'a']), base('Float')]))).toBe('"a" | \'Float');
    expect(printAbs(consts(Array.from({ length: 17 }, (_, i) => i)))).toBe("'Int");
    // -0 and 0 are different constants (optimizers tell them apart with 1 / x)
    expect(printAbs(consts([-0, 0]))).toBe('-0 | 0');
    expect(equals(consts([-0]), consts([0]))).toBe(false);
    expect(equals(LIST_ARRAYS.of(base('Int')), LIST_ARRAYS.of(base('Int')))).toBe(true);
  });
});
