/**
 * `scf bench --kernel CONFIG` (`npm run bench:kernel` for configs/kernel): the generic kernel
 * against the kernel specialized for the config's late values, on the JS back end and on WebGPU
 * when there is an adapter, for any kernel config that gives its run-time arguments (`args`).
 *
 * What is measured, per back end (every figure a median; the order of the kernels rotated per
 * round, after warm-up):
 * - `runMs`: the kernel itself. On WebGPU with its inputs already on the device and its outputs
 *   left there: a run whose elementwise launches are dispatched R times (`repeat`) against one
 *   dispatched once, (T_R − T_1) / (R − 1), both waiting for the device to finish. On the JS back
 *   end, the compiled function on arguments converted once (`CompiledKernel.bind`).
 * - `roundTripMs`: one call as an application makes it: upload, dispatch, read back (JS: one call).
 * - `firstResultMs`: late values known → first output, for fresh values each sample (the sample's
 *   floats scaled by 1 + k·2⁻²⁰, so no cache keyed by shader text or values can hide work), the
 *   four ways ordered per round by `balancedOrder` (what a new shape's compile leaves behind falls
 *   on each way in turn):
 *   `generic` runs the generic kernel prepared beforehand; `specialized` runs the stub's
 *   `specialize` and the first run of the kernel an application gets for the values at once
 *   (`TieredKernels.specializedKernel`): the template of their shape, compiled before for the
 *   sample's values (src/target/template.ts), the fresh floats its arguments; `newShape` the same
 *   for values of a shape never compiled: the specialized program with its constants as literals,
 *   code generation and pipeline creation inside the timing (new code each sample, so neither our
 *   cache nor the driver's, which reuses a pipeline for the same shader text, holds it); `tiered`
 *   a `TieredKernels` handle (src/target/tiers.ts) whose first run goes to the generic kernel.
 * - `templateRunMs` (WebGPU): the template kernel's run time; `runMs.specialized` is the kernel a
 *   tiered handle ends with, on WebGPU the one with its constants as literals (on the JS back end
 *   the two are one kernel).
 * - `specializeUs`: the staged pipeline (the stub's `specialize`) against the unstaged one, side by
 *   side, µs per call.
 * - `readyUs`: late values known → kernel ready, for values of a shape compiled before (the
 *   sample's floats scaled afresh each call): `TieredKernels.specializedKernel`, i.e. the staged
 *   pipeline, finding the compiled template of the output's shape and binding its constants, µs
 *   per call; `shape` as applications get it (one walk of the output, src/target/shape.ts),
 *   `template` making each output's template afresh to find it (`findTemplate: 'template'`), side
 *   by side.
 * - `equal`: every output of both kernels equal, element for element, to the reference
 *   evaluator's on the original kernel with the same arguments (`maxAbsDiff` and `maxUlps` say by
 *   how much where not). The report's `equal` asks that of the JS back end, and of a GPU only
 *   `withinTolerance`: each output within GPU_ULPS ulps of its own value or of the data's scale
 *   (the largest magnitude among the float arguments, late values and reference outputs), plus
 *   the WGSL bound of the math functions the kernel calls (`toleranceUlps`, docs/kernel-math.md). A device
 *   may fuse a multiply and an add into one rounding (WGSL leaves that to it), and where terms
 *   cancel, one rounding of a term is many ulps of a result near zero: the scale bounds that error.
 *
 * `runMs` on WebGPU is read from the device's clock where the adapter has 'timestamp-query'
 * (`runTimer: 'timestamps'`): the sum over the kernel's compute passes of end − start, per run —
 * the kernel alone, free of upload, encoding, submission and read back. Elsewhere
 * (`runTimer: 'repeat'`) it is (T_R − T_1)/(R − 1) with R calibrated per config: from `repeat`
 * (default 20) R grows fourfold, up to MAX_REPEAT, until R dispatches of the specialized kernel
 * take at least REPEAT_TARGET_MS, and as long again as one run, more than one (`repeat` in the
 * report), so the dispatches outweigh the jitter of the run's fixed costs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ArgValue, evaluate, listToArray, loadKernelParser } from '../kernel/index.js';
import { type Bindings, specializationNotes } from '../optimizers/index.js';
import {
  argValue,
  configError,
  importStub,
  type LoadedStub,
  loadConfig,
  type StageConfig,
  stageConfig,
  writeStaged,
} from '../pipeline/index.js';
import {
  compareResults,
  compileFor,
  dataScale,
  toleranceUlps,
  GPU_ULPS,
  GpuRuntime,
  type KernelBackend,
  type KernelResult,
  type NoAdapter,
  NoGpuAdapter,
  programOf,
  type ReadyKernel,
  TieredKernels,
  type TierSource,
} from '../target/index.js';
import { alternate } from './timing.js';
import { median } from './report.js';
import { configId, type MachineInfo, machineInfo } from './table3.js';

export interface TierTimes {
  readonly generic: number;
  readonly specialized: number;
}

export interface BackendReport {
  /** The adapter ("google swiftshader … (fallback adapter)") or "JS back end". */
  readonly device: string;
  /** `specialized`: the kernel a tiered handle ends with (on WebGPU its constants as literals). */
  readonly runMs: TierTimes;
  /** WebGPU: the run time of the template kernel, which runs while that one is made (tiers.ts). */
  readonly templateRunMs?: number;
  readonly roundTripMs: TierTimes;
  /**
   * `specialized`: values of a shape compiled before (the sample's, floats changed); `newShape`:
   * the first values of their shape, compiled then (see the header).
   */
  readonly firstResultMs: TierTimes & { readonly newShape: number; readonly tiered: number };
  /** generic ÷ specialized of runMs and roundTripMs. */
  readonly speedup: { readonly run: number; readonly roundTrip: number };
  /** Every output identical to the reference evaluator's, element for element. */
  readonly equal: boolean;
  /** Every output within the GPU tolerance of the reference value or of the data's scale (header). */
  readonly withinTolerance: boolean;
  readonly maxAbsDiff: number;
  /**
   * The largest distance in binary32 steps (units in the last place) from the reference: 0 when
   * `equal`. A GPU may fuse a multiply and an add into one rounding (WGSL leaves that to the
   * device): a few ulps there are the device's, not the optimizer's.
   */
  readonly maxUlps: number;
  /** WebGPU: how `runMs` was read, the device's timestamps or R dispatches against one (header). */
  readonly runTimer?: 'timestamps' | 'repeat';
  /** WebGPU under `runTimer: 'repeat'`: R, the dispatches per elementwise launch (calibrated). */
  readonly repeat?: number;
}

