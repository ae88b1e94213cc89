/**
 * One-line checks of the front end and interpreter: a source goes in through the public API
 * (compileFile on in-memory files), and a value or a diagnostic code comes out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileFile,
  Interpreter,
  PRELUDE_FUNS,
  printCoreProgram,
  ScfRuntimeError,
} from '../../src/scf-lang/index.js';
import { HINTED_PRELUDE_FUNCTIONS } from '../../src/scf-lang/hints.js';
import * as prelude from '../../src/scf-lang/prelude.js';

const HEADER = `import { equal, getOr, mapEmpty, mapFind, mapInsert, none, type Option, type PMap, setAdd, setEmpty, setHas, some } from 'scf/prelude';
export interface Num { readonly kind: 'num'; readonly n: number }
export interface Add { readonly kind: 'add'; readonly l: Expr; readonly r: Expr }
export type Expr = Num | Add;
`;

function compile(src: string) {
  return compileFile('/virtual/t.ts', { cwd: '/virtual', readFile: () => HEADER + src });
}

function codes(src: string): string[] {
  return compile(src).diagnostics.map((d) => d.code);
}

function run(src: string, fn: string, ...args: unknown[]): unknown {
  const r = compile(src);
  if (r.program === null) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return new Interpreter(r.program).run(`t.${fn}`, args).value;
}

const num = (n: number) => ({ kind: 'num', n });
const add = (l: unknown, r: unknown) => ({ kind: 'add', l, r });

describe('desugaring runs as TypeScript would', () => {
  it('switch with early return', () => {
    const src = `export function ev(e: Expr): number { switch (e.kind) { case 'num': return e.n; case 'add': return ev(e.l) + ev(e.r); } }`;
    expect(run(src, 'ev', add(num(2), add(num(3), num(4))))).toBe(9);
  });
  it('if without else falls through to the rest', () => {
    const src = `export function f(x: number): number { if (x > 0) { if (x > 10) return 2; } return 1; }`;
    expect([run(src, 'f', 20), run(src, 'f', 5), run(src, 'f', -1)]).toEqual([2, 1, 1]);
  });
  it('break leaves a switch', () => {
    const src = `export function f(s: string): number { switch (s) { case 'a': case 'b': return 1; case 'c': break; default: return 3; } return 2; }`;
    expect(['a', 'b', 'c', 'z'].map((s) => run(src, 'f', s))).toEqual([1, 1, 2, 3]);
  });
  it('&& and || short-circuit, with narrowing in the right operand', () => {
    const src = `export function f(e: Expr): boolean { return e.kind === 'num' && e.n > 1 || e.kind === 'add' && e.l.kind === 'num'; }`;
    expect([run(src, 'f', num(2)), run(src, 'f', num(0)), run(src, 'f', add(num(1), num(1)))]).toEqual([
      true,
      false,
      true,
    ]);
  });
  it('tuples, destructuring and template literals', () => {
    const src = `function swap(p: [number, string]): [string, number] { const [a, b] = p; return [b, a]; }
      export function f(n: number): string { const [s, m] = swap([n, 'x']); return \`\${s}-\${m * 2}\`; }`;
    expect(run(src, 'f', 21)).toBe('x-42');
  });
  it('object destructuring and shadowing in blocks', () => {
    const src = `export function f(e: Expr): number { const x = 1; if (e.kind === 'add') { const { l, r } = e; const x = 10; if (l.kind === 'num') return l.n + x; } return x; }`;
    expect([run(src, 'f', add(num(5), num(0))), run(src, 'f', num(3))]).toEqual([15, 1]);
  });
  it('maps, sets and options from the prelude', () => {
    const src = `export function f(k: string): number {
      const m: PMap<string, number> = mapInsert(mapInsert(mapEmpty(), 'a', 1), 'b', 2);
      const s = setAdd(setEmpty(), k);
      const o: Option<number> = setHas(s, 'a') ? mapFind(m, k) : none();
      return getOr(o, -1) + (equal(m, mapInsert(mapInsert(mapEmpty(), 'b', 2), 'a', 1)) ? 100 : 0);
    }`;
    expect([run(src, 'f', 'a'), run(src, 'f', 'b')]).toEqual([101, 99]);
  });
  it('a map keeps -0 written over 0, natively and interpreted', () => {
    const src = `export function f(z: number): number {
      const m: PMap<string, number> = mapInsert(mapInsert(mapEmpty(), 'a', 0), 'a', z);
      return getOr(mapFind(m, 'a'), 7);
    }`;
    expect(Object.is(run(src, 'f', -0), -0)).toBe(true);
    const m = prelude.mapInsert(prelude.mapInsert(prelude.mapEmpty<string, number>(), 'a', -0), 'a', 0);
    expect(Object.is(prelude.getOr(prelude.mapFind(m, 'a'), 7), 0)).toBe(true);
  });
  it('literal constants are inlined', () => {
    const src = `const LIMIT = 64;\nexport function f(x: number): boolean { return x < LIMIT; }`;
    expect(run(src, 'f', 3)).toBe(true);
    expect(printCoreProgram(compile(src).program!)).toContain('64');
  });
});

describe('rejections, one rule each', () => {
  it.each([
    ['let x = 1; return x;', 'SCF2001'],
    ['const x = 1; x = 2; return x;', 'SCF2002'],
    ['while (true) {} return 1;', 'SCF2003'],
    ['const f = (y: number) => y; return 1;', 'SCF2004'],
    ['throw 1;', 'SCF2009'],
    ['return e === e ? 1 : 0;', 'SCF2012'],
    ['return e.n;', 'SCF3010'],
    ["return { kind: 'num' }.n;", 'SCF3006'],
    ['const s = setAdd(setEmpty(), e); return 1;', 'SCF3012'],
    ['return nope(1);', 'SCF3002'],
  ])('%s', (body, code) => {
    expect(codes(`export function f(e: Expr): number { ${body} }`)).toContain(code);
  });
  it('reports every error in a file, not only the first', () => {
    expect(
      codes(`export function f(e: Expr): number { let a = 1; for (;;) {} const g = () => 1; throw 2; }`),
    ).toEqual(['SCF2001', 'SCF2003', 'SCF2004', 'SCF2009']);
  });
});

describe('robustness', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = compileFile('/virtual/x.ts', { cwd: '/virtual', readFile: () => text });
        expect(r.program === null || r.diagnostics.length === 0).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
  it('never throws on mutilated optimizer sources', () => {
    const src =
      HEADER +
      `export function ev(e: Expr): number { switch (e.kind) { case 'num': return e.n; case 'add': return ev(e.l) + ev(e.r); } }`;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: src.length }),
        fc.integer({ min: 0, max: 20 }),
        fc.string({ maxLength: 5 }),
        (at, del, ins) => {
          const text = src.slice(0, at) + ins + src.slice(at + del);
          compileFile('/virtual/x.ts', { cwd: '/virtual', readFile: () => text });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('interpreter errors', () => {
  it('a projection on the wrong constructor is an ScfRuntimeError with the source span', () => {
    const r = compile(`export function f(e: Num): number { return e.n; }`);
    const interp = new Interpreter(r.program!);
    let err: unknown;
    try {
      interp.run('t.f', [add(num(1), num(2))]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScfRuntimeError);
    expect((err as ScfRuntimeError).location).toBe('t.ts:5:44');
    expect((err as ScfRuntimeError).message).toContain('projection num.n applied to add(');
  });
  it('unbounded recursion stops at the depth limit', () => {
    const r = compile(`export function f(x: number): number { return f(x + 1) + 1; }`);
    expect(() => new Interpreter(r.program!).run('t.f', [0], { maxDepth: 500 })).toThrow(
      /call depth exceeded 500/,
    );
  });
  it('the step budget is fuel', () => {
    const r = compile(`export function f(x: number): number { return x > 1000 ? x : f(x + 1); }`);
    expect(() => new Interpreter(r.program!).run('t.f', [0], { maxSteps: 100 })).toThrow(
      /step budget of 100 exhausted/,
    );
  });
  it('counts instructions and map/set operations', () => {
    const r = compile(`export function f(k: string): boolean { return setHas(setAdd(setEmpty(), k), 'a'); }`);
    const { counts } = new Interpreter(r.program!).run('t.f', ['a']);
    expect(counts.collectionOps).toBe(3);
    expect(counts.total).toBe(5); // set_has, set_add, set_empty, k, "a"
  });
});

describe('prelude', () => {
  it('every prelude function the checker knows is exported by the native prelude, and vice versa', () => {
    const native = Object.keys(prelude).filter(
      (k) => typeof (prelude as Record<string, unknown>)[k] === 'function',
    );
    const known = Object.keys(PRELUDE_FUNS);
    expect(known.filter((k) => !native.includes(k))).toEqual([]);
    expect(native.filter((k) => !known.includes(k))).toEqual(['comparePrim']);
  });
  it('the prelude functions the messages name as a fix exist', () => {
    expect(HINTED_PRELUDE_FUNCTIONS.filter((f) => !Object.hasOwn(PRELUDE_FUNS, f))).toEqual([]);
  });
  it('a generic function is instantiated at each call; a type parameter nothing fixes is an error', () => {
    const src = `import { type List } from 'scf/prelude';
export function len<T>(xs: List<T>): number { return xs.kind === 'nil' ? 0 : 1 + len(xs.tail); }
export function one<T>(x: T): List<T> { return { kind: 'cons', head: x, tail: { kind: 'nil' } }; }
export function f(s: string): number { return len(one(s)) + len(one(1)); }`;
    expect(run(src, 'f', 'a')).toBe(2);
    expect(
      codes(`import { type List, nil } from 'scf/prelude';
export function e<T>(): List<T> { return nil(); }
export function g(): number { const x = e(); return 0; }`),
    ).toEqual(['SCF3019']);
    expect(
      codes(`export function id<T>(x: T): T { return x; }
export function g(): string { return id(1); }`),
    ).toEqual(['SCF3001']);
  });
  it('a top-level constant of data is a known value in Core', () => {
    const src = `const E: Expr = { kind: 'add', l: { kind: 'num', n: 2 }, r: { kind: 'num', n: 3 } };
export function f(): Expr { return E; }`;
    expect(run(src, 'f')).toEqual(add(num(2), num(3)));
    expect(printCoreProgram(compile(src).program as never)).toContain('add(num(2), num(3))');
  });
  it('setToList is sorted, equal is structural', () => {
    const s = prelude.setAdd(prelude.setAdd(prelude.setAdd(prelude.setEmpty<number>(), 3), 1), 2);
    expect(JSON.stringify(prelude.setToList(s))).toBe(
      JSON.stringify({
        kind: 'cons',
        head: 1,
        tail: { kind: 'cons', head: 2, tail: { kind: 'cons', head: 3, tail: { kind: 'nil' } } },
      }),
    );
    expect(
      prelude.equal({ kind: 'a', x: [1, prelude.mapEmpty()] }, { kind: 'a', x: [1, prelude.mapEmpty()] }),
    ).toBe(true);
    expect(prelude.equal({ kind: 'a', x: 1 }, { kind: 'a', x: 2 })).toBe(false);
  });
});
