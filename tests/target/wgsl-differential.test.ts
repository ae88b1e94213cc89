/**
 * WGSL back end ≡ JS back end: random combinator programs (wgsl-gen.ts) run on the GPU
 * through `runKernel(…, { backend: 'webgpu', gpu })` and on the CPU through `compileKernelJs`, both
 * as generated and after the fusion pass (map∘map chains, redomaps, scanomaps, filter compositions,
 * hfused groups), in both scalar modes ('uniform', 'override') and several workgroup shapes; then
 * fixed cases (lengths 0, 1 and around multiples of the workgroup size and of the chunked passes'
 * invocation count, filters keeping none or all) and the fusion fixtures with their own arguments.
 *
 * Tolerance. Ints are compared exactly. Floats: the generator keeps every input dyadic (k/8) and
 * every value in a safe range (no overflow, NaN, infinities or denormals — SwiftShader flushes
 * denormals and drops NaN in min/max), and derives for each result a bound M on the magnitudes of
 * its computation (for sums: Σ|terms|) and a first-order relative error rate r (0 when every
 * operation is provably exact in binary32, whatever order the GPU adds in). The test accepts
 * |gpu − js| ≤ 4·r·M + 2^-100; exact results must be equal (±0 alike). For sums of n ≤ 300 divided
 * terms this is about 7e-5·Σ|terms|: (n-1)·2^-24 for reassociated summation plus 2.5 ULP for WGSL's
 * f32 division, twice (both sides err), doubled for second-order terms. wgsl-gen.ts has the rules.
 * Filters only test exact values, so both sides keep the same elements.
 * The fusion fixtures have hand-picked inputs and helpers outside the generator (series for exp and
 * log, divisions in loops): |gpu − js| ≤ 1e-4·max(1, max |js| of that result); args lines with
 * undefined behaviour (the evaluator rejects them) are skipped, and lines the JS back end rejects
 * (mapped arrays of different lengths) must give a GpuRunError naming the function.
 *
 * SCF_WGSL_RUNS (default 60) and SCF_WGSL_SEED override the number of random programs and the seed.
 * GPU tests need an adapter (tests/target/gpu-setup.ts: skipped with what to install, or failed in
 * CI).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  evaluate,
  findFun,
  KernelRuntimeError,
  listToArray,
  loadKernelParser,
  type Program,
  printProgram,
  soacStructure,
} from '../../src/kernel/index.js';
import {
  compileKernelJs,
  GpuRunError,
  type GpuRuntime,
  GpuUnsupported,
  planKernelWgsl,
  runKernel,
  type WgslOptions,
} from '../../src/target/index.js';
import { fuse, parseClean, structureOf } from '../fusion/harness.js';
import { openTestGpu } from './gpu-setup.js';
import {
  argList,
  argsArb,
  type Check,
  compareValue,
  FEATURES,
  type Feature,
  HELPERS,
  tolerance,
  type WgslArgs,
  generateWgslProgram,
  type WgslProgram,
  wgslProgramArb,
  wgslTapeArb,
} from './wgsl-gen.js';

const RUNS = Number(process.env.SCF_WGSL_RUNS ?? 60);
const SEED = process.env.SCF_WGSL_SEED === undefined ? undefined : Number(process.env.SCF_WGSL_SEED);

const gpu = await openTestGpu();

beforeAll(async () => {
  await loadKernelParser();
});

type Outcome = { result: number | number[] | undefined; outputs: Record<string, number[]> };

/**
 * Workgroup shapes: the default (256 × 64 chunk workgroups) and small ones, so n ≤ 300 spans
 * chunks; one coarsens every map that qualifies (src/target/coarsen.ts).
 */
const SHAPES: readonly WgslOptions[] = [
  {},
  { workgroupSize: 64, maxWorkgroups: 4 },
  { workgroupSize: 32, maxWorkgroups: 2 },
  { workgroupSize: 32, maxWorkgroups: 32 },
  { workgroupSize: 64, maxWorkgroups: 4, coarsen: 'always' },
];

function jsRun(program: Program, fn: string, args: readonly ArgValue[]): Outcome {
  return compileKernelJs(program, fn).run(args);
}