export interface KernelConfigReport {
  readonly config: string;
  /** The config's `id`, or its file's name without `.json`. */
  readonly id: number | string;
  readonly function: string;
  readonly stagingSeconds: number;
  /** `js` absent only under `backend: 'webgpu'`; `webgpu` absent without an adapter or under 'js'. */
  readonly backends: { readonly js?: BackendReport; readonly webgpu?: BackendReport };
  /** Why there is no `webgpu` entry. */
  readonly noWebgpu?: string;
  readonly specializeUs: { readonly staged: number; readonly unstaged: number };
  /** Values known → kernel ready for a shape compiled before (see the header); absent under 'webgpu'. */
  readonly readyUs?: { readonly shape: number; readonly template: number };
  /** The JS back end's outputs identical to the reference's, the GPU's `withinTolerance`. */
  readonly equal: boolean;
  /** What the sample's specialization left generic (`specializationNotes`). */
  readonly notes: readonly string[];
  readonly machine: MachineInfo;
  readonly method: string;
}

export interface KernelConfigOptions {
  /**
   * 'js' skips WebGPU; 'webgpu' skips the JS back end and needs an adapter (`NoGpuAdapter`
   * without one); default 'auto': the JS back end, and WebGPU too when there is an adapter.
   */
  readonly backend?: 'auto' | 'js' | 'webgpu';
  /** A runtime to use (and keep open) instead of opening one. */
  readonly gpu?: GpuRuntime | NoAdapter;
  /** Timed rounds per comparison (default 15). */
  readonly rounds?: number;
  /** Fresh value sets for the first-result figures (default 16, a multiple of the 4 ways). */
  readonly samples?: number;
  /** false: time `runMs` on WebGPU by R dispatches against one even where the device has timestamps. */
  readonly timestamps?: boolean;
  /** The first R tried when calibrating the dispatches per launch for `runMs` on WebGPU (default 20). */
  readonly repeat?: number;
  readonly onProgress?: (step: string) => void;
}

