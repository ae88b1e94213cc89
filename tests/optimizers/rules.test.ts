/**
 * One-line tests, one per rewrite rule of const-prop, copy-prop and DAE (esbuild's expectPrinted
 * style): the input function, optimized by the named passes, prints as the expected one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Fun, listToArray, loadKernelParser, printFun } from '../../src/kernel/index.js';
import { countLoops, expectOpt, INPUTS, optimizeC, parseC } from './helpers.js';

beforeAll(async () => {
  await loadKernelParser();
});

describe('const-prop', () => {
  const cp = (src: string, out: string, binds = {}) => expectOpt('const-prop', src, out, binds);

  it('substitutes and folds int constants', () => {
    cp(
      'int f(int x){ int y = 2; int z = y + 1; return z * x; }',
      'int f(int x){ int y = 2; int z = 3; return 3 * x; }',
    );
  });
  it('x*1, 1*x, x+0, 0+x, x-0 => x (int)', () => {
    cp('int f(int x){ int y = x*1; return y; }', 'int f(int x){ int y = x; return y; }');
    cp('int f(int x){ return 1*x + (x+0) + (0+x) + (x-0); }', 'int f(int x){ return x + x + x + x; }');
  });
  /**
   * Offsets are gathered in clones only: `body` as the function `g(x, y, k)` a host maps over `xs`
   * with `k` known, printed as its clone (the host keeps its offsets as written).
   */
  const inClone = (body: string, expected: string, k = 7) => {
    const src = `int g(int x, int y, int k){ ${body} }\nint* f(const int xs[], int y){ int ys[] = map(g, xs, y, ${k}); return ys; }`;
    const clone = listToArray(optimizeC('const-prop', src).fun.fns).find((g) => g.name === 'g_1');
    expect(clone && printFun(clone), body).toBe(printFun(listToArray(parseC(expected))[0] as Fun));
  };
  it('gathers int constant offsets in a clone: x + 1 - 1 => x, (k + 2) - 1 => k + 1, (x - 3) + 5 => x + 2', () => {
    inClone('return x + 1 - 1;', 'int g_1(int x, int y){ return x; }');
    inClone('return (x + 2) - 1;', 'int g_1(int x, int y){ return x + 1; }');
    inClone('return (x - 3) + 5;', 'int g_1(int x, int y){ return x + 2; }');
    inClone('return 1 + x + 2;', 'int g_1(int x, int y){ return x + 3; }');
    inClone('return 1 + (x - 4);', 'int g_1(int x, int y){ return x - 3; }');
    inClone('return 2 - (x + 1);', 'int g_1(int x, int y){ return 1 - x; }');
    inClone('return (x + 1) - (y + 1);', 'int g_1(int x, int y){ return x - y; }');
    inClone('return (x + 1) + (y - 3);', 'int g_1(int x, int y){ return x + y - 2; }');
    // only constants that meet are moved
    inClone('return x + 1 + x;', 'int g_1(int x, int y){ return x + 1 + x; }');
    // a known variable is a literal first: x + k - 2 with k = 2
    inClone('return x + k - 2;', 'int g_1(int x, int y){ return x; }', 2);
    // the function a pipeline optimizes keeps them as written
    cp('int f(int x){ return x + 1 - 1; }', 'int f(int x){ return x + 1 - 1; }');
  });
  it('in a clone, x/1, x|0, 0|x, x^0, 0^x, x&-1, -1&x, x<<0, x>>0 => x; v-v, v^v => 0 (int)', () => {
    inClone(
      'return (x/1) + (x|0) + (0|x) + (x^0) + (0^x);',
      'int g_1(int x, int y){ return x + x + x + x + x; }',
    );
    inClone('return (x&-1) + (-1&x) + (x<<0) + (x>>0);', 'int g_1(int x, int y){ return x + x + x + x; }');
    inClone('return (y - y) + (x ^ x) + (x - y);', 'int g_1(int x, int y){ return x - y; }');
    cp('int f(int x){ return (x/1) + (x|0); }', 'int f(int x){ return (x/1) + (x|0); }');
  });
  it('int offsets wrap as ints do; calls stay, in their order; floats are never reassociated', () => {
    inClone('return x + 2147483647 + 2;', 'int g_1(int x, int y){ return x - 2147483647; }');
    inClone('return x - 2147483647 - 2;', 'int g_1(int x, int y){ return x + 2147483647; }');
    const src =
      'int h(int a){ return a; }\nint g(int x, int y, int k){ return (h(x) + 1) - (h(y) + 1); }\nint* f(const int xs[], int y){ int ys[] = map(g, xs, y, 7); return ys; }';
    const clone = listToArray(optimizeC('const-prop', src).fun.fns).find((g) => g.name === 'g_1');
    expect(clone && printFun(clone)).toContain('return h(x) - h(y);');
    cp('float f(float x){ return x + 1.0f - 1.0f; }', 'float f(float x){ return x + 1.0f - 1.0f; }');
  });
  it("x*0 stays: SCF §2.2.2 folds x*a to x*i for every i other than 1 (Fig. 6: x | x * 'Int)", () => {
    cp('int f(int x){ return x*0 + 0*x; }', 'int f(int x){ return x*0 + 0*x; }');
    cp('float f(float x){ return x*0.0f; }', 'float f(float x){ return x*0.0f; }');
  });
  it('float identities are only the exact ones', () => {
    cp('float f(float x){ return x*1.0f + 1.0f*x; }', 'float f(float x){ return x + x; }');
    cp('float f(float x){ return x+0.0f; }', 'float f(float x){ return x+0.0f; }');
    cp('float f(float x){ return (x - 0.0f) + (x + -0.0f); }', 'float f(float x){ return x + x; }');
  });
  it('folds with C semantics: wrapping, truncating division, float rounding', () => {
    cp('int f(){ return 2147483647 + 2; }', 'int f(){ return -2147483647; }');
    cp('int f(){ return -7 / 2; }', 'int f(){ return -3; }');
    cp('int f(){ return -7 % 2; }', 'int f(){ return -1; }');
    cp('int f(){ return 65536 * 65536; }', 'int f(){ return 0; }');
    cp('float f(){ return 0.1f + 0.2f; }', 'float f(){ return 0.3f; }');
    cp('int f(){ return (int)3.9f + (int)-3.9f; }', 'int f(){ return 0; }');
    cp('int f(){ return 1 << 4 | 3 & 5 ^ ~0; }', 'int f(){ return -2; }');
  });
  it('does not fold division by zero or out-of-range conversions', () => {
    cp('int f(){ return 1 / 0; }', 'int f(){ return 1 / 0; }');
    cp('int f(int m){ return m / -1; }', 'int f(int m){ return (-2147483647 - 1) / -1; }', {
      m: -2147483648,
    });
    cp('int f(){ return (int)3e10f; }', 'int f(){ return (int)3e10f; }');
    cp('int f(){ return 1 << 32; }', 'int f(){ return 1 << 32; }');
  });
  it('folds comparisons, logic and ternaries', () => {
    cp(
      'int f(int x){ return (1 < 2) + (0 && x) + (1 || x) + (3 == 3 ? 5 : x); }',
      'int f(int x){ return 7; }',
    );
    cp('int f(int x){ return 1 && x; }', 'int f(int x){ return 1 && x; }');
  });
  it('removes known branches', () => {
    cp(
      'int f(int x){ int y = 1; if (y) x = 2; else x = 3; return x; }',
      'int f(int x){ int y = 1; x = 2; return 2; }',
    );
    cp('int f(int x){ if (0) x = 2; return x; }', 'int f(int x){ return x; }');
  });
  it('meets at joins', () => {
    cp(
      'int f(int c){ int y; if (c) y = 2; else y = 2; return y; }',
      'int f(int c){ int y; if (c) y = 2; else y = 2; return 2; }',
    );
    cp(
      'int f(int c){ int y; if (c) y = 2; else y = 3; return y; }',
      'int f(int c){ int y; if (c) y = 2; else y = 3; return y; }',
    );
  });
  it('drops a while whose condition is constant false', () => {
    cp('int f(int x){ while (0) x = x + 1; return x; }', 'int f(int x){ return x; }');
  });
  it('iterates loops to a fixpoint', () => {
    cp(
      'int f(int n){ int k = 5; int i = 0; while (i < n) { i = i + k; k = 5; } return k + i; }',
      'int f(int n){ int k = 5; int i = 0; while (i < n) { i = i + 5; k = 5; } return 5 + i; }',
    );
    cp(
      'int f(int n){ int k = 5; while (n > 0) { n = n - 1; k = k + 1; } return k; }',
      'int f(int n){ int k = 5; while (n > 0) { n = n - 1; k = k + 1; } return k; }',
    );
  });
  it('unrolls loops with a constant trip count completely', () => {
    cp(
      'int f(int x){ int s = 0; for (int i = 0; i < 3; i++) s += x; return s; }',
      'int f(int x){ int s; int i; s = 0; i = 0; s = x; i = 1; s = s + x; i = 2; s = s + x; i = 3; return s; }',
    );
  });
  it('does not unroll beyond 64 iterations', () => {
    const r = optimizeC(
      'const-prop',
      'int f(int x){ int s = 0; for (int i = 0; i < 65; i++) s += x; return s; }',
    );
    expect(countLoops(r.fun)).toBe(1);
    const r64 = optimizeC(
      'const-prop',
      'int f(int x){ int s = 0; for (int i = 0; i < 64; i++) s += x; return s; }',
    );
    expect(countLoops(r64.fun)).toBe(0);
  });
  it('unrolls a loop whose body returns', () => {
    cp(
      'int f(int a[], int t){ for (int w = 0; w < 2; w++) { if (a[w] == t) return w; } return -1; }',
      'int f(int a[], int t){ int w; w = 0; if (a[0] == t) return 0; w = 1; if (a[1] == t) return 1; w = 2; return -1; }',
    );
  });
  it('uses the formals lattice: a = 1 gives u = x (the paper, §2.2.2)', () => {
    cp(
      'int mul_add(int x, int y, int a){ int u = x * a; int w = u + y; return w; }',
      'int mul_add(int x, int y, int a){ int u = x; int w = u + y; return w; }',
      { a: 1 },
    );
    cp(
      'int mul_add(int x, int y, int a){ int u = x * a; int w = u + y; return w; }',
      'int mul_add(int x, int y, int a){ int u = x * 3; int w = u + y; return w; }',
      { a: 3 },
    );
  });
  it('loads from constant arrays at constant indices, until they are stored to', () => {
    cp('float f(const float k[]){ return k[1] * 2.0f; }', 'float f(const float k[]){ return 4.0f; }', {
      k: [1, 2, 1],
    });
    cp(
      'int f(int k[]){ int a = k[0]; k[0] = 5; return a + k[0]; }',
      'int f(int k[]){ int a = 7; k[0] = 5; return 7 + k[0]; }',
      {
        k: [7],
      },
    );
    cp('int f(const int k[]){ return k[3]; }', 'int f(const int k[]){ return k[3]; }', { k: [1, 2, 3] });
  });
  it('arrays passed to calls lose their known contents', () => {
    cp(
      'void g(int a[]){ a[0] = 1; } int f(int k[]){ g(k); return k[0]; }',
      'void g(int a[]){ a[0] = 1; } int f(int k[]){ g(k); return k[0]; }',
      { k: [7] },
    );
  });
  it('keeps -0.0f and 0.0f apart', () => {
    cp(
      'float f(int c){ float z; if (c) z = 0.0f; else z = -0.0f; return 1.0f / z; }',
      'float f(int c){ float z; if (c) z = 0.0f; else z = -0.0f; return 1.0f / z; }',
    );
  });
  it('gives fresh unique labels to unrolled copies', () => {
    const r = optimizeC(
      'const-prop',
      'int f(int x){ int s = 0; for (int i = 0; i < 4; i++) { if (x > i) s += i; } return s; }',
    );
    const labels: number[] = [];
    const go = (n: unknown): void => {
      if (typeof n !== 'object' || n === null) return;
      const o = n as Record<string, unknown>;
      if (typeof o.lbl === 'number') labels.push(o.lbl);
      for (const [k, v] of Object.entries(o)) if (k !== 'lbl') go(v);
    };
    go(r.fun);
    expect(new Set(labels).size).toBe(labels.length);
    expect(printFun(r.fun)).not.toContain('for');
  });
});

