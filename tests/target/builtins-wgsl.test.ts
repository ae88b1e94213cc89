/**
 * The builtins on WebGPU (SwiftShader in CI): each one in a map, run on the GPU and on the
 * reference evaluator over arguments in its domain, compared within the bound docs/kernel-math.md
 * gives for WGSL (the WGSL specification's for its builtin, or exact where C's meaning is written
 * out or WGSL's builtin is exact). The arguments avoid what the docs say a device may change:
 * subnormals (flushed), NaN (not kept by every device) and, for sinf/cosf, |x| > π (unbounded).
 * A literal-only call is folded with the evaluator's value (WGSL would reject `sqrt(-1.0)` as a
 * constant expression), so it is exact too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTINS,
  evaluate,
  loadKernelParser,
  parseKernelSync,
  type Program,
} from '../../src/kernel/index.js';
import { type GpuRuntime, runKernel } from '../../src/target/index.js';
import { openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();

beforeAll(loadKernelParser);

const ULP = 2 ** -23;

/** The binary32 ulp at |x| (normal range). */
function ulp(x: number): number {
  const a = Math.abs(x);
  if (a < 2 ** -126) return 2 ** -149;
  return 2 ** (Math.floor(Math.log2(a)) - 23);
}

interface Case {
  readonly xs: readonly number[];
  readonly ys: readonly number[];
  /** How far the GPU's result may be from the evaluator's, for arguments x, y and the result r. */
  readonly bound: (x: number, y: number, r: number) => number;
}

const grid = (from: number, to: number, n: number): number[] =>
  Array.from({ length: n }, (_, i) => Math.fround(from + ((to - from) * i) / (n - 1)));
const exact = (): number => 0;
const N = 97;
const mixed = [...grid(-40, 40, N - 9), 0, -0, 0.5, -0.5, 1.5, -2.5, 2.5, 8388609, -1e30];
const others = grid(-7.5, 9.25, mixed.length).map((y) => (y === 0 ? 1 : y));

const CASES: Record<string, Case> = {
  sqrtf: { xs: grid(0, 1e6, N), ys: grid(0, 1, N), bound: (_x, _y, r) => 5 * ulp(r) },
  expf: { xs: grid(-30, 30, N), ys: grid(0, 1, N), bound: (x, _y, r) => (3 + 2 * Math.abs(x)) * ulp(r) },
  exp2f: { xs: grid(-40, 40, N), ys: grid(0, 1, N), bound: (x, _y, r) => (3 + 2 * Math.abs(x)) * ulp(r) },
  logf: {
    xs: grid(0.01, 1000, N),
    ys: grid(0, 1, N),
    bound: (x, _y, r) => (x >= 0.5 && x <= 2 ? 2 ** -21 : 3 * ulp(r)),
  },
  log2f: {
    xs: grid(0.01, 1000, N),
    ys: grid(0, 1, N),
    bound: (x, _y, r) => (x >= 0.5 && x <= 2 ? 2 ** -21 : 3 * ulp(r)),
  },
  powf: {
    xs: [...grid(0.1, 10, N - 6), -2, -3, -0.5, 0, -0, 1],
    ys: [...grid(-3, 3, N - 6), 3, 2, -3, 2, 3, 7.5],
    bound: (x, y, r) => {
      const t = y * Math.log2(Math.abs(x) || 1);
      // exp2(t) with t off by log2's error times |y|
      return (
        (3 + 2 * Math.abs(t)) * ulp(r) +
        Math.abs(r) * Math.LN2 * Math.abs(y) * (2 ** -21 + 3 * ULP * Math.abs(t / (y || 1)))
      );
    },
  },
  sinf: { xs: grid(-Math.PI, Math.PI, N), ys: grid(0, 1, N), bound: () => 2 ** -11 },
  cosf: { xs: grid(-Math.PI, Math.PI, N), ys: grid(0, 1, N), bound: () => 2 ** -11 },
  tanf: {
    xs: grid(-1.2, 1.2, N),
    ys: grid(0, 1, N),
    bound: (x, _y, r) => (2 ** -11 * (1 + Math.abs(r))) / Math.abs(Math.cos(x)) + 3 * ulp(r),
  },
  tanhf: { xs: grid(-12, 12, N), ys: grid(0, 1, N), bound: (_x, _y, r) => 2 ** -20 + 2 ** -20 * Math.abs(r) },
  atan2f: { xs: grid(-5, 5, N), ys: grid(-3, 4, N), bound: (_x, _y, r) => 4096 * ulp(r) },
  fabsf: { xs: mixed, ys: others, bound: exact },
  fminf: { xs: mixed, ys: others, bound: exact },
  fmaxf: { xs: mixed, ys: others, bound: exact },
  floorf: { xs: mixed, ys: others, bound: exact },
  ceilf: { xs: mixed, ys: others, bound: exact },
  roundf: { xs: mixed, ys: others, bound: exact },
  truncf: { xs: mixed, ys: others, bound: exact },
  fmodf: { xs: mixed, ys: others, bound: exact },
  abs: { xs: [...grid(-1000, 1000, N - 3), 2147483647, -2147483648, 0], ys: grid(0, 1, N), bound: exact },
};

