/**
 * Pipeline staging (SCF Fig. 4): the passes of a pipeline staged in order, the abstract output of
 * one (I2, I3, …) the abstract input of the next, so that every optimizer is specialized to what
 * the ones before it can produce. Generic over the object language: a pass is a
 * `LanguagePass<S, F>` (runtime/language.ts) over subjects `S` with formals `F` — the kernel's by
 * default, found by name in the registry (src/optimizers), or any other language's, given as
 * records or found by `findPass`; its Core program is compiled once per process from its source
 * (`optimizerProgram`); each is staged by the engine (src/stager), which sees Core alone.
 */
import type { AbsValue } from '../abstract-values/index.js';
import type { Fun } from '../kernel/index.js';
import {
  findPass as findKernelPass,
  type LatticeVal,
  OptimizerError,
  optimizerProgram,
} from '../optimizers/index.js';
import type { LanguagePass } from '../runtime/index.js';
import type { CtorDecl } from '../scf-lang/index.js';
import { type StageOptions, type StageResult, stage } from '../stager/index.js';

export interface PipelineStage<S = Fun, F = LatticeVal> {
  readonly pass: LanguagePass<S, F>;
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

/** What `stagePipeline` takes besides the engine's options. */
export interface PipelineOptions<S, F> extends StageOptions {
  readonly onProgress?: (p: PipelineProgress) => void;
  /** The pass a name in `passes` stands for (the kernel's registry, `findPass`, by default). */
  readonly findPass?: (name: string) => LanguagePass<S, F> | undefined;
}

/**
 * Stages `passes` in order (Fig. 4): `subject` describes the subject (I1: the kernel's function),
 * `formals` the formals' values (the lattice values, for const-prop). The output of stage k is
 * the input of stage k + 1.
 */
export function stagePipeline<S = Fun, F = LatticeVal>(
  subject: AbsValue,
  formals: AbsValue,
  passes: readonly (string | LanguagePass<S, F>)[],
  opts: PipelineOptions<S, F> = {},
): PipelineStage<S, F>[] {
  const stages: PipelineStage<S, F>[] = [];
  const find = opts.findPass ?? ((name: string) => findKernelPass(name) as LanguagePass<S, F> | undefined);
  let current = subject;
  passes.forEach((p, index) => {
    const pass = typeof p === 'string' ? find(p) : p;
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
