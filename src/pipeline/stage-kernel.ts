/**
 * Staging a config's pipeline on its parsed kernel: build the abstract pipeline input from the
 * config's descriptions (config.ts, `configPipelineInput`) and stage the passes in order
 * (pipeline.ts), reporting progress per pass. The one path both `stageConfig` (stage-config.ts:
 * the config and kernel read from files, under node) and `stageInMemory` (memory.ts: from text, in
 * a page or a worker) take once they have the kernel. With `SCF_PASS_DEBUG=1` the kernel is
 * validated (src/kernel/validate.ts) before staging. A user's pass whose partial evaluation
 * exhausts the JavaScript stack is the user's error, a `ConfigError` at its pipeline entry naming
 * it (`userStagingError`), not an internal one.
 */
import type { AbsValue } from '../abstract-values/index.js';
import type { PeStats } from '../partial-eval/index.js';
import { formatProblems, type Fun, type Program as KernelProgram, validateProgram } from '../kernel/index.js';
import { findPass, optimizerProgram, type Pass } from '../optimizers/index.js';
import { type ConfigError, configError, configPipelineInput, type StageConfig } from './config.js';
import { type PipelineProgress, type PipelineStage, stagePipeline } from './pipeline.js';

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
  const [funAbs, formalsAbs] = configPipelineInput(config, fun, ctors, formalCtors) as [AbsValue, AbsValue];
  let staging = -1;
  let stages: PipelineStage[];
  try {
    stages = stagePipeline(funAbs, formalsAbs, passes, {
      pe: {
        k: opts.k ?? 2,
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
