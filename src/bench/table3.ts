/**
 * The benchmark of SCF's Table 3: staged against unstaged optimizer pipelines on the eleven
 * configurations of Table 2.
 *
 * Method (per configuration, all in one process, all ratios taken side by side):
 * - Stage the config's pipeline (`stageConfig`), write the staged modules and stub, import the
 *   stub: the code timed is the emitted TypeScript users run, JIT-compiled by the same Node as the
 *   unstaged optimizers, which run natively (their SCF-lang sources are plain TypeScript).
 * - Stage-2 input: the config's `sample` values (SCF Table 2's "stage2" column).
 * - Compiler speed-up: unstaged pipeline time / staged pipeline time (admission check included)
 *   on that input. Both are warmed up, then timed in alternating batches (each ~2 ms) until the
 *   time budget is spent; the figure is the ratio of the medians of per-run times.
 * - Instruction reduction: Core nodes evaluated by the counting interpreter running the unstaged
 *   optimizers / running the residual (staged) programs, on the same input; map and set operations
 *   alone for the map-operation reduction (SCF reports those: over 90% of its compiler time).
 * - Size ratio: Core nodes of the staged pipeline (after DAE and merging) / of the unstaged one.
 * - Lower bound: the time to build the optimized function as a literal (a hand-built copy); the
 *   staged time divided by it is how far the staged optimizer is from the limit.
 * - Break-even: staging time / (unstaged − staged time per run): late-stage runs after which
 *   staging paid off (`null` when the staged pipeline is not faster).
 * - Compiled-code speed-up: the original kernel / the optimized kernel, both compiled by the JS
 *   back end (src/target), timed the same way, on the config's `args` (the kernel's run-time
 *   arguments) with the `sample` values for the staged formals. A config without `args` runs on
 *   deterministic arguments made up from the parameters' names (kernel-args.ts: what the Table 2
 *   kernels take); when its kernel fails on those, the figure is `null` and `codeSkipped` says why.
 *   A kernel that fails on the config's own `args` is the config's fault: `KernelBenchError`.
 * - equal: the staged pipeline's output is deep-strictly equal to the unstaged one's.
 * - Per-pass and whole-pipeline staging side by side: the config is staged both ways (`scf stage
 *   --per-pass`, and `"staging": "whole"` where the pipeline composes); the unstaged pipeline is
 *   timed against the per-pass one, the per-pass one against the whole one (`whole.vsPerPass`:
 *   per-pass / whole time, side by side), and, where `auto` (the default) picks the whole
 *   pipeline, the unstaged one against it. The row's figures (`staging`, speed-up, instructions,
 *   size, × limit, break-even) are the default's, what `scf stage` writes; `perPass` and `whole`
 *   hold each way's own; `passes` is the per-pass staging's.
 *
 * A config's id is its `id`, or else its file's name without `.json` (`configId`): the report's
 * rows and `ids` use it. Every config needs a `sample`: without one there is no late input to time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  astNodes,
  type Fun,
  KernelArgumentError,
  KernelRuntimeError,
  listFromArray,
  listToArray,
  loadKernelParser,
  printFun,
  type Program,
  programWith,
} from '../kernel/index.js';
import { type AbsValue, size as absSize } from '../abstract-values/index.js';
import { type Bindings, type LatticeVal, optimizerProgram } from '../optimizers/index.js';
import { Interpreter } from '../scf-lang/index.js';
import {
  configError,
  configFilesIn,
  loadConfig,
  composable,
  type PipelineStage,
  type StageConfig,
  type Staging,
  WHOLE_TRIAL_BUDGET,
  stageConfig,
  writeStaged,
  importStub,
  type LoadedStub,
} from '../pipeline/index.js';
import { compileKernelJs } from '../target/index.js';
import { kernelArgs } from './kernel-args.js';
import { configArgs } from './kernel-config.js';
import { median } from './report.js';
import { batchSize, timeBatch } from './timing.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const TABLE2_DIR = path.join(ROOT, 'configs/table2');

export interface BenchRow {
  /** The config's `id`, or its file's name without `.json`. */
  readonly id: number | string;
  readonly function: string;
  readonly config: string;
  /** Unstaged / staged late-stage pipeline time. */
  readonly compilerSpeedup: number;
  /** Core instructions unstaged / staged. */
  readonly instructionReduction: number;
  /** Map and set operations unstaged / staged (`null` when the staged pipeline does none). */
  readonly mapOpReduction: number | null;
  readonly inputLoc: number;
  readonly inputNodes: number;
  /** Staged pipeline Core nodes / unstaged pipeline Core nodes. */
  readonly sizeRatio: number;
  /** Original kernel time / optimized kernel time on the JS back end (`null`: see `codeSkipped`). */
  readonly codeSpeedup: number | null;
  /** The kernel's arguments for `codeSpeedup`: the config's `args`, or made up from parameter names. */
  readonly codeArgs: 'config' | 'made-up';
  /** Why `codeSpeedup` is `null`: the kernel failed on the made-up arguments. */
  readonly codeSkipped?: string;
  /** Staged time / the time to build the output as a literal. */
  readonly limitRatio: number;
  /** Late-stage runs after which staging paid off (`null`: never). */
  readonly breakEven: number | null;
  readonly equal: boolean;
  readonly stagingSeconds: number;
  readonly unstagedUs: number;
  readonly stagedUs: number;
  readonly limitUs: number;
  readonly instructions: { readonly unstaged: number; readonly staged: number };
  readonly mapOps: { readonly unstaged: number; readonly staged: number };
  readonly pipelineNodes: { readonly unstaged: number; readonly staged: number };
  /** Why partial evaluation stopped, per pass. */
  readonly stop: string;
  /** Per pass: its own instruction and map-operation counts and what staging it lost. */
  readonly passes: readonly PassRow[];
  /** How `scf stage` stages the config by default (`"staging": "auto"`): what the row's figures are. */
  readonly staging?: 'whole' | 'per-pass';
  /** The per-pass staged pipeline's own figures. */
  readonly perPass?: StagingRow;
  /** The whole-pipeline staged pipeline's (`null`: the pipeline has a user's pass and does not compose). */
  readonly whole?: (StagingRow & { readonly vsPerPass: number; readonly stop: string }) | null;
}