describe('copy-prop', () => {
  const cy = (src: string, out: string) => expectOpt('copy-prop', src, out);

  it('replaces uses of a copy', () => {
    cy(
      'int f(int x, int y){ int u = x; int w = u + y; return w; }',
      'int f(int x, int y){ int u = x; int w = x + y; return w; }',
    );
  });
  it('collapses chains', () => {
    cy('int f(int x){ int a = x; int b = a; return b; }', 'int f(int x){ int a = x; int b = x; return x; }');
  });
  it('stops at a reassignment of either side', () => {
    cy('int f(int x){ int u = x; x = 3; return u; }', 'int f(int x){ int u = x; x = 3; return u; }');
    cy('int f(int x){ int u = x; u = 3; return u + x; }', 'int f(int x){ int u = x; u = 3; return u + x; }');
  });
  it('intersects facts at joins', () => {
    cy(
      'int f(int x, int c){ int u = x; if (c) u = c; return u; }',
      'int f(int x, int c){ int u = x; if (c) u = c; return u; }',
    );
    cy(
      'int f(int x, int c){ int u; if (c) u = x; else u = x; return u; }',
      'int f(int x, int c){ int u; if (c) u = x; else u = x; return x; }',
    );
  });
  it('removes a self-copy, and a copy the variable already holds', () => {
    cy('int f(int x){ x = x; return x; }', 'int f(int x){ return x; }');
    cy('int f(int x){ int u = x; x = u; return x + u; }', 'int f(int x){ int u = x; return x + x; }');
    cy(
      'int f(int x, int c){ int u = x; if (c) u = x; return u; }',
      'int f(int x, int c){ int u = x; if (c) {} return x; }',
    );
  });
  it('is correct across loops', () => {
    cy(
      'int f(int x, int n){ int u = x; while (n > 0) { n = n - u; x = 1; } return u; }',
      'int f(int x, int n){ int u = x; while (n > 0) { n = n - u; x = 1; } return u; }',
    );
    cy(
      'int f(int x, int n){ int u = x; while (n > 0) { n = n - u; } return u; }',
      'int f(int x, int n){ int u = x; while (n > 0) { n = n - x; } return x; }',
    );
  });
});

