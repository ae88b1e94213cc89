/**
 * The convolution pipeline of `npm run demo` and `npm run bench:latency` :
 * staging configs/kernel/01-conv.json, loading its staged modules in the same process, and
 * measuring the latency from "coefficients known" to "kernel ready" (and to the first result) of
 * four ways to get a kernel for new coefficients, plus the kernels' run times.
 *
 * The four ways, for one set of coefficients (`LatencyVariant`):
 * - `staged`: the staged pipeline (the stub's `specialize`: formals, admission, staged passes) →
 *   `planKernelWgsl` → `GpuRuntime.prepare` (a fresh shader text, since the coefficients are
 *   literals in it, so a new pipeline is created and validated) → first run;
 * - `unstaged`: the same with the unstaged pipeline (`runPipeline` of src/optimizers);
 * - `uniform`: a generic kernel (the pipeline's output with no coefficient known, planned with
 *   scalars in a uniform buffer) prepared once beforehand: nothing to do until the run, which
 *   writes the coefficients into the uniform buffer;
 * - `override`: the same generic kernel planned with WGSL `override` constants and prepared once;
 *   its first run with new values creates the pipeline for those constants (the runtime keeps one
 *   pipeline per distinct set of values), so the creation is inside the first run.
 * Every set of coefficients is fresh (drawn for that variant and round), so no cache keyed by
 * shader text or constants can hide the work. Without a WebGPU adapter the same is measured with
 * the JS back end (`compileKernelJs` in place of plan + prepare; no `override` variant).
 *
 * Staging options. The stencil map has 13 operands; its abstract value (with the lambda's 13
 * parameters) passes the partial evaluator's default `growCap` of 256 nodes, which would widen
 * const-prop's output to 'Any. The config's `"pe": { "growCap": 1024 }` raises it (const-prop and
 * copy-prop then reach their fixpoints).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  type ArgValue,
  type Fun,
  listFromArray,
  programWith,
  type Program as KernelProgram,
} from '../kernel/index.js';
import { runPipeline } from '../optimizers/index.js';
import {
  loadConfig,
  type StagedConfig,
  stageConfig,
  writeStaged,
  configPasses,
  importStub,
} from '../pipeline/index.js';
import {
  compileKernelJs,
  type GpuKernel,
  type GpuPlan,
  GpuRuntime,
  type NoAdapter,
  planKernelWgsl,
} from '../target/index.js';
import { median } from './report.js';
import { type MachineInfo, machineInfo, type Stub } from './table3.js';
import { alternate } from './timing.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The demo's and the benchmark's configuration. */
export const CONV_CONFIG = path.join(ROOT, 'configs/kernel/01-conv.json');
/** The coefficient formals, row-major. */
export const COEF_NAMES = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'] as const;
/**
 * Writes the staged modules and the stub into a fresh folder under the OS's temporary folder
 * (they import only `scf/runtime`, which `importStub` resolves to this installation) and imports the stub, and the admission check of the first staged module (what
 * `stagedPipeline` runs before the staged passes). `dispose` removes the folder.
 */
export async function importStaged(staged: StagedConfig): Promise<{
  stub: Stub;
  admit: (input: unknown[], from?: number) => void;
  dir: string;
  dispose: () => void;
}> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scf-staged-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const written = writeStaged(staged.stages, {
      outDir: dir,
      fun: staged.fun,
      bind: staged.config.bind,
      origin: path.relative(ROOT, staged.config.file),
    });
    const stub = await importStub(written.stub);
    // the first stage's module exports the admission check the stub runs before the staged passes
    const first = (await import(pathToFileURL(written.modules[0] as string).href)) as {
      admit: (input: unknown[], from?: number) => void;
    };
    return { stub, admit: first.admit, dir, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

/** The config's passes, as the unstaged pipeline runs them. */
export { configPasses };

/** Coefficients as the stub's values: `{c0: …, …, c8: …}`. */
export function coefValues(coef: readonly number[]): Record<string, number> {
  return Object.fromEntries(COEF_NAMES.map((n, i) => [n, coef[i] ?? 0]));
}

/** A deterministic generator of 32-bit floats in [lo, hi) (mulberry32). */
export function floatStream(seed: number): (lo: number, hi: number) => number {
  let s = seed >>> 0;
  return (lo, hi) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.fround(lo + (hi - lo) * u);
  };
}