async function gpuRun(
  rt: GpuRuntime,
  program: Program,
  fn: string,
  args: readonly ArgValue[],
  wgsl: WgslOptions,
): Promise<Outcome> {
  const r = await runKernel(program, fn, args, { backend: 'webgpu', gpu: rt, wgsl });
  expect(r.backend).toBe('webgpu');
  return { result: r.result, outputs: r.outputs };
}

/** Where a generated program's GPU outcome differs from the JS one, or undefined. */
function differenceOf(g: WgslProgram, n: number, actual: Outcome, expected: Outcome): string | undefined {
  const slots = (name: 'out' | 'outk', checks: readonly Check[]): string | undefined => {
    const a = actual.outputs[name];
    const e = expected.outputs[name];
    if (!a || !e) return `output ${name}: ${JSON.stringify(a)} vs expected ${JSON.stringify(e)}`;
    if (a.length !== e.length) return `output ${name}: length ${a.length} vs expected ${e.length}`;
    for (let j = 0; j < e.length; j++) {
      const check: Check = checks[j] ?? { ty: 'int' }; // unwritten slots stay exactly 0
      const d = compareValue(`${name}[${j}]`, check, n, a[j], e[j]);
      if (d !== undefined) return d;
    }
    return undefined;
  };
  return (
    compareValue('result', g.result, n, actual.result, expected.result) ??
    slots('out', g.out) ??
    slots('outk', g.outk)
  );
}

function shortArgs(a: WgslArgs): string {
  return `n=${a.n} c=${a.c} xs=${JSON.stringify(a.xs)} ys=${JSON.stringify(a.ys)} ks=${JSON.stringify(a.ks)}`;
}

// ---- the generator alone ---------------------------------------------------------------------

describe('WGSL differential-test generator (no GPU)', () => {
  it('makes programs that parse, fuse, run on the JS back end within their bounds, and cover every feature', () => {
    const seen = new Map<string, number>();
    const bump = (k: string): void => {
      seen.set(k, (seen.get(k) ?? 0) + 1);
    };
    const samples = fc.sample(fc.tuple(wgslProgramArb, argsArb), { seed: 8, numRuns: 300 });
    for (const [g, args] of samples) {
      for (const f of g.features) bump(f);
      const program = parseClean(g.source, 'generated.c');
      expect(structureOf(program, 'f').loops, g.source).toBeGreaterThan(0);
      const fused = fuse(program, ['f']);
      const st = structureOf(fused, 'f');
      for (const k of ['hfused', 'redomap', 'scanomap', 'filter', 'scan', 'map', 'reduce'])
        if ((st[k] ?? 0) > 0) bump(`fused:${k}`);
      const list = argList(args);
      const plain = jsRun(program, 'f', list);
      const after = jsRun(fused, 'f', list);
      const why = `${g.source}\n--- fused ---\n${printProgram(fused)}\n${shortArgs(args)}`;
      // fusion keeps the order of operations: the same results within the bounds
      expect(differenceOf(g, args.n, after, plain), why).toBeUndefined();
      // every float result lies within its bound M (a check of the bound tracking itself)
      const within = (check: Check, v: number | number[] | undefined, what: string): void => {
        if (check.ty !== 'float' || v === undefined) return;
        const { M } = check.abs(args.n);
        for (const x of Array.isArray(v) ? v : [v])
          expect(Math.abs(x), `${what} ≤ M = ${M}\n${why}`).toBeLessThanOrEqual(
            M + tolerance(check.abs(args.n)),
          );
      };
      within(g.result, plain.result, 'result');
      g.out.forEach((c, j) => {
        within(c, plain.outputs.out?.[j], `out[${j}]`);
      });
    }
    const missing = [
      ...FEATURES.filter((f: Feature) => (seen.get(f) ?? 0) < 5),
      ...['fused:hfused', 'fused:redomap', 'fused:scanomap', 'fused:filter', 'fused:scan'].filter(
        (k) => (seen.get(k) ?? 0) < 5,
      ),
    ];
    expect(missing, JSON.stringify(Object.fromEntries(seen))).toEqual([]);
  });

  it('never fails to build a program: an exact-only broadcast scalar when c is inexact and no exact result is in scope', () => {
    // About one tape in 30,000 leaves the scalar pool empty, where a generator could throw.
    const tape = [
      73918, 757060, 97717, 191011, 109877, 884976, 554591, 678437, 274994, 82371, 225781, 943262, 910586,
      171198, 317463, 925783, 756224, 27012, 34523, 954282, 341588, 781967,
    ];
    const g = generateWgslProgram(tape);
    expect(structureOf(parseClean(g.source, 'generated.c'), 'f').loops, g.source).toBeGreaterThan(0);
    // and a large deterministic sample builds without throwing
    const tapes = fc.sample(wgslTapeArb, { seed: 11, numRuns: 20_000 });
    for (const t of tapes) generateWgslProgram(t);
  });
});

