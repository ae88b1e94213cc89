/**
 * The stager (SCF Fig. 8) and pipeline staging (Fig. 4).
 *
 *   stage(program, I) = let (residual, cs, output) = PE(program, I) in (DAE(residual, cs), cs, output)
 *
 * followed by merging residual functions that are equal up to callee names (minimize.ts) and
 * splitting functions too large for V8 to optimize (split.ts).
 *
 * `stage` runs the partial evaluator (src/partial-eval) on one optimizer and the abstract
 * description of its arguments, then dead-assignment elimination with liveness patterns
 * (src/dae) on the residual program, using the collecting semantics `cs` to prune map and set
 * operations. `stagePipeline` stages a list of optimizers in order: the abstract output of one
 * (I2, I3, …) is the abstract input of the next, so every optimizer is specialized to what the
 * previous ones can produce.
 *
 * Invariants. For every concrete input admitted by the abstract input, the staged pipeline's
 * result equals the unstaged one (PE soundness + DAE soundness under a sound `cs`); each stage's
 * output description contains every result of the staged optimizer on admitted inputs. The
 * optimizers are compiled from their SCF-lang sources once per process.
 */
import path from 'node:path';
import type { AbsValue } from '../abstract-values/index.js';
import { type DaeOptions, type DaeResult, eliminateDeadAssignments } from '../dae/index.js';
import { type PeOptions, type PeResult, type PeStats, partialEvaluate } from '../partial-eval/index.js';
import { allPasses, findPass, type Pass } from '../optimizers/index.js';
import { SOURCE_ROOT } from '../common/index.js';
import { mergeEqualFunctions } from './minimize.js';
import { MAX_FUN_NODES, splitLargeFunctions } from './split.js';
import {
  type CtorDecl,
  compileFile,
  formatDiagnostic,
  type Program,
  programSize,
} from '../scf-lang/index.js';

/** A pass as the stager sees it: the registry's record (src/optimizers), built-in or a user's. */
export type StageablePass = Pass;

/** The built-in passes (every one can be staged). */
export const STAGEABLE_PASSES: readonly StageablePass[] = allPasses;

export function findStageablePass(name: string): StageablePass | undefined {
  return findPass(name);
}

/** An optimizer's source does not compile (it is outside SCF-lang). */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

const compiled = new Map<string, { program: Program; sources: ReadonlyMap<string, string> }>();

