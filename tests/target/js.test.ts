/**
 * The JavaScript back end (src/target/js.ts) against the reference evaluator: on every run the
 * evaluator accepts, the compiled kernel gives the same result and outputs, floats compared with
 * Object.is (so -0 and NaN count). Differential properties on the benchmark kernels with random valid
 * inputs and on random programs (tests/kernel/gen.ts); small kernels for the semantics' corners
 * (wrapping, INT_MIN, binary32 rounding, conversions, bools, short-circuit calls, early returns,
 * calls); argument errors identical to `evaluate`'s. Inputs with undefined behaviour (the evaluator
 * throws a KernelRuntimeError) are skipped, never compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  type Expr,
  evaluate,
  type Fun,
  KernelArgumentError,
  KernelRuntimeError,
  listFromArray,
  loadKernelParser,
  type Program,
  parseKernelSync,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { compileKernelJs, emitKernelJs } from '../../src/target/index.js';
import { generate } from '../kernel/gen.js';

type Args = readonly ArgValue[] | Readonly<Record<string, ArgValue>>;
type Outcome = { result: number | number[] | undefined; outputs: Record<string, number[]> };

const RUNS = Number(process.env.SCF_JS_RUNS ?? 200);
const DIR = join(import.meta.dirname, '../../benchmarks/inputs');

beforeAll(loadKernelParser);

function parse(source: string): Program {
  const p = parseKernelSync(source, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  return p.program;
}

/** The evaluator's outcome, or undefined when the run has undefined behaviour (or runs too long). */
function reference(program: Program, fn: string, args: Args): Outcome | undefined {
  try {
    const { result, outputs } = evaluate(program, fn, args);
    return { result, outputs };
  } catch (e) {
    if (e instanceof KernelRuntimeError) return undefined;
    throw e;
  }
}

/** Where two outcomes differ (Object.is on every number), or undefined when they are the same. */
function difference(actual: Outcome, expected: Outcome): string | undefined {
  if (!Object.is(actual.result, expected.result)) return `result ${actual.result} ≠ ${expected.result}`;
  const ka = Object.keys(actual.outputs);
  const ke = Object.keys(expected.outputs);
  if (ka.join() !== ke.join()) return `outputs ${ka.join()} ≠ ${ke.join()}`;
  for (const k of ke) {
    const a = actual.outputs[k] as number[];
    const e = expected.outputs[k] as number[];
    if (a.length !== e.length) return `${k}: length ${a.length} ≠ ${e.length}`;
    for (let i = 0; i < e.length; i++) if (!Object.is(a[i], e[i])) return `${k}[${i}]: ${a[i]} ≠ ${e[i]}`;
  }
  return undefined;
}

/** Runs both and expects the same outcome; returns it. The run must be free of undefined behaviour. */
function same(program: Program, fn: string, args: Args): Outcome {
  const expected = reference(program, fn, args);
  if (!expected) throw new Error(`the evaluator rejects ${fn}(${JSON.stringify(args)})`);
  const actual = compileKernelJs(program, fn).run(args);
  expect(difference(actual, expected), emitKernelJs(program, fn)).toBeUndefined();
  return actual;
}

/** The compiled kernel's result on a one-function source, checked against the evaluator. */
function value(source: string, ...args: ArgValue[]): number | undefined {
  const name = /\b(\w+)\s*\(/.exec(source)?.[1] ?? 'f';
  const r = same(parse(source), name, args).result;
  if (Array.isArray(r)) throw new Error('expected a scalar result');
  return r;
}

// ---- benchmark kernels ---------------------------------------------------------------------------

function bench(name: string): Program {
  return parse(readFileSync(join(DIR, `${name}.c`), 'utf8'));
}

/** A differential property: compiled ≡ evaluator on `RUNS` argument sets, skipping rejected ones. */
function differential(program: Program, fn: string, args: fc.Arbitrary<Args>): void {
  const kernel = compileKernelJs(program, fn);
  let compared = 0;
  fc.assert(
    fc.property(args, (a) => {
      const expected = reference(program, fn, a);
      fc.pre(expected !== undefined);
      compared++;
      const diff = difference(kernel.run(a), expected as Outcome);
      if (diff !== undefined) throw new Error(diff);
    }),
    { numRuns: RUNS },
  );
  expect(compared).toBe(RUNS);
}

const int32 = fc.integer();
const smallInt = fc.integer({ min: -1000, max: 1000 });
/** binary32 values: mostly moderate, sometimes anything (NaN, infinities, -0, huge, tiny). */
const float32 = fc.oneof(
  { weight: 4, arbitrary: fc.float({ min: -8, max: 8, noNaN: true }) },
  { weight: 1, arbitrary: fc.float() },
);
const pixel = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 1, arbitrary: int32 },
);

