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
  arbMember,
  base,
  con,
  constant,
  printAbs,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { Contexts, finitenessAnalysis, partialEvaluate } from '../../src/partial-eval/index.js';
import { compileFile, Interpreter, type Program } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';

const HEADER = `import { type PMap, mapEmpty, mapFind, mapInsert, type List } from 'scf/prelude';\n`;

function compile(src: string): Program {
  const r = compileFile('/virtual/t.ts', { cwd: '/virtual', readFile: () => HEADER + src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

/** Staged ≡ unstaged on random members of `input`. */
function checkExact(p: Program, entry: string, input: AbsValue[], runs = 200): void {
  const res = partialEvaluate(p, entry, input);
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
      const walk = (x: import('../../src/scf-lang/index.js').Expr): void => {
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