/** R grows until R dispatches take this much longer than one (see the header)… */
export const REPEAT_TARGET_MS = 4;
/** …or reaches this. */
export const MAX_REPEAT = 20480;

/** Value sets `readyTimes` cycles through, more than any cache by values holds. */
const READY_VALUE_SETS = 4096;
/** Calls per timed batch of `readyTimes`. */
const READY_BATCH = 40;

export const KERNEL_CONFIG_METHOD =
  'one process; the config staged once and its stub imported; medians over rounds, the kernels in rotating order after ' +
  '2 warm-up runs each; runMs on the JS back end = the compiled function on arguments converted once (50 ms batches); ' +
  `on WebGPU = the device's timestamps around the kernel's compute passes, summed (runTimer "timestamps"), ` +
  'or where the adapter has none (T of a run whose elementwise launches dispatch R times − T of one) / (R − 1), ' +
  `R calibrated so that difference is at least ${REPEAT_TARGET_MS} ms and T of one run (runTimer "repeat"), ` +
  'inputs on the device; roundTripMs = one call with upload and read back; firstResultMs with fresh values per sample, ' +
  'the four ways in the rows of a Williams Latin square (each follows each other equally often) ' +
  "(the sample's floats scaled by 1 + k·2^-20); readyUs = specializedKernel for fresh values of the sample's shape, " +
  `batches of ${READY_BATCH} calls, the two ways alternated; outputs compared with the reference evaluator's, element for element ` +
  `(a GPU's within ${GPU_ULPS} ulps of the value or of the data's scale, plus the WGSL bound of the math functions it calls).`;

/**
 * The order of round `k` among `n` ways (`n` even): the rows of a Williams Latin square, so that
 * over `n` rounds each way runs once in each position and right after each other way once. What
 * one way leaves behind — a pipeline compiled, garbage to collect — then falls on every other way
 * alike, where a rotation (which keeps the cyclic order) would put it on the same one each time.
 */
export function balancedOrder(n: number, k: number): number[] {
  // the first row is 0, 1, n−1, 2, n−2, …; row k adds k to each (mod n)
  const row = [0];
  for (let i = 1, lo = 1, hi = n - 1; i < n; i++) row.push(i % 2 === 1 ? lo++ : hi--);
  return row.map((x) => (x + k) % n);
}

/** The arguments of every formal: the config's `args` and its `sample` (the late values). */
export function configArgs(config: StageConfig, formals: readonly string[]): Record<string, ArgValue> {
  if (config.sample === undefined)
    throw configError(config, '', "a kernel benchmark needs 'sample': the late values to specialize for");
  const out: Record<string, ArgValue> = {};
  for (const [name, spec] of Object.entries(config.args ?? {})) {
    if (!formals.includes(name))
      throw configError(config, `args.${name}:key`, `'${config.function}' has no parameter '${name}'`);
    out[name] = argValue(spec);
  }
  for (const [name, v] of Object.entries(config.sample)) out[name] = v as ArgValue;
  const missing = formals.filter((f) => !Object.hasOwn(out, f));
  if (missing.length > 0)
    throw configError(
      config,
      config.args === undefined ? '' : 'args',
      `'args' has no value for ${missing.map((m) => `'${m}'`).join(', ')} (a kernel benchmark runs the kernel on every formal)`,
    );
  return out;
}

/** The late values with their floats scaled by 1 + k·2⁻²⁰ (ints and bools kept). */
export function freshValues(
  values: Readonly<Record<string, ArgValue>>,
  ints: ReadonlySet<string>,
  k: number,
) {
  const f = 1 + k / 1048576;
  const scale = (x: number | boolean) => (typeof x === 'number' ? Math.fround(x * f) : x);
  return Object.fromEntries(
    Object.entries(values).map(([name, v]) => [
      name,
      ints.has(name) ? v : Array.isArray(v) ? (v as (number | boolean)[]).map(scale) : scale(v as number),
    ]),
  ) as Record<string, ArgValue>;
}