/** `count` fresh coefficient sets: random 3x3 filters whose coefficients sum to about 1. */
export function coefficientSets(count: number, seed = 8): number[][] {
  const next = floatStream(seed);
  const sets: number[][] = [];
  for (let i = 0; i < count; i++) {
    const raw = COEF_NAMES.map(() => next(-0.5, 1));
    const sum = raw.reduce((a, b) => a + b, 0);
    sets.push(raw.map((c) => Math.fround(c / (Math.abs(sum) < 0.1 ? 1 : sum))));
  }
  return sets;
}

/** A deterministic w×h grey image in [0, 1]: soft rings, a diagonal edge and a little noise. */
export function testImage(w: number, h: number, seed = 1): number[] {
  const noise = floatStream(seed);
  const img: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const dx = x / w - 0.5;
      const dy = y / h - 0.5;
      const ring = 0.5 + 0.5 * Math.cos(Math.sqrt(dx * dx + dy * dy) * 30);
      const edge = x > y ? 0.25 : 0;
      img.push(Math.fround(Math.min(1, Math.max(0, 0.6 * ring + edge + noise(-0.005, 0.005)))));
    }
  }
  return img;
}

/** The kernel's arguments for an image and a coefficient set. */
export function convArgs(
  img: readonly number[],
  w: number,
  h: number,
  coef: readonly number[],
): Record<string, ArgValue> {
  return { img, w, h, ...coefValues(coef) };
}

/** Largest |a[i] - b[i]| (Infinity when the lengths differ or an element is not a number). */
export function maxAbsDiff(a: unknown, b: unknown): number {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return Number.POSITIVE_INFINITY;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs((a[i] as number) - (b[i] as number));
    if (!(d <= m)) m = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return m;
}

// ---- timing ---------------------------------------------------------------------------------------

// ---- the benchmark --------------------------------------------------------------------------------

export type LatencyVariant = 'staged' | 'unstaged' | 'uniform' | 'override';

/** Milliseconds of one values-known → first-result run, by step. */
export interface LatencySample {
  /** The optimizer pipeline (staged or unstaged); 0 for the generic kernels. */
  readonly specializeMs: number;
  /** Code generation: planKernelWgsl (or compileKernelJs on the JS back end); 0 for generic kernels. */
  readonly codegenMs: number;
  /** GpuRuntime.prepare: pipeline creation and validation; 0 for generic kernels. */
  readonly prepareMs: number;
  /** specialize + codegen + prepare: values known → kernel ready. */
  readonly readyMs: number;
  /** The first run on the image with these values (for `override`, creates the pipeline). */
  readonly firstRunMs: number;
  /** readyMs + firstRunMs: values known → first result. */
  readonly totalMs: number;
  /** GPU pipelines the runtime created for these values (1 for every variant but `uniform`: no cache hit). */
  readonly pipelinesCreated: number;
}

export interface LatencyRow {
  readonly variant: LatencyVariant;
  readonly description: string;
  /** Medians over the coefficient sets, per step. */
  readonly median: LatencySample;
  readonly samples: readonly LatencySample[];
}

export interface RunTimeRow {
  readonly kernel: 'specialized' | 'uniform' | 'override' | 'js-specialized' | 'js-generic';
  readonly description: string;
  /** Median milliseconds of one run (upload, dispatch, readback) after warm-up. */
  readonly medianMs: number;
  readonly runs: number;
}