describe('dae', () => {
  const d = (src: string, out: string) => expectOpt('dae', src, out);

  it('removes dead assignments and unused locals', () => {
    d('int f(int x){ int u = x; int w = x + 1; return w; }', 'int f(int x){ int w = x + 1; return w; }');
  });
  it('removes overwritten assignments', () => {
    d('int f(int x){ int u = x; u = 2; return u; }', 'int f(int x){ int u; u = 2; return u; }');
  });
  it('keeps assignments whose rhs calls, and all stores', () => {
    d(
      'int g(int a[]){ a[0] = 1; return 0; } int f(int a[]){ int u = g(a); a[1] = 2; return 0; }',
      'int g(int a[]){ a[0] = 1; return 0; } int f(int a[]){ int u = g(a); a[1] = 2; return 0; }',
    );
  });
  it('keeps values live around loops', () => {
    d(
      'int f(int n){ int s = 0; int t = 9; while (n > 0) { s = s + n; n = n - 1; t = s; } return s; }',
      'int f(int n){ int s = 0; while (n > 0) { s = s + n; n = n - 1; } return s; }',
    );
  });
  it('removes an if whose branches became empty', () => {
    d('int f(int x){ int u; if (x) u = 1; else u = 2; return x; }', 'int f(int x){ return x; }');
  });
  it('nothing is live after return', () => {
    d(
      'int f(int x){ int u = x; if (x) { u = 2; return x; } return u; }',
      'int f(int x){ int u = x; if (x) { return x; } return u; }',
    );
  });
});

describe('pipeline', () => {
  it('doconvol with a constant 3x3 coefficient array unrolls its inner loops and folds the coefficients', () => {
    const src = readFileSync(path.join(INPUTS, 'doconvol.c'), 'utf8');
    const binds = { coef: [1, 2, 1, 2, 4, 2, 1, 2, 1], crows: 3, ccols: 3 };
    const r = optimizeC('const-prop,copy-prop,dae', src, binds);
    expect(countLoops(r.fun)).toBe(2); // only the row and col loops are left
    const text = printFun(r.fun);
    const body = text.slice(text.indexOf('{'));
    expect(body).not.toMatch(/coef\[|crow|ccol/);
    expect(body.match(/image\[/g)?.length).toBe(10); // 9 taps + the border copy
  });
  it('mul_add with a = 1 becomes w = x + y (SCF §2.2.2)', () => {
    expectOpt(
      'const-prop,copy-prop,dae',
      'int mul_add(int x, int y, int a){ int u = x * a; int w = u + y; return w; }',
      'int mul_add(int x, int y, int a){ int w = x + y; return w; }',
      { a: 1 },
    );
  });
});