/** Medians of async calls, `rounds` rounds in rotating order after 2 warm-up calls each (ms per call). */
async function alternateAsync<K extends string>(
  fns: Readonly<Record<K, () => Promise<unknown>>>,
  rounds: number,
): Promise<Record<K, number>> {
  const keys = Object.keys(fns) as K[];
  for (const k of keys) for (let w = 0; w < 2; w++) await fns[k]();
  const times = keys.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < keys.length; j++) {
      const i = (j + r) % keys.length;
      const t = performance.now();
      await fns[keys[i] as K]();
      (times[i] as number[]).push(performance.now() - t);
    }
  }
  return Object.fromEntries(keys.map((k, i) => [k, median(times[i] as number[])])) as Record<K, number>;
}

/**
 * `readyUs` (see the header): `specializedKernel` on the JS back end for fresh values of the
 * sample's shape, the compiled template found by shape against made afresh, µs per call.
 */
async function readyTimes(
  stub: LoadedStub,
  values: Readonly<Record<string, ArgValue>>,
  ints: ReadonlySet<string>,
): Promise<{ shape: number; template: number }> {
  const genericFun = stub.unstagedPipeline(stub.formalsOf({}));
  const generic = await compileFor(genericFun, 'js');
  const source: TierSource = {
    fun: stub.FUN,
    generic: genericFun,
    specialize: (v) => stub.specialize(v as Bindings).fun,
  };
  const sets = Array.from({ length: READY_VALUE_SETS }, (_, k) => freshValues(values, ints, k + 1));
  let next = 0;
  const batch = (tiers: TieredKernels) => async () => {
    for (let i = 0; i < READY_BATCH; i++)
      await tiers.specializedKernel(sets[next++ % sets.length] as Bindings);
  };
  const ways = {
    shape: TieredKernels.withGeneric(source, { backend: 'js' }, generic),
    template: TieredKernels.withGeneric(source, { backend: 'js', findTemplate: 'template' }, generic),
  };
  // the sample's shape compiled by each before the timing
  for (const t of Object.values(ways)) await t.specializedKernel(values);
  const ms = await alternateAsync({ shape: batch(ways.shape), template: batch(ways.template) }, 15);
  const us = (x: number) => Math.round((x * 1000 * 10) / READY_BATCH) / 10;
  return { shape: us(ms.shape), template: us(ms.template) };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : Number.POSITIVE_INFINITY);

