/**
 * The partial evaluator on small SCF-lang programs: folding of singletons and constructor tests,
 * static calls, narrowing, the finiteness analysis, call chains bounded by k, and fuel — a
 * deliberately divergent optimizer stages in bounded time and reports `stop: 'fuel'`, and what
 * it produces is still exact.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  anyBool,
  base,
  con,
  constant,
  consts,
  printAbs,
  refineField,
  refineFieldIs,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import {
  Contexts,
  finitenessAnalysis,
  type PeOptions,
  partialEvaluate,
} from '../../src/partial-eval/index.js';
import {
  compileFile,
  forEachExpr,
  Interpreter,
  type CoreProgram,
  printCoreProgram,
} from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';

const HEADER = `import { type PMap, mapEmpty, mapFind, mapInsert, type List } from 'scf/prelude';\n`;

/** A lookup with 0 for a missing key, shared by the programs below. */
const GET = `function get(m: PMap<string, number>, k: string): number {
  const r = mapFind(m, k);
  return r.kind === 'some' ? r.value : 0;
}`;

function compile(src: string): CoreProgram {
  const r = compileFile('/virtual/t.ts', { cwd: '/virtual', readFile: () => HEADER + src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

/** Staged ≡ unstaged on random members of `input`. */
function checkExact(
  p: CoreProgram,
  entry: string,
  input: AbsValue[],
  runs = 200,
  opts: PeOptions = {},
): void {
  const res = partialEvaluate(p, entry, input, opts);
  const u = new Interpreter(p);
  const s = new Interpreter(res.residual);
  fc.assert(
    fc.property(fc.tuple(...input.map((v) => arbMember(v, { ctors: p.ctors }))), (args) => {
      const a = u.run(entry, args, { maxSteps: 1e6 }).value;
      const b = s.run(res.entry, args, { maxSteps: 1e6 }).value;
      if (!equal(a, b))
        throw new Error(`${JSON.stringify(args)}: unstaged ${String(a)}, staged ${String(b)}`);
    }),
    { numRuns: runs },
  );
}

const EXPR = `
type E = { readonly kind: 'num'; readonly n: number } | { readonly kind: 'add'; readonly l: E; readonly r: E } | { readonly kind: 'v'; readonly name: string };
export function ev(e: E, env: PMap<string, number>): number {
  switch (e.kind) {
    case 'num': return e.n;
    case 'add': return ev(e.l, env) + ev(e.r, env);
    case 'v': { const x = mapFind(env, e.name); return x.kind === 'some' ? x.value : 0; }
  }
}
export function run(e: E, x: number): number { return ev(e, mapInsert(mapEmpty(), 'x', x)); }
`;

describe('partial evaluation', () => {
  const p = compile(EXPR);
  const num = (n: AbsValue) => con('num', [n]);
  const add = (l: AbsValue, r: AbsValue) => con('add', [l, r]);
  const v = (name: string) => con('v', [constant(name)]);

  it('folds a fully known computation to a constant (static calls)', () => {
    const res = partialEvaluate(p, 't.run', [add(num(constant(2)), num(constant(3))), constant(7)]);
    expect(printAbs(res.output)).toBe('5');
    expect(res.stop).toBe('fixpoint');
  });

  it('specializes the interpreter to the expression: no constructor tests left', () => {
    const e = add(v('x'), add(num(constant(1)), v('y')));
    const res = partialEvaluate(p, 't.run', [e, base('Int')]);
    expect(res.stop).toBe('fixpoint');
    let tests = 0;
    for (const f of res.residual.funs.values()) {
      const walk = (x: import('../../src/scf-lang/index.js').CoreExpr): void => {
        if (x.kind === 'test') tests++;
        for (const c of 'args' in x ? x.args : []) walk(c);
      };
      walk(f.body);
    }
    expect(tests).toBe(0);
    checkExact(p, 't.run', [e, base('Int')]);
  });

  it('is exact on unions of expressions', () => {
    const e = union([add(v('x'), num(base('Int'))), num(constant(4)), v('z')]);
    checkExact(p, 't.run', [e, base('Int')]);
  });

  it('finiteness: projections of finite values are finite, constructed values are not', () => {
    const q = compile(`
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: number; readonly t: L };
      export function walk(l: L, acc: L): number { return l.kind === 'end' ? 0 : walk(l.t, { kind: 'c', h: l.h, t: acc }); }
    `);
    expect(finitenessAnalysis(q).get('t.walk')).toEqual([true, false]);
  });
  it('finiteness: booleans, sets of finite elements, tuple parts, and calls on finite arguments', () => {
    const q = compile(`
      import { type PSet, setAdd, setEmpty, setHas } from 'scf/prelude';
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: string; readonly t: L };
      export function main(l: L): number {
        const all = names(l, setEmpty());
        const other = names({ kind: 'c', h: 'x', t: l }, setEmpty());
        const [rest, seen] = walk(l, all);
        return use(seen, rest) + use(other, rest);
      }
      function names(l: L, acc: PSet<string>): PSet<string> {
        return l.kind === 'end' ? acc : names(l.t, setAdd(acc, l.h));
      }
      function walk(l: L, acc: PSet<string>): [L, PSet<string>] {
        return l.kind === 'end' ? [l, acc] : walk(l.t, setAdd(acc, l.h));
      }
      function use(s: PSet<string>, l: L): number {
        return setHas(s, 'x') && l.kind === 'end' ? 1 : 0;
      }
    `);
    const fin = finitenessAnalysis(q);
    // names is also called on a built list, so its own parameters are not finite …
    expect(fin.get('t.names')).toEqual([false, false]);
    // … but on the input it gives a finite set, which walk threads and returns as a tuple part
    expect(fin.get('t.walk')).toEqual([true, true]);
    expect(fin.get('t.use')).toEqual([false, true]);
  });
  it('finiteness: a constructor over literals and strict parts of finite values is finite, over a value itself it is not', () => {
    const q = compile(`
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: number; readonly t: L };
      export function main(l: L): number {
        return len(first(l)) + grow(l, 3) + rot(l, 3);
      }
      // one level over a part of l (a leaf command's expressions as a list, say)
      function first(l: L): L {
        return l.kind === 'end' ? { kind: 'end' } : { kind: 'c', h: l.h, t: { kind: 'end' } };
      }
      function len(l: L): number {
        return l.kind === 'end' ? 0 : 1 + len(l.t);
      }
      // a chain that grows: l itself under a new cell
      function grow(l: L, n: number): number {
        return n === 0 ? 0 : grow({ kind: 'c', h: n, t: l }, n - 1);
      }
      // parts of l recombined: every value is a cell over sub-values of the input
      function rot(l: L, n: number): number {
        if (n === 0 || l.kind === 'end' || l.t.kind === 'end') return 0;
        return rot({ kind: 'c', h: l.t.h, t: l.t.t }, n - 1);
      }
    `);
    const fin = finitenessAnalysis(q);
    expect(fin.get('t.len')).toEqual([true]);
    expect(fin.get('t.grow')).toEqual([false, false]);
    expect(fin.get('t.rot')).toEqual([true, false]);
  });
});

describe('narrowing on a boolean field test', () => {
  // const-prop's `if (!st.reach) return …` on a state that is one of several records
  const q = compile(`
    type St = { readonly kind: 'st'; readonly reach: boolean; readonly n: number };
    export function f(s: St): number {
      if (!s.reach) return s.n;
      return s.reach ? 7 : 99;
    }
    export function g(s: St): number {
      if (s.reach) return 1;
      return s.reach ? 5 : 6;
    }
  `);
  const st = (reach: AbsValue, n: AbsValue) => con('st', [reach, n]);

  it('each branch sees only the members whose field can be what the test found', () => {
    const input = union([st(constant(false), constant(1)), st(constant(true), constant(2))]);
    const res = partialEvaluate(q, 't.f', [input]);
    // unnarrowed: 1 | 2 | 7 | 99 (the then branch reads n of both, the else branch tests again)
    expect(printAbs(res.output)).toBe('1 | 7');
    const text = printCoreProgram(res.residual);
    expect(text).not.toContain('99');
    expect(text).not.toContain('st⁻²');
    checkExact(q, 't.f', [input]);
  });

  it('a field that may be either becomes the outcome; what is not a constant stays', () => {
    const res = partialEvaluate(q, 't.g', [st(anyBool(), base('Int'))]);
    expect(printAbs(res.output)).toBe('1 | 6');
    checkExact(q, 't.g', [st(anyBool(), base('Int'))]);
    // on the value itself: a record of another constructor is dropped (the projection fails on
    // it), a field that is not a finite set of constants is kept, top stays top
    const mixed = union([st(anyBool(), constant(3)), con('q', [base('Int')]), st(base('Int'), constant(4))]);
    expect(printAbs(refineField(mixed, 'st', 0, true))).toBe("st(true, 3) | st('Int, 4)");
    expect(printAbs(refineField(mixed, 'st', 0, false))).toBe("st(false, 3) | st('Int, 4)");
    expect(printAbs(refineField(union([top(), con('q', [base('Int')])]), 'st', 0, true))).toBe("'Any");
    expect(refineField(st(constant(true), constant(3)), 'st', 0, false).kind).toBe('bottom');
  });

  it('a string field compared with a literal (=== and !==) narrows the same way', () => {
    const b = compile(`
      type B = { readonly kind: 'bin'; readonly op: string; readonly n: number };
      export function f(e: B): number {
        if (e.op === '+') return e.op === '+' ? 1 : 99;
        if ('-' !== e.op) return e.op === '-' ? 98 : 3;
        return e.op === '-' ? 2 : 97;
      }
    `);
    const input = union([
      con('bin', [consts(['+', '-']), base('Int')]),
      con('bin', [consts(['*']), base('Int')]),
    ]);
    // unnarrowed: 1 | 2 | 3 | 97 | 98 | 99
    expect(printAbs(partialEvaluate(b, 't.f', [input]).output)).toBe('1 | 2 | 3');
    checkExact(b, 't.f', [input]);
    // a field that is not a finite set of constants stays as it is
    const open = con('bin', [base('Str'), base('Int')]);
    expect(printAbs(refineFieldIs(open, 'bin', 0, '+', true))).toBe(printAbs(open));
  });
});

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

describe('-0 is a constant of its own', () => {
  // 1 / x tells -0 from 0, so folding a * 0 must not merge them (a = -1 gives -0)
  const p = compile(`
export function negative(x: number): boolean { return 1 / x < 0; }
export function run(a: number): boolean { return negative(a * 0); }
`);
  it('the residual is exact when a value may be -0 or 0', () => {
    const input = [union([constant(-1), constant(1)])];
    checkExact(p, 't.run', input, 50);
    const res = partialEvaluate(p, 't.run', input);
    const s = new Interpreter(res.residual);
    expect(s.run(res.entry, [-1]).value).toBe(true);
    expect(s.run(res.entry, [1]).value).toBe(false);
  });

  it('a known -0 folds to -0', () => {
    const res = partialEvaluate(p, 't.run', [constant(-1)]);
    expect(new Interpreter(res.residual).run(res.entry, [-1]).value).toBe(true);
    expect(printAbs(res.output)).toBe('true');
  });
});

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
    const p = compile(EXPR);
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

describe('arity raising of maps with known keys', () => {
  // an environment with known keys and unknown values, threaded through a loop-like recursion
  // with updates, lookups, a join of two branches and a map handed to a caller as a whole
  const ENV = `
type S = { readonly kind: 'st'; readonly env: PMap<string, number>; readonly n: number };
function step(s: S, k: number): S {
  const a = mapFind(s.env, 'a');
  const b = mapFind(s.env, 'b');
  const av = a.kind === 'some' ? a.value : 0;
  const bv = b.kind === 'some' ? b.value : 0;
  const env = k > 0 ? mapInsert(s.env, 'a', av + bv) : mapInsert(s.env, 'b', bv - 1);
  return { kind: 'st', env, n: s.n + 1 };
}
function loop(s: S, k: number): S {
  return k <= 0 ? s : loop(step(s, k), k - 1);
}
export function run(x: number, y: number, k: number): PMap<string, number> {
  const env0 = mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', y);
  const s = loop({ kind: 'st', env: env0, n: 0 }, k);
  return mapInsert(s.env, 'c', s.n);
}
`;
  const p = compile(ENV);
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

  it('a parameter out of fuel keeps its map keys, so lookups of those keys still fold', () => {
    // `walk`'s `acc` keeps growing (a list a cell longer each round), so its fuel runs out and its
    // parameters are pinned. Pinned to `1`, `m` would forget that it binds 'b', so the `some`
    // test on its lookup would stay in the residual code; pinned to its constructors and keys
    // ({"a": 1, "b": 1}) the lookup is known to succeed.
    const PINNED = `
function len(xs: List<number>): number {
  return xs.kind === 'nil' ? 0 : 1 + len(xs.tail);
}
function walk(m: PMap<string, number>, acc: List<number>, i: number, n: number): PMap<string, number> {
  if (i >= n) return mapInsert(m, 'c', len(acc));
  const r = mapFind(m, 'b');
  return walk(mapInsert(m, 'a', (r.kind === 'some' ? r.value : 0) + i), { kind: 'cons', head: i, tail: acc }, i + 1, n);
}
export function run(x: number, y: number, n: number): number {
  const m = walk(mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', y), { kind: 'nil' }, 0, n);
  const r = mapFind(m, 'b');
  return r.kind === 'some' ? 1 : 2;
}
`;
    const q = compile(PINNED);
    // n late but small (the unstaged recursion is that deep)
    const inp = [base('Int'), base('Int'), union([constant(0), constant(3), constant(40)])];
    const res = partialEvaluate(q, 't.run', inp, { specFuel: 1 });
    expect(
      res.events.some((e) => e.reason === 'spec-fuel' && e.to.startsWith('its constructors and map keys')),
    ).toBe(true);
    expect(printAbs(res.output)).toBe('1');
    checkExact(q, 't.run', inp, 100, { specFuel: 1 });
  });

  it('a record or a map with known keys over the size cap is cut part by part, not as a whole', () => {
    // `st` (a flag and a map of five counters) grows past a cap of 6 nodes; cut as a whole the map
    // would become `1` (6 nodes cannot give its five values one each), and the flag and the
    // untouched 'k' with it; cut part by part every value keeps its shape
    const RECORD = `
type St = { readonly kind: 'st'; readonly done: boolean; readonly m: PMap<string, number> };
${GET}
function walk(st: St, i: number, n: number): St {
  if (i >= n) return st;
  const m = mapInsert(mapInsert(st.m, 'a', get(st.m, 'b') + i), 'b', get(st.m, 'c') * i);
  return walk({ kind: 'st', done: false, m: mapInsert(mapInsert(m, 'c', i), 'd', get(m, 'a')) }, i + 1, n);
}
export function run(x: number, n: number): number {
  const m0 = mapInsert(mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', x), 'c', x);
  const st = walk({ kind: 'st', done: false, m: mapInsert(mapInsert(m0, 'd', x), 'k', 7) }, 0, n);
  return st.done ? 1 : get(st.m, 'k');
}
`;
    const q = compile(RECORD);
    const inp = [base('Int'), union([constant(0), constant(3), constant(40)])];
    const res = partialEvaluate(q, 't.run', inp, { growCap: 6 });
    expect(printAbs(res.output)).toBe('7');
    checkExact(q, 't.run', inp, 100, { growCap: 6 });
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

  it('a call whose key argument is a conditional is specialized to each branch', () => {
    // `size(c ? e.l : e.r)` with c late: keyed on the union of both subtrees, `size` would be
    // specialized to a tree it cannot tell apart (kind tests and calls left in the residual
    // code); split into `c ? size(e.l) : size(e.r)`, each call has a known tree and folds
    const COND = `
type T = { readonly kind: 'leaf' } | { readonly kind: 'node'; readonly l: T; readonly r: T };
function size(t: T): number {
  return t.kind === 'leaf' ? 1 : 1 + size(t.l) + size(t.r);
}
export function run(t: T, c: boolean): number {
  return t.kind === 'node' ? size(c ? t.l : t.r) : 0;
}
`;
    const q = compile(COND);
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
    const SEQ = `
type C =
  | { readonly kind: 'seq'; readonly lbl: number; readonly first: C; readonly second: C }
  | { readonly kind: 'op'; readonly lbl: number; readonly w: number };
function cost(c: C, k: number): number {
  return c.kind === 'op' ? c.w * k : cost(c.first, k) + cost(c.second, k);
}
export function run(c: C, k: number, late: boolean): number {
  return late ? cost(c, k) : 0;
}
`;
    const q = compile(SEQ);
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

  /** Lists of at most `n` elements, each `item`. */
  function consList(item: AbsValue, n: number): AbsValue {
    const lists: AbsValue[] = [con('nil', [])];
    for (let i = 0; i < n; i++) lists.push(con('cons', [item, lists[i] as AbsValue]));
    return union(lists);
  }

  /** The map operations left in a residual program, by primitive. */
  function mapOpsOf(q: CoreProgram): Map<string, number> {
    const ops = new Map<string, number>();
    for (const f of q.funs.values()) {
      forEachExpr(f.body, (e) => {
        if (e.kind === 'prim' && e.op.startsWith('map_')) ops.set(e.op, (ops.get(e.op) ?? 0) + 1);
      });
    }
    return ops;
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
    const KILL = `
function kill(names: List<string>, m: PMap<string, string>, x: string): PMap<string, string> {
  if (names.kind === 'nil') return m;
  const k = names.head;
  const r = mapFind(m, k);
  const y = r.kind === 'some' ? r.value : k;
  return kill(names.tail, y === x ? mapInsert(m, k, k) : m, x);
}
export function run(a: string, b: string, c: string, d: string, x: string): PMap<string, string> {
  const names: List<string> = { kind: 'cons', head: 'a', tail: { kind: 'cons', head: 'b', tail: { kind: 'cons', head: 'c', tail: { kind: 'cons', head: 'd', tail: { kind: 'nil' } } } } };
  const m = mapInsert(mapInsert(mapInsert(mapInsert(mapEmpty(), 'a', a), 'b', b), 'c', c), 'd', d);
  return kill(names, m, x);
}
`;
    const q = compile(KILL);
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
