/**
 * Staging a config's pipeline on its parsed kernel: build the abstract pipeline input from the
 * config's descriptions (the kernel's object language, languages.ts: config.ts's
 * `configPipelineInput`) and stage the passes in order
 * (pipeline.ts), reporting progress per pass. The one path both `stageConfig` (stage-config.ts:
 * the config and kernel read from files, under node) and `stageInMemory` (memory.ts: from text, in
 * a page or a worker) take once they have the kernel. With `SCF_PASS_DEBUG=1` the kernel is
 * validated (src/kernel/validate.ts) before staging. A pipeline with a user's pass is first run
 * once, unstaged, on the config's sample (or with nothing known: only the passes before the first
 * reading the formals when the config binds some): a pass that fails there or
 * returns a kernel that breaks the AST's invariants is refused as `scf opt` refuses it, a
 * `ConfigError` at its pipeline entry (`tryUserPasses`), rather than staged into a specializer
 * that fails on every call. A user's pass whose partial evaluation exhausts the JavaScript stack
 * is the user's error too (`userStagingError`), not an internal one.
 */
import type { AbsValue } from '../abstract-values/index.js';
import { K, type PeStats } from '../partial-eval/index.js';
import { formatProblems, type Fun, type Program as KernelProgram, validateProgram } from '../kernel/index.js';
import {
  findPass,
  optimizerProgram,
  type Pass,
  PassError,
  PassOutputError,
  runPipeline,
} from '../optimizers/index.js';
import { ConfigError, configError, type StageConfig } from './config.js';
import { kernelLanguage } from './languages.js';
import { chooseStaging, type PipelineProgress, type PipelineStage, type Staging } from './pipeline.js';

export interface StagedConfig {
  readonly config: StageConfig;
  /** The config's kernel program and its function. */
  readonly program: KernelProgram;
  readonly fun: Fun;
  readonly stages: PipelineStage[];
}

/** What staging reports as it goes. */
export interface StageProgressOptions {
  readonly k?: number;
  /** A line per pass started and per pass staged (its time, sizes and stop reason). */
  readonly onStage?: (line: string) => void;
  readonly onProgress?: (p: PipelineProgress) => void;
  /** Called every ~100,000 visits of the partial evaluator, with the pass being staged. */
  readonly onWork?: (pass: string, index: number, total: number, stats: PeStats) => void;
  /** How the pipeline is staged, over the config's `staging` (`scf stage --per-pass`). */
  readonly staging?: Staging;
}

/**
 * Stages `passes` (the config's, `configPasses`) on the config's kernel `program` and its function
 * `fun`; progress lines go to `onStage`.
 */
export function stageKernel(
  config: StageConfig,
  passes: readonly Pass[],
  { program, fun }: { readonly program: KernelProgram; readonly fun: Fun },
  opts: StageProgressOptions = {},
): StagedConfig {
  if (typeof process !== 'undefined' && process.env.SCF_PASS_DEBUG === '1') {
    const problems = validateProgram(program);
    if (problems.length > 0)
      throw new Error(
        `internal error: parsing '${config.input}' broke the kernel: ${formatProblems(problems)}`,
      );
  }
  // the first pass's constructor table has the kernel AST's, the first one taking the formals
  // has the lattice's (const-prop's when none does: then the formals are described, and checked
  // against the samples, but no stage reads them)
  const ctors = optimizerProgram(passes[0] as Pass).ctors;
  const formalPass = passes.find((p) => p.takesFormals) ?? (findPass('const-prop') as Pass);
  const formalCtors = optimizerProgram(formalPass).ctors;
  // (first: `bind` and `sample` are checked against the function, at their entries, before the
  // run before staging takes the sample's values)
  const tables = { subject: ctors, formals: formalCtors };
  const [funAbs, formalsAbs] = kernelLanguage.describe(fun, config, tables) as [AbsValue, AbsValue];
  tryUserPasses(config, passes, program);
  const mode = opts.staging ?? config.staging ?? 'auto';
  if (mode === 'whole' && !passes.every((p) => p.builtin))
    throw configError(
      config,
      'staging',
      `"whole" stages built-in passes only: a user's pass has its output checked between passes; stage this pipeline "per-pass" (or "auto")`,
      'C1014',
    );
  let staging = -1;
  let stages: PipelineStage[];
  try {
    stages = chooseStaging(funAbs, formalsAbs, passes, mode, {
      pe: {
        k: opts.k ?? K,
        ...config.pe,
        ...(opts.onWork
          ? {
              onProgress: (stats: PeStats) =>
                opts.onWork?.(passes[staging]?.name ?? '', staging, passes.length, stats),
            }
          : {}),
      },
      onProgress: (p) => {
        opts.onProgress?.(p);
        if (p.phase === 'start') {
          staging = p.index;
          opts.onStage?.(`[${p.index + 1}/${p.total}] staging ${p.pass} …`);
        } else if (p.result) {
          const r = p.result;
          opts.onStage?.(
            `[${p.index + 1}/${p.total}] ${p.pass}: ${(r.ms.pe + r.ms.dae).toFixed(0)} ms, ${r.peStats.residualFuns} residual functions, ` +
              `${r.sizes.original} → ${r.sizes.residual} → ${r.sizes.staged} Core nodes (optimizer → residual → after DAE), stop: ${r.stop}`,
          );
        }
      },
    });
  } catch (e) {
    throw userStagingError(config, passes[staging], staging, e) ?? e;
  }
  return { config, program, fun, stages };
}