// ---- random programs on the GPU --------------------------------------------------------------

describe.skipIf(gpu.skip)(gpu.title('WGSL ≡ JS on random programs (GPU)'), () => {
  it(`agrees on ${RUNS} random programs, unfused and fused, both scalar modes`, async () => {
    const rt = gpu.runtime();
    await fc.assert(
      fc.asyncProperty(
        wgslProgramArb,
        fc.array(argsArb, { minLength: 2, maxLength: 2 }),
        fc.constantFrom<'uniform' | 'override'>('uniform', 'override'),
        fc.constantFrom(...SHAPES),
        async (g, argSets, scalars, shape) => {
          const program = parseClean(g.source, 'generated.c');
          const fused = fuse(program, ['f']);
          const wgsl: WgslOptions = { ...shape, scalars };
          for (const [variant, p] of [
            ['unfused', program],
            ['fused', fused],
          ] as const) {
            for (const args of argSets) {
              const list = argList(args);
              const expected = jsRun(p, 'f', list);
              let actual: Outcome;
              const where = () =>
                `${variant} program, wgsl options ${JSON.stringify(wgsl)}\n${variant === 'fused' ? printProgram(p) : g.source}\n${shortArgs(args)}`;
              try {
                actual = await gpuRun(rt, p, 'f', list, wgsl);
              } catch (e) {
                throw new Error(`GPU run failed: ${e instanceof Error ? e.message : String(e)}\n${where()}`);
              }
              const d = differenceOf(g, args.n, actual, expected);
              if (d !== undefined) throw new Error(`${d}\n${where()}`);
            }
          }
        },
      ),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);
});

// ---- fixed cases -----------------------------------------------------------------------------

const FIXED = `${HELPERS}
float* m(const float xs[]) { return map(sq, xs); }
float* mz(const float xs[], const float ys[]) { return map(add, xs, map(half, ys)); }
float r(const float xs[]) { return reduce(add, 0.0f, xs); }
int ri(const int ks[]) { return reduce(addi, 0, ks); }
float rmax(const float xs[]) { return reduce(maxf, -1000.0f, xs); }
float rmin(const float xs[]) { return reduce(minf, 1000.0f, xs); }
int rmul(const int ks[]) { return reduce(muli, 1, map(twice, ks)); }
float* s(const float xs[]) { return scan(add, 0.0f, xs); }
int* si(const int ks[]) { return scan(addi, 0, ks); }
int* smax(const int ks[]) { return scan(maxi, -1000, ks); }
float* fnone(const float xs[]) { return filter(above, xs, 1000.0f); }
float* fall(const float xs[]) { return filter(above, xs, -1000.0f); }
float* fsome(const float xs[]) { return filter(pos, xs); }
int* fodd(int n) { return filter(odd, iota(n)); }
float* st(const float xs[], int n) { return map(stencil, iota(n), xs, n); }
float rm(const float xs[], const float ys[]) { return redomap(add, fold2, 0.0f, xs, ys); }
float* sm(const float xs[]) { return scanomap(add, fold, 0.0f, xs); }
float* chain(const float xs[]) { return filter(pos, scan(add, 0.0f, map(neg, xs))); }
float pair(const float xs[]) {
  float a = reduce(add, 0.0f, xs);
  float b = reduce(maxf, -1000.0f, xs);
  return a * 0.5f + b;
}
`;

/** Exactly representable data: floats k/8 with |k| ≤ 64, ints -100..100 (every fixed result is exact). */
function fixedArgs(fn: string, n: number): ArgValue[] {
  const xs = Array.from({ length: n }, (_, i) => (((i * 37) % 129) - 64) / 8);
  const ys = Array.from({ length: n }, (_, i) => (((i * 11 + 5) % 129) - 64) / 8);
  const ks = Array.from({ length: n }, (_, i) => ((i * 53) % 201) - 100);
  const program = fixedProgram as Program;
  const f = findFun(program, fn);
  if (!f) throw new Error(`no function ${fn}`);
  return listToArray(f.params).map((p) => {
    if (p.name === 'xs') return xs;
    if (p.name === 'ys') return ys;
    if (p.name === 'ks') return ks;
    if (p.name === 'n') return n;
    throw new Error(`parameter ${p.name}`);
  });
}
let fixedProgram: Program | undefined;

const FIXED_FNS = [
  'm',
  'mz',
  'r',
  'ri',
  'rmax',
  'rmin',
  'rmul',
  's',
  'si',
  'smax',
  'fnone',
  'fall',
  'fsome',
  'fodd',
  'st',
  'rm',
  'sm',
  'chain',
  'pair',
];
/** 0, 1, 2 and k·256 ± 1 (workgroups), k·64 ± 1 and 2·32·32 ± 1 (the small shapes' invocations). */
const FIXED_LENGTHS = [
  0, 1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 511, 512, 513, 767, 768, 769, 1023, 1024, 1025,
];
/** 64 workgroups · 256 invocations: the default chunked passes' invocation count, ± 1. */
const CHUNK_LENGTHS = [16383, 16384, 16385];

function exactDiff(what: string, actual: Outcome, expected: Outcome): string | undefined {
  const exact: Check = { ty: 'float', abs: () => ({ M: 0, q: 1, r: 0 }) };
  const d = compareValue(`${what}: result`, exact, 0, actual.result, expected.result);
  if (d !== undefined) return d;
  for (const k of Object.keys(expected.outputs)) {
    const e = compareValue(`${what}: ${k}`, exact, 0, actual.outputs[k], expected.outputs[k]);
    if (e !== undefined) return e;
  }
  return undefined;
}

describe.skipIf(gpu.skip)(gpu.title('WGSL ≡ JS on fixed cases (GPU)'), () => {
  beforeAll(async () => {
    await loadKernelParser();
    fixedProgram = parseClean(FIXED, 'fixed.c');
  });

  for (const shape of SHAPES) {
    it(`every fixed function at lengths ${FIXED_LENGTHS.join(', ')}, ${JSON.stringify(shape)}`, async () => {
      const rt = gpu.runtime();
      const program = fixedProgram as Program;
      const failures: string[] = [];
      for (const fn of FIXED_FNS) {
        for (const n of FIXED_LENGTHS) {
          const args = fixedArgs(fn, n);
          const expected = jsRun(program, fn, args);
          try {
            const actual = await gpuRun(rt, program, fn, args, {
              ...shape,
              scalars: n % 2 ? 'override' : 'uniform',
            });
            const d = exactDiff(`${fn} n=${n}`, actual, expected);
            if (d !== undefined) failures.push(d);
          } catch (e) {
            failures.push(`${fn} n=${n}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    }, 300_000);
  }

  it(`reductions, scans and filters at ${CHUNK_LENGTHS.join(', ')} elements (default shape)`, async () => {
    const rt = gpu.runtime();
    const program = fixedProgram as Program;
    const failures: string[] = [];
    for (const fn of ['r', 'ri', 'rmax', 's', 'si', 'fsome', 'fodd', 'sm', 'chain']) {
      for (const n of CHUNK_LENGTHS) {
        const args = fixedArgs(fn, n);
        const expected = jsRun(program, fn, args);
        try {
          const d = exactDiff(`${fn} n=${n}`, await gpuRun(rt, program, fn, args, {}), expected);
          if (d !== undefined) failures.push(d);
        } catch (e) {
          failures.push(`${fn} n=${n}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('the fused versions of the fixed functions agree too', async () => {
    const rt = gpu.runtime();
    const program = fixedProgram as Program;
    const fused = fuse(program, FIXED_FNS);
    const failures: string[] = [];
    for (const fn of FIXED_FNS) {
      for (const n of [0, 1, 257, 300]) {
        const args = fixedArgs(fn, n);
        const expected = jsRun(fused, fn, args);
        try {
          const d = exactDiff(`${fn} (fused) n=${n}`, await gpuRun(rt, fused, fn, args, {}), expected);
          if (d !== undefined) failures.push(d);
        } catch (e) {
          failures.push(`${fn} (fused) n=${n}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

// ---- the fusion fixtures, with their own arguments -------------------------------------------

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'fusion');

interface Fixture {
  readonly file: string;
  readonly source: string;
  readonly entry: string;
  readonly args: readonly ArgValue[][];
}

function fixtures(): Fixture[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((file) => {
      const source = readFileSync(path.join(FIXTURES, file), 'utf8');
      const entry = /^\/\/ entry: (\S+)/m.exec(source)?.[1];
      if (!entry) throw new Error(`${file}: no '// entry:' line`);
      const args = [...source.matchAll(/^\/\/ args: (.*)$/gm)].map(
        (m) => JSON.parse(m[1] as string) as ArgValue[],
      );
      return { file, source, entry, args };
    });
}

function relDiff(what: string, actual: Outcome, expected: Outcome): string | undefined {
  const cmp = (w: string, a: number | number[] | undefined, e: number | number[] | undefined) => {
    if (a === undefined && e === undefined) return undefined; // a void function
    const es = e === undefined ? [] : Array.isArray(e) ? e : [e];
    const scale = Math.max(1, ...es.map((x) => (Number.isFinite(x) ? Math.abs(x) : 0)));
    // 1e-4 relative to the result's largest magnitude, as an "M" of an inexact computation
    return compareValue(w, { ty: 'float', abs: () => ({ M: scale, q: 1, r: 1e-4 / 4 }) }, 0, a, e);
  };
  return (
    cmp(`${what}: result`, actual.result, expected.result) ??
    Object.keys(expected.outputs)
      .map((k) => cmp(`${what}: ${k}`, actual.outputs[k], expected.outputs[k]))
      .find((d) => d !== undefined)
  );
}

describe.skipIf(gpu.skip)(gpu.title('WGSL ≡ JS on the fusion fixtures (GPU)'), () => {
  for (const fx of fixtures()) {
    it(`${fx.file}: ${fx.entry} on its args lines, unfused and fused`, async () => {
      const rt = gpu.runtime();
      await loadKernelParser();
      const program = parseClean(fx.source, fx.file);
      // fuse every function with a combinator (the fixture's `also` functions among them)
      const fused = fuse(
        program,
        listToArray(program)
          .filter((f) => soacStructure(f).loops > 0)
          .map((f) => f.name),
      );
      let compared = 0;
      for (const [variant, p] of [
        ['unfused', program],
        ['fused', fused],
      ] as const) {
        try {
          planKernelWgsl(p, fx.entry);
        } catch (e) {
          // rejections are wgsl-validate.test.ts's business (its EXPECTED_REJECTIONS list)
          if (e instanceof GpuUnsupported) continue;
          throw e;
        }
        for (const args of fx.args) {
          const what = `${variant} ${fx.entry}(${JSON.stringify(args)})`;
          let expected: Outcome | undefined;
          try {
            expected = jsRun(p, fx.entry, args);
          } catch (e) {
            if (e instanceof KernelRuntimeError) {
              // undefined behaviour the JS back end reports as the evaluator does (reading an
              // element of an empty array): the evaluator agrees, and any GPU result will do
              expect(() => evaluate(p, fx.entry, args), what).toThrow(KernelRuntimeError);
              continue;
            }
            expected = undefined; // an input error (mapped arrays of different lengths, …)
          }
          if (expected === undefined) {
            const e = await gpuRun(rt, p, fx.entry, args, {}).then(
              () => undefined,
              (err: unknown) => err,
            );
            expect(
              e,
              `${what}: the JS back end rejects these arguments; the GPU run must too`,
            ).toBeInstanceOf(GpuRunError);
            expect((e as GpuRunError).fn).toBe(fx.entry);
            continue;
          }
          try {
            evaluate(p, fx.entry, args);
          } catch (e) {
            // undefined behaviour (e.g. reading an element of an empty array): any result will do
            if (e instanceof KernelRuntimeError) continue;
            throw e;
          }
          const actual = await gpuRun(rt, p, fx.entry, args, {});
          expect(relDiff(what, actual, expected)).toBeUndefined();
          compared++;
        }
      }
      expect(compared, 'args lines compared').toBeGreaterThan(0);
    }, 120_000);
  }
});