async function benchBackend(
  backend: KernelBackend,
  ctx: {
    readonly stub: LoadedStub;
    readonly args: Record<string, ArgValue>;
    readonly values: Record<string, ArgValue>;
    readonly ints: ReadonlySet<string>;
    readonly reference: KernelResult;
    /** The data's scale for the GPU tolerance (`dataScale`). */
    readonly scale: number;
    /** The GPU tolerance in ulps (`toleranceUlps`: GPU_ULPS plus the bounds of the math functions called). */
    readonly tolerance: number;
    readonly opts: KernelConfigOptions;
  },
): Promise<BackendReport> {
  const { stub, args, values, ints, reference, scale, tolerance, opts } = ctx;
  const rounds = opts.rounds ?? 15;
  const name = backend === 'js' ? 'JS back end' : backend.adapterName;
  opts.onProgress?.(`${name}: compiling the generic and the specialized kernel`);
  const genericFun = stub.unstagedPipeline(stub.formalsOf({}));
  const generic = await compileFor(genericFun, backend);
  const tierSource: TierSource = {
    fun: stub.FUN,
    generic: genericFun,
    specialize: (v) => stub.specialize(v as Bindings).fun,
  };
  // the kernels an application gets for the sample's values: the template of their shape (made at
  // once when the shape was compiled before) and the kernel a tiered handle ends with — the same
  // on the JS back end, the one with its constants as literals on WebGPU (tiers.ts)
  const specializer = TieredKernels.withGeneric(tierSource, { backend }, generic);
  const template = await specializer.specializedKernel(values);
  const specialized =
    backend === 'js' ? template : await compileFor(stub.specialize(values as Bindings).fun, backend);
  const outG = compareResults(await generic.run(args), reference, scale, tolerance);
  const outS = compareResults(await specialized.run(args), reference, scale, tolerance);
  const outT =
    template === specialized ? outS : compareResults(await template.run(args), reference, scale, tolerance);

  opts.onProgress?.(`${name}: timing the round trip`);
  const trip = await alternateAsync(
    { generic: () => generic.run(args), specialized: () => specialized.run(args) },
    rounds,
  );
  const timed = await runTimes(backend, { generic, specialized }, args, opts, rounds, name);
  const run = timed.run ?? trip;
  const templateRun =
    template === specialized
      ? undefined
      : ((await runTimes(backend, { generic, specialized: template }, args, opts, rounds, name)).run ?? trip)
          .specialized;

  opts.onProgress?.(`${name}: values known → first result, fresh values per sample`);
  // the tiers' generic kernel is the one timed as `generic` (the same compiled code, as warm)
  const tiers = TieredKernels.withGeneric(tierSource, { backend }, generic);
  const first = {
    generic: [] as number[],
    specialized: [] as number[],
    newShape: [] as number[],
    tiered: [] as number[],
  };
  const samples = opts.samples ?? 16;
  // values known → first output; the tiered handle's background work is awaited outside the timing
  const firstResult = async (way: keyof typeof first, v: Record<string, ArgValue>): Promise<void> => {
    if (way === 'generic') await generic.run({ ...args, ...v });
    else if (way === 'specialized') await (await specializer.specializedKernel(v)).run({ ...args, ...v });
    else if (way === 'newShape') {
      // constants as literals: new code each sample, which no cache of ours nor the driver's holds
      await (await compileFor(stub.specialize(v as Bindings).fun, backend)).run({ ...args, ...v });
    } else await tiers.forValues(v).run(args);
  };
  const ways = Object.keys(first) as (keyof typeof first)[];
  for (let k = 0; k < samples; k++) {
    const order = balancedOrder(ways.length, k);
    for (let j = 0; j < order.length; j++) {
      const way = ways[order[j] as number] as keyof typeof first;
      const v = freshValues(values, ints, 1 + k * order.length + j);
      const t = performance.now();
      await firstResult(way, v);
      first[way].push(performance.now() - t);
      if (way === 'tiered') await tiers.forValues(v).ready;
    }
  }
  return {
    device: name,
    runMs: run,
    roundTripMs: trip,
    firstResultMs: {
      generic: median(first.generic),
      specialized: median(first.specialized),
      newShape: median(first.newShape),
      tiered: median(first.tiered),
    },
    ...(templateRun !== undefined ? { templateRunMs: templateRun } : {}),
    speedup: { run: ratio(run.generic, run.specialized), roundTrip: ratio(trip.generic, trip.specialized) },
    equal: outG.equal && outS.equal && outT.equal,
    withinTolerance: outG.withinTolerance && outS.withinTolerance && outT.withinTolerance,
    maxAbsDiff: Math.max(outG.diff, outS.diff, outT.diff),
    maxUlps: Math.max(outG.ulps, outS.ulps, outT.ulps),
    ...(timed.runTimer !== undefined ? { runTimer: timed.runTimer } : {}),
    ...(timed.repeat !== undefined ? { repeat: timed.repeat } : {}),
  };
}

/**
 * `runMs` of two kernels (see the header): the JS back end's bound calls, the device's clock, or
 * R dispatches against one; `run` undefined where neither applies (the round trip stands in).
 */
async function runTimes(
  backend: KernelBackend,
  kernels: { readonly generic: ReadyKernel; readonly specialized: ReadyKernel },
  args: Readonly<Record<string, ArgValue>>,
  opts: KernelConfigOptions,
  rounds: number,
  name: string,
): Promise<{ run?: TierTimes; runTimer?: BackendReport['runTimer']; repeat?: number }> {
  const { generic, specialized } = kernels;
  if (generic.bind && specialized.bind) {
    opts.onProgress?.(`${name}: timing the kernels alone`);
    const us = alternate({ generic: generic.bind(args), specialized: specialized.bind(args) }, rounds, 50);
    return { run: { generic: us.generic / 1000, specialized: us.specialized / 1000 } };
  }
  if (backend === 'js') return {};
  if (backend.timestamps && opts.timestamps !== false) {
    opts.onProgress?.(`${name}: timing the kernels on the device's clock`);
    return { run: await deviceTimes(kernels, args, rounds), runTimer: 'timestamps' };
  }
  opts.onProgress?.(`${name}: timing the kernels with their data on the device`);
  const R = await calibrateRepeat(specialized, args, Math.max(2, opts.repeat ?? 20));
  const t = await alternateAsync(
    {
      g1: () => generic.run(args),
      gR: () => generic.run(args, { repeat: R }),
      s1: () => specialized.run(args),
      sR: () => specialized.run(args, { repeat: R }),
    },
    rounds,
  );
  return {
    run: {
      generic: Math.max(0, (t.gR - t.g1) / (R - 1)),
      specialized: Math.max(0, (t.sR - t.s1) / (R - 1)),
    },
    runTimer: 'repeat',
    repeat: R,
  };
}

