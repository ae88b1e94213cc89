/**
 * Pipeline staging (SCF Fig. 4): the passes of a pipeline staged in order, the abstract output of
 * one (I2, I3, …) the abstract input of the next, so that every optimizer is specialized to what
 * the ones before it can produce. Generic over the object language: a pass is a
 * `LanguagePass<S, F>` (runtime/language.ts) over subjects `S` with formals `F` — the kernel's by
 * default, found by name in the registry (src/optimizers), or any other language's, given as
 * records or found by `findPass`; its Core program is compiled once per process from its source
 * (`optimizerProgram`); each is staged by the engine (src/stager), which sees Core alone.
 *
 * Whole-pipeline staging (SCF §6's deforestation between adjacent optimizations): `stageWhole`
 * stages the composition of the passes (compose.ts) as one program into one residual, so that
 * the intermediate kernels stay abstract values inside one partial evaluation and what the early
 * description fixes of them is never built; its one stage's `composed` lists the passes.
 * `chooseStaging` decides between the two from the inputs alone: the composition is staged with
 * a trial budget of `WHOLE_TRIAL_BUDGET` visits, and kept where it converged (its stop is not
 * `fuel`: no budget ran out, nothing was cut to a skeleton or widened past its fuel), else the
 * passes are staged one by one. Only pipelines of built-in passes compose: a user's pass has its
 * output checked between passes, which a composition has no place for. Both are deterministic
 * (every budget counts work), so the choice is too.
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
import { composePasses, type Materialization, materializations, WHOLE_ENTRY } from './compose.js';
import { KERNEL_CTORS } from './print-abstract.js';

export interface PipelineStage<S = Fun, F = LatticeVal> {
  readonly pass: LanguagePass<S, F>;
  /** Its abstract arguments (I_k, plus the formals for const-prop). */
  readonly input: readonly AbsValue[];
  readonly result: StageResult;
  /** The constructors of its program (for admission checks and printing). */
  readonly ctors: ReadonlyMap<string, CtorDecl>;
  /**
   * For a whole-pipeline stage (`stageWhole`): the passes it composes, in order; `pass` is then
   * the composition (`WHOLE_PASS_NAME`), `input` the subject and the formals.
   */
  readonly composed?: readonly LanguagePass<S, F>[];
  /** For a whole-pipeline stage: where its residual builds an intermediate subject (compose.ts). */
  readonly materialized?: readonly Materialization[];
  /**
   * On the first stage of a pipeline `auto` staged pass by pass after trying the composition: why
   * the trial was not kept (its stop and reason), so every intermediate subject is built.
   */
  readonly wholeTrial?: Pick<StageResult, 'stop' | 'reason'>;
}

/** The name of a whole-pipeline stage's pass (and of its staged module, `NAME.whole.staged.mjs`). */
export const WHOLE_PASS_NAME = 'whole';

/**
 * Visits the partial evaluator may make staging a composition under `chooseStaging`'s `auto`
 * (the pipelines it pays on converge within a tenth of it; past it, the passes are staged one by
 * one, and the trial costs a fraction of a second).
 */
export const WHOLE_TRIAL_BUDGET = 100_000;

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
  /**
   * The constructors of the subject's type (the kernel AST's, `KERNEL_CTORS`, by default): what a
   * whole-pipeline stage reports building between passes (`materialized`).
   */
  readonly subjectCtors?: ReadonlySet<string>;
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

/** The passes of `passes` as records (`findPass` for names). */
function passRecords<S, F>(
  passes: readonly (string | LanguagePass<S, F>)[],
  opts: PipelineOptions<S, F>,
): LanguagePass<S, F>[] {
  const find = opts.findPass ?? ((name: string) => findKernelPass(name) as LanguagePass<S, F> | undefined);
  return passes.map((p) => {
    const pass = typeof p === 'string' ? find(p) : p;
    if (!pass) throw new OptimizerError(`unknown pass '${String(p)}'`);
    return pass;
  });
}

/**
 * Whether `auto` tries `passes` as one program (`stageWhole`): two passes or more, every one
 * built in.
 */