/**
 * The user's error that `e`, thrown while staging `pass` (entry `index` of the config's pipeline),
 * is, if it is one: the JavaScript stack exhausted by the partial evaluator following a user's
 * pass (a recursion without end, or one call per step of a long count or list, that the
 * evaluator's fuel and call-chain bounds did not cut first) is a `ConfigError` at the pass's entry
 * naming it. In a built-in pass it stays what it is, an internal error.
 */
function userStagingError(
  config: StageConfig,
  pass: Pass | undefined,
  index: number,
  e: unknown,
): ConfigError | undefined {
  if (pass === undefined || pass.builtin) return undefined;
  if (!(e instanceof RangeError && /call stack/i.test(e.message))) return undefined;
  return configError(
    config,
    `pipeline[${index}]`,
    `staging pass '${config.pipeline[index]}' exhausted the JavaScript stack: the partial evaluator followed its recursion too deep (a recursion without end, or one call per step of a long count or list); recurse over the kernel's tree, whose depth scf bounds`,
  );
}

/**
 * A user's pass that returned a kernel breaking the AST's invariants on the run before staging
 * (`tryUserPasses`): a `ConfigError` at its pipeline entry that is the pass's error, as its
 * `PassOutputError` is under `scf opt` (exit status 1, where a pass that cannot run is 2).
 */
export class PassTrialError extends ConfigError {}

/**
 * Runs a pipeline with a user's pass once, unstaged, on the config's sample (nothing known without
 * one), each user's pass's output validated: a `PassOutputError` there becomes a `PassTrialError`,
 * a `PassError` (no termination, the stack, no Fun) a `ConfigError`, both at the failing pass's
 * pipeline entry. Built-in pipelines are not run.
 *
 * Only on what the staged pipeline can be given: the stub always knows the bound formals, so
 * without a sample, a config that binds formals runs only the passes before the first that reads
 * them (what those passes get does not depend on the values); a pass may rely on a bound formal
 * being known.
 */
function tryUserPasses(config: StageConfig, passes: readonly Pass[], program: KernelProgram): void {
  const firstReader = passes.findIndex((p) => p.takesFormals);
  const tried =
    config.sample !== undefined || Object.keys(config.bind).length === 0 || firstReader < 0
      ? passes
      : passes.slice(0, firstReader);
  if (tried.every((p) => p.builtin)) return;
  let index = -1;
  try {
    runPipeline(program, config.function, tried, config.sample ?? {}, { onPass: (i) => (index = i) });
  } catch (e) {
    if (!(e instanceof PassError || e instanceof PassOutputError) || index < 0) throw e;
    const on = config.sample ? "the config's sample" : 'the kernel with nothing known';
    const refused = configError(
      config,
      `pipeline[${index}]`,
      `${e.message}\n(the pipeline run once, unstaged, on ${on} before staging; nothing was staged)`,
    );
    if (e instanceof PassError) throw refused;
    throw new PassTrialError(refused.file, refused.line, refused.col, refused.reason, refused.code);
  }
}