/** Medians of the device's time in each kernel's passes (`timing`), in rotating order after warm-up. */
async function deviceTimes(
  kernels: { readonly generic: ReadyKernel; readonly specialized: ReadyKernel },
  args: Readonly<Record<string, ArgValue>>,
  rounds: number,
): Promise<TierTimes> {
  const keys = ['generic', 'specialized'] as const;
  const times = { generic: [] as number[], specialized: [] as number[] };
  for (const k of keys) for (let w = 0; w < 2; w++) await kernels[k].run(args, { timing: true });
  for (let r = 0; r < rounds; r++)
    for (let j = 0; j < keys.length; j++) {
      const k = keys[(j + r) % keys.length] as (typeof keys)[number];
      const { gpuMs } = await kernels[k].run(args, { timing: true });
      if (gpuMs === undefined) throw new Error('internal error: a timed run without the device time');
      times[k].push(gpuMs);
    }
  return { generic: median(times.generic), specialized: median(times.specialized) };
}

/**
 * R for `runMs` on WebGPU (see the header): from `first`, ×4 until R dispatches of `kernel` take
 * REPEAT_TARGET_MS longer than one run and at least as long again (medians of 3), or MAX_REPEAT.
 */
async function calibrateRepeat(
  kernel: ReadyKernel,
  args: Readonly<Record<string, ArgValue>>,
  first: number,
): Promise<number> {
  const time = async (r: number) => {
    const ts: number[] = [];
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      await kernel.run(args, { repeat: r });
      ts.push(performance.now() - t);
    }
    return median(ts);
  };
  let R = Math.min(first, MAX_REPEAT);
  await time(R);
  for (;;) {
    const one = await time(1);
    const extra = (await time(R)) - one;
    if (R >= MAX_REPEAT || (extra >= REPEAT_TARGET_MS && extra >= one)) return R;
    R = Math.min(R * 4, MAX_REPEAT);
  }
}