export interface KernelBenchReport {
  readonly backend: 'webgpu' | 'js';
  /** The adapter ("google swiftshader (fallback adapter)"), or why WebGPU was not used. */
  readonly device: string;
  readonly image: { readonly width: number; readonly height: number };
  readonly coefficientSets: number;
  readonly latency: readonly LatencyRow[];
  readonly runTimes: readonly RunTimeRow[];
  /**
   * Side-by-side medians of the pipelines alone (µs per call, alternating batches): the stub's
   * `specialize` (formals, admission check, staged passes), `runPipeline`, and the admission check:
   * of kernel and formals (`admitUs`: a stub's first run) and of the formals alone
   * (`admitFormalsUs`: every later run, the kernel being frozen and admitted once).
   */
  readonly pipelines: {
    readonly stagedUs: number;
    readonly unstagedUs: number;
    readonly admitUs: number;
    readonly admitFormalsUs: number;
    readonly speedup: number;
  };
  readonly ratios: Readonly<Record<string, number>>;
  /** Largest |difference| of any output from the original kernel's on the JS back end, same values. */
  readonly maxAbsDiff: number;
  readonly stagingSeconds: number;
  readonly machine: MachineInfo;
  readonly method: string;
}

export interface KernelBenchOptions {
  /** Fresh coefficient sets per latency variant (default 20). */
  readonly sets?: number;
  readonly width?: number;
  readonly height?: number;
  /** Timed runs per kernel for the run times (default 30). */
  readonly runs?: number;
  /** 'js' skips WebGPU. */
  readonly backend?: 'auto' | 'js';
  readonly onProgress?: (step: string, done: number, total: number) => void;
}

export const KERNEL_METHOD =
  'one process; configs/kernel/01-conv.json staged once (its "pe" limits), its stub imported; ' +
  'per latency variant, every round uses a fresh coefficient set (so neither the pipeline cache keyed by shader text ' +
  'nor the per-constants override pipelines can hide work); variants interleaved per round after 2 warm-up rounds; ' +
  'figures are medians over rounds; run times: the kernels run in rotating order, same values, 2 warm-up runs each, medians; ' +
  'outputs checked against the original kernel on the JS back end with the same values.';

