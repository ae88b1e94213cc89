/**
 * The builtins (src/kernel/builtins.ts) through the tools that read the table: the generated SCF-lang
 * view is fresh; the parser types calls with C's implicit conversions and refuses what C or the
 * float subset does not allow (double-precision names, redefinitions, wrong arguments, a call
 * whose value is dropped); the printer gives C that parses back to the same program; the JS back
 * end (its plain loop and its SIMD lowering) computes the evaluator's bits on edge cases and
 * generated values.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtinsModule, BUILTINS_FILE, MATH_DOC, mathDoc } from '../../scripts/gen-builtins.js';
import { formatDiagnostic } from '../../src/common/index.js';
import {
  BUILTINS,
  equalModuloLabels,
  evaluate,
  float32FromBits,
  listToArray,
  loadKernelParser,
  parseKernelSync,
  printProgram,
  type Program,
  validateProgram,
} from '../../src/kernel/index.js';
import { foldsExactly, isBuiltin } from '../../src/kernel/builtins.generated.js';
import { hasCall } from '../../src/kernel/expr-info.js';
import {
  compareResults,
  compileKernelJs,
  emitKernelJs,
  GPU_ULPS,
  toleranceUlps,
} from '../../src/target/index.js';
import { SIMD_MIN_LENGTH } from '../../src/target/simd.js';

beforeAll(loadKernelParser);

function parse(source: string): Program {
  const r = parseKernelSync(source, 'k.c');
  expect(r.diagnostics.map((d) => formatDiagnostic(d, r.sources, false))).toEqual([]);
  return r.program;
}

function errors(source: string): string[] {
  const r = parseKernelSync(source, 'k.c');
  return r.diagnostics.map((d) => formatDiagnostic(d, r.sources, false));
}

const EDGES = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1.5,
  -2.5,
  3,
  1e-40,
  -3.4028234663852886e38,
  8388609,
  0.1,
].map(Math.fround);

const anyFloat = fc.integer({ min: 0, max: 0xffffffff }).map((u) => float32FromBits(u >>> 0));
const floatArg = fc.oneof(
  fc.constantFrom(...EDGES),
  anyFloat,
  fc.double({ min: -50, max: 50 }).map(Math.fround),
);

/** Same value, NaN matching NaN, -0 not matching 0. */
function same(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((x, i) => same(x, b[i]))
    : Object.is(a, b);
}

describe('the SCF-lang view of the table', () => {
  it('is fresh: generated from builtins.ts it equals the committed builtins.generated.ts', () => {
    expect(readFileSync(BUILTINS_FILE, 'utf8')).toBe(builtinsModule());
  });
  it('is fresh: the table of docs/kernel-math.md is the one builtins.ts gives', () => {
    const doc = readFileSync(MATH_DOC, 'utf8');
    expect(doc).toBe(mathDoc(doc));
  });
  it('names every builtin, and folds exactly the exact ones', () => {
    for (const b of BUILTINS) {
      expect(isBuiltin(b.name), b.name).toBe(true);
      expect(foldsExactly(b.name), b.name).toBe(b.exact);
    }
    expect(isBuiltin('sqrt')).toBe(false);
    expect(isBuiltin('g')).toBe(false);
  });
});