/** The kernel benchmark of one config; see the header. */
export async function runKernelConfigBench(
  file: string,
  opts: KernelConfigOptions = {},
): Promise<KernelConfigReport> {
  await loadKernelParser();
  const config = loadConfig(file);
  opts.onProgress?.(`staging ${file}`);
  const t0 = performance.now();
  const staged = await stageConfig(config);
  const stagingSeconds = (performance.now() - t0) / 1000;
  const formals = listToArray(staged.fun.params);
  const args = configArgs(
    config,
    formals.map((p) => p.name),
  );
  const values = Object.fromEntries(Object.keys(config.sample ?? {}).map((k) => [k, args[k] as ArgValue]));
  const ints = new Set(formals.filter((p) => p.ty !== 'float').map((p) => p.name));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-kernel-'));
  let opened: GpuRuntime | NoAdapter | undefined;
  try {
    const written = writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: config.bind });
    const stub = await importStub(written.stub);
    opts.onProgress?.('the reference evaluator on the original kernel');
    const reference = evaluate(programOf(stub.FUN), config.function, args, { fuel: Number.MAX_SAFE_INTEGER });
    const scale = dataScale(...Object.values(args), reference.result, ...Object.values(reference.outputs));
    const tolerance = toleranceUlps(programOf(stub.FUN));
    const ctx = { stub, args, values, ints, reference, scale, tolerance, opts };
    const js = opts.backend === 'webgpu' ? undefined : await benchBackend('js', ctx);
    let webgpu: BackendReport | undefined;
    let noWebgpu: string | undefined;
    if (opts.backend !== 'js') {
      opened = opts.gpu ?? (await GpuRuntime.open());
      if (opened instanceof GpuRuntime) webgpu = await benchBackend(opened, ctx);
      else if (opts.backend === 'webgpu') throw new NoGpuAdapter(config.function, opened);
      else noWebgpu = `${opened.reason}; ${opened.install}`;
    } else noWebgpu = 'skipped (--backend js)';
    opts.onProgress?.('timing the staged and the unstaged pipeline side by side');
    const formalsNow = stub.formalsOf(values as Bindings);
    const pipe = alternate(
      {
        staged: () => stub.specialize(values as Bindings),
        unstaged: () => stub.unstagedPipeline(formalsNow),
      },
      15,
      20,
    );
    const ready = opts.backend === 'webgpu' ? undefined : await readyTimes(stub, values, ints);
    return {
      config: file,
      id: configId(config),
      function: config.function,
      stagingSeconds: Math.round(stagingSeconds * 100) / 100,
      backends: { ...(js ? { js } : {}), ...(webgpu ? { webgpu } : {}) },
      ...(noWebgpu !== undefined ? { noWebgpu } : {}),
      specializeUs: { staged: pipe.staged, unstaged: pipe.unstaged },
      ...(ready ? { readyUs: ready } : {}),
      equal: (js?.equal ?? true) && (webgpu?.withinTolerance ?? true),
      notes: specializationNotes(stub.specialize(values as Bindings).fun, programOf(stub.FUN)),
      machine: machineInfo(),
      method: KERNEL_CONFIG_METHOD,
    };
  } finally {
    if (opts.gpu === undefined && opened instanceof GpuRuntime) opened.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report as text: one line per back end, speed-ups first. */
export function formatKernelConfigReport(r: KernelConfigReport): string {
  const f = (x: number) =>
    x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 0.01 || x === 0 ? x.toFixed(2) : x.toPrecision(2);
  const outputs = (b: BackendReport) =>
    b.equal
      ? 'outputs equal'
      : b.withinTolerance && name(b) !== 'js'
        ? `outputs within the GPU tolerance (up to ${b.maxUlps} ulp, ${b.maxAbsDiff})`
        : `outputs differ by up to ${b.maxUlps} ulp (${b.maxAbsDiff})`;
  const name = (b: BackendReport) => (b === r.backends.js ? 'js' : 'webgpu');
  const timer = (b: BackendReport) =>
    b.runTimer === 'timestamps' ? ', device clock' : b.repeat !== undefined ? `, R = ${b.repeat}` : '';
  const lines = [`${r.config} (${r.function}): staged in ${r.stagingSeconds} s`];
  for (const [label, b] of Object.entries(r.backends) as [string, BackendReport][]) {
    lines.push(
      `  ${label.padEnd(6)} run ${f(b.runMs.generic)} → ${f(b.runMs.specialized)} ms (${b.speedup.run}×${timer(b)}` +
        `${b.templateRunMs !== undefined ? `; template ${f(b.templateRunMs)} ms` : ''}), ` +
        `round trip ${f(b.roundTripMs.generic)} → ${f(b.roundTripMs.specialized)} ms (${b.speedup.roundTrip}×), ` +
        `first result generic ${f(b.firstResultMs.generic)} / specialized ${f(b.firstResultMs.specialized)} ` +
        `(new shape ${f(b.firstResultMs.newShape)}) / tiered ${f(b.firstResultMs.tiered)} ms, ` +
        `${outputs(b)} [${b.device}]`,
    );
  }
  if (r.noWebgpu) lines.push(`  webgpu: not measured: ${r.noWebgpu}`);
  for (const note of r.notes) lines.push(`  note: ${note}`);
  lines.push(
    `  specialize: staged ${r.specializeUs.staged.toFixed(1)} µs, unstaged ${r.specializeUs.unstaged.toFixed(1)} µs (${ratio(r.specializeUs.unstaged, r.specializeUs.staged)}×)`,
    ...(r.readyUs
      ? [
          `  values known → kernel ready (a shape compiled before): by shape ${r.readyUs.shape.toFixed(1)} µs, making its template afresh ${r.readyUs.template.toFixed(1)} µs (${ratio(r.readyUs.template, r.readyUs.shape)}×)`,
        ]
      : []),
  );
  return lines.join('\n');
}
