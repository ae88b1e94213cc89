/**
 * Coarsened maps in the WGSL back end (src/target/coarsen.ts): which maps are coarsened, and
 * that a coarsened pass writes exactly what the plain pass and the JS back end write.
 *
 * The kernels are straight-line stencils as specialization leaves them (literal weights, unrolled
 * taps): a 3×3 blur with clamped borders, indexed by `k % w` and `k / w` (a divisor that is a
 * scalar operand, so the plan holds the coarsened pass for w > 0 and the plain one for the rest);
 * the same with a literal row length; a 1-D stencil without a divisor; a kernel whose divisor may
 * be negative (C's `%` and `/` truncate; the plain pass runs then); a pointwise map, which shares
 * nothing. Inputs are dyadic (k/8) and the weights powers of two, so every sum is exact in
 * binary32 and the GPU must agree bit for bit whatever it fuses or reorders.
 */
import { describe, expect, it } from 'vitest';
import { type ArgValue, loadKernelParser, type Program } from '../../src/kernel/index.js';
import {
  compileKernelJs,
  type GpuPlan,
  planKernelWgsl,
  runKernel,
  type WgslOptions,
} from '../../src/target/index.js';
import { parseClean } from '../fusion/harness.js';
import { openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();
await loadKernelParser();

/** The nine taps of a 3×3 blur, `w` and `h` the row length and the row count. */
function taps(w: string, h: string): string {
  const lines: string[] = [];
  const weight = (dx: number, dy: number): string =>
    dx === 0 && dy === 0 ? '1.0f' : dx === 0 || dy === 0 ? '0.5f' : '0.25f';
  for (const dy of [-1, 0, 1]) {
    lines.push(`  yy = y + ${dy};`, `  yy = yy < 0 ? 0 : yy > ${h} - 1 ? ${h} - 1 : yy;`);
    for (const dx of [-1, 0, 1]) {
      lines.push(`  xx = x + ${dx};`, `  xx = xx < 0 ? 0 : xx > ${w} - 1 ? ${w} - 1 : xx;`);
      lines.push(`  acc = acc + ${weight(dx, dy)} * img[yy * ${w} + xx];`);
    }
  }
  return lines.join('\n');
}

const SOURCE = `
float blur3(int k, const float img[], int w, int h) {
  int x = k % w;
  int y = k / w;
  int xx;
  int yy;
  float acc = 0.0f;
${taps('w', 'h')}
  return acc / 4.0f;
}
float *blur(const float img[], int w, int h) {
  float out[] = map(blur3, iota(w * h), img, w, h);
  return out;
}

float blur16(int k, const float img[], int h) {
  int x = k % 16;
  int y = k / 16;
  int xx;
  int yy;
  float acc = 0.0f;
${taps('16', 'h')}
  return acc;
}
float *rows16(const float img[], int h) {
  float out[] = map(blur16, iota(16 * h), img, h);
  return out;
}

float line3(int k, const float a[]) {
  return a[k] + 2.0f * a[k + 1] + a[k + 2];
}
float *smooth(const float a[], int n) {
  float out[] = map(line3, iota(n), a);
  return out;
}

float skew(int k, const float a[], int w, int n) {
  int x = k % w;
  int y = k / w;
  int i = x + y;
  i = i < 0 ? 0 : i > n - 1 ? n - 1 : i;
  int j = x + 1 + y;
  j = j < 0 ? 0 : j > n - 1 ? n - 1 : j;
  return a[i] - 0.5f * a[j];
}
float *skewed(const float a[], int w, int n) {
  float out[] = map(skew, iota(n), a, w, n);
  return out;
}

float sq(int k, const float a[]) {
  return a[k] * a[k];
}
float *squares(const float a[], int n) {
  float out[] = map(sq, iota(n), a);
  return out;
}

float looped(int k, const float a[], int r) {
  float acc = 0.0f;
  for (int d = 0; d <= r; d++) acc = acc + a[k + d];
  return acc;
}
float *sums(const float a[], int n, int r) {
  float out[] = map(looped, iota(n), a, r);
  return out;
}
`;

const program: Program = parseClean(SOURCE, 'coarsen.c');

/** The map passes of `fn`'s plan: how many elements an invocation computes, and when each runs. */
function mapPasses(
  fn: string,
  options: WgslOptions = {},
): { per: number; when?: GpuPlan['sites'][0]['passes'][0]['when'] }[] {
  const plan = planKernelWgsl(program, fn, options);
  return (plan.sites[0]?.passes ?? []).map((p) => ({
    per: p.dispatch.kind === 'perElement' ? (p.dispatch.perInvocation ?? 1) : 0,
    ...(p.when ? { when: p.when } : {}),
  }));
}

const dyadic = (n: number, seed: number): number[] =>
  Array.from({ length: n }, (_, i) => (((i * 37 + seed * 11) % 129) - 64) / 8);

describe('which maps are coarsened', () => {
  it('a stencil over rows of a scalar length: the coarsened pass for w > 0, the plain one else', () => {
    const blur = planKernelWgsl(program, 'blur');
    const w = blur.sites[0]?.scalars.findIndex((s) => s.expr.kind === 'var' && s.expr.name === 'w');
    expect(w).toBeGreaterThanOrEqual(0);
    expect(mapPasses('blur')).toEqual([
      { per: 1, when: { positive: [w], holds: false } },
      { per: 4, when: { positive: [w], holds: true } },
    ]);
    expect(blur.wgsl).toContain('4 elements per invocation');
  });

  it('a literal row length or no division: the coarsened pass alone', () => {
    expect(mapPasses('rows16')).toEqual([{ per: 4 }]);
    expect(mapPasses('smooth')).toEqual([{ per: 4 }]);
  });

  it("a map whose elements share no load only under 'always'; loops never; 'never' nowhere", () => {
    expect(mapPasses('squares')).toEqual([{ per: 1 }]);
    expect(mapPasses('squares', { coarsen: 'always' })).toEqual([{ per: 4 }]);
    expect(mapPasses('sums', { coarsen: 'always' })).toEqual([{ per: 1 }]);
    expect(mapPasses('blur', { coarsen: 'never' })).toEqual([{ per: 1 }]);
  });

  it('refuses an unknown mode', () => {
    expect(() => planKernelWgsl(program, 'blur', { coarsen: 'sometimes' as 'auto' })).toThrow(
      /coarsen must be 'auto', 'always' or 'never', not "sometimes"/,
    );
  });
});

/** Each case: a function and its argument lists. */
const CASES: readonly { fn: string; args: readonly ArgValue[][] }[] = [
  {
    fn: 'blur',
    args: [
      [1, 1],
      [1, 7],
      [2, 3],
      [3, 3],
      [4, 2],
      [5, 3],
      [7, 5],
      [8, 8],
      [13, 11],
      [256, 3],
    ].map(([w, h], s) => [dyadic((w as number) * (h as number), s), w as number, h as number]),
  },
  { fn: 'rows16', args: [1, 2, 5].map((h, s) => [dyadic(16 * h, s), h]) },
  { fn: 'smooth', args: [1, 3, 4, 5, 9, 300].map((n, s) => [dyadic(n + 2, s), n]) },
  {
    fn: 'skewed',
    args: [
      [-5, 17],
      [-3, 5],
      [-1, 9],
      [1, 6],
      [3, 17],
      [4, 64],
      [6, 1],
    ].map(([w, n], s) => [dyadic(n as number, s), w as number, n as number]),
  },
  { fn: 'squares', args: [1, 4, 7].map((n, s) => [dyadic(n, s), n]) },
];

describe.skipIf(gpu.skip)(
  gpu.title('coarsened passes write what the plain pass and the JS back end write (GPU)'),
  () => {
    for (const { fn, args } of CASES) {
      it(`${fn} on ${args.length} argument lists, coarsened and not, two workgroup shapes`, async () => {
        const rt = gpu.runtime();
        const js = compileKernelJs(program, fn);
        for (const list of args) {
          const expected = js.run(list).result;
          for (const wgsl of [
            { coarsen: 'always' },
            { coarsen: 'never' },
            { coarsen: 'always', workgroupSize: 32, maxWorkgroups: 4 },
          ] as const) {
            const r = await runKernel(program, fn, list, { backend: 'webgpu', gpu: rt, wgsl });
            expect(r.backend).toBe('webgpu');
            expect(r.result, `${fn}(${list.slice(1).join(', ')}) with ${JSON.stringify(wgsl)}`).toEqual(
              expected,
            );
          }
        }
      });
    }
  },
);