/** The convolution latency benchmark; see the header. */
export async function runKernelBench(opts: KernelBenchOptions = {}): Promise<KernelBenchReport> {
  const sets = opts.sets ?? 20;
  const width = opts.width ?? 256;
  const height = opts.height ?? 256;
  const runs = opts.runs ?? 30;
  const config = loadConfig(CONV_CONFIG);
  const fn = config.function;
  let stepsDone = 0;
  const rt = opts.backend === 'js' ? null : await GpuRuntime.open();
  const gpu = rt instanceof GpuRuntime ? rt : null;
  const variants: LatencyVariant[] = gpu
    ? ['staged', 'unstaged', 'uniform', 'override']
    : ['staged', 'unstaged', 'uniform'];
  const totalSteps = 3 + (sets + 2) * variants.length + Math.ceil(runs / 5);
  const step = (what: string) => opts.onProgress?.(what, stepsDone++, totalSteps);

  let dispose = () => {};
  try {
    step('staging configs/kernel/01-conv.json');
    const t0 = performance.now();
    const staged = await stageConfig(config);
    const stagingSeconds = (performance.now() - t0) / 1000;
    const imported = await importStaged(staged);
    dispose = imported.dispose;
    const { stub, admit } = imported;
    const program = staged.program;
    const passes = configPasses(config);
    const img = testImage(width, height);
    const generic = programWith(program, runPipeline(program, fn, passes, {}).fun);

    step('timing the pipelines side by side');
    const sample = coefValues(coefficientSets(1, 99)[0] as number[]);
    const admitInput = [stub.FUN, listFromArray(stub.formalsOf(sample))];
    const pipe = alternate(
      {
        staged: () => stub.specialize(sample),
        unstaged: () => runPipeline(program, fn, passes, sample),
        admit: () => admit(admitInput),
        admitFormals: () => admit(admitInput, 1),
      },
      15,
      20,
    );

    // generic kernels, prepared before any value is known
    let uniformKernel: GpuKernel | undefined;
    let overrideKernel: GpuKernel | undefined;
    let genericJs: ReturnType<typeof compileKernelJs> | undefined;
    if (gpu) {
      uniformKernel = await gpu.prepare(planKernelWgsl(generic, fn, { scalars: 'uniform' }));
      overrideKernel = await gpu.prepare(planKernelWgsl(generic, fn, { scalars: 'override' }));
    } else {
      genericJs = compileKernelJs(generic, fn);
    }

    let maxDiff = 0;
    // the reference: the original, unoptimized kernel on the JS back end (checked against the evaluator by the tests)
    const refJs = compileKernelJs(program, fn);
    const reference = (coef: readonly number[]) => refJs.run(convArgs(img, width, height, coef));
    const check = (coef: readonly number[], result: unknown) => {
      maxDiff = Math.max(maxDiff, maxAbsDiff(result, reference(coef).result));
    };

    // warm-up rounds (2) and timed rounds, interleaved, each with fresh coefficients
    const setup: RunTimeSetup = { gpu, program, fn, stub, img, width, height, runs, step, check };
    const kernelsBefore: GenericKernels = { generic, uniformKernel, overrideKernel, genericJs };
    const latency = await measureLatency(
      variants,
      sets,
      (v, coef) => latencySample(setup, kernelsBefore, passes, v, coef),
      step,
      gpu ? 'webgpu' : 'js',
    );

    // run times with fixed values
    const runTimes = await measureRunTimes(
      { gpu, program, fn, stub, img, width, height, runs, step, check },
      {
        generic,
        uniformKernel,
        overrideKernel,
        genericJs,
      },
    );

    const ratios = benchRatios(pipe, latency, runTimes);
    step('done');

    return {
      backend: gpu ? 'webgpu' : 'js',
      device: gpu
        ? gpu.adapterName
        : rt === null
          ? 'JS back end (asked for)'
          : `JS back end: ${(rt as NoAdapter).reason}`,
      image: { width, height },
      coefficientSets: sets,
      latency,
      runTimes,
      pipelines: {
        stagedUs: pipe.staged,
        unstagedUs: pipe.unstaged,
        admitUs: pipe.admit,
        admitFormalsUs: pipe.admitFormals,
        speedup: pipe.unstaged / pipe.staged,
      },
      ratios,
      maxAbsDiff: maxDiff,
      stagingSeconds,
      machine: machineInfo(),
      method: KERNEL_METHOD,
    };
  } finally {
    dispose();
    gpu?.destroy();
  }
}

/** What the run-time measurement needs of the benchmark's setup. */
interface RunTimeSetup {
  readonly gpu: GpuRuntime | null;
  readonly program: KernelProgram;
  readonly fn: string;
  readonly stub: Stub;
  readonly img: readonly number[];
  readonly width: number;
  readonly height: number;
  readonly runs: number;
  readonly step: (what: string) => void;
  readonly check: (coef: readonly number[], result: unknown) => void;
}

/** The generic kernels, prepared before any value is known. */
interface GenericKernels {
  readonly generic: KernelProgram;
  readonly uniformKernel: GpuKernel | undefined;
  readonly overrideKernel: GpuKernel | undefined;
  readonly genericJs: ReturnType<typeof compileKernelJs> | undefined;
}

/**
 * One latency sample: from the values being known to the kernel's first result, for `variant`
 * (staged or unstaged pipeline, then code generation and pipeline creation; or a generic kernel).
 */
