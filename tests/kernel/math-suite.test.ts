/**
 * Kernels people write with <math.h>, each against a float32 reference written here in JavaScript
 * (every operation rounded with Math.fround, in the kernel's order, reductions as left folds):
 * softmax, layer norm, GELU, N-body accelerations, a Sobel magnitude, cosine similarity, a
 * nearest-neighbour resize, and the shipped Gaussian blur, gamma correction and Black-Scholes
 * (benchmarks/inputs/kernel). Each runs on the reference evaluator (within 1e-6 of the reference:
 * the reference is the same arithmetic, so only a misread meaning would differ), on the JS back end
 * (the evaluator's bits), after the default pipeline with its late values bound (the evaluator's
 * bits under exact math; under finite math within the reassociation it allows), and on WebGPU
 * within the WGSL bounds of docs/kernel-math.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  evaluate,
  loadKernelParser,
  parseKernelSync,
  type Program,
} from '../../src/kernel/index.js';
import { defaultPipeline, runPipeline, withMath } from '../../src/optimizers/index.js';
import { compileKernelJs, runKernel } from '../../src/target/index.js';
import { openTestGpu } from '../target/gpu-setup.js';

const gpu = await openTestGpu();
beforeAll(loadKernelParser);

const f = Math.fround;
const INPUTS = path.join(import.meta.dirname, '../../benchmarks/inputs/kernel');

/** Deterministic binary32 values in [lo, hi). */
function values(n: number, seed: number, lo = -1, hi = 1): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return f(lo + ((hi - lo) * s) / 2 ** 32);
  });
}

const exp = (x: number) => f(Math.exp(x));
const sqrt = (x: number) => f(Math.sqrt(x));
// C's fmaxf/fminf on operands that are not NaN (the references meet none)
const fmax = (x: number, y: number) => Math.max(x, y);
const fmin = (x: number, y: number) => Math.min(x, y);
const fold = (xs: readonly number[], ne: number, g: (a: number, x: number) => number) => xs.reduce(g, ne);
const clampInt = (v: number, hi: number) => Math.min(Math.max(v, 0), hi);

interface Kernel {
  readonly name: string;
  readonly source: string;
  readonly entry: string;
  readonly args: Record<string, ArgValue>;
  /** The float32 reference's result. */
  readonly reference: () => number | number[];
  /** Late values to bind for the pipeline (with its math mode). */
  readonly bind: Record<string, number>;
  readonly math?: 'finite';
  /** The largest |GPU - evaluator| allowed at result element i (WGSL bounds at these arguments). */
  readonly gpuBound: (want: number) => number;
}

const N = 300;
const xs = values(N, 1, -4, 4);
const gs = values(N, 2, 0.5, 1.5);
const bs = values(N, 3, -0.5, 0.5);

const softmax: Kernel = {
  name: 'softmax',
  entry: 'softmax',
  source: `#include <math.h>
float add(float a, float b) { return a + b; }
float shifted_exp(float x, float m) { return expf(x - m); }
float divide(float e, float s) { return e / s; }
float* softmax(const float xs[]) {
  float m = reduce(fmaxf, -3.4028235e38f, xs);
  float es[] = map(shifted_exp, xs, m);
  float s = reduce(add, 0.0f, es);
  float ys[] = map(divide, es, s);
  return ys;
}`,
  args: { xs },
  reference: () => {
    const m = fold(xs, f(-3.4028235e38), fmax);
    const es = xs.map((x) => exp(f(x - m)));
    const s = fold(es, 0, (a, e) => f(a + e));
    return es.map((e) => f(e / s));
  },
  bind: {},
  gpuBound: (w) => 1e-5 * Math.abs(w) + 1e-7,
};

const layerNorm: Kernel = {
  name: 'layer norm',
  entry: 'layer_norm',
  source: `#include <math.h>
float add(float a, float b) { return a + b; }
float sq_dev(float x, float mean) { return (x - mean) * (x - mean); }
float scale(float x, float g, float b, float mean, float inv) { return (x - mean) * inv * g + b; }
float* layer_norm(const float xs[], const float gs[], const float bs[], int n, float eps) {
  float total = reduce(add, 0.0f, xs);
  float mean = total / n;
  float ds[] = map(sq_dev, xs, mean);
  float dev = reduce(add, 0.0f, ds);
  float var = dev / n;
  float inv = 1.0f / sqrtf(var + eps);
  float ys[] = map(scale, xs, gs, bs, mean, inv);
  return ys;
}`,
  args: { xs, gs, bs, n: N, eps: 1e-5 },
  reference: () => {
    const mean = f(fold(xs, 0, (a, x) => f(a + x)) / N);
    const vr = f(fold(xs, 0, (a, x) => f(a + f(f(x - mean) * f(x - mean)))) / N);
    const inv = f(1 / sqrt(f(vr + f(1e-5))));
    return xs.map((x, i) => f(f(f(f(x - mean) * inv) * (gs[i] as number)) + (bs[i] as number)));
  },
  bind: { eps: 1e-5, n: N },
  gpuBound: (w) => 2e-4 * Math.abs(w) + 2e-4,
};

