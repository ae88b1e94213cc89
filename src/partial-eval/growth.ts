/**
 * Growth of a specialization's parameters and result (SCF §3: the fixpoint over the calls of one
 * context): the whole staircase, from exact joins to `1`. `growSlots` takes one step of a group
 * of slots (types.ts `Slot`: the parameters, one group since a call's arguments are one change of
 * them all; or the result) and reports each loss of precision to its caller, which records it as
 * a `PeEvent` (pe.ts); everything below it is a pure function of values and limits (limits.ts).
 *
 * Recursion through one context is solved as a fixpoint with a worklist (pe.ts, table.ts): a
 * specialization is re-analysed when its arguments grow, or when the result of a specialization
 * it called grew. Growth is stepwise, never a cliff (`grow`):
 * - the first `joins` changes join shape-preservingly (`shapeJoin`: one constructor joins
 *   pointwise, a numeric leaf that changed becomes its base set, different constructors stay
 *   apart, and so do records told apart by a known field or by nesting — a chain's cell and its
 *   end); later ones widen. The result of a specialization keyed on a known input node
 *   (`inputKeyed`) waits KEYED_JOINS changes: it grows as its callees' results do, not by
 *   recursion, and widening would fold a program's labelled commands into one recursive shape;
 * - a grown value of more than `cap` nodes (a result: `resultCap`, RESULT_CAP_PER_KEY_NODE times
 *   its key's nodes if that is more than `growCap` — a pass's result for a command is about that
 *   command's size) is folded or cut: a chain that grows a cell per step (a list of unrolled
 *   copies) becomes a recursive value, `fix α. z | C(h, α)` with its cells' heads joined
 *   (`foldSpines`), when that fits; anything else is cut to a skeleton that fits
 *   (`boundedSkeleton`: constructors, unions and map must-keys kept, the biggest parts `1` first).
 *   A fold only replaces what a cut would have lost, so the termination argument is unchanged
 *   (each change is still counted);
 * - products are capped part by part (`isProduct`, `capParts`): a tuple (several values returned
 *   or passed together; its alternatives of one arity merged pointwise, `mergeTuples`), a record
 *   (a constructor that does not occur inside itself, like a dataflow state) and a map whose keys
 *   are all known (an environment), so a big part (commands built by unrolling) does not cost a
 *   small one (the dataflow state after them) its shape;
 * - after `specFuel` changes each further change keeps only a skeleton whose numeric leaves are
 *   `1`, so a changing constant is absorbed; the first change past `specFuel` + SKELETON_STEPS
 *   pins the parameters outside the key and the result to their constructors and map keys
 *   (`pin`, `shapeTop`: everything else `1`) — the specialization still handles its key (say,
 *   one input node), so the staged code stays specialized to the input, and an environment stays
 *   a map with known keys, so it stays arity-raised (raise.ts). At that change the parameters are
 *   grown first and their grown values pinned (every parameter outside the key, changed or not);
 *   the result's shape join (`shapeJoin`) is pinned without growing it;
 * - once pinned, a value outside a slot's pinned shape makes that slot `1` (`Slot.top`), which
 *   nothing outgrows.
 *
 * Invariants
 * - `grow(old, next, …).value` is an upper bound of both `old` and `next`; so is `pin(v).value`
 *   of `v`, and `mergeTuples(v)` of `v`; after `growSlots`, every slot's value is an upper bound
 *   of its old value and of what came in, unless the step was held (the budget is spent: the
 *   specialization is given up instead).
 * - Termination: each specialization's parameters and result change at most specFuel +
 *   SKELETON_STEPS + 2 times (after the pinned shape, `1` absorbs everything).
 */
import { assertNever } from '../common/index.js';
import {
  type AbsValue,
  absMap,
  boundedSkeleton,
  con,
  equals,
  foldSpines,
  isConcrete,
  leq,
  mergeSameCtor,
  openSize,
  shapeJoin,
  shapeTop,
  size,
  top,
  union,
  widen,
} from '../abstract-values/index.js';
import { KEYED_JOINS, type Limits, RESULT_CAP_PER_KEY_NODE, SKELETON_STEPS } from './limits.js';
import type { Slot, Steps } from './types.js';