function compilePass(pass: StageablePass): { program: Program; sources: ReadonlyMap<string, string> } {
  let c = compiled.get(pass.file);
  if (!c) {
    // built-in sources are named relative to the package's src/ (as the manifest records them)
    const r = compileFile(pass.file, pass.builtin ? { cwd: SOURCE_ROOT } : {});
    if (!r.program) {
      throw new OptimizerError(
        `${pass.name}: the optimizer is not valid SCF-lang\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
      );
    }
    c = { program: r.program, sources: r.sources };
    compiled.set(pass.file, c);
  }
  return c;
}

/** The Core program of an optimizer, compiled once; an `OptimizerError` lists its diagnostics. */
export function optimizerProgram(pass: StageablePass): Program {
  return compilePass(pass).program;
}

/**
 * Every source file an optimizer is compiled from (its module and the modules it imports), as
 * absolute paths: what a staged stub's manifest hashes.
 */
export function optimizerSources(pass: StageablePass): string[] {
  const cwd = pass.builtin ? SOURCE_ROOT : process.cwd();
  return [...compilePass(pass).sources.keys()].map((f) => path.resolve(cwd, f)).sort();
}

export interface StageOptions {
  readonly pe?: PeOptions;
  readonly dae?: DaeOptions;
  /** Largest residual function emitted, in Core nodes (split.ts; default MAX_FUN_NODES). */
  readonly maxFunNodes?: number;
}

/**
 * One optimizer staged. The fields picked from `PeResult` are the partial evaluator's as it
 * returned them: `output` is the next stage's input, `events` what `scf stage --explain` prints.
 */
export interface StageResult
  extends Pick<PeResult, 'entry' | 'cs' | 'output' | 'stop' | 'reason' | 'events'> {
  /** The staged optimizer: the residual program after DAE. */
  readonly residual: Program;
  readonly peStats: PeStats;
  readonly dae: Pick<DaeResult, 'stop' | 'rounds' | 'removed'>;
  /** Residual function → what it handles (Fig. 7's comments, and the merges and splits after DAE). */
  readonly comments: ReadonlyMap<string, string>;
  readonly sizes: { readonly original: number; readonly residual: number; readonly staged: number };
  readonly ms: { readonly pe: number; readonly dae: number };
}

/** SCF Fig. 8: specializes `program`'s `entry` to the abstract arguments `input`. */
export function stage(
  program: Program,
  entry: string,
  input: readonly AbsValue[],
  opts: StageOptions = {},
): StageResult {
  const t0 = performance.now();
  const pe = partialEvaluate(program, entry, input, opts.pe);
  const t1 = performance.now();
  const dae = eliminateDeadAssignments(pe.residual, pe.cs, pe.entry, opts.dae);
  const min = mergeEqualFunctions(dae.program, pe.entry);
  const split = splitLargeFunctions(min.program, opts.maxFunNodes ?? MAX_FUN_NODES);
  const t2 = performance.now();
  const comments = new Map(pe.comments);
  for (const [kept, others] of min.merged) {
    const c = comments.get(kept);
    if (c !== undefined) comments.set(kept, `${c}; also ${others.length} equal specialization(s)`);
  }
  for (const [whole, parts] of split.parts) {
    parts.forEach((p, i) => {
      comments.set(
        p,
        `part ${i + 1} of ${whole} (split: a function over ${opts.maxFunNodes ?? MAX_FUN_NODES} Core nodes)`,
      );
    });
  }
  return {
    residual: split.program,
    entry: pe.entry,
    cs: pe.cs,
    output: pe.output,
    stop: pe.stop,
    reason: pe.reason,
    peStats: pe.stats,
    events: pe.events,
    dae: { stop: dae.stop, rounds: dae.rounds, removed: dae.removed },
    comments,
    sizes: {
      original: programSize(program),
      residual: programSize(pe.residual),
      staged: programSize(split.program),
    },
    ms: { pe: t1 - t0, dae: t2 - t1 },
  };
}

export interface PipelineStage {
  readonly pass: StageablePass;
  /** Its abstract arguments (I_k, plus the formals for const-prop). */
  readonly input: readonly AbsValue[];
  readonly result: StageResult;
  /** The constructors of its program (for admission checks and printing). */
  readonly ctors: ReadonlyMap<string, CtorDecl>;
}

export interface PipelineProgress {
  readonly pass: string;
  readonly index: number;
  readonly total: number;
  readonly phase: 'start' | 'done';
  readonly result?: StageResult;
}

/**
 * Stages `passes` in order (Fig. 4): `fun` describes the function (I1), `formals` the lattice
 * values of its formals (for const-prop). The output of stage k is the input of stage k + 1.
 */
export function stagePipeline(
  fun: AbsValue,
  formals: AbsValue,
  passes: readonly (string | StageablePass)[],
  opts: StageOptions & { readonly onProgress?: (p: PipelineProgress) => void } = {},
): PipelineStage[] {
  const stages: PipelineStage[] = [];
  let current = fun;
  passes.forEach((p, index) => {
    const pass = typeof p === 'string' ? findStageablePass(p) : p;
    if (!pass) throw new OptimizerError(`unknown pass '${String(p)}'`);
    const name = pass.name;
    const program = optimizerProgram(pass);
    const input = pass.takesFormals ? [current, formals] : [current];
    opts.onProgress?.({ pass: name, index, total: passes.length, phase: 'start' });
    const result = stage(program, pass.entry, input, opts);
    opts.onProgress?.({ pass: name, index, total: passes.length, phase: 'done', result });
    stages.push({ pass, input, result, ctors: program.ctors });
    current = result.output;
  });
  return stages;
}