const gelu: Kernel = {
  name: 'GELU',
  entry: 'gelu_all',
  source: `#include <math.h>
float gelu(float x) { return 0.5f * x * (1.0f + tanhf(0.7978846f * (x + 0.044715f * x * x * x))); }
float* gelu_all(const float xs[]) { float ys[] = map(gelu, xs); return ys; }`,
  args: { xs },
  reference: () =>
    xs.map((x) => {
      const inner = f(0.7978846 * f(x + f(f(f(f(0.044715) * x) * x) * x)));
      return f(f(f(0.5) * x) * f(1 + f(Math.tanh(inner))));
    }),
  bind: {},
  gpuBound: (w) => 2e-5 * Math.abs(w) + 2e-5,
};

const B = 48;
const px = values(B, 4);
const py = values(B, 5);
const pz = values(B, 6);
const ms = values(B, 7, 0.1, 1);
const nbody: Kernel = {
  name: 'N-body',
  entry: 'accel_x',
  source: `#include <math.h>
float ax_at(int i, const float px[], const float py[], const float pz[], const float m[], int n, float soft) {
  float a = 0.0f;
  for (int j = 0; j < n; j++) {
    float dx = px[j] - px[i];
    float dy = py[j] - py[i];
    float dz = pz[j] - pz[i];
    float r2 = dx * dx + dy * dy + dz * dz + soft;
    a = a + m[j] * dx / (r2 * sqrtf(r2));
  }
  return a;
}
float* accel_x(const float px[], const float py[], const float pz[], const float m[], int n, float soft) {
  float ax[] = map(ax_at, iota(n), px, py, pz, m, n, soft);
  return ax;
}`,
  args: { px, py, pz, m: ms, n: B, soft: 0.01 },
  reference: () =>
    px.map((_, i) => {
      let a = 0;
      for (let j = 0; j < B; j++) {
        const dx = f((px[j] as number) - (px[i] as number));
        const dy = f((py[j] as number) - (py[i] as number));
        const dz = f((pz[j] as number) - (pz[i] as number));
        const r2 = f(f(f(f(dx * dx) + f(dy * dy)) + f(dz * dz)) + f(0.01));
        a = f(a + f(f((ms[j] as number) * dx) / f(r2 * sqrt(r2))));
      }
      return a;
    }),
  bind: { soft: 0.01, n: B },
  gpuBound: () => 2e-3,
};

const W = 24;
const H = 18;
const img = values(W * H, 8, 0, 1);
const sobel: Kernel = {
  name: 'Sobel magnitude',
  entry: 'sobel',
  source: `#include <math.h>
float px(const float img[], int w, int h, int x, int y) {
  int xx = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
  int yy = y < 0 ? 0 : y > h - 1 ? h - 1 : y;
  return img[yy * w + xx];
}
float sobel_at(int k, const float img[], int w, int h) {
  int x = k % w;
  int y = k / w;
  float gx = px(img, w, h, x + 1, y - 1) + 2.0f * px(img, w, h, x + 1, y) + px(img, w, h, x + 1, y + 1)
           - px(img, w, h, x - 1, y - 1) - 2.0f * px(img, w, h, x - 1, y) - px(img, w, h, x - 1, y + 1);
  float gy = px(img, w, h, x - 1, y + 1) + 2.0f * px(img, w, h, x, y + 1) + px(img, w, h, x + 1, y + 1)
           - px(img, w, h, x - 1, y - 1) - 2.0f * px(img, w, h, x, y - 1) - px(img, w, h, x + 1, y - 1);
  return sqrtf(gx * gx + gy * gy);
}
float* sobel(const float img[], int w, int h) {
  float out[] = map(sobel_at, iota(w * h), img, w, h);
  return out;
}`,
  args: { img, w: W, h: H },
  reference: () =>
    img.map((_, k) => {
      const x = k % W;
      const y = Math.trunc(k / W);
      const p = (xx: number, yy: number) => img[clampInt(yy, H - 1) * W + clampInt(xx, W - 1)] as number;
      const gx = f(
        f(
          f(f(f(p(x + 1, y - 1) + f(2 * p(x + 1, y))) + p(x + 1, y + 1)) - p(x - 1, y - 1)) -
            f(2 * p(x - 1, y)),
        ) - p(x - 1, y + 1),
      );
      const gy = f(
        f(
          f(f(f(p(x - 1, y + 1) + f(2 * p(x, y + 1))) + p(x + 1, y + 1)) - p(x - 1, y - 1)) -
            f(2 * p(x, y - 1)),
        ) - p(x + 1, y - 1),
      );
      return sqrt(f(f(gx * gx) + f(gy * gy)));
    }),
  bind: { w: W, h: H },
  gpuBound: (w) => 1e-5 * Math.abs(w) + 1e-6,
};