function kernel(name: string, ty: string, arity: number): Program {
  const call = arity === 1 ? `${name}(x)` : `${name}(x, y)`;
  const src = `${ty} g(${ty} x, ${ty} y) { return ${call}; }\n${ty}* f(const ${ty} xs[], const ${ty} ys[]) { ${ty} zs[] = map(g, xs, ys); return zs; }`;
  const r = parseKernelSync(src, `${name}.c`);
  expect(r.diagnostics).toEqual([]);
  return r.program;
}

describe.skipIf(gpu.skip)(gpu.title('the builtins on WebGPU, within the documented bounds'), () => {
  for (const b of BUILTINS) {
    it(b.name, async () => {
      const rt: GpuRuntime = gpu.runtime();
      const c = CASES[b.name];
      if (!c) throw new Error(`no case for ${b.name}`);
      const ty = b.ret;
      const xs = ty === 'int' ? c.xs.map((x) => x | 0) : c.xs;
      const ys = ty === 'int' ? c.ys.map((y) => y | 0) : c.ys.slice(0, xs.length);
      const p = kernel(b.name, ty, b.params.length);
      const want = evaluate(p, 'f', [xs, ys]).result as number[];
      const got = (await runKernel(p, 'f', [xs, ys], { backend: 'webgpu', gpu: rt })).result as number[];
      const off = want.flatMap((w, i) => {
        const g = got[i] as number;
        const x = xs[i] as number;
        const y = ys[i] as number;
        if (Number.isNaN(w)) return []; // outside the domain: NaN on the evaluator, any value on a device
        const ok = Number.isFinite(w) ? Math.abs(g - w) <= c.bound(x, y, w) : g === w;
        return ok ? [] : [{ x, y, want: w, got: g, bound: c.bound(x, y, w) }];
      });
      expect(off.slice(0, 5)).toEqual([]);
    });
  }

  it('a builtin of literals is the evaluator’s value (WGSL rejects sqrt(-1.0) and log(0.0) as constants)', async () => {
    const src =
      'float g(float x) { return fmaxf(x, logf(0.0f)) + sqrtf(4.0f) + (sqrtf(-1.0f) != sqrtf(-1.0f) ? 1.0f : 0.0f); }\n' +
      'float* f(const float xs[]) { float zs[] = map(g, xs); return zs; }';
    const r = parseKernelSync(src, 'lit.c');
    expect(r.diagnostics).toEqual([]);
    const xs = [1.5, -3, 0.25];
    const got = await runKernel(r.program, 'f', [xs], { backend: 'webgpu', gpu: gpu.runtime() });
    expect(got.result).toEqual([4.5, 0, 3.25]);
  });
});