/** One way of staging a config in the benchmark: its staged time, speed-up and × limit. */
export interface StagingRow {
  readonly stagedUs: number;
  /** Unstaged / this staged time (side by side; for the whole pipeline, only where it is the default). */
  readonly compilerSpeedup: number | null;
  readonly limitRatio: number;
  readonly stagingSeconds: number;
  readonly instructions: number;
  readonly equal: boolean;
}

/** One pass of a configuration's pipeline in the benchmark report. */
export interface PassRow {
  readonly pass: string;
  readonly instructions: { readonly unstaged: number; readonly staged: number };
  readonly mapOps: { readonly unstaged: number; readonly staged: number };
  readonly instructionReduction: number;
  readonly mapOpReduction: number | null;
  /** Nodes of the pass's abstract input (I1, I2, …) and of its abstract output. */
  readonly inputAbsNodes: number;
  readonly outputAbsNodes: number;
  readonly stop: string;
  /** Specialization parameters or results widened to `1`, and cut to a skeleton. */
  readonly widenedToTop: number;
  readonly skeletons: number;
  readonly generalized: number;
  readonly residualFunctions: number;
}

/** The machine a benchmark ran on, as its reports record it. */
export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
}

/** This machine, now. */
export function machineInfo(): MachineInfo {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}

export interface BenchReport {
  readonly configs: BenchRow[];
  readonly machine: MachineInfo;
  readonly method: string;
}

export interface BenchProgress {
  readonly index: number;
  readonly total: number;
  readonly config: string;
  readonly phase: 'staging' | 'timing' | 'counting' | 'done';
  readonly row?: BenchRow;
}

export interface BenchOptions {
  /** Config ids to run (`configId`; default: all in the folder). */
  readonly ids?: readonly (number | string)[];
  /** Folder of config JSON files (default configs/table2). */
  readonly dir?: string;
  /** Milliseconds of timing per comparison (default 600). */
  readonly budgetMs?: number;
  readonly onProgress?: (p: BenchProgress) => void;
}

/**
 * Calls each side is run before timing: a staged optimizer is thousands of small residual
 * functions, each called a few times per run, so V8 optimizes them only after some thousand runs
 * (the staged pipelines of the larger configurations run about ten times faster from a few
 * thousand runs on than cold; the unstaged optimizers, a few functions called often, settle
 * within a few hundred runs). Timing earlier measures the JIT's warm-up, not the code;
 * docs/benchmarks.md reports the cold runs too.
 */
export const WARMUP_RUNS = 5000;

