/**
 * Every limit and default of the partial evaluator, and the budget that counts work against them.
 *
 * - The defaults of `PeOptions` (types.ts): the call-chain bounds of context.ts (`K`,
 *   `CHAIN_DEPTH`), the growth staircase of growth.ts (`JOINS_BEFORE_WIDEN`, `SPEC_FUEL`,
 *   `GROW_CAP`), the budgets (`BUDGET`, `MAX_SPECS`, `MAX_NODES`, `STATIC_CALL_STEPS`), unfolding
 *   (`UNFOLD_DEPTH`); `limitsOf` resolves a run's options against them, once, into `Limits`.
 * - The fixed bounds no option sets: the rest of the staircase (`SKELETON_STEPS`, `KEYED_JOINS`,
 *   `RESULT_CAP_PER_KEY_NODE`), the hard visit budget (`HARD_BUDGET_FACTOR`), the nesting of
 *   analyses (`NEST_LIMIT`), the static work of a run (`STATIC_WORK`), dispatch (`SPLIT_MAX`,
 *   dispatch.ts), arity raising (`RAISE_CAP`, `FIND_CASES`, raise.ts) and progress reports.
 * - `Budget`: the visits, specializations and static work of one run against those limits. Past
 *   the visit budget or `maxSpecs` it is *exhausted* (no new specialization from then on); past
 *   HARD_BUDGET_FACTOR times the visits it throws `BudgetExceeded` (the original program is kept).
 *
 * Which of these a config can set is in docs/config.md (`pe`: `growCap`, `specFuel`,
 * `unfoldDepth`); entry configs also turn `keyEqualArgs` on.
 *
 * Invariant: everything here is counted in work, never in time, so the residual program is a
 * pure function of the program, the input and the options.
 */
import type { PeOptions, PeStats } from './types.js';

/** At most this many instances of a key in a call chain (SCF §3.4; `PeOptions.k`). */
export const K = 2;
/** Most keys in a specialization context (`PeOptions.chainDepth`). */
export const CHAIN_DEPTH = 2;
/** Changes joined exactly before widening (`PeOptions.joinsBeforeWiden`). */
export const JOINS_BEFORE_WIDEN = 3;
/** Changes of a specialization's parameters or result before they keep only skeletons (`PeOptions.specFuel`). */
export const SPEC_FUEL = 8;
/** Nodes a specialization's parameter or result may grow to before it is folded or cut (`PeOptions.growCap`). */
export const GROW_CAP = 256;
/** Expression visits after which no new specialization is made (`PeOptions.budget`). */
export const BUDGET = 800_000;
/** Past this many times the visit budget, the run is abandoned and the original program kept. */
export const HARD_BUDGET_FACTOR = 4;
/** Specializations made before later calls stay generic (`PeOptions.maxSpecs`). */
export const MAX_SPECS = 20_000;
/** Abstract nodes one partial evaluation may build (`PeOptions.maxNodes`): twice the most a shipped config's whole pipeline builds. */
export const MAX_NODES = 2 ** 22;
/** Concrete-interpreter steps one static call may take (`PeOptions.staticCallSteps`). */
export const STATIC_CALL_STEPS = 2_000_000;
/** Most calls unfolded inside one another (`PeOptions.unfoldDepth`). */
export const UNFOLD_DEPTH = 64;
/** Expression visits between two `PeOptions.onProgress` reports. */
export const PROGRESS_EVERY = 100_000;

/**
 * Changes a specialization's parameters (or result) may still make after `specFuel`: each keeps
 * only a skeleton (constructors and must-keys, numeric leaves `1`), so most late growth — a
 * constant becoming another — is absorbed; past these the parameters (or result) are pinned to
 * their constructors and map keys (`shapeTop`), and past that they become `1` (growth.ts).
 */
export const SKELETON_STEPS = 2;

/**
 * Changes a specialization keyed on a known input node makes to its result by joins before it is
 * widened (`joinsBeforeWiden` for the others; growth.ts, `slotLimits`).
 */
export const KEYED_JOINS = 6;