describe('parsing builtin calls', () => {
  it('types them and converts their arguments as C does', () => {
    const p = parse(
      '#include <math.h>\n#include <stdlib.h>\nfloat f(int n, float x) { return sqrtf(n) + abs(x) + powf(x, 2); }',
    );
    const validation = validateProgram(p);
    expect(validation).toEqual([]);
    const text = printProgram(p);
    expect(text).toContain('#include <math.h>');
    expect(text).toContain('#include <stdlib.h>');
    expect(text).toContain('sqrtf(n) + abs(x) + powf(x, 2)');
    expect(evaluate(p, 'f', [2, -3.75]).result).toBe(Math.fround(Math.fround(Math.SQRT2 + 3) + 14.0625));
  });
  it('needs no #include, and prints one', () => {
    const p = parse('float f(float x) { return fabsf(x); }');
    expect(printProgram(p)).toMatch(/^#include <math.h>\n/);
  });
  it('takes a builtin as a combinator function', () => {
    const p = parse('float* f(const float xs[], int n) { float ys[] = map(sqrtf, xs); return ys; }');
    expect(evaluate(p, 'f', [[4, 2, -1], 3]).result).toEqual([2, Math.fround(Math.SQRT2), Number.NaN]);
    expect(printProgram(p)).toContain('map(sqrtf, xs)');
  });
  it('calls of builtins are pure: hasCall looks only at their arguments', () => {
    const p = parse('int g(int k) { return k; }\nfloat f(float x) { return sqrtf(x) + fabsf((float)g(1)); }');
    const f = listToArray(p).find((x) => x.name === 'f');
    const body = f?.body;
    if (body?.kind !== 'return' || body.value.kind !== 'some' || body.value.value.kind !== 'binary')
      throw new Error('unexpected shape');
    expect(hasCall(body.value.value.left)).toBe(false);
    expect(hasCall(body.value.value.right)).toBe(true);
  });
  it('refuses a double-precision name, naming the float function', () => {
    expect(errors('float f(float x) { return sqrt(x); }')).toEqual([
      "k.c:1:27: error K1009: 'sqrt' computes in double, which kernels do not have; use the float function 'sqrtf'",
    ]);
    expect(errors('float f(float x, float y) {\n  x = pow(x, y);\n  return fmod(x, y);\n}')).toEqual([
      "k.c:2:7: error K1009: 'pow' computes in double, which kernels do not have; use the float function 'powf'",
      "k.c:3:10: error K1009: 'fmod' computes in double, which kernels do not have; use the float function 'fmodf'",
    ]);
  });
  it('refuses a function named like a builtin or its double twin', () => {
    expect(errors('float sqrtf(float x) { return x; }')).toEqual([
      "k.c:1:7: error K1006: 'sqrtf' is a function of C's <math.h>, which C does not let a program define; rename your function",
    ]);
    expect(errors('int abs(int x) { return x; }')[0]).toContain("error K1006: 'abs' is a function of C's");
    expect(errors('float exp(float x) { return x; }')[0]).toContain("error K1006: 'exp' is a function");
  });
  it('refuses wrong arguments and a dropped result', () => {
    expect(errors('float f(float x) { return powf(x); }')).toEqual([
      "k.c:1:27: error K1009: 'powf' takes 2 argument(s), 1 given",
    ]);
    expect(errors('float f(float a[]) { return sqrtf(a); }')[0]).toContain(
      "error K1012: array 'a' used as a value",
    );
    expect(errors('void f(float x) { sqrtf(x); }')).toEqual([
      'k.c:1:19: error K1003: expression statement has no effect (only assignments, ++/-- and calls)',
    ]);
    expect(errors('#include <stdio.h>\nfloat f(float x) { return x; }')[0]).toContain(
      'error K1003: #include <stdio.h> is not supported in kernels',
    );
  });
  it('a local variable may be named like a builtin', () => {
    const p = parse('float f(float x) { float expf = x * 2.0f; return expf; }');
    expect(evaluate(p, 'f', [1.5]).result).toBe(3);
  });
  it('prints C that parses back to the same program', () => {
    const src = BUILTINS.map(
      (b, i) =>
        `${b.ret} f${i}(${b.params.map((t, k) => `${t} a${k}`).join(', ')}) { return ${b.name}(${b.params.map((_, k) => `a${k}`).join(', ')}); }`,
    ).join('\n');
    const p = parse(src);
    expect(equalModuloLabels(parse(printProgram(p)), p)).toBe(true);
  });
});

describe('the JS back end computes the evaluator’s bits', () => {
  for (const b of BUILTINS) {
    it(b.name, () => {
      const params = b.params.map((t, k) => `${t} a${k}`).join(', ');
      const args = b.params.map((_, k) => `a${k}`).join(', ');
      const p = parse(`${b.ret} f(${params}) { return ${b.name}(${args}); }`);
      const js = compileKernelJs(p, 'f');
      const arg = b.params[0] === 'int' ? fc.integer({ min: -2147483648, max: 2147483647 }) : floatArg;
      fc.assert(
        fc.property(fc.tuple(...b.params.map(() => arg)), (xs) => {
          const want = evaluate(p, 'f', xs).result;
          const got = js.run(xs).result;
          return same(got, want);
        }),
        {
          numRuns: 300,
          examples: b.params.length === 1 && b.params[0] === 'float' ? EDGES.map((x) => [[x]]) : [],
        },
      );
    });
  }

  it('in WebAssembly SIMD, for the builtins with an exact lowering; the others in the JS loop', () => {
    const n = SIMD_MIN_LENGTH + 7;
    const xs = Array.from({ length: n }, (_, i) =>
      i < EDGES.length ? (EDGES[i] as number) : Math.fround((i - 130) / 7.3),
    );
    const ys = Array.from({ length: n }, (_, i) => Math.fround((i % 17) - 8.5));
    for (const b of BUILTINS) {
      const ty = b.params[0];
      const args = b.params.length === 1 ? 'x' : 'x, y';
      const src = `${b.ret} g(${ty} x, ${ty} y) { return ${b.name}(${args}); }\n${b.ret}* f(const ${ty} xs[], const ${ty} ys[]) { ${b.ret} zs[] = map(g, xs, ys); return zs; }`;
      const p = parse(src);
      const js = emitKernelJs(p, 'f');
      if (b.simd) expect(js, b.name).toContain('$simd(0,');
      else expect(js, b.name).not.toContain('$simd(');
      const inputs =
        ty === 'int' ? [xs.map((x) => (Number.isFinite(x) ? x | 0 : 7)), ys.map((y) => y | 0)] : [xs, ys];
      const want = evaluate(p, 'f', inputs).result;
      expect(same(compileKernelJs(p, 'f').run(inputs).result, want), b.name).toBe(true);
      expect(same(compileKernelJs(p, 'f', { simd: false }).run(inputs).result, want), b.name).toBe(true);
    }
  });
});

describe('the GPU tolerance of a kernel calling builtins', () => {
  it('adds the largest WGSL bound of the builtins it calls to GPU_ULPS', () => {
    const plain = parse('float f(float x) { return x * 2.0f; }');
    const exact = parse('float f(float x) { return sqrtf(fabsf(x)); }');
    const trig = parse('float g(float x) { return sinf(x); }\nfloat f(float x) { return expf(x) + g(x); }');
    expect(toleranceUlps(plain)).toBe(GPU_ULPS);
    expect(toleranceUlps(exact)).toBe(GPU_ULPS + 5);
    expect(toleranceUlps(trig)).toBe(GPU_ULPS + 4096);
    const base = { result: 1, outputs: {} };
    const off = { result: 1 + 40 * 2 ** -23, outputs: {} };
    expect(compareResults(off, base, 1).withinTolerance).toBe(false);
    expect(compareResults(off, base, 1, toleranceUlps(trig)).withinTolerance).toBe(true);
  });
});