async function latencySample(
  setup: RunTimeSetup,
  g: GenericKernels,
  passes: Parameters<typeof runPipeline>[2],
  variant: LatencyVariant,
  coef: readonly number[],
): Promise<LatencySample> {
  const { gpu, program, fn, stub, img, width, height, check } = setup;
  const { uniformKernel, overrideKernel, genericJs } = g;
  const values = coefValues(coef);
  const args = convArgs(img, width, height, coef);
  const created = gpu?.stats.pipelinesCreated ?? 0;
  const ta = performance.now();
  let fun: Fun | undefined;
  if (variant === 'staged') {
    const r = stub.specialize(values, (m) => {
      throw new Error(`the staged pipeline did not admit the coefficients: ${m}`);
    });
    fun = r.fun;
  } else if (variant === 'unstaged') {
    fun = runPipeline(program, fn, passes, values).fun;
  }
  const tb = fun ? performance.now() : ta;
  let tc = tb;
  let td = tb;
  let result: unknown;
  if (fun) {
    const prog = programWith(program, fun);
    if (gpu) {
      const plan: GpuPlan = planKernelWgsl(prog, fn);
      tc = performance.now();
      const kernel = await gpu.prepare(plan);
      td = performance.now();
      result = (await kernel.run(args)).result;
    } else {
      const kernel = compileKernelJs(prog, fn);
      tc = performance.now();
      td = tc;
      result = kernel.run(args).result;
    }
  } else if (gpu) {
    result = (await (variant === 'uniform' ? uniformKernel : overrideKernel)?.run(args))?.result;
  } else {
    result = genericJs?.run(args).result;
  }
  const te = performance.now();
  check(coef, result);
  return {
    specializeMs: tb - ta,
    codegenMs: tc - tb,
    prepareMs: td - tc,
    readyMs: td - ta,
    firstRunMs: te - td,
    totalMs: te - ta,
    pipelinesCreated: (gpu?.stats.pipelinesCreated ?? 0) - created,
  };
}

/** Warm-up rounds (2) and `sets` timed rounds, the variants interleaved, each run with fresh coefficients. */
async function measureLatency(
  variants: readonly LatencyVariant[],
  sets: number,
  runOnce: (variant: LatencyVariant, coef: readonly number[]) => Promise<LatencySample>,
  step: (what: string) => void,
  backend: 'webgpu' | 'js',
): Promise<LatencyRow[]> {
  const coefs = coefficientSets((sets + 2) * variants.length, 2026);
  const samples = new Map<LatencyVariant, LatencySample[]>(variants.map((v) => [v, []]));
  let next = 0;
  for (let round = 0; round < sets + 2; round++) {
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(j + round) % variants.length] as LatencyVariant;
      step(`latency ${round < 2 ? 'warm-up' : `round ${round - 1}/${sets}`}: ${v}`);
      const s = await runOnce(v, coefs[next++] as number[]);
      if (round >= 2) samples.get(v)?.push(s);
    }
  }
  return variants.map((v) => ({
    variant: v,
    description: DESCRIPTIONS[backend][v],
    median: medianSample(samples.get(v) ?? []),
    samples: samples.get(v) ?? [],
  }));
}

/** Run times of the specialized and generic kernels with fixed values: medians of rotating rounds. */
async function measureRunTimes(setup: RunTimeSetup, g: GenericKernels): Promise<RunTimeRow[]> {
  const { gpu, program, fn, stub, img, width, height, runs, step, check } = setup;
  const { generic, uniformKernel, overrideKernel, genericJs } = g;
  const coef = coefficientSets(1, 7)[0] as number[];
  const args = convArgs(img, width, height, coef);
  const specialized = programWith(program, stub.specialize(coefValues(coef)).fun);
  const kernels: { kernel: RunTimeRow['kernel']; description: string; run: () => Promise<unknown> }[] = [];
  if (gpu) {
    const spec = await gpu.prepare(planKernelWgsl(specialized, fn));
    const u = uniformKernel as GpuKernel;
    const o = overrideKernel as GpuKernel;
    kernels.push(
      {
        kernel: 'specialized',
        description: 'WebGPU, coefficients as literals in the shader',
        run: async () => (await spec.run(args)).result,
      },
      {
        kernel: 'uniform',
        description: 'WebGPU, coefficients in the uniform buffer',
        run: async () => (await u.run(args)).result,
      },
      {
        kernel: 'override',
        description: 'WebGPU, coefficients as override constants',
        run: async () => (await o.run(args)).result,
      },
    );
  }
  const specJs = compileKernelJs(specialized, fn);
  const genJs = genericJs ?? compileKernelJs(generic, fn);
  kernels.push(
    {
      kernel: 'js-specialized',
      description: 'JS back end, coefficients as literals',
      run: async () => specJs.run(args).result,
    },
    {
      kernel: 'js-generic',
      description: 'JS back end, coefficients as arguments',
      run: async () => genJs.run(args).result,
    },
  );
  // two warm-up runs each (checked), then `runs` rounds running every kernel once, order rotated
  step('run times: warm-up');
  for (const k of kernels) for (let i = 0; i < 2; i++) check(coef, await k.run());
  const times = kernels.map((): number[] => []);
  for (let r = 0; r < runs; r++) {
    if (r % 5 === 0) step(`run times: round ${r + 1}/${runs}`);
    for (let j = 0; j < kernels.length; j++) {
      const i = (j + r) % kernels.length;
      const t = performance.now();
      await (kernels[i] as (typeof kernels)[number]).run();
      (times[i] as number[]).push(performance.now() - t);
    }
  }
  return kernels.map((k, i) => ({
    kernel: k.kernel,
    description: k.description,
    medianMs: median(times[i] as number[]),
    runs,
  }));
}