const as = values(N, 9);
const cosine: Kernel = {
  name: 'cosine similarity',
  entry: 'cosine',
  source: `#include <math.h>
float add(float a, float b) { return a + b; }
float mul(float a, float b) { return a * b; }
float sq(float a) { return a * a; }
float cosine(const float a[], const float b[]) {
  float ab[] = map(mul, a, b);
  float aa[] = map(sq, a);
  float bb[] = map(sq, b);
  float dot = reduce(add, 0.0f, ab);
  float na = reduce(add, 0.0f, aa);
  float nb = reduce(add, 0.0f, bb);
  return dot / (sqrtf(na) * sqrtf(nb));
}`,
  args: { a: as, b: bs },
  reference: () => {
    const dot = fold(
      as.map((a, i) => f(a * (bs[i] as number))),
      0,
      (s, x) => f(s + x),
    );
    const na = fold(
      as.map((a) => f(a * a)),
      0,
      (s, x) => f(s + x),
    );
    const nb = fold(
      bs.map((b) => f(b * b)),
      0,
      (s, x) => f(s + x),
    );
    return f(dot / f(sqrt(na) * sqrt(nb)));
  },
  bind: {},
  gpuBound: () => 1e-5,
};

const resize: Kernel = {
  name: 'nearest-neighbour resize',
  entry: 'resize',
  source: `#include <math.h>
float nn_at(int k, const float img[], int w, int h, int ow, int oh) {
  int x = k % ow;
  int y = k / ow;
  int sx = (int)floorf(((float)x + 0.5f) * (float)w / (float)ow);
  int sy = (int)floorf(((float)y + 0.5f) * (float)h / (float)oh);
  return img[(int)fminf((float)sy, (float)(h - 1)) * w + (int)fminf((float)sx, (float)(w - 1))];
}
float* resize(const float img[], int w, int h, int ow, int oh) {
  float out[] = map(nn_at, iota(ow * oh), img, w, h, ow, oh);
  return out;
}`,
  args: { img, w: W, h: H, ow: 37, oh: 11 },
  reference: () =>
    Array.from({ length: 37 * 11 }, (_, k) => {
      const x = k % 37;
      const y = Math.trunc(k / 37);
      const sx = Math.floor(f(f(f(f(x) + 0.5) * W) / 37));
      const sy = Math.floor(f(f(f(f(y) + 0.5) * H) / 11));
      return img[fmin(sy, H - 1) * W + fmin(sx, W - 1)] as number;
    }),
  bind: { w: W, h: H, ow: 37, oh: 11 },
  gpuBound: () => 0,
};

const blur: Kernel = {
  name: 'Gaussian blur (late sigma and radius)',
  entry: 'blur',
  source: readFileSync(path.join(INPUTS, 'blur.c'), 'utf8'),
  args: { img, w: W, h: H, sigma: 1.3, r: 2 },
  reference: () =>
    img.map((_, k) => {
      const x = k % W;
      const y = Math.trunc(k / W);
      let acc = 0;
      let norm = 0;
      for (let dy = -2; dy <= 2; dy++) {
        const yy = clampInt(y + dy, H - 1);
        for (let dx = -2; dx <= 2; dx++) {
          const xx = clampInt(x + dx, W - 1);
          const sg = f(1.3);
          const weight = exp(f(f(-(dx * dx + dy * dy)) / f(f(2 * sg) * sg)));
          acc = f(acc + f(weight * (img[yy * W + xx] as number)));
          norm = f(norm + weight);
        }
      }
      return f(acc / norm);
    }),
  bind: { sigma: 1.3, r: 2 },
  math: 'finite',
  gpuBound: (w) => 1e-5 * Math.abs(w) + 1e-6,
};

const gamma: Kernel = {
  name: 'gamma correction (late gamma)',
  entry: 'gamma_correct',
  source: readFileSync(path.join(INPUTS, 'gamma.c'), 'utf8'),
  args: { img: values(N, 10, -0.2, 1.2), gamma: 2.2 },
  reference: () => values(N, 10, -0.2, 1.2).map((x) => f(Math.fround(fmin(fmax(x, 0), 1)) ** f(1 / f(2.2)))),
  bind: { gamma: 2.2 },
  gpuBound: () => 2e-5,
};