export function composable<S, F>(passes: readonly LanguagePass<S, F>[]): boolean {
  return passes.length > 1 && passes.every((p) => p.builtin);
}

/**
 * Stages the composition of `passes` as one program (compose.ts): one stage whose pass runs them
 * all, with the subject and the formals as its input.
 */
export function stageWhole<S = Fun, F = LatticeVal>(
  subject: AbsValue,
  formals: AbsValue,
  passes: readonly (string | LanguagePass<S, F>)[],
  opts: PipelineOptions<S, F> = {},
): PipelineStage<S, F> {
  const records = passRecords(passes, opts);
  if (records.length === 0 || !records.every((p) => p.builtin))
    throw new OptimizerError(
      `a pipeline with a user's pass is staged pass by pass (its output is checked between passes)`,
    );
  const composition = composePasses(
    records.map((p) => ({
      name: p.name,
      program: optimizerProgram(p),
      entry: p.entry,
      takesFormals: p.takesFormals,
    })),
  );
  const pass: LanguagePass<S, F> = {
    name: WHOLE_PASS_NAME,
    description: `the composition ${records.map((p) => p.name).join(' ∘ ')}`,
    file: (records[0] as LanguagePass<S, F>).file,
    entry: WHOLE_ENTRY,
    takesFormals: true,
    builtin: true,
    run: (s, ctx) => records.reduce((out, p) => p.run(out, ctx), s),
  };
  const input = [subject, formals];
  opts.onProgress?.({ pass: pass.name, index: 0, total: 1, phase: 'start' });
  const { program } = composition;
  const result = stage(program, WHOLE_ENTRY, input, opts);
  opts.onProgress?.({ pass: pass.name, index: 0, total: 1, phase: 'done', result });
  const ctors = opts.subjectCtors ?? new Set(KERNEL_CTORS.keys());
  const materialized = materializations(result.residual, composition, records.length, ctors, result.comments);
  return { pass, input, result, ctors: program.ctors, composed: records, materialized };
}

/** How a pipeline is staged: as one program, pass by pass, or whichever `chooseStaging` picks. */
export type Staging = 'auto' | 'whole' | 'per-pass';

/**
 * Stages `passes` as `staging` says (see the header): `per-pass` is `stagePipeline`, `whole` is
 * `stageWhole` (an error for a pipeline with a user's pass), `auto` the composition where it
 * converges within `WHOLE_TRIAL_BUDGET` visits (or the caller's smaller budget) and the passes
 * one by one otherwise. Returns the stages: one for a whole pipeline, one per pass otherwise.
 */
export function chooseStaging<S = Fun, F = LatticeVal>(
  subject: AbsValue,
  formals: AbsValue,
  passes: readonly (string | LanguagePass<S, F>)[],
  staging: Staging,
  opts: PipelineOptions<S, F> = {},
): PipelineStage<S, F>[] {
  if (staging === 'per-pass') return stagePipeline(subject, formals, passes, opts);
  if (staging === 'whole') return [stageWhole(subject, formals, passes, opts)];
  const records = passRecords(passes, opts);
  if (composable(records)) {
    const budget = Math.min(opts.pe?.budget ?? WHOLE_TRIAL_BUDGET, WHOLE_TRIAL_BUDGET);
    // the trial reports nothing until it is kept: a pipeline staged pass by pass reports as it
    // always does
    const { onProgress, ...rest } = opts;
    const { onProgress: _work, ...pe } = opts.pe ?? {};
    const whole = stageWhole(subject, formals, records, { ...rest, pe: { ...pe, budget } });
    if (whole.result.stop !== 'fuel') {
      onProgress?.({ pass: whole.pass.name, index: 0, total: 1, phase: 'start' });
      onProgress?.({ pass: whole.pass.name, index: 0, total: 1, phase: 'done', result: whole.result });
      return [whole];
    }
    const stages = stagePipeline(subject, formals, records, opts);
    const trial = { stop: whole.result.stop, reason: whole.result.reason };
    return stages.map((s, i) => (i === 0 ? { ...s, wholeTrial: trial } : s));
  }
  return stagePipeline(subject, formals, records, opts);
}
