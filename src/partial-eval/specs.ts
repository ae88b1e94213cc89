/**
 * The partial evaluator's specializations (SCF §3: one per context, memoized), the worklist
 * that re-analyses them until nothing changes, and the residual program taken from their last
 * analyses. pe.ts evaluates bodies (`analyze`); this base class keeps the table it fills.
 *
 * - A specialization (`Spec`, types.ts) is made for the first call in its context (`newSpec`):
 *   its parameters are that call's arguments with fresh tags, its result `0` until analysed.
 * - A later call in the same context (`addCall`) records its caller; an argument outside a
 *   parameter grows it (`grow`, growth.ts: joins, widening, caps; past the fuel `pin`, then `1`),
 *   and an argument represented otherwise than its parameter, and not a constant that can take the
 *   parameter's representation, makes the parameter plain (raise.ts), every other caller
 *   analysed again. A specialization whose parameters grew is analysed again — at once, or from
 *   the worklist when it is being analysed or the nesting is too deep (NEST_LIMIT).
 * - A result that grew marks the specialization's callers dirty (`markDirty`); `drain` analyses
 *   the worklist until it is empty.
 * - Budgets: past the visit budget or `maxSpecs` (`exhaust`), no new specialization is made, and
 *   a specialization whose arguments still grow is given up (`generalize`): its body becomes a
 *   call of the original function (`settleGeneric`), kept in the residual program with its
 *   callees, its result `1`, its interface plain.
 * - Every loss of precision is a `PeEvent` (`event`), in the order it happened.
 *
 * Invariants
 * - One specialization per context id; a specialization's parameter and result representations
 *   only ever become plain, and its parameters and result only grow, each change counted.
 * - When the worklist is empty, every specialization was last analysed with its final parameters
 *   and the final results of its callees (residual-program.ts relies on it).
 */
import type { SourceSpan } from '../common/index.js';
import { type AbsValue, bottom, type CtorTable, leq, top, withPrelude } from '../abstract-values/index.js';
import type { CoreExpr, CoreProgram, FunDef } from '../scf-lang/index.js';
import type { Chain } from './context.js';
import {
  grow as growValue,
  inputKeyed,
  KEYED_JOINS,
  pin as pinShape,
  resultCap,
  SKELETON_STEPS,
} from './growth.js';
import { Raiser, type Rep, sameRep } from './raise.js';
import { describeSpec, residualProgram } from './residual-program.js';
import { type Binding, ResidualCode } from './residual.js';
import {
  GROW_CAP,
  NO_REP,
  type PeEvent,
  type PeOptions,
  type PeResult,
  type PeStats,
  SPEC_FUEL,
  type Spec,
} from './types.js';