/** A Dinero configuration: at least one set per cache, at most 4096 lines. */
const cacheConfig = fc
  .record({
    isize: fc.integer({ min: 0, max: 64 }),
    dsize: fc.integer({ min: 0, max: 64 }),
    assoc: fc.integer({ min: 1, max: 9 }),
    bsize: fc.oneof(fc.constantFrom(4, 8, 16, 32, 64), fc.integer({ min: 1, max: 200 })),
  })
  .filter(({ isize, dsize, assoc, bsize }) =>
    [isize, dsize].every((kb) => {
      const sets = Math.trunc(Math.trunc((kb * 1024) / bsize) / assoc);
      return sets >= 1 && sets * assoc <= 4096;
    }),
  );

const trace = fc.array(
  fc.record({
    kind: fc.integer({ min: 0, max: 2 }),
    addr: fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 4096 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2147483647 }) },
    ),
  }),
  { maxLength: 150 },
);

const dinero: fc.Arbitrary<Args> = fc
  .tuple(cacheConfig, trace, fc.array(int32, { minLength: 5, maxLength: 5 }))
  .map(([c, t, stats]) => ({
    kinds: t.map((x) => x.kind),
    addrs: t.map((x) => x.addr),
    n: t.length,
    ...c,
    stats,
  }));

describe('compiled benchmark kernels agree with the evaluator', () => {
  it('mul_add', () => {
    differential(bench('mul_add'), 'mul_add', fc.record({ x: int32, y: int32, a: int32 }));
  });

  it('dotproduct', () => {
    const args = fc
      .tuple(fc.array(fc.tuple(int32, int32), { maxLength: 40 }), fc.nat())
      .map(([pairs, k]) => ({
        v1: pairs.map((p) => p[0]),
        v2: pairs.map((p) => p[1]),
        s: pairs.length === 0 ? 0 : k % (pairs.length + 1),
      }));
    differential(bench('dotproduct'), 'dotproduct', args);
  });

  it('doconvol', () => {
    const args = fc
      .record({
        rows: fc.integer({ min: 0, max: 9 }),
        cols: fc.integer({ min: 0, max: 9 }),
        crows: fc.integer({ min: 0, max: 5 }),
        ccols: fc.integer({ min: 0, max: 5 }),
        maxval: fc.oneof(fc.constant(255), fc.integer({ min: 0, max: 65535 })),
      })
      .chain((d) =>
        fc.record({
          image: fc.array(pixel, { minLength: d.rows * d.cols, maxLength: d.rows * d.cols }),
          rows: fc.constant(d.rows),
          cols: fc.constant(d.cols),
          maxval: fc.constant(d.maxval),
          coef: fc.array(float32, { minLength: d.crows * d.ccols, maxLength: d.crows * d.ccols }),
          crows: fc.constant(d.crows),
          ccols: fc.constant(d.ccols),
          out: fc.array(smallInt, { minLength: d.rows * d.cols, maxLength: d.rows * d.cols }),
        }),
      );
    differential(bench('doconvol'), 'doconvol', args);
  });

  it('doconvol_1d', () => {
    const args = fc
      .record({
        n: fc.integer({ min: 0, max: 30 }),
        ccols: fc.integer({ min: 0, max: 7 }),
        maxval: fc.oneof(fc.constant(255), fc.integer({ min: 0, max: 65535 })),
      })
      .chain((d) =>
        fc.record({
          signal: fc.array(pixel, { minLength: d.n, maxLength: d.n }),
          n: fc.constant(d.n),
          maxval: fc.constant(d.maxval),
          coef: fc.array(float32, { minLength: d.ccols, maxLength: d.ccols }),
          ccols: fc.constant(d.ccols),
          out: fc.array(smallInt, { minLength: d.n, maxLength: d.n }),
        }),
      );
    differential(bench('doconvol_1d'), 'doconvol_1d', args);
  });

  for (const name of ['main_loop', 'main_loop_f', 'main_loop_f_u', 'main_loop_f_u_f']) {
    it(name, () => {
      differential(bench(name), name, dinero);
    });
  }

  it('keep arrays in typed arrays and emit only the functions the entry reaches', () => {
    const js = emitKernelJs(bench('main_loop_f'), 'main_loop_f');
    expect(js).toContain('const a_itags = new Int32Array(4096);');
    expect(js).toContain('// int main_loop_f(const int kinds[]');
    expect(js).toContain('function f_find_entry(');
    expect(js).toContain('function f_update_entry(');
    expect(emitKernelJs(bench('main_loop'), 'find_entry')).not.toContain('f_update_entry');
  });
});

