/**
 * The partial evaluator's types: its options, the records it keeps per specialization and what
 * it reports. The defaults of the options are in limits.ts.
 *
 * - `PeOptions`: the call-chain bounds of context.ts (`k`, `chainDepth`), the growth staircase of
 *   growth.ts (`joinsBeforeWiden`, `specFuel`, `growCap`), the budgets counted in work (`budget`,
 *   `maxSpecs`, `maxNodes`, `staticCallSteps`), arity raising (`raiseMaps`, raise.ts), unfolding
 *   (`unfoldDepth`) and keys (`keyEqualArgs`, context.ts).
 * - `Spec`: one specialization, a function analysed for one context, with one `Slot` per
 *   parameter and one for its result (value, representation, `1`), the `Steps` of each group on
 *   the growth staircase, and what the table (table.ts) keeps of it: callers, dirty, analysing.
 * - `PeResult`, `PeStats` (`zeroStats`), `PeEvent`: the residual program, its collecting
 *   semantics and every loss of precision, for `scf stage --explain`.
 */
import type { AbsValue } from '../abstract-values/index.js';
import type { CoreExpr, CoreProgram, FunDef, Label } from '../scf-lang/index.js';
import type { Chain } from './context.js';
import type { Rep } from './raise.js';
import type { CsValue } from './residual.js';

export interface PeOptions {
  /** At most k instances of a specialization key in a call chain (SCF §3.4; default K). */
  readonly k?: number;
  /**
   * Most keys in a specialization context: the most recent ones are kept (default CHAIN_DEPTH,
   * 2: unfolded calls' frames are keys of the contexts below them too, so 2 already tells the
   * unfolded paths apart).
   */
  readonly chainDepth?: number;
  /** Changes of a specialization's parameters or result joined exactly before widening (default JOINS_BEFORE_WIDEN). */
  readonly joinsBeforeWiden?: number;
  /**
   * Changes of a specialization's parameters (or of its result) after which each further change
   * keeps only a skeleton, and SKELETON_STEPS later they are pinned to their constructors and map
   * keys, the key's parameters excepted; one more makes them `1` (growth.ts; default SPEC_FUEL).
   */
  readonly specFuel?: number;
  /** A specialization's parameter or result that grows beyond this many nodes is folded or cut to a skeleton that fits (growth.ts; default GROW_CAP). */
  readonly growCap?: number;
  /** Expression visits after which no new specialization is made (calls stay generic); HARD_BUDGET_FACTOR times as many abandon specialization altogether (default BUDGET). */
  readonly budget?: number;
  /**
   * Abstract nodes (fresh tags) the evaluation may build before specialization is abandoned and
   * the original program kept (default MAX_NODES): bounds its memory where a value grows without
   * bound in one specialization, as an optimizer returning one node at several places (a DAG)
   * doubles its output with each step.
   */
  readonly maxNodes?: number;
  /** Concrete-interpreter steps one static call may take before it is specialized instead (default STATIC_CALL_STEPS; 0 turns static calls off). */
  readonly staticCallSteps?: number;
  /** Specializations made before later calls stay generic (default MAX_SPECS): bounds the staged code's size. */
  readonly maxSpecs?: number;
  /** Called every PROGRESS_EVERY visits. */
  readonly onProgress?: (stats: PeStats) => void;
  /** Residual maps whose keys are all known become tuples of their values (raise.ts; default true). */
  readonly raiseMaps?: boolean;
  /**
   * Calls on a static path unfolded inside one another at most (default UNFOLD_DEPTH); 0: none,
   * every call that is not static is specialized (SCF §3.4 alone).
   */
  readonly unfoldDepth?: number;
  /**
   * A singleton argument of a parameter that is not finite keys its call while it shrinks
   * (context.ts); with this, also while it stays equal to the earlier call's (a pattern passed
   * unchanged down a matcher's recursion), which repeats a key the bound k folds back (default
   * false: the kernel passes stage as they were tuned; entry configs turn it on).
   */
  readonly keyEqualArgs?: boolean;
}

export type PeStop = 'fixpoint' | 'widened' | 'fuel';

/**
 * One loss of precision the partial evaluator had to make, for `scf stage --explain`: a
 * specialization's parameter or result widened (to `1` or to a skeleton), or a specialization
 * given up. This is how a compiler writer finds why *their* optimizer did not stage well.
 */
export interface PeEvent {
  /** The residual function (specialization) concerned, e.g. `const-prop.loopFix$12`. */
  readonly spec: string;
  /** The optimizer's function it specializes. */
  readonly fn: string;
  /** What it was specialized for: `loopFix(while #7, _, _, _, _)`. */
  readonly key: string;
  /** `param N (name)`, `params` (all outside the key) or `result`. */
  readonly what: string;
  /**
   * `spec-fuel`: changed more than `specFuel` times; `size-cap`: grew past `growCap` nodes;
   * `budget`: given up because the visit budget or the specialization count ran out.
   */
  readonly reason: 'spec-fuel' | 'size-cap' | 'budget';
  /** What it became: `1`, or a skeleton of N nodes. */
  readonly to: string;
}