/** What one step of a group of slots takes from its caller (`growSlots`). */
export interface SlotStep {
  /** `params`: the arguments of one call; `result`: what one analysis of the body returned. */
  readonly kind: 'params' | 'result';
  /** The group's limits (`slotLimits`), asked for only when something grows. */
  readonly limits: () => GrowLimits;
  /** A new value as the slot keeps it (a parameter's fresh identity tags: `retag`, residual.ts). */
  readonly fresh: (v: AbsValue) => AbsValue;
  /** Records what slot `i` lost, in order. */
  readonly lose: (i: number, loss: GrowLoss) => void;
  /** The budget is spent: a change is counted but its values are not kept (the caller gives the specialization up). */
  readonly held: boolean;
}

/**
 * One step of the staircase for a group of slots sharing `steps`, given the values that came in
 * (`incoming[i]` for slot `i`): nothing when every one is inside its slot; else one change of the
 * group — grown (`grow`), or at the change that spends the fuel pinned (`pin`), or, pinned, each
 * slot that would grow made `1`. Returns whether any slot grew, whether widening was needed,
 * and whether the change was held (`SlotStep.held`: counted, its values not kept).
 */
export function growSlots(
  steps: Steps,
  slots: readonly Slot<unknown>[],
  incoming: readonly AbsValue[],
  step: SlotStep,
): { readonly grew: boolean; readonly widened: boolean; readonly held: boolean } {
  let grew = false;
  if (steps.pinned) {
    slots.forEach((s, i) => {
      if (s.top || leq(incoming[i] as AbsValue, s.value)) return;
      grew = true;
      s.top = true;
      s.value = top();
      step.lose(i, { reason: 'spec-fuel', kind: 'top', to: '1' });
    });
    if (grew) steps.changes++;
    return { grew, widened: false, held: false };
  }
  const n = steps.changes;
  let limits: GrowLimits | undefined;
  const lim = (): GrowLimits => {
    limits ??= step.limits();
    return limits;
  };
  let widened = false;
  const next = slots.map((s) => s.value);
  slots.forEach((s, i) => {
    const x = incoming[i] as AbsValue;
    if (leq(x, s.value)) return;
    grew = true;
    // the result is pinned from its shape join, not grown first
    if (step.kind === 'result' && n + 1 > lim().specFuel + SKELETON_STEPS) return;
    const g = grow(s.value, x, n, lim());
    if (g.widened) widened = true;
    if (g.loss !== undefined) step.lose(i, g.loss);
    next[i] = step.fresh(g.value);
  });
  if (!grew) return { grew, widened, held: false };
  steps.changes = n + 1;
  if (step.held) return { grew, widened, held: true };
  if (steps.changes <= lim().specFuel + SKELETON_STEPS) {
    slots.forEach((s, i) => {
      s.value = next[i] as AbsValue;
    });
    return { grew, widened, held: false };
  }
  steps.pinned = true;
  slots.forEach((s, i) => {
    if (s.key) {
      s.value = next[i] as AbsValue;
      return;
    }
    const p = pin(
      step.kind === 'result' ? shapeJoin(s.value, incoming[i] as AbsValue) : (next[i] as AbsValue),
    );
    step.lose(i, { reason: 'spec-fuel', kind: p.top ? 'top' : 'skeleton', to: p.to });
    s.value = step.fresh(p.value);
  });
  return { grew, widened, held: false };
}

/**
 * The limits of a group's growth: `joinsBeforeWiden` and `growCap` for parameters; for the result
 * of a specialization keyed on a known input node (a command of the input program), KEYED_JOINS
 * joins — it grows as its callees' results do, not by recursion, so widening (which folds the
 * labelled commands of a program into one recursive shape) waits longer — and a cap that grows
 * with its key (`resultCap`).
 */