describe('compiled random programs agree with the evaluator', () => {
  it(`on ${RUNS} programs of tests/kernel/gen.ts`, () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 600, maxLength: 600 }), (tape) => {
        const g = generate(tape, 'p_');
        const program = parse(g.source);
        const expected = reference(program, g.main, g.args);
        if (!expected) return; // undefined behaviour: skipped, as in the gcc differential test
        compared++;
        const diff = difference(compileKernelJs(program, g.main).run(g.args), expected);
        if (diff !== undefined) throw new Error(`${diff}\n${g.source}\n${emitKernelJs(program, g.main)}`);
      }),
      { numRuns: RUNS, seed: 20020116 },
    );
    // Most generated programs are defined, or the test would prove little.
    expect(compared).toBeGreaterThan(RUNS * 0.4);
  });
});

// ---- corners of the semantics --------------------------------------------------------------------

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

describe('int semantics', () => {
  it('wraps on overflow', () => {
    expect(value('int f(int x) { return x + 1; }', INT_MAX)).toBe(INT_MIN);
    expect(value('int f(int x) { return x - 1; }', INT_MIN)).toBe(INT_MAX);
    expect(value('int f(int x, int y) { return x * y; }', 1000000007, 998244353)).toBe(
      Math.imul(1000000007, 998244353),
    );
    expect(value('int f(int x) { int s = 0; for (int i = 0; i < 4; i++) s += x; return s; }', INT_MAX)).toBe(
      -4,
    );
    expect(value('int f(int x) { x++; x *= 3; return x; }', INT_MAX)).toBe(Math.imul(INT_MIN, 3));
  });

  it('gets the defined INT_MIN cases right', () => {
    expect(value('int f(int x) { return -x; }', INT_MIN)).toBe(INT_MIN);
    expect(value('int f(int x) { return x * -1; }', INT_MIN)).toBe(INT_MIN);
    expect(value('int f(int x, int y) { return x / y; }', INT_MIN, 1)).toBe(INT_MIN);
    expect(value('int f(int x, int y) { return x / y; }', INT_MIN, 2)).toBe(-1073741824);
    expect(value('int f(int x, int y) { return x / y; }', INT_MIN, INT_MIN)).toBe(1);
    expect(value('int f(int x, int y) { return x / y; }', INT_MAX, INT_MIN)).toBe(0);
    expect(value('int f(int x, int y) { return x % y; }', INT_MIN, 1)).toBe(0);
    expect(value('int f(int x, int y) { return x % y; }', INT_MIN, 3)).toBe(-2);
    expect(value('int f(int x, int y) { return x % y; }', INT_MIN, INT_MAX)).toBe(-1);
    expect(value('int f(int x) { return ~x; }', INT_MIN)).toBe(INT_MAX);
    expect(value('int f(int x) { return x >> 31; }', INT_MIN)).toBe(-1);
    expect(value('int f(int x) { return 1 << x; }', 31)).toBe(INT_MIN);
    expect(value('int f(int x) { return x < 0 && -x < 0; }', INT_MIN)).toBe(1);
  });

  it('truncates division toward zero, and a zero remainder is +0', () => {
    expect(value('int f(int x, int y) { return x / y; }', -7, 2)).toBe(-3);
    expect(value('int f(int x, int y) { return x % y; }', -7, 2)).toBe(-1);
    expect(value('int f(int x, int y) { return x % y; }', 7, -2)).toBe(1);
    expect(Object.is(value('int f(int x, int y) { return x % y; }', -4, 2), 0)).toBe(true);
    expect(Object.is(value('int f(int x, int y) { return x / y; }', -1, 2), 0)).toBe(true);
  });
});