export const METHOD =
  'one process; per config: staged modules emitted and imported; stage-2 input = the config sample; ' +
  'pipeline times are medians of per-run times over alternating ~2 ms batches after a warm-up of ' +
  `${WARMUP_RUNS} runs of each side (at most 10× the timing budget), ` +
  'speed-ups are ratios of those medians; instruction counts from the Core interpreter.';

/** What the stub `writeStaged` writes exports (src/pipeline/write.ts). */
export type Stub = LoadedStub;

/**
 * A kernel that fails at run time on the arguments its config gives (`args`): the config's fault,
 * not scf's. The message names the config.
 */
export class KernelBenchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KernelBenchError';
  }
}

/** A config's id: its `id`, or else its file's name without `.json`. */
export function configId(config: StageConfig): number | string {
  return config.id ?? path.basename(config.file, '.json');
}

/** Throws the `ConfigError` of a config without `sample`: there is no late input to time. */
export function requireSample(config: StageConfig): void {
  if (config.sample === undefined)
    throw configError(
      config,
      '',
      "a benchmark needs 'sample': the late values the pipelines are timed on",
      'C1009',
    );
}

/** The configs of `dir` (sorted by file name) with their ids (`configId`). */
export function listConfigs(dir = TABLE2_DIR): { file: string; id: number | string; config: StageConfig }[] {
  return configFilesIn(dir).map((file) => {
    const config = loadConfig(file);
    return { file, id: configId(config), config };
  });
}

export async function runBenchmarks(opts: BenchOptions = {}): Promise<BenchReport> {
  await loadKernelParser();
  const all = listConfigs(opts.dir);
  const wanted = opts.ids?.map(String);
  const chosen = wanted ? all.filter((c) => wanted.includes(String(c.id))) : all;
  // checked before the first config is timed, so a long run never ends on a config it cannot time
  for (const { config } of chosen) requireSample(config);
  // the staged folders, in the OS's temporary folder (never the package's), removed however it ends
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-'));
  const rows: BenchRow[] = [];
  try {
    for (const [index, { file, config }] of chosen.entries()) {
      const name = path.basename(file, '.json');
      const progress = (phase: BenchProgress['phase'], row?: BenchRow) =>
        opts.onProgress?.({ index, total: chosen.length, config: name, phase, ...(row ? { row } : {}) });
      const row = await benchConfig(config, name, path.join(tmp, name), opts.budgetMs ?? 600, progress);
      rows.push(row);
      progress('done', row);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return {
    configs: rows,
    machine: machineInfo(),
    method: METHOD,
  };
}

/**
 * `config` staged and written into `dir`, its stub imported, and both pipelines run once on the
 * sample's formals (what every staged-vs-unstaged timing starts from).
 */
export async function stagedSample(config: StageConfig, dir: string, staging?: Staging) {
  const t0 = performance.now();
  const staged = await stageConfig(config, staging !== undefined ? { staging } : {});
  const stagingSeconds = (performance.now() - t0) / 1000;
  const written = writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: config.bind });
  const stub = await importStub(written.stub);
  const formals = stub.formalsOf((config.sample ?? {}) as Bindings);
  const outStaged = stub.stagedPipeline(formals);
  const outUnstaged = stub.unstagedPipeline(formals);
  return { staged, stagingSeconds, stub, formals, outStaged, outUnstaged };
}