export function slotLimits(
  kind: SlotStep['kind'],
  keyValues: readonly (AbsValue | undefined)[],
  limits: Limits,
): GrowLimits {
  if (kind === 'params')
    return { joins: limits.joinsBeforeWiden, specFuel: limits.specFuel, cap: limits.growCap };
  return {
    joins: inputKeyed(keyValues) ? KEYED_JOINS : limits.joinsBeforeWiden,
    specFuel: limits.specFuel,
    cap: resultCap(keyValues, limits.growCap),
  };
}

/** How far a value may grow at one change (`grow`). */
export interface GrowLimits {
  /** Changes joined exactly (`shapeJoin`) before widening. */
  readonly joins: number;
  /** Changes after which every further one keeps a skeleton with numeric leaves `1`. */
  readonly specFuel: number;
  /** Most nodes of a grown value (or of each part of a product) that is not fully known. */
  readonly cap: number;
}

/** What a value lost when it grew past its cap or its fuel. */
export interface GrowLoss {
  /** `spec-fuel`: past `specFuel` changes; `size-cap`: past `cap` nodes. */
  readonly reason: 'spec-fuel' | 'size-cap';
  /** `top`: it became `1`; `folded`: growing chains were folded and nothing cut; `skeleton`: cut. */
  readonly kind: 'top' | 'folded' | 'skeleton';
  /** What it became, in words (`PeEvent.to`). */
  readonly to: string;
}

export interface Growth {
  readonly value: AbsValue;
  /** Whether widening (or a fold) was needed: the run stops `widened` at best. */
  readonly widened: boolean;
  readonly loss?: GrowLoss;
}

/**
 * The value after a specialization's parameter or result grew for the `changes`-th time, from
 * `old` by `next`: exact joins first, then widening; a grown value bigger than `limits.cap` nodes
 * (and not fully known) is cut to a skeleton: regular-tree widening bounds the depth of a growing
 * value, not its breadth, and a value that keeps growing is mostly what the late stage will
 * supply anyway. Products (tuples, records, maps with known keys) are capped part by part.
 */
export function grow(old: AbsValue, next: AbsValue, changes: number, limits: GrowLimits): Growth {
  const shaped = shapeJoin(old, next);
  let widened = false;
  let w: AbsValue;
  if (changes < limits.joins) w = shaped;
  else {
    widened = true;
    w = widen(old, shaped).value;
  }
  w = mergeTuples(w);
  const fuelOut = changes >= limits.specFuel;
  const cap = limits.cap;
  const fits = (p: AbsValue) => (openSize(p) <= cap && !fuelOut) || isConcrete(p);
  // over the size cap, or in the last changes the specialization's fuel allows: keep a skeleton
  // that fits (constructors and must-keys, the biggest parts `1`) rather than `1`
  let folded = false;
  let cutOff = false;
  const capped = (p: AbsValue): AbsValue => {
    if (fits(p)) return p;
    if (isProduct(p)) return capParts(p, capped);
    if (p.kind === 'union') {
      // alternatives of one record constructor merge argument-wise, then are capped per part
      const alts = mergeSameCtor(p.alts);
      if (alts.every(isProduct)) return union(alts.map((a) => capParts(a, capped)));
    }
    // a chain growing a cell per step (the copies of an unrolled loop) folds into a recursive
    // value that keeps every cell's constructors, where a skeleton would cut the chain to `1`
    if (!fuelOut) {
      const f = foldSpines(p);
      if (f !== p && fits(f)) {
        folded = true;
        widened = true;
        return f;
      }
    }
    cutOff = true;
    return boundedSkeleton(p, cap, fuelOut);
  };
  let s: AbsValue;
  if (w.kind === 'con' && isTupleCtor(w.ctor)) {
    if (w.args.every(fits)) return { value: w, widened };
    s = con(w.ctor, w.args.map(capped));
  } else {
    if (fits(w)) return { value: w, widened };
    s = capped(w);
  }
  if (equals(s, w)) return { value: w, widened };
  const kind = s.kind === 'top' ? 'top' : folded && !cutOff ? 'folded' : 'skeleton';
  const to =
    kind === 'top'
      ? '1'
      : kind === 'folded'
        ? `a recursive value of ${size(s)} nodes (a growing chain folded)`
        : `a skeleton of ${size(s)} nodes`;
  return { value: s, widened, loss: { reason: fuelOut ? 'spec-fuel' : 'size-cap', kind, to } };
}