describe('float semantics', () => {
  it('rounds to binary32 after every operation', () => {
    expect(value('float f(float a, float b) { return a + b; }', 16777216, 1)).toBe(16777216);
    expect(value('float f(float a) { return (a + 1.0f) - a; }', 1e8)).toBe(0);
    expect(value('float f(float a) { return a * 0.1f; }', 3)).toBe(Math.fround(3 * Math.fround(0.1)));
    expect(value('float f(float a, float b) { return a / b; }', 1, 3)).toBe(Math.fround(1 / 3));
    const sum = value(
      'float f(int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += 0.1f; return s; }',
      10,
    );
    let expected = 0;
    for (let i = 0; i < 10; i++) expected = Math.fround(expected + Math.fround(0.1));
    expect(sum).toBe(expected);
    expect(sum).not.toBe(1);
  });

  it('keeps IEEE infinities, NaN and signed zeros', () => {
    expect(value('float f(float a) { return 1.0f / a; }', 0)).toBe(Number.POSITIVE_INFINITY);
    expect(value('float f(float a) { return 1.0f / a; }', -0)).toBe(Number.NEGATIVE_INFINITY);
    expect(value('float f(float a) { return a * 1e30f; }', 1e30)).toBe(Number.POSITIVE_INFINITY);
    expect(value('float f(float a) { return a - a; }', Number.POSITIVE_INFINITY)).toBeNaN();
    expect(Object.is(value('float f(float a) { return -a; }', 0), -0)).toBe(true);
    expect(Object.is(value('float f(float a) { return a * -1.0f; }', 0), -0)).toBe(true);
    expect(Object.is(value('float f(float a) { return a + 0.0f; }', -0), 0)).toBe(true);
    expect(value('int f(float a) { return (a == a) + (a != a) * 2 + (a < 1.0f) * 4; }', Number.NaN)).toBe(2);
    expect(value('int f(float a) { return a == 0.0f; }', -0)).toBe(1);
  });

  it('a float conditional of variables and literals selects without a branch, bit for bit the evaluator', () => {
    const clamp = 'float f(float x, float p) { return x < p ? p : x; }';
    expect(emitKernelJs(parse(clamp), 'f')).toContain('$sel(');
    const corners = [0, -0, 1, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    for (const x of corners) for (const p of corners) value(clamp, x, p);
    for (const x of corners) {
      value('float f(float x) { return x > 1.0f ? 1.0f : -x; }', x);
      value('float f(float x) { return x < 0.0f ? -0.0f : x; }', x);
    }
    // an arm that may fail (a load) or costs more than a variable is evaluated only when chosen
    const guarded = 'float f(float a[], int i) { return i < 3 ? a[i] : 0.0f; }';
    expect(emitKernelJs(parse(guarded), 'f')).not.toContain('$sel(');
    expect(value(guarded, [1, 2, 3], 7)).toBe(0);
  });

  it('tests NaN as a true condition (C, not JavaScript truthiness)', () => {
    expect(value('int f(float a) { if (a) return 1; return 0; }', Number.NaN)).toBe(1);
    expect(value('int f(float a) { return a ? 1 : 2; }', Number.NaN)).toBe(1);
    expect(value('int f(float a) { return !a; }', Number.NaN)).toBe(0);
    expect(value('int f(float a) { return a && 1; }', Number.NaN)).toBe(1);
    expect(value('int f(float a) { int n = 0; while (a && n < 3) n++; return n; }', Number.NaN)).toBe(3);
    expect(value('bool f(float a) { return a; }', Number.NaN)).toBe(1);
  });
});

describe('conversions and bool', () => {
  it('float → int truncates toward zero', () => {
    expect(value('int f(float a) { return (int)a; }', -2.9)).toBe(-2);
    expect(value('int f(float a) { return (int)a; }', 2.9)).toBe(2);
    expect(Object.is(value('int f(float a) { return (int)a; }', -0.5), 0)).toBe(true);
    expect(value('int f(float a) { return (int)a; }', -2147483648)).toBe(INT_MIN);
    expect(value('int f(float a) { return (int)a; }', 2147483520)).toBe(2147483520);
    expect(value('int f(int x, float a) { return x + a; }', 1, 0.75)).toBe(1);
    expect(value('int f(float a) { int i = a * 2.0f; return i; }', 1.75)).toBe(3);
  });

  it('int → float rounds to nearest binary32', () => {
    expect(value('float f(int x) { return x; }', 16777217)).toBe(16777216);
    expect(value('float f(int x) { return (float)x; }', INT_MAX)).toBe(2147483648);
    expect(value('float f(int x) { return (float)x; }', -16777219)).toBe(-16777220);
    expect(value('float f(int x) { return x / 3; }', 10)).toBe(3);
    expect(value('float f(int x) { return x / 3.0f; }', 10)).toBe(Math.fround(10 / 3));
  });

  it('bools are 0/1, converted with != 0', () => {
    expect(value('bool f(int x) { return x; }', -5)).toBe(1);
    expect(value('int f(bool b) { return b + b; }', true)).toBe(2);
    expect(value('int f(int x) { bool b = x; return b; }', 42)).toBe(1);
    expect(value('float f(bool b) { return b; }', true)).toBe(1);
    expect(
      value('int f(bool b, bool c) { return (b && !c) + 2 * (b || c) + 4 * (b == c); }', true, false),
    ).toBe(3);
    expect(value('bool f(int x) { return x > 3 ? true : false; }', 4)).toBe(1);
    const p = parse('void f(bool b[], int n) { for (int i = 0; i < n; i++) b[i] = !b[i] || i == 2; }');
    expect(same(p, 'f', [[true, false, 1, 0], 4]).outputs).toEqual({ b: [0, 1, 1, 1] });
  });

  it('ternaries evaluate only the branch taken', () => {
    const src =
      'int g(int a[]) { a[0]++; return a[0]; }\n' +
      'int f(int a[], int x) { return x > 0 ? g(a) * 10 : (x < 0 ? -g(a) : 0); }';
    const p = parse(src);
    expect(same(p, 'f', [[5], 1])).toEqual({ result: 60, outputs: { a: [6] } });
    expect(same(p, 'f', [[5], -1])).toEqual({ result: -6, outputs: { a: [6] } });
    expect(same(p, 'f', [[5], 0])).toEqual({ result: 0, outputs: { a: [5] } });
  });
});

describe('control flow and calls', () => {
  it('short-circuits && and ||, calls included', () => {
    const src =
      'int g(int a[], int v) { a[0]++; return v; }\n' +
      'int f(int a[], int x) { int r = (x && g(a, 1)) + 2 * (x || g(a, 0)) + 4 * (g(a, x) && g(a, 1)); return r; }';
    const p = parse(src);
    expect(same(p, 'f', [[0], 0])).toEqual({ result: 0, outputs: { a: [2] } });
    expect(same(p, 'f', [[0], 7])).toEqual({ result: 7, outputs: { a: [3] } });
    expect(value('int f(int x) { return x && 1 / x; }', 0)).toBe(0);
    expect(value('int f(int x) { return !x || 100 / x > 1; }', 0)).toBe(1);
  });

  it('runs nested loops', () => {
    const src = `int f(int n) {
      int s = 0;
      for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
          int k = 0;
          while (k < j) { s += i * j - k; k++; }
        }
      }
      return s;
    }`;
    let s = 0;
    for (let i = 0; i < 12; i++) for (let j = 0; j <= i; j++) for (let k = 0; k < j; k++) s += i * j - k;
    expect(value(src, 12)).toBe(s);
    expect(value(src, 0)).toBe(0);
  });

  it('returns early from inside loops', () => {
    const src = `int f(const int a[], int n, int t) {
      for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          if (a[i] + a[j] == t) return i * 100 + j;
        }
      }
      return -1;
    }`;
    expect(value(src, [3, 8, 1, 7, 5], 5, 12)).toBe(304);
    expect(value(src, [3, 8, 1, 7, 5], 5, 15)).toBe(103);
    expect(value(src, [3, 8, 1, 7, 5], 5, 100)).toBe(-1);
    expect(value('void f(int a[], int x) { a[0] = 1; if (x) return; a[0] = 2; }', [0], 1)).toBeUndefined();
  });

  it('calls other functions, passing arrays by reference, and recurses', () => {
    const src = `
      void inc(int a[], int i) { a[i] += 1; }
      void twice(int a[], int i) { inc(a, i); inc(a, i); }
      int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
      float avg(const float v[], int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s / n; }
      int f(int a[], const float v[]) {
        int loc[3] = {1, 2, 3};
        twice(loc, 1);
        twice(a, 0);
        inc(a, 1);
        return fact(10) + loc[1] + (int)(avg(v, 3) * 100.0f);
      }`;
    const p = parse(src);
    const a = [10, 20];
    expect(same(p, 'f', [a, [0.5, 0.25, 1]])).toEqual({ result: 3628800 + 4 + 58, outputs: { a: [12, 21] } });
    expect(a).toEqual([10, 20]); // the caller's arrays are copied first
    expect(same(p, 'fact', [13]).result).toBe(Math.imul(479001600, 13));
  });

  it('keeps C names that are JavaScript reserved words or globals apart', () => {
    const src = `int f(int this, int var, int Math) {
      int let = this + var;
      int arguments = let * Math;
      return arguments;
    }`;
    expect(value(src, 3, 4, 5)).toBe(35);
  });

  it('emits exact literals for values an optimizer may fold to (-0, infinities, NaN)', () => {
    for (const v of [
      -0,
      0,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      -1.5,
      3.4028234663852886e38,
    ]) {
      const lit: Expr = { kind: 'floatLit', value: v, lbl: 2 };
      const neg: Expr = { kind: 'unary', op: '-', ty: 'float', arg: lit, lbl: 3 };
      const fun: Fun = {
        kind: 'fun',
        name: 'k',
        ret: 'float',
        params: { kind: 'nil' },
        locals: { kind: 'nil' },
        body: { kind: 'return', value: { kind: 'some', value: neg }, lbl: 4 },
        fns: { kind: 'nil' },
        lbl: 1,
      };
      const program = listFromArray([fun]);
      expect(Object.is(compileKernelJs(program, 'k').run([]).result, -v)).toBe(true);
      same(program, 'k', []);
    }
  });
});

// ---- arguments -----------------------------------------------------------------------------------

describe('argument handling matches evaluate', () => {
  function failure(thunk: () => unknown): string {
    try {
      thunk();
    } catch (e) {
      if (e instanceof KernelArgumentError) return e.message;
      throw e;
    }
    return 'no error';
  }

  const program = (): Program =>
    parse('int f(int x, const float a[], bool b, int o[]) { o[0] = x; return b; }');

  const cases: Args[] = [
    [1, [1], true],
    [1, [1], true, [0], 5],
    [1.5, [1], true, [0]],
    [2147483648, [1], true, [0]],
    [-2147483649, [1], true, [0]],
    [Number.NaN, [1], true, [0]],
    [true, [1], true, [0]],
    [[1], [1], true, [0]],
    [1, 2, true, [0]],
    [1, [1, true], true, [0]],
    [1, ['x' as unknown as number], true, [0]],
    [1, [1], [true], [0]],
    [1, [1], true, [0.5]],
    [1, [1], true, 0],
    { x: 1, a: [1], b: true },
    { x: 1, a: [1], b: true, o: [0], z: 2 },
    { a: [1], b: 1, o: [0] },
  ];

  for (const args of cases) {
    it(`rejects ${JSON.stringify(args)}`, () => {
      const p = program();
      const expected = failure(() => evaluate(p, 'f', args));
      expect(expected).not.toBe('no error');
      expect(failure(() => compileKernelJs(p, 'f').run(args))).toBe(expected);
    });
  }

  it('accepts positional and named arguments, converting as evaluate does', () => {
    const p = program();
    expect(same(p, 'f', [7, [1e40, 0.1], 2, [0, 9]])).toEqual({ result: 1, outputs: { o: [7, 9] } });
    expect(same(p, 'f', { o: [3], b: false, a: [], x: -3 })).toEqual({ result: 0, outputs: { o: [-3] } });
  });

  it('converts array elements as evaluate does: -0, the int range, holes (read back as 0)', () => {
    const p = parse(
      'int f(const int a[], const float b[], int o[]) { o[0] = a[1] + a[2]; return b[0] < 0.0f; }',
    );
    const holey = new Array<number>(3);
    holey[1] = 7;
    expect(same(p, 'f', [[-0, 2147483647, -2147483648], [-0], [3, 7, 4]])).toEqual({
      result: 0,
      outputs: { o: [-1, 7, 4] },
    });
    // a hole is skipped, as the evaluator's map skips it; in the outputs it reads as 0
    expect(compileKernelJs(p, 'f').run([[0, 1, 2], [1], holey]).outputs.o).toEqual([3, 7, 0]);
    expect(same(p, 'f', [[0, 1, 2], [-1e-46], [0]]).result).toBe(0);
  });

  it('rejects an unknown function with the same error', () => {
    const p = program();
    const expected = failure(() => evaluate(p, 'g', []));
    expect(failure(() => compileKernelJs(p, 'g'))).toBe(expected);
    expect(failure(() => emitKernelJs(p, 'g'))).toBe(expected);
  });
});