export interface PeStats {
  /** Expression visits (the budget's unit). */
  visits: number;
  /** Specializations created. */
  specs: number;
  /** Analyses of specialization bodies (first and repeated). */
  analyses: number;
  /** Calls folded by running them concretely. */
  staticCalls: number;
  /** Core nodes the concrete runs of static calls evaluated, failed ones included (STATIC_WORK). */
  staticWork: number;
  /** Calls on a static path unfolded in place (their bodies evaluated with the exact arguments). */
  unfolded: number;
  /** Calls dispatched on a field that tells their key argument's records apart (`dispatch`). */
  dispatches: number;
  /** Specializations whose first analysis waited for the worklist (analyses nested NEST_LIMIT deep). */
  deferred: number;
  /** Specializations given up (body a call of the original function) when the budget ran out. */
  generalized: number;
  /** Parameters or results widened to `1`: a specialization's fuel ran out, or a value grew past `growCap`. */
  widenedToTop: number;
  /** Parameters or results cut to a skeleton (constructors and must-keys kept) instead of `1`. */
  skeletons: number;
  /**
   * Parameters or results over their cap whose growing chains were folded into recursive values
   * (`foldSpines`) and nothing cut (counted apart from `skeletons`).
   */
  folded: number;
  /** Map operations on raised maps residualized as tuple operations (raise.ts). */
  raisedOps: number;
  /** Raised values turned back into plain ones where representations met and differed. */
  materialized: number;
  /** Specializations in the residual program. */
  residualFuns: number;
}

/** Every count `0`: the stats of a run that has not started. */
export function zeroStats(): PeStats {
  return {
    visits: 0,
    specs: 0,
    analyses: 0,
    staticCalls: 0,
    staticWork: 0,
    unfolded: 0,
    dispatches: 0,
    deferred: 0,
    generalized: 0,
    widenedToTop: 0,
    skeletons: 0,
    folded: 0,
    raisedOps: 0,
    materialized: 0,
    residualFuns: 0,
  };
}

export interface PeResult {
  /** The residual program; its entry is `entry`. */
  readonly residual: CoreProgram;
  readonly entry: string;
  /** Collecting semantics: residual expression label → abstract value. */
  readonly cs: ReadonlyMap<Label, AbsValue>;
  /** Abstract value of every result the entry can return on admitted inputs. */
  readonly output: AbsValue;
  readonly stop: PeStop;
  /** Why, in words, when stop is not 'fixpoint'. */
  readonly reason: string;
  readonly stats: PeStats;
  /** Residual function name → what it was specialized for (Fig. 7's comments). */
  readonly comments: ReadonlyMap<string, string>;
  /** Every widening to `1` (or a skeleton) and every specialization given up, in order. */
  readonly events: readonly PeEvent[];
}

/** A specialization's result representation before its first analysis ended. */
export const NO_REP = Symbol('no rep yet');

/**
 * One parameter or the result of a specialization: its value, how the residual code represents
 * it (raise.ts: decided by the first call, or the first analysis for the result, and after that
 * only ever plain), and whether it became `1` (nothing can change it any more). Its place on the
 * growth staircase is its group's `Steps` (growth.ts, `growSlots`).
 */
export interface Slot<R = Rep> {
  value: AbsValue;
  rep: R;
  top: boolean;
  /** A parameter the specialization is keyed on (its key value is known): never pinned. */
  readonly key: boolean;
}

/**
 * Where a group of slots stands on the growth staircase (growth.ts): how many times it changed,
 * and whether it was pinned to its constructors and map keys. The parameters are one group (a
 * call's arguments are one change of them all), the result another.
 */
export interface Steps {
  changes: number;
  pinned: boolean;
}

/**
 * One specialization: a function analysed for one context (a chain of keys, context.ts). The
 * table (table.ts) holds it, its worklist and callers; the evaluator (pe.ts) analyses it.
 */
export interface Spec {
  readonly id: number;
  readonly fn: FunDef;
  readonly name: string;
  readonly ctx: Chain;
  /** One slot per parameter: the join of the arguments it was called with, grown (growth.ts). */
  readonly params: readonly Slot[];
  readonly paramSteps: Steps;
  /** The join of what its body returned, grown; `0` until its first analysis ends. */
  readonly result: Slot<Rep | typeof NO_REP>;
  readonly resultSteps: Steps;
  /** Given up when the budget ran out: its body a call of the original function, its result `1`. */
  generalized: boolean;
  /** Its analysis is in progress (a call that grows it marks it dirty instead of analysing it). */
  analyzing: boolean;
  /** It must be analysed again: its parameters, or the result of a callee, grew. */
  dirty: boolean;
  /** Whether this is the entry (its parameters and result are the staged code's interface: plain). */
  readonly isRoot: boolean;
  readonly callers: Set<Spec>;
  /** The residual body from its last analysis. */
  body: CoreExpr | undefined;
  /** The collecting semantics of its last analysis. */
  cs: Map<Label, CsValue>;
}