/**
 * `v` pinned to its constructors and map keys (`shapeTop`), for a specialization whose fuel is
 * spent, with what it became in words (`PeEvent.to`).
 */
export function pin(v: AbsValue): { readonly value: AbsValue; readonly top: boolean; readonly to: string } {
  const p = shapeTop(v);
  const top = p.kind === 'top';
  return { value: p, top, to: top ? '1' : `its constructors and map keys (${size(p)} nodes)` };
}

/**
 * The size cap of a specialization's result, for its key values: `growCap`, or
 * RESULT_CAP_PER_KEY_NODE times the nodes of its key values when that is more — what a pass
 * returns for a command is that command rewritten, about as big as it, so a cap below the
 * command's size cuts the rest of a program to a skeleton whatever the budget (a fixed cap does,
 * at main_loop's spine).
 */
export function resultCap(keyValues: readonly (AbsValue | undefined)[], growCap: number): number {
  let n = 0;
  for (const k of keyValues) if (k !== undefined) n += size(k);
  return Math.max(growCap, RESULT_CAP_PER_KEY_NODE * n);
}

/** Whether key values hold a known constructor value (the specialization handles an input node). */
export function inputKeyed(keyValues: readonly (AbsValue | undefined)[]): boolean {
  return keyValues.some((k) => k !== undefined && k.kind === 'con' && isConcrete(k));
}

/**
 * `v` with the alternatives of a union that are tuples of one arity merged into one tuple: a
 * tuple is several values returned together, not a discriminated value, so keeping its
 * alternatives apart only multiplies them. An upper bound of `v`.
 */
export function mergeTuples(v: AbsValue): AbsValue {
  if (v.kind !== 'union') return v;
  const alts = mergeSameCtor(v.alts, isTupleCtor);
  return alts.length === v.alts.length ? v : union(alts);
}

/** Whether `ctor` is one of Core's tuple constructors (`#2`, `#3`, …). */
export function isTupleCtor(ctor: string): boolean {
  return /^#\d+$/.test(ctor);
}

/**
 * Whether `v` is several values held together, capped part by part: a tuple, a record (a
 * constructor that does not occur inside its own arguments) or a map whose keys are all known.
 */
export function isProduct(v: AbsValue): boolean {
  if (v.kind === 'con') return isTupleCtor(v.ctor) || !ctorBelow(v.ctor, v.args);
  return v.kind === 'map' && v.may.length === 0;
}

/** The product `v` with `cap` applied to each of its parts. */
export function capParts(v: AbsValue, cap: (p: AbsValue) => AbsValue): AbsValue {
  if (v.kind === 'con') return con(v.ctor, v.args.map(cap));
  if (v.kind === 'map')
    return absMap(
      v.must.map(([k, x]) => [k, cap(x)] as const),
      [],
    );
  return v;
}

/** Whether constructor `ctor` occurs anywhere inside `xs` (a recursive value, not a record). */
export function ctorBelow(ctor: string, xs: readonly AbsValue[]): boolean {
  const seen = (v: AbsValue): boolean => {
    switch (v.kind) {
      case 'con':
        return v.ctor === ctor || v.args.some(seen);
      case 'union':
        return v.alts.some(seen);
      case 'fix':
        return seen(v.body);
      case 'map':
        return v.must.some(([, x]) => seen(x)) || v.may.some(([k, x]) => seen(k) || seen(x));
      case 'bottom':
      case 'top':
      case 'base':
      case 'consts':
      case 'rec':
      case 'set':
        return false;
      default:
        return assertNever(v);
    }
  };
  return xs.some(seen);
}
