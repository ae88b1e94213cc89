/** Evaluator semantics: int wrapping, truncating division, binary32 rounding, conversions, errors. */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  evaluate,
  KernelArgumentError,
  KernelRuntimeError,
  loadKernelParser,
  parseKernelSync,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';

beforeAll(loadKernelParser);

function run(src: string, args: readonly ArgValue[] | Record<string, ArgValue>, fuel?: number) {
  const p = parseKernelSync(src, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  const name = /\b(\w+)\s*\(/.exec(src)?.[1] ?? 'f';
  return evaluate(p.program, name, args, { spans: p.spans, source: p.sources.get('k.c'), fuel });
}

function value(src: string, ...args: ArgValue[]): number | undefined {
  const r = run(src, args).result;
  if (Array.isArray(r)) throw new Error('expected a scalar result');
  return r;
}

function runtimeError(src: string, args: readonly ArgValue[], fuel?: number): string {
  try {
    run(src, args, fuel);
  } catch (e) {
    if (e instanceof KernelRuntimeError) return e.message;
    throw e;
  }
  throw new Error('expected a runtime error');
}

describe('int semantics', () => {
  it('wraps on overflow', () => {
    expect(value('int f(int x) { return x + 1; }', 2147483647)).toBe(-2147483648);
    expect(value('int f(int x) { return x * 65536; }', 65536)).toBe(0);
    expect(value('int f(int x) { return x * 3; }', 1000000000)).toBe(-1294967296);
    expect(value('int f(int x) { return -x; }', -2147483648)).toBe(-2147483648);
  });
  it('truncates division toward zero; remainder has the sign of the dividend', () => {
    expect(value('int f(int x, int y) { return x / y; }', -7, 2)).toBe(-3);
    expect(value('int f(int x, int y) { return x % y; }', -7, 2)).toBe(-1);
    expect(value('int f(int x, int y) { return x % y; }', 7, -2)).toBe(1);
  });
  it('shifts, bitwise operators, comparisons and logic give C results', () => {
    expect(value('int f(int x) { return x >> 1; }', -5)).toBe(-3);
    expect(value('int f(int x) { return x << 31; }', 1)).toBe(-2147483648);
    expect(value('int f(int x) { return ~x ^ 5 | 8 & x; }', 12)).toBe(~12 ^ (5 | (8 & 12)));
    expect(value('int f(int x) { return (x > 1) + (x == 3) + !x; }', 3)).toBe(2);
    expect(value('int f(int x) { return x && 1 / x; }', 0)).toBe(0); // short-circuit: no division
  });
});

describe('float semantics', () => {
  it('rounds to binary32 after every operation', () => {
    expect(value('float f(float a, float b) { return a + b; }', 16777216, 1)).toBe(16777216);
    expect(value('float f(float a) { return a * 0.1f; }', 3)).toBe(Math.fround(3 * Math.fround(0.1)));
    // (1e8 + 1) - 1e8 is 0 in binary32, 1 in binary64.
    expect(value('float f(float a) { return (a + 1.0f) - a; }', 1e8)).toBe(0);
  });
  it('follows IEEE for division by zero and NaN comparisons', () => {
    expect(value('float f(float a) { return 1.0f / a; }', 0)).toBe(Number.POSITIVE_INFINITY);
    expect(value('float f(float a) { return 1.0f / a; }', -0)).toBe(Number.NEGATIVE_INFINITY);
    expect(value('int f(float a) { return (a == a) + (a != a) * 2; }', Number.NaN)).toBe(2);
    expect(value('int f(float a) { if (a) return 1; return 0; }', Number.NaN)).toBe(1);
  });
  it('converts as C does', () => {
    expect(value('int f(float a) { return (int)a; }', -2.9)).toBe(-2);
    expect(value('float f(int x) { return x; }', 16777217)).toBe(16777216);
    expect(value('int f(int x, float a) { return x + a; }', 1, 0.75)).toBe(1); // int + float → float → int
    expect(value('bool f(float a) { return a; }', 0.25)).toBe(1);
    expect(value('int f(bool b) { return b + b; }', true)).toBe(2);
    expect(value('int f(int x) { bool b = x; return b; }', 42)).toBe(1);
  });
});

describe('arrays, calls, outputs', () => {
  it('returns the non-const array parameters as outputs, without touching the arguments', () => {
    const input = [1, 2, 3];
    const r = run('void f(const int a[], int b[], int n) { for (int i = 0; i < n; i++) b[i] = a[i] * 2; }', {
      a: input,
      b: [0, 0, 0],
      n: 3,
    });
    expect(r.result).toBeUndefined();
    expect(r.outputs).toEqual({ b: [2, 4, 6] });
    expect(input).toEqual([1, 2, 3]);
  });
  it('passes arrays by reference and supports recursion', () => {
    const src =
      'void inc(int a[], int i) { a[i] += 1; }\nint fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n' +
      'int f(int a[]) { inc(a, 0); inc(a, 0); return fact(5) + a[0]; }';
    const p = parseKernelSync(src);
    expect(evaluate(p.program, 'f', [[10]])).toMatchObject({ result: 132, outputs: { a: [12] } });
  });
  it('local arrays are zero-filled only by an initializer', () => {
    expect(value('int f(int i) { int t[4] = {5}; return t[0] + t[i]; }', 3)).toBe(5);
  });
});

describe('runtime errors carry the source position', () => {
  it('reports undefined behaviour', () => {
    expect(runtimeError('int f(int x) {\n  return 1 / x;\n}', [0])).toBe(
      'k.c:2:10: error: integer division by zero',
    );
    expect(runtimeError('int f(int x) { return x % -1; }', [-2147483648])).toMatch(/overflow in remainder/);
    expect(runtimeError('int f(int x) { return x / -1; }', [-2147483648])).toMatch(/overflow in division/);
    expect(runtimeError('int f(int a[], int i) { return a[i]; }', [[1, 2], 2])).toBe(
      "k.c:1:34: error: index 2 is out of bounds for array 'a' of length 2",
    );
    expect(runtimeError('int f(int a[], int i) { a[i] = 1; return 0; }', [[1], -1])).toMatch(
      /index -1 is out of bounds/,
    );
    expect(runtimeError('int f(float u) { return (int)u; }', [3e9])).toMatch(/out of range for int/);
    expect(runtimeError('int f(float u) { return (int)u; }', [Number.NaN])).toMatch(/out of range for int/);
    expect(runtimeError('int f(int x) { return x << 32; }', [1])).toMatch(/shift count 32/);
    expect(runtimeError('int f(int x) { int y; return y; }', [1])).toMatch(
      /'y' is read before it is assigned/,
    );
    expect(runtimeError('int f(int x) { int t[2]; return t[1]; }', [1])).toMatch(/'t\[1\]' is read before/);
    expect(runtimeError('int f(int x) {\n  if (x) return 1;\n}', [0])).toBe(
      "k.c:1:1: error: function 'f' reached its end without returning a value",
    );
  });
  it('stops when the fuel runs out', () => {
    expect(runtimeError('int f(int x) { while (1) x++; return x; }', [0], 1000)).toMatch(
      /step budget of 1000 exceeded/,
    );
    expect(runtimeError('int f(int x) { return f(x); }', [0])).toMatch(/call depth/);
  });
  it('rejects bad arguments', () => {
    const p = parseKernelSync('int f(int x, float a[]) { return x; }');
    expect(() => evaluate(p.program, 'f', [1])).toThrow(KernelArgumentError);
    expect(() => evaluate(p.program, 'f', [1.5, [1]])).toThrow(/must be an int/);
    expect(() => evaluate(p.program, 'f', { x: 1 })).toThrow(/missing argument for parameter 'a'/);
    expect(() => evaluate(p.program, 'f', { x: 1, a: [], z: 2 })).toThrow(/no parameter 'z'/);
    expect(() => evaluate(p.program, 'g', [])).toThrow(/no function named 'g'/);
  });
});
