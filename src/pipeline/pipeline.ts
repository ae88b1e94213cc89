/**
 * Pipeline staging (SCF Fig. 4): the passes of a pipeline staged in order, the abstract output of
 * one (I2, I3, …) the abstract input of the next, so that every optimizer is specialized to what
 * the ones before it can produce. A pass comes from the registry (src/optimizers), its Core
 * program compiled once per process; each is staged by the engine (src/stager).
 */
import type { AbsValue } from '../abstract-values/index.js';
import { findPass, OptimizerError, optimizerProgram, type Pass } from '../optimizers/index.js';
import type { CtorDecl } from '../scf-lang/index.js';
import { type StageOptions, type StageResult, stage } from '../stager/index.js';

export interface PipelineStage {
  readonly pass: Pass;
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
  passes: readonly (string | Pass)[],
  opts: StageOptions & { readonly onProgress?: (p: PipelineProgress) => void } = {},
): PipelineStage[] {
  const stages: PipelineStage[] = [];
  let current = fun;
  passes.forEach((p, index) => {
    const pass = typeof p === 'string' ? findPass(p) : p;
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