/** The table of specializations the partial evaluator (pe.ts) fills, and its worklist. */
export abstract class Specializations {
  readonly ctors: CtorTable;
  readonly stats: PeStats = {
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
  readonly events: PeEvent[] = [];
  protected readonly specs = new Map<number, Spec>();
  protected readonly worklist: Spec[] = [];
  /** The residual code made (labels, the collecting semantics of the analysis in progress). */
  protected readonly code: ResidualCode;
  /** Arity raising (raise.ts), making code with `code`. */
  protected readonly raise: Raiser;
  protected readonly maxSpecs: number;
  protected readonly joinsBeforeWiden: number;
  protected readonly specFuel: number;
  protected readonly growCap: number;
  protected widened = false;
  /** Original functions called generically (kept in the residual program with their callees). */
  protected readonly genericFns = new Set<string>();
  /** Set when the visit budget is spent: no new specializations from then on. */
  protected exhausted = false;
  protected exhaustedBy = '';

  constructor(
    readonly program: CoreProgram,
    readonly opts: PeOptions,
  ) {
    this.ctors = withPrelude(program.ctors);
    this.maxSpecs = opts.maxSpecs ?? 20_000;
    this.joinsBeforeWiden = opts.joinsBeforeWiden ?? 3;
    this.specFuel = opts.specFuel ?? SPEC_FUEL;
    this.growCap = opts.growCap ?? GROW_CAP;
    this.code = new ResidualCode(this.ctors);
    this.raise = new Raiser(this.code, this.stats, opts.raiseMaps ?? true);
  }

  /** Evaluates `spec`'s body for its parameters and updates its result (pe.ts). */
  protected abstract analyze(spec: Spec): void;
  /** `analyze` one level deeper in the nesting NEST_LIMIT bounds. */
  protected abstract analyzeNested(spec: Spec): void;

  protected newSpec(
    fn: FunDef,
    ctx: Chain,
    args: AbsValue[],
    paramReps: Rep[] = [],
    isRoot = false,
    name?: string,
  ): Spec {
    const id = this.stats.specs++;
    if (this.stats.specs >= this.maxSpecs) this.exhaust(`${this.maxSpecs} specializations were made`);
    const spec: Spec = {
      id,
      fn,
      name: name ?? `${fn.name}$${id}`,
      ctx,
      args,
      ret: bottom(),
      argChanges: 0,
      retChanges: 0,
      generalized: false,
      argsPinned: false,
      retPinned: false,
      retTop: false,
      analyzing: false,
      dirty: true,
      callers: new Set(),
      body: undefined,
      cs: new Map(),
      paramReps: fn.params.map((_, i) => paramReps[i]),
      retRep: NO_REP,
      isRoot,
    };
    this.specs.set(ctx.id, spec);
    return spec;
  }

  /** `grow` (growth.ts) for a parameter or the result (`what`) of `spec`, its loss recorded. */
  protected grow(old: AbsValue, next: AbsValue, changes: number, spec: Spec, what: string): AbsValue {
    const keys = spec.ctx.key.values;
    // the result for a known input node (a command of the input program) is that node
    // transformed: it grows as its callees' results do, not by recursion, so widening (which
    // folds the labelled commands of a program into one recursive shape) waits longer there
    const g = growValue(old, next, changes, {
      joins: what === 'result' && inputKeyed(keys) ? KEYED_JOINS : this.joinsBeforeWiden,
      specFuel: this.specFuel,
      cap: what === 'result' ? resultCap(keys, this.growCap) : this.growCap,
    });
    if (g.widened) this.widened = true;
    if (g.loss !== undefined) {
      if (g.loss.kind === 'top') this.stats.widenedToTop++;
      else if (g.loss.kind === 'folded') this.stats.folded++;
      else this.stats.skeletons++;
      this.event(spec, what, g.loss.reason, g.loss.to);
    }
    return g.value;
  }

  /** `v` pinned to its constructors and map keys (`pin`, growth.ts) when a specialization's fuel is spent. */
  protected pin(spec: Spec, what: string, v: AbsValue): AbsValue {
    const p = pinShape(v);
    if (p.top) this.stats.widenedToTop++;
    else this.stats.skeletons++;
    this.event(spec, what, 'spec-fuel', p.to);
    return p.value;
  }

  protected event(spec: Spec, what: string, reason: PeEvent['reason'], to: string): void {
    this.events.push({
      spec: spec.name,
      fn: spec.fn.name,
      key: describeSpec(spec, this.ctors),
      what,
      reason,
      to,
    });
  }

  protected exhaust(why: string): void {
    if (this.exhausted) return;
    this.exhausted = true;
    this.exhaustedBy = why;
  }

  /**
   * Gives up specializing `spec` once the budget is spent: from now on its body is a call of the
   * original (generic) function, its result `1`, and nothing it would have analysed is analysed.
   */
  protected generalize(spec: Spec): void {
    if (spec.generalized) return;
    spec.generalized = true;
    this.stats.generalized++;
    this.event(spec, 'params', 'budget', 'a call of the original function');
    if (!spec.analyzing) this.settleGeneric(spec);
  }

  protected settleGeneric(spec: Spec): void {
    const span = spec.fn.span;
    // the original function takes and returns plain values
    if (
      spec.paramReps.some((r) => r !== undefined) ||
      (spec.retRep !== NO_REP && spec.retRep !== undefined)
    ) {
      spec.paramReps = spec.paramReps.map(() => undefined);
      for (const c of spec.callers) this.markDirty(c);
    }
    spec.retRep = undefined;
    spec.body = this.genericCall(
      spec.fn.name,
      spec.fn.params.map((p) => this.code.node({ kind: 'var', name: p }, span)),
      span,
    );
    spec.cs = new Map();
    if (spec.ret.kind !== 'top') {
      spec.ret = top();
      for (const c of spec.callers) this.markDirty(c);
    }
    spec.dirty = false;
  }

  /** A call of the original function `fn`, kept in the residual program as it is. */
  protected genericCall(fn: string, args: readonly CoreExpr[], span: SourceSpan): CoreExpr {
    this.genericFns.add(fn);
    return this.code.node({ kind: 'call', fn, args }, span);
  }

  protected markDirty(spec: Spec): void {
    if (spec.dirty) return;
    spec.dirty = true;
    if (!spec.analyzing) this.worklist.push(spec);
  }

  protected drain(): void {
    while (this.worklist.length > 0) {
      const s = this.worklist.pop() as Spec;
      if (s.dirty && !s.analyzing) this.analyze(s);
    }
  }

  /**
   * A call reaching an existing specialization: the caller is recorded; an argument represented
   * otherwise than its parameter makes the parameter plain (every other caller analysed again);
   * arguments outside the parameters grow them (`grow`; pinned past the fuel, then `1`), and the
   * specialization is analysed again (from the worklist when it is being analysed, or too deep).
   */
  protected addCall(spec: Spec, args: readonly Binding[], ctx: Chain, caller: Spec, deep: boolean): void {
    spec.callers.add(caller);
    // an argument represented otherwise than the parameter makes the parameter plain; every
    // caller analysed with the old representation is analysed again
    let repChanged = false;
    args.forEach((a, i) => {
      const pr = spec.paramReps[i];
      if (pr !== undefined && !sameRep(a.rep, pr) && !this.raise.representable(a, pr)) {
        spec.paramReps[i] = undefined;
        repChanged = true;
      }
    });
    if (repChanged) for (const c of spec.callers) if (c !== caller) this.markDirty(c);
    let grew = false;
    if (!spec.generalized && spec.argsPinned) {
      // pinned: an argument outside its parameter's pinned shape makes that parameter `1`
      args.forEach((a, i) => {
        const old = spec.args[i] as AbsValue;
        if (!leq(a.v, old)) {
          grew = true;
          spec.args[i] = top();
          this.stats.widenedToTop++;
          this.event(spec as Spec, `param ${i} (${spec.fn.params[i]})`, 'spec-fuel', '1');
        }
      });
    } else if (!spec.generalized) {
      const next = spec.args.slice();
      args.forEach((a, i) => {
        const old = next[i] as AbsValue;
        if (!leq(a.v, old)) {
          grew = true;
          next[i] = this.code.retag(
            this.grow(old, a.v, spec.argChanges, spec, `param ${i} (${spec.fn.params[i]})`),
          );
        }
      });
      if (grew) {
        spec.argChanges++;
        if (this.exhausted) this.generalize(spec);
        else if (spec.argChanges > this.specFuel + SKELETON_STEPS) {
          // out of fuel: every parameter outside the key keeps only its constructors and map
          // keys (`shapeTop`; one more change makes it `1`); the specialization still handles
          // its key (say, one input node), so the staged code stays specialized to the input,
          // only less to the values flowing through it
          spec.argsPinned = true;
          const s = spec;
          spec.args = next.map((v, i) =>
            ctx.key.values[i] === undefined
              ? this.code.retag(this.pin(s, `param ${i} (${s.fn.params[i]})`, v))
              : v,
          );
        } else spec.args = next;
      }
    }
    if ((grew || repChanged) && !spec.generalized) {
      if (spec.analyzing || deep) this.markDirty(spec);
      else this.analyzeNested(spec);
    }
  }

  protected finish(root: Spec): PeResult {
    return residualProgram(root, {
      program: this.program,
      specs: this.specs,
      genericFns: this.genericFns,
      code: this.code,
      stats: this.stats,
      events: this.events,
      exhaustedBy: this.exhausted ? this.exhaustedBy : undefined,
      widened: this.widened,
      specFuel: this.specFuel,
      growCap: this.growCap,
    });
  }
}
