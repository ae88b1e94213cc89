/**
 * The table of specializations (SCF §3: one per context, memoized) and its worklist: which
 * specializations exist, who calls each, and which must be analysed again. It holds records
 * (types.ts `Spec`) and never analyses anything: the evaluator (pe.ts) takes the next dirty
 * specialization from it (`next`) and analyses it.
 *
 * - `create` makes the specialization of a context, dirty (its first analysis is due), its
 *   parameters the first call's arguments (with their representations), its result `0`.
 * - `markDirty` marks a specialization to be analysed again: queued at once, or, while its
 *   analysis is in progress, queued when it ends (`ended`). `markCallersDirty` does it for the
 *   callers of a specialization whose result or representation changed.
 * - `defer` queues a first analysis that nests too deep to run now (NEST_LIMIT, limits.ts).
 *
 * Invariants
 * - One specialization per context id; ids and names in order of creation.
 * - A dirty specialization is queued, being analysed, or just made (its first analysis is the
 *   evaluator's to start or to `defer`); `next` returns only specializations that are dirty and
 *   not being analysed, most recently queued first.
 */
import { type AbsValue, bottom } from '../abstract-values/index.js';
import type { FunDef } from '../scf-lang/index.js';
import type { Chain } from './context.js';
import type { Rep } from './raise.js';
import { NO_REP, type Spec } from './types.js';

export class SpecTable {
  private readonly byContext = new Map<number, Spec>();
  private readonly worklist: Spec[] = [];

  /** Specializations made. */
  get size(): number {
    return this.byContext.size;
  }

  /** The specialization of context `ctx`, if made. */
  get(ctx: Chain): Spec | undefined {
    return this.byContext.get(ctx.id);
  }

  /** Every specialization, in order of creation. */
  values(): IterableIterator<Spec> {
    return this.byContext.values();
  }

  /**
   * The specialization of `fn` for context `ctx` (which has none yet), called with `args`
   * represented per `reps` (plain where missing), named `fn$N`.
   */
  create(fn: FunDef, ctx: Chain, args: readonly AbsValue[], reps: readonly Rep[], isRoot = false): Spec {
    const id = this.byContext.size;
    const spec: Spec = {
      id,
      fn,
      name: `${fn.name}$${id}`,
      ctx,
      params: fn.params.map((_, i) => ({
        value: args[i] as AbsValue,
        rep: reps[i],
        top: false,
        key: ctx.key.values[i] !== undefined,
      })),
      paramSteps: { changes: 0, pinned: false },
      result: { value: bottom(), rep: NO_REP, top: false, key: false },
      resultSteps: { changes: 0, pinned: false },
      generalized: false,
      analyzing: false,
      dirty: true,
      isRoot,
      callers: new Set(),
      body: undefined,
      cs: new Map(),
    };
    this.byContext.set(ctx.id, spec);
    return spec;
  }

  /** Records that `caller` calls `spec` (it is analysed again when `spec`'s result changes). */
  addCaller(spec: Spec, caller: Spec): void {
    spec.callers.add(caller);
  }

  /** `spec` needs no analysis (it was given up: its body is final). */
  settled(spec: Spec): void {
    spec.dirty = false;
  }

  markDirty(spec: Spec): void {
    if (spec.dirty) return;
    spec.dirty = true;
    if (!spec.analyzing) this.worklist.push(spec);
  }

  /** `markDirty` for every caller of `spec` (but `except`). */
  markCallersDirty(spec: Spec, except?: Spec): void {
    for (const c of spec.callers) if (c !== except) this.markDirty(c);
  }

  /** Queues `spec`'s first analysis for later (it is dirty from `create`). */
  defer(spec: Spec): void {
    this.worklist.push(spec);
  }

  /** `spec`'s analysis begins: it is no longer dirty (a change from now on marks it again). */
  begin(spec: Spec): void {
    spec.analyzing = true;
    spec.dirty = false;
  }

  /** `spec`'s analysis ended: a change while it ran queues it again (`requeue`). */
  ended(spec: Spec): void {
    spec.analyzing = false;
  }

  /** Queues `spec` again if it was marked dirty while it was analysed. */
  requeue(spec: Spec): void {
    if (spec.dirty) this.worklist.push(spec);
  }

  /** The next specialization to analyse again, or `undefined` when none is left. */
  next(): Spec | undefined {
    while (this.worklist.length > 0) {
      const s = this.worklist.pop() as Spec;
      if (s.dirty && !s.analyzing) return s;
    }
    return undefined;
  }
}