const spot = values(N, 11, 40, 80);
const strike = values(N, 12, 40, 80);
const years = values(N, 13, 0.1, 2);
/** Abramowitz and Stegun's cumulative normal, as blackscholes.c writes it. */
function cnd(d: number): number {
  const k = f(1 / f(1 + f(f(0.2316419) * Math.abs(d))));
  const c5 = f(1.330274429);
  const poly = f(
    k *
      f(
        f(0.31938153) +
          f(k * f(f(-0.356563782) + f(k * f(f(1.781477937) + f(k * f(f(-1.821255978) + f(k * c5))))))),
      ),
  );
  const c = f(f(f(0.3989423) * exp(f(f(f(-0.5) * d) * d))) * poly);
  return d > 0 ? f(1 - c) : c;
}
const blackScholes: Kernel = {
  name: 'Black-Scholes (late rate and volatility)',
  entry: 'blackscholes',
  source: readFileSync(path.join(INPUTS, 'blackscholes.c'), 'utf8'),
  args: { spot, strike, years, rate: 0.08, vol: 0.3 },
  reference: () =>
    spot.map((s, i) => {
      const k = strike[i] as number;
      const t = years[i] as number;
      const rate = f(0.08);
      const vol = f(0.3);
      const st = sqrt(t);
      const d1 = f(f(f(Math.log(f(s / k))) + f(f(rate + f(f(f(0.5) * vol) * vol)) * t)) / f(vol * st));
      const d2 = f(d1 - f(vol * st));
      return f(f(s * cnd(d1)) - f(f(k * exp(f(-rate * t))) * cnd(d2)));
    }),
  bind: { rate: 0.08, vol: 0.3 },
  gpuBound: (w) => 2e-4 * Math.abs(w) + 2e-4,
};

const KERNELS = [softmax, layerNorm, gelu, nbody, sobel, cosine, resize, blur, gamma, blackScholes];

function parse(k: Kernel): Program {
  const r = parseKernelSync(k.source, `${k.entry}.c`);
  expect(r.diagnostics).toEqual([]);
  return r.program;
}

const asArray = (r: unknown): number[] => (Array.isArray(r) ? r : [r as number]);

/** Same bits, element by element (NaN matching NaN). */
function sameBits(a: unknown, b: unknown): boolean {
  const x = asArray(a);
  const y = asArray(b);
  return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
}

describe('kernels with <math.h> against a float32 reference', () => {
  for (const k of KERNELS) {
    it(`${k.name}: the evaluator, the JS back end, and the pipeline with ${Object.keys(k.bind).join(', ') || 'nothing'} bound`, () => {
      const program = parse(k);
      const want = asArray(k.reference());
      const got = asArray(evaluate(program, k.entry, k.args).result);
      expect(got).toHaveLength(want.length);
      got.forEach((g, i) => {
        const w = want[i] as number;
        expect(Math.abs(g - w), `${k.name}[${i}]: ${g} vs ${w}`).toBeLessThanOrEqual(
          1e-6 * Math.max(1, Math.abs(w)),
        );
      });
      expect(sameBits(compileKernelJs(program, k.entry).run(k.args).result, got)).toBe(true);
      const passes = withMath(defaultPipeline, k.math ?? 'exact');
      const optimized = runPipeline(program, k.entry, passes, k.bind).program;
      const specialized = asArray(evaluate(optimized, k.entry, k.args).result);
      if (k.math === 'finite')
        specialized.forEach((s, i) => {
          expect(Math.abs(s - (got[i] as number)), `${k.name}[${i}]`).toBeLessThanOrEqual(1e-5);
        });
      else expect(sameBits(specialized, got), k.name).toBe(true);
    });
  }
});

describe.skipIf(gpu.skip)(gpu.title('kernels with <math.h> on WebGPU, within the WGSL bounds'), () => {
  for (const k of KERNELS) {
    it(k.name, async () => {
      const program = parse(k);
      const want = asArray(evaluate(program, k.entry, k.args).result);
      const run = await runKernel(program, k.entry, k.args, { backend: 'webgpu', gpu: gpu.runtime() });
      const got = asArray(run.result);
      expect(got).toHaveLength(want.length);
      const off = got.flatMap((g, i) => {
        const w = want[i] as number;
        return Math.abs(g - w) <= k.gpuBound(w) ? [] : [{ i, got: g, want: w }];
      });
      expect(off.slice(0, 5)).toEqual([]);
    });
  }
});
