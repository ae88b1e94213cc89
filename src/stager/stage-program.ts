/**
 * The stager's engine (SCF Fig. 8):
 *
 *   stage(program, I) = let (residual, cs, output) = PE(program, I) in (DAE(residual, cs), cs, output)
 *
 * `stage` runs the partial evaluator (src/partial-eval) on one optimizer's Core program and the
 * abstract description of its arguments, then the steps after it, each a record (`StageStep`):
 * dead-assignment elimination with liveness patterns (src/dae), which uses the collecting
 * semantics `cs` to prune map and set operations; merging residual functions equal up to callee
 * names (minimize.ts); splitting functions too large for V8 to optimize (outline.ts). The engine
 * knows Core programs and abstract values only: which optimizer, which kernel and which config
 * are the pipeline's business (src/pipeline), and a pass's Core program the registry's
 * (src/optimizers).
 *
 * Invariants. For every concrete input admitted by the abstract input, the staged optimizer's
 * result equals the unstaged one (PE soundness + DAE soundness under a sound `cs`; merging and
 * splitting keep the program's meaning); the output description contains every result of the
 * staged optimizer on admitted inputs.
 */
import type { AbsValue } from '../abstract-values/index.js';
import { type DaeOptions, type DaeResult, eliminateDeadAssignments, emptyStats } from '../dae/index.js';
import { type PeOptions, type PeResult, type PeStats, partialEvaluate } from '../partial-eval/index.js';
import { type CoreProgram, programSize, validateCoreProgram } from '../scf-lang/index.js';
import { mergeEqualFunctions } from './minimize.js';
import { MAX_FUN_NODES, outlineLargeFunctions } from './outline.js';

export interface StageOptions {
  readonly pe?: PeOptions;
  readonly dae?: DaeOptions;
  /** Largest residual function emitted, in Core nodes (outline.ts; default MAX_FUN_NODES). */
  readonly maxFunNodes?: number;
}

/**
 * One optimizer staged. The fields picked from `PeResult` are the partial evaluator's as it
 * returned them: `output` is the next stage's input, `events` what `scf stage --explain` prints.
 */
export interface StageResult
  extends Pick<PeResult, 'entry' | 'cs' | 'output' | 'stop' | 'reason' | 'events'> {
  /** The staged optimizer: the residual program after DAE. */
  readonly residual: CoreProgram;
  readonly peStats: PeStats;
  readonly dae: Pick<DaeResult, 'stop' | 'rounds' | 'removed'>;
  /** Residual function → what it handles (Fig. 7's comments, and the merges and splits after DAE). */
  readonly comments: ReadonlyMap<string, string>;
  readonly sizes: { readonly original: number; readonly residual: number; readonly staged: number };
  readonly ms: { readonly pe: number; readonly dae: number };
}

/**
 * What the steps after partial evaluation work on: the residual program, its entry and the
 * comments on its functions, with what the partial evaluator found (`cs`: the collecting
 * semantics DAE prunes with). A step returns the next state and what it reports.
 */
export interface StepState {
  readonly program: CoreProgram;
  readonly entry: string;
  readonly cs: PeResult['cs'];
  readonly comments: ReadonlyMap<string, string>;
}

/**
 * One step of the stager after partial evaluation, as a record: its name and what it does to the
 * residual program. `stage` runs them in order; `DEFAULT_STEPS` are SCF Fig. 8's DAE followed by
 * the emitter's needs (merging equal functions, splitting large ones).
 */
export interface StageStep {
  readonly name: string;
  readonly run: (state: StepState, opts: StageOptions) => StepState & { readonly dae?: DaeReport };
}

type DaeReport = Pick<DaeResult, 'stop' | 'rounds' | 'removed'>;

/** Dead-assignment elimination with liveness patterns (src/dae, SCF §4). */
export const daeStep: StageStep = {
  name: 'dae',
  run: (s, opts) => {
    const d = eliminateDeadAssignments(s.program, s.cs, s.entry, opts.dae);
    return { ...s, program: d.program, dae: { stop: d.stop, rounds: d.rounds, removed: d.removed } };
  },
};

/** Merging residual functions equal up to callee names (minimize.ts). */
export const minimizeStep: StageStep = {
  name: 'minimize',
  run: (s) => {
    const min = mergeEqualFunctions(s.program, s.entry);
    const comments = new Map(s.comments);
    for (const [kept, others] of min.merged) {
      const c = comments.get(kept);
      if (c !== undefined) comments.set(kept, `${c}; also ${others.length} equal specialization(s)`);
    }
    return { ...s, program: min.program, comments };
  },
};

/**
 * Outlining: functions too large for V8 to optimize split into parts (outline.ts), each part's
 * comment naming the function it came from.
 */
export const outlineStep: StageStep = {
  name: 'outline',
  run: (s, opts) => {
    const limit = opts.maxFunNodes ?? MAX_FUN_NODES;
    const split = outlineLargeFunctions(s.program, limit);
    const comments = new Map(s.comments);
    for (const [whole, parts] of split.parts) {
      parts.forEach((p, i) => {
        comments.set(p, `part ${i + 1} of ${whole} (split: a function over ${limit} Core nodes)`);
      });
    }
    return { ...s, program: split.program, comments };
  },
};

/** The steps `stage` runs after partial evaluation unless told otherwise. */
export const DEFAULT_STEPS: readonly StageStep[] = [daeStep, minimizeStep, outlineStep];

/**
 * SCF Fig. 8: specializes `program`'s `entry` to the abstract arguments `input`, then runs `steps`
 * (default `DEFAULT_STEPS`) on the residual program. With `SCF_PASS_DEBUG=1` the Core program is
 * validated after every step (an internal error names the step that broke it).
 */
export function stage(
  program: CoreProgram,
  entry: string,
  input: readonly AbsValue[],
  opts: StageOptions = {},
  steps: readonly StageStep[] = DEFAULT_STEPS,
): StageResult {
  const t0 = performance.now();
  const pe = partialEvaluate(program, entry, input, opts.pe);
  const t1 = performance.now();
  // a page or a worker has no process, and no debug switch
  const debug = typeof process !== 'undefined' && process.env.SCF_PASS_DEBUG === '1';
  let state: StepState = { program: pe.residual, entry: pe.entry, cs: pe.cs, comments: pe.comments };
  let dae: DaeReport = { stop: 'fixpoint', rounds: 0, removed: emptyStats() };
  for (const step of steps) {
    const next = step.run(state, opts);
    if (next.dae !== undefined) dae = next.dae;
    state = next;
    if (debug) checkStep(step, state.program);
  }
  const t2 = performance.now();
  return {
    residual: state.program,
    entry: state.entry,
    cs: pe.cs,
    output: pe.output,
    stop: pe.stop,
    reason: pe.reason,
    peStats: pe.stats,
    events: pe.events,
    dae,
    comments: state.comments,
    sizes: {
      original: programSize(program),
      residual: programSize(pe.residual),
      staged: programSize(state.program),
    },
    ms: { pe: t1 - t0, dae: t2 - t1 },
  };
}

/** Under `SCF_PASS_DEBUG=1`: the Core program after `step` must still be valid Core. */
function checkStep(step: StageStep, program: CoreProgram): void {
  const problems = validateCoreProgram(program);
  if (problems.length > 0)
    throw new Error(`internal error: stager step '${step.name}' broke the program: ${problems.join('; ')}`);
}