/** A specialization's result may have this many nodes per node of its key values (growth.ts, `resultCap`). */
export const RESULT_CAP_PER_KEY_NODE = 4;

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

/** Most records a call is dispatched among (dispatch.ts); a wider union is specialized as one. */
export const SPLIT_MAX = 8;

/** Most keys a raised map may have (raise.ts; a wider tuple costs more to copy than a map update). */
export const RAISE_CAP = 64;

/** Most keys a late-key lookup on a raised map compares against (raise.ts, `findByCases`). */
export const FIND_CASES = 32;

/** A run's options resolved against the defaults above. */
export interface Limits {
  readonly k: number;
  readonly chainDepth: number;
  readonly joinsBeforeWiden: number;
  readonly specFuel: number;
  readonly growCap: number;
  readonly budget: number;
  readonly hardBudget: number;
  readonly maxSpecs: number;
  readonly maxNodes: number;
  readonly staticCallSteps: number;
  readonly unfoldDepth: number;
  readonly raiseMaps: boolean;
  readonly keyEqualArgs: boolean;
}

export function limitsOf(opts: PeOptions): Limits {
  const budget = opts.budget ?? BUDGET;
  return {
    k: opts.k ?? K,
    chainDepth: opts.chainDepth ?? CHAIN_DEPTH,
    joinsBeforeWiden: opts.joinsBeforeWiden ?? JOINS_BEFORE_WIDEN,
    specFuel: opts.specFuel ?? SPEC_FUEL,
    growCap: opts.growCap ?? GROW_CAP,
    budget,
    hardBudget: budget * HARD_BUDGET_FACTOR,
    maxSpecs: opts.maxSpecs ?? MAX_SPECS,
    maxNodes: opts.maxNodes ?? MAX_NODES,
    staticCallSteps: opts.staticCallSteps ?? STATIC_CALL_STEPS,
    unfoldDepth: opts.unfoldDepth ?? UNFOLD_DEPTH,
    raiseMaps: opts.raiseMaps ?? true,
    keyEqualArgs: opts.keyEqualArgs ?? false,
  };
}

/** A hard budget ran out: `what` says which, in words for `PeResult.reason`. */
export class BudgetExceeded extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

/** One run's work against its limits (the counts themselves are `PeStats`). */
export class Budget {
  private why: string | undefined = undefined;
  private nextProgress = PROGRESS_EVERY;

  constructor(
    readonly limits: Limits,
    private readonly stats: PeStats,
    private readonly onProgress: ((stats: PeStats) => void) | undefined,
  ) {}

  /** Whether no new specialization may be made (the visit budget or `maxSpecs` ran out). */
  get exhausted(): boolean {
    return this.why !== undefined;
  }

  /** Why the budget is exhausted, in words, if it is. */
  get exhaustedBy(): string | undefined {
    return this.why;
  }

  /** No new specialization from now on, for the first reason given. */
  exhaust(why: string): void {
    if (this.why === undefined) this.why = why;
  }

  /** Counts one expression visit: past the budget it exhausts, past the hard budget it throws. */
  visit(): void {
    const n = ++this.stats.visits;
    if (n > this.limits.budget) {
      this.exhaust(`the budget of ${this.limits.budget} expression visits ran out`);
      if (n > this.limits.hardBudget)
        throw new BudgetExceeded(`the hard budget ran out (${this.limits.hardBudget} expression visits)`);
    }
    if (n >= this.nextProgress) {
      this.nextProgress += PROGRESS_EVERY;
      this.onProgress?.(this.stats);
    }
  }

  /** Counts a specialization made (`made` in all): `maxSpecs` of them exhaust the budget. */
  specMade(made: number): void {
    this.stats.specs = made;
    if (made >= this.limits.maxSpecs) this.exhaust(`${this.limits.maxSpecs} specializations were made`);
  }

  /** Whether a call with known arguments may still run concretely (static calls on, static work left). */
  staticCallsLeft(): boolean {
    return this.limits.staticCallSteps > 0 && this.stats.staticWork < STATIC_WORK;
  }
}