async function benchConfig(
  config: StageConfig,
  name: string,
  dir: string,
  budgetMs: number,
  progress: (phase: BenchProgress['phase']) => void,
): Promise<BenchRow> {
  progress('staging');
  const perPass = await stagedSample(config, dir, 'per-pass');
  const { staged, stub, formals, outUnstaged } = perPass;
  const whole = composable(staged.stages.map((s) => s.pass))
    ? await stagedSample(config, `${dir}-whole`, 'whole')
    : undefined;
  // what `auto` picks, from the whole staging alone (chooseStaging's rule: its trial is this run
  // cut at WHOLE_TRIAL_BUDGET visits, so it converges there exactly when this run converged
  // within them)
  const wholeResult = whole?.staged.stages[0]?.result;
  const byDefault =
    whole !== undefined &&
    wholeResult !== undefined &&
    wholeResult.stop !== 'fuel' &&
    wholeResult.peStats.visits <= WHOLE_TRIAL_BUDGET
      ? whole
      : perPass;

  // the kernel's arguments are tried before anything is timed
  const code = codeTimer(config, name, staged.program, staged.fun, programWith(staged.program, outUnstaged));

  progress('timing');
  const pipe = sideBySide(
    () => stub.unstagedPipeline(formals),
    () => stub.stagedPipeline(formals),
    budgetMs,
  );
  const vs = whole
    ? sideBySide(
        () => stub.stagedPipeline(formals),
        () => whole.stub.stagedPipeline(whole.formals),
        budgetMs,
      )
    : undefined;
  const wholePipe =
    byDefault === whole && whole
      ? sideBySide(
          () => stub.unstagedPipeline(formals),
          () => whole.stub.stagedPipeline(whole.formals),
          budgetMs,
        )
      : undefined;
  const limitUs = outputLimitUs(perPass.outStaged, budgetMs);
  const codeTimes = code.time?.(budgetMs);

  progress('counting');
  const counts = countInstructions(staged.fun, formals, staged.stages);
  const wholeCounts = whole ? countInstructions(staged.fun, formals, whole.staged.stages) : undefined;
  const chosen =
    byDefault === whole && wholePipe && wholeCounts
      ? { pipe: wholePipe, counts: wholeCounts }
      : { pipe, counts };
  const chosenStages = byDefault.staged.stages;
  const unstagedNodes = staged.stages.reduce((n, s) => n + s.result.sizes.original, 0);
  const stagedNodes = chosenStages.reduce((n, s) => n + s.result.sizes.staged, 0);
  const saving = chosen.pipe.a - chosen.pipe.b;
  const equalOf = (x: { outStaged: unknown; outUnstaged: unknown }) =>
    isDeepStrictEqual(x.outStaged, x.outUnstaged);
  return {
    id: configId(config),
    function: config.function,
    config: name,
    compilerSpeedup: round(chosen.pipe.a / chosen.pipe.b),
    instructionReduction: round(chosen.counts.unstaged.total / chosen.counts.staged.total),
    mapOpReduction:
      chosen.counts.staged.ops === 0 ? null : round(chosen.counts.unstaged.ops / chosen.counts.staged.ops),
    inputLoc: printFun(staged.fun).split('\n').length,
    inputNodes: astNodes(staged.fun),
    sizeRatio: ratioOf(stagedNodes, unstagedNodes),
    codeSpeedup: codeTimes === undefined ? null : round(codeTimes.a / codeTimes.b),
    codeArgs: code.from,
    ...(code.skipped !== undefined ? { codeSkipped: code.skipped } : {}),
    limitRatio: round(chosen.pipe.b / limitUs),
    breakEven: saving > 0 ? Math.ceil((byDefault.stagingSeconds * 1e6) / saving) : null,
    equal: equalOf(perPass) && (whole === undefined || equalOf(whole)),
    stagingSeconds: round(byDefault.stagingSeconds),
    unstagedUs: round(chosen.pipe.a),
    stagedUs: round(chosen.pipe.b),
    limitUs: round(limitUs, 3),
    instructions: { unstaged: chosen.counts.unstaged.total, staged: chosen.counts.staged.total },
    mapOps: { unstaged: chosen.counts.unstaged.ops, staged: chosen.counts.staged.ops },
    pipelineNodes: { unstaged: unstagedNodes, staged: stagedNodes },
    stop: chosenStages.map((s) => s.result.stop).join('/'),
    passes: passRows(staged.stages, counts),
    staging: byDefault === whole ? 'whole' : 'per-pass',
    perPass: {
      stagedUs: round(pipe.b),
      compilerSpeedup: round(pipe.a / pipe.b),
      limitRatio: round(pipe.b / limitUs),
      stagingSeconds: round(perPass.stagingSeconds),
      instructions: counts.staged.total,
      equal: equalOf(perPass),
    },
    whole:
      whole && vs && wholeResult && wholeCounts
        ? {
            stagedUs: round(vs.b),
            compilerSpeedup: wholePipe ? round(wholePipe.a / wholePipe.b) : null,
            limitRatio: round(vs.b / limitUs),
            stagingSeconds: round(whole.stagingSeconds),
            instructions: wholeCounts.staged.total,
            equal: equalOf(whole),
            vsPerPass: round(vs.a / vs.b),
            stop: wholeResult.stop,
          }
        : null,
  };
}