/** The ratios the report prints: pipelines, latency and run times, each where both sides exist. */
function benchRatios(
  pipe: Record<'staged' | 'unstaged', number>,
  latency: readonly LatencyRow[],
  runTimes: readonly RunTimeRow[],
): Record<string, number> {
  const med = (v: LatencyVariant) => latency.find((r) => r.variant === v)?.median;
  const ratios: Record<string, number> = {
    'pipeline: unstaged / staged': pipe.unstaged / pipe.staged,
  };
  const st = med('staged');
  const un = med('unstaged');
  const uni = med('uniform');
  const ov = med('override');
  if (st && un) {
    ratios['specialize: unstaged / staged'] = un.specializeMs / st.specializeMs;
    ratios['ready: unstaged / staged'] = un.readyMs / st.readyMs;
    ratios['first result: unstaged / staged'] = un.totalMs / st.totalMs;
  }
  if (st && uni) ratios['first result: staged / uniform'] = st.totalMs / uni.totalMs;
  if (st && ov) ratios['first result: staged / override'] = st.totalMs / ov.totalMs;
  const rtOf = (k: RunTimeRow['kernel']) => runTimes.find((r) => r.kernel === k)?.medianMs;
  const rs = rtOf('specialized');
  const ru = rtOf('uniform');
  const ro = rtOf('override');
  if (rs && ru) ratios['run: uniform / specialized'] = ru / rs;
  if (rs && ro) ratios['run: override / specialized'] = ro / rs;
  const js1 = rtOf('js-specialized');
  const js2 = rtOf('js-generic');
  if (js1 && js2) ratios['run (JS): generic / specialized'] = js2 / js1;
  return ratios;
}

const DESCRIPTIONS: Record<'webgpu' | 'js', Record<LatencyVariant, string>> = {
  webgpu: {
    staged: 'staged pipeline + WGSL codegen + pipeline creation (coefficients as literals)',
    unstaged: 'unstaged pipeline + WGSL codegen + pipeline creation (coefficients as literals)',
    uniform: 'generic kernel prepared beforehand; coefficients written to its uniform buffer at the run',
    override:
      'generic kernel with override constants; its pipeline for the values is created at the first run',
  },
  js: {
    staged: 'staged pipeline + JS back end (coefficients as literals)',
    unstaged: 'unstaged pipeline + JS back end (coefficients as literals)',
    uniform: 'generic JS kernel compiled beforehand; coefficients passed as arguments',
    override: '(WebGPU only)',
  },
};

function medianSample(xs: readonly LatencySample[]): LatencySample {
  const m = (k: keyof LatencySample) => median(xs.map((x) => x[k]));
  return {
    specializeMs: m('specializeMs'),
    codegenMs: m('codegenMs'),
    prepareMs: m('prepareMs'),
    readyMs: m('readyMs'),
    firstRunMs: m('firstRunMs'),
    totalMs: m('totalMs'),
    pipelinesCreated: m('pipelinesCreated'),
  };
}

/** Whether `a` and `b` are the same function (deep, strict). */
export function sameFun(a: Fun, b: Fun): boolean {
  return isDeepStrictEqual(a, b);
}
