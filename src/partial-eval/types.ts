/**
 * The partial evaluator's options, the records it keeps per specialization and what it reports
 * (pe.ts implements them).
 *
 * - `PeOptions` and the defaults and hard bounds behind them: the call-chain bounds of context.ts
 *   (`k`, `chainDepth`), the growth steps of growth.ts (`joinsBeforeWiden`, `specFuel`,
 *   `growCap`), the budgets counted in work (`budget`, `maxSpecs`, `staticCallSteps`,
 *   STATIC_WORK, NEST_LIMIT), arity raising (`raiseMaps`, raise.ts) and unfolding (`unfoldDepth`).
 * - `Spec`: one specialization — a function analysed for one context (a chain of keys,
 *   context.ts) — with its parameters, result, their representations and the counts of their
 *   changes that bound the fixpoint (pe.ts, growth.ts).
 * - `PeResult`, `PeStats`, `PeEvent`: the residual program, its collecting semantics and every
 *   loss of precision, for `scf stage --explain`.
 *
 * Invariant: everything here is counted in work, never in time, so the residual program is a
 * pure function of the program, the input and the options.
 */
import type { AbsValue } from '../abstract-values/index.js';
import type { CoreExpr, CoreProgram, FunDef, Label } from '../scf-lang/index.js';
import type { Chain } from './context.js';
import type { Rep } from './raise.js';
import type { CsValue } from './residual.js';

export interface PeOptions {
  /** At most k instances of a specialization key in a call chain (SCF §3.4; default 2). */
  readonly k?: number;
  /**
   * Most keys in a specialization context: the most recent ones are kept (default 2:
   * unfolded calls' frames are keys of the contexts below them too, so 2 already tells the
   * unfolded paths apart).
   */
  readonly chainDepth?: number;
  /** Changes of a specialization's parameters or result joined exactly before widening (default 3). */
  readonly joinsBeforeWiden?: number;
  /** Changes of a specialization's parameters (or of its result) after which they are widened to `1`, the key's parameters excepted (default SPEC_FUEL). */
  readonly specFuel?: number;
  /** A specialization's parameter or result that grows beyond this many nodes is widened to `1` (default GROW_CAP). */
  readonly growCap?: number;
  /** Expression visits after which no new specialization is made (calls stay generic); four times as many abandon specialization altogether (default 800,000). */
  readonly budget?: number;
  /**
   * Abstract nodes (fresh tags) the evaluation may build before specialization is abandoned and
   * the original program kept (default MAX_NODES): bounds its memory where a value grows without
   * bound in one specialization, as an optimizer returning one node at several places (a DAG)
   * doubles its output with each step.
   */
  readonly maxNodes?: number;
  /** Concrete-interpreter steps one static call may take before it is specialized instead (default 2 million; 0 turns static calls off). */
  readonly staticCallSteps?: number;
  /** Specializations made before later calls stay generic (default 20,000): bounds the staged code's size. */
  readonly maxSpecs?: number;
  /** Called every ~100,000 visits. */
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

/** Abstract nodes one partial evaluation may build (`PeOptions.maxNodes`): twice the most a shipped config's whole pipeline builds. */
export const MAX_NODES = 2 ** 22;

/** Most calls unfolded inside one another (`PeOptions.unfoldDepth`). */
export const UNFOLD_DEPTH = 64;
/** Changes of a specialization's parameters or result before they are widened (`PeOptions.specFuel`). */
export const SPEC_FUEL = 8;
/** Nodes a specialization's parameter or result may grow to before it is widened (`PeOptions.growCap`). */
export const GROW_CAP = 256;

/**
 * Most analyses and unfoldings open inside one another (each is a JavaScript recursion of the
 * partial evaluator, some forty frames per statement of a straight-line kernel); a call that
 * would open one more is specialized and analysed later, from the worklist, at depth 0. So a long
 * kernel function stages within the default JS stack (a 1,000-statement one needs about 2,500
 * levels otherwise, and about 250 statements overflowed it). Counted in work: the residual
 * program stays a pure function of the inputs.
 */
export const NEST_LIMIT = 100;

/**
 * Most Core nodes all static calls of one run may evaluate concretely together; past it, calls
 * with known arguments are specialized like the others (whose work the visit budget bounds). Each
 * static call is bounded on its own (`staticCallSteps`), but not their number: on a kernel of
 * deeply nested loops the optimizer's own run is exponential in the nesting, and staging ran it
 * over and over.
 */
export const STATIC_WORK = 50_000_000;

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

export interface Spec {
  readonly id: number;
  readonly fn: FunDef;
  readonly name: string;
  readonly ctx: Chain;
  args: AbsValue[];
  ret: AbsValue;
  argChanges: number;
  retChanges: number;
  generalized: boolean;
  /**
   * Parameters (all but the key's) pinned to their constructors and map keys (`shapeTop`) after
   * specFuel + SKELETON_STEPS changes; an argument outside that makes its parameter `1`.
   */
  argsPinned: boolean;
  /** Result pinned to its constructors and map keys, the same way; growth past that makes it `1`. */
  retPinned: boolean;
  /** Result `1`: no later analysis can outgrow it. */
  retTop: boolean;
  analyzing: boolean;
  dirty: boolean;
  /** How each parameter is represented (decided by the first call; only ever becomes plain). */
  paramReps: Rep[];
  /** How the result is represented (only ever becomes plain after its first value). */
  retRep: Rep | typeof NO_REP;
  /** Whether this is the entry (its parameters and result are the staged code's interface: plain). */
  readonly isRoot: boolean;
  readonly callers: Set<Spec>;
  body: CoreExpr | undefined;
  cs: Map<Label, CsValue>;
}