/** The per-pass rows of a config staged pass by pass (`counts`: `countInstructions` on its stages). */
function passRows(stages: readonly PipelineStage[], counts: ReturnType<typeof countInstructions>): PassRow[] {
  return stages.map((s, i) => {
    const u = counts.perPass.unstaged[i] as { total: number; ops: number };
    const st = counts.perPass.staged[i] as { total: number; ops: number };
    return {
      pass: s.pass.name,
      instructions: { unstaged: u.total, staged: st.total },
      mapOps: { unstaged: u.ops, staged: st.ops },
      instructionReduction: round(u.total / st.total),
      mapOpReduction: st.ops === 0 ? null : round(u.ops / st.ops),
      inputAbsNodes: absSize(s.input[0] as AbsValue),
      outputAbsNodes: absSize(s.result.output),
      stop: s.result.stop,
      widenedToTop: s.result.peStats.widenedToTop,
      skeletons: s.result.peStats.skeletons,
      generalized: s.result.peStats.generalized,
      residualFunctions: s.result.peStats.residualFuns,
    };
  });
}

/**
 * The original kernel against the optimized one on the JS back end, on the config's `args` (with
 * the `sample` values) or else on arguments made up from the parameters' names: `time(budgetMs)`
 * times them side by side. The original runs once here: a failure is the arguments' (a config's
 * own `args`: its error; made-up ones: no `time`, and `skipped` says why); the optimized kernel
 * failing where the original ran is scf's.
 */
function codeTimer(
  config: StageConfig,
  name: string,
  kernel: Program,
  fun: Fun,
  optimizedKernel: Program,
): { from: 'config' | 'made-up'; time?: (budgetMs: number) => { a: number; b: number }; skipped?: string } {
  const from = config.args !== undefined ? 'config' : 'made-up';
  const args =
    from === 'config'
      ? configArgs(
          config,
          listToArray(fun.params).map((p) => p.name),
        )
      : kernelArgs(fun, (config.sample ?? {}) as Record<string, unknown>);
  const original = compileKernelJs(kernel, config.function);
  let optimized: ReturnType<typeof compileKernelJs>;
  try {
    optimized = compileKernelJs(optimizedKernel, config.function);
  } catch (e) {
    // the original compiles: what the pipeline made of it does not (a user's pass wrote a call
    // to no function, or a name no back end knows)
    throw new KernelBenchError(
      `${name} (${config.file}): '${config.function}' as the pipeline optimized it cannot be compiled (${(e instanceof Error ? e.message : String(e)).replace(/^(internal error: )+/, '')}): a pass of the pipeline broke it`,
    );
  }
  try {
    original.run(args);
  } catch (e) {
    if (!isArgumentFault(e)) throw e;
    const detail = e.message.replace(/^error: /, '');
    if (from === 'made-up')
      return {
        from,
        skipped: `'${config.function}' fails on arguments made up from its parameter names (${detail}); give its run-time arguments in the config's "args"`,
      };
    if (e instanceof KernelArgumentError)
      throw configError(config, 'args', `'args' do not fit '${config.function}': ${detail}`);
    throw new KernelBenchError(
      `${name} (${config.file}): '${config.function}' fails on the config's "args": ${detail}`,
    );
  }
  // the original runs: the optimized kernel must too, or a pass of the pipeline broke it
  try {
    optimized.run(args);
  } catch (e) {
    if (!isArgumentFault(e)) throw e;
    throw new KernelBenchError(
      `${name} (${config.file}): '${config.function}' as the pipeline optimized it fails where the original runs (${e.message.replace(/^error: /, '')}): a pass of the pipeline changed what it computes`,
    );
  }
  return {
    from,
    time: (budgetMs) =>
      sideBySide(
        () => original.run(args),
        () => optimized.run(args),
        budgetMs,
      ),
  };
}

/**
 * What running a compiled kernel throws because of its arguments: the evaluator's run-time errors
 * and argument checks, and the JS back end's checks before a combinator's loop (plain Errors:
 * mapped arrays of one length, iotas of non-negative lengths).
 */
function isArgumentFault(e: unknown): e is Error {
  return (
    e instanceof KernelRuntimeError ||
    e instanceof KernelArgumentError ||
    (e instanceof Error &&
      e.constructor === Error &&
      /lengths differ|of a negative length|^fused loop: /.test(e.message))
  );
}

/** `a / b` to two decimals, or two significant digits below 0.1 (a small staged pass is not 0). */
function ratioOf(a: number, b: number): number {
  const x = a / b;
  return x > 0 && x < 0.1 ? Number(x.toPrecision(2)) : round(x);
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

// ---- instruction counts -------------------------------------------------------------------------

function countInstructions(fun: Fun, formals: readonly LatticeVal[], stages: readonly PipelineStage[]) {
  const list = listFromArray([...formals]);
  const run = (which: 'unstaged' | 'staged') => {
    let f: unknown = fun;
    let total = 0;
    let ops = 0;
    const perPass: { total: number; ops: number }[] = [];
    for (const s of stages) {
      // a whole-pipeline stage: unstaged, its passes one after the other; staged, its one residual
      const runs =
        which === 'staged'
          ? [{ program: s.result.residual, entry: s.result.entry, formals: s.pass.takesFormals }]
          : (s.composed ?? [s.pass]).map((p) => ({
              program: optimizerProgram(p),
              entry: p.entry,
              formals: p.takesFormals,
            }));
      let stageTotal = 0;
      let stageOps = 0;
      for (const run of runs) {
        // staged and unstaged intermediate results are equal (the benchmark checks the final one)
        const r = new Interpreter(run.program).run(run.entry, run.formals ? [f, list] : [f]);
        stageTotal += r.counts.total;
        stageOps += r.counts.collectionOps;
        f = r.value;
      }
      total += stageTotal;
      ops += stageOps;
      perPass.push({ total: stageTotal, ops: stageOps });
    }
    return { total, ops, perPass };
  };
  const unstaged = run('unstaged');
  const staged = run('staged');
  return { unstaged, staged, perPass: { unstaged: unstaged.perPass, staged: staged.perPass } };
}

// ---- timing -------------------------------------------------------------------------------------

/**
 * Runs each of `fns` `runs` times, interleaved in batches (so both see the same machine), or
 * until `maxMs` have passed, whichever comes first.
 */
function warmUp(fns: readonly (() => unknown)[], runs: number, maxMs: number): void {
  const end = performance.now() + maxMs;
  for (let done = 0; done < runs && performance.now() < end; done += 100) {
    for (const f of fns) timeBatch(f, 100);
  }
}

/**
 * Per-run times (µs) of `a` and `b`, measured side by side: both warmed up, then alternating
 * batches until `budgetMs` is spent; medians of the per-batch averages.
 */
export function sideBySide(a: () => unknown, b: () => unknown, budgetMs: number): { a: number; b: number } {
  warmUp([a, b], WARMUP_RUNS, budgetMs * 10);
  const na = batchSize(a, 2, 1 / 4);
  const nb = batchSize(b, 2, 1 / 4);
  const ta: number[] = [];
  const tb: number[] = [];
  const end = performance.now() + budgetMs;
  let round = 0;
  while (round < 5 || performance.now() < end) {
    for (const [f, n, out] of round % 2 === 0
      ? ([
          [a, na, ta],
          [b, nb, tb],
        ] as const)
      : ([
          [b, nb, tb],
          [a, na, ta],
        ] as const)) {
      out.push((timeBatch(f, n) * 1000) / n);
    }
    round++;
  }
  // the first rounds are warm-up
  const skip = Math.min(2, ta.length - 1);
  return { a: median(ta.slice(skip)), b: median(tb.slice(skip)) };
}

function medianTime(f: () => unknown, budgetMs: number): number {
  const n = batchSize(f, 2, 1 / 4);
  const ts: number[] = [];
  const end = performance.now() + budgetMs;
  while (ts.length < 5 || performance.now() < end) ts.push((timeBatch(f, n) * 1000) / n);
  return median(ts.slice(1));
}

/**
 * The output-construction limit (µs): the median time to build `output` afresh as an object
 * literal (a hand-built copy), timed for a third of `budgetMs`. A staged pipeline's time divided by
 * it is how far the pipeline is from merely producing its output.
 */
export function outputLimitUs(output: unknown, budgetMs: number): number {
  return medianTime(literalBuilder(output), budgetMs / 3);
}

/** A function that builds `v` afresh as an object literal: the cost of merely producing the output. */
function literalBuilder(v: unknown): () => unknown {
  return new Function(`return () => (${literal(v)});`)() as () => unknown;
}

function literal(v: unknown): string {
  if (typeof v === 'number')
    return Object.is(v, -0) ? '-0' : Number.isFinite(v) ? String(v) : `(${String(v)})`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .map((k) => `${JSON.stringify(k)}:${literal(o[k])}`)
    .join(',')}}`;
}
