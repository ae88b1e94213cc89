/**
 * Arity raising of maps with known keys: how the partial evaluator represents, in the residual
 * program, a map whose keys are all known at the early stage.
 *
 * Why. An optimizer's environment (`PMap<string, LatticeVal>`) usually has keys the early stage
 * knows exactly — the kernel's variable names — and values it does not. Residualized as a map,
 * every lookup and update stays a hashing map operation at the late stage (SCF Table 3 counts
 * those: they are most of an optimizer's time). Raised, the map is a tuple of its values in key
 * order: `map_find(env, 'i')` becomes `some(#n⁻³(env))` and `map_insert(env, 'i', v)` a new tuple
 * with one slot replaced — what the paper's staged code does with its per-variable locals.
 *
 * Representation (`Rep`), tracked with every residual value in the partial evaluator:
 * - `undefined` (plain): the value is represented as the optimizer itself represents it;
 * - `tuple(K)`: the value is a map with exactly the keys K (sorted), held as a `#|K|` tuple of
 *   its values, each plain;
 * - `con(c, reps)`: the value is a constructor `c` (certainly `c`) whose fields are represented
 *   by `reps` (some field, at some depth, holds a raised map).
 * Invariant: a residual expression with rep R evaluates, on every admitted input, to the value
 * the original expression computes, represented per R. Representations are decided where values
 * are made (a map insert on a raised map or a map literal with a known key; a constructor of
 * represented fields) and flow through variables, projections, lets and calls; wherever two reps
 * meet and differ (the branches of an `if`, a call's argument against the callee's parameter, a
 * body's result against the specialization's result) both sides become plain, which is always
 * possible (`plainCode`) — except that a side whose parts under the other's raised positions are
 * constants takes the other side's representation (those constants as literals of their view,
 * through constructors, `if` and `let`), and a constant argument counts as represented the way its
 * value naturally is (`literalRep` in pe.ts: a map raised), so a fully known environment does not
 * make plain the helpers it is passed to; a specialization's first result that is plain with
 * constant maps decides that natural representation too. A specialization's parameter and result
 * reps only ever change to plain, so this adds a bounded number of re-analyses to the partial
 * evaluator's fixpoint.
 *
 * Operations on a raised map `m` with keys K: `map_find(m, k)` with k known is `some(#n⁻ⁱ m)`, with
 * k late a chain of comparisons of k with the keys it may be; `map_insert(m, k, x)` of a key of K
 * is a tuple literal with slot i replaced, or, under a late test, `tuple_with(m, i, x)` (one
 * element replaced: a chain of conditional updates stays linear in code size); of a new key, a
 * literal of the wider tuple.
 *
 * The collecting semantics records, for an expression with a non-plain rep, the value *as
 * represented* (`viewOf`: the tuple of the map's slot values), so that dead-assignment
 * elimination reasons about the code as it is.
 */
import {
  type AbsValue,
  ABS_PRIMS,
  con,
  constant,
  comparePrim,
  mustIndex,
  normPrim,
  type Prim,
  primIndex,
  project,
  sortPrims,
  top,
} from '../abstract-values/index.js';

export type Rep =
  | undefined
  | { readonly kind: 'tuple'; readonly keys: readonly Prim[] }
  | { readonly kind: 'con'; readonly ctor: string; readonly args: readonly Rep[] };

/** Most keys a raised map may have (a wider tuple costs more to copy than a map update). */
export const RAISE_CAP = 64;

export function tupleRep(keys: readonly Prim[]): Rep {
  return { kind: 'tuple', keys };
}

/** The rep of a constructor built from fields with `args` reps: plain when every field is. */
export function conRep(ctor: string, args: readonly Rep[]): Rep {
  return args.some((a) => a !== undefined) ? { kind: 'con', ctor, args } : undefined;
}

export function sameRep(a: Rep, b: Rep): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a.kind === 'tuple')
    return (
      b.kind === 'tuple' &&
      a.keys.length === b.keys.length &&
      a.keys.every((k, i) => comparePrim(k, b.keys[i] as Prim) === 0)
    );
  return (
    b.kind === 'con' &&
    a.ctor === b.ctor &&
    a.args.length === b.args.length &&
    a.args.every((x, i) => sameRep(x, b.args[i]))
  );
}

/** The position of `key` in sorted `keys`, or -1. */
export function keyIndex(keys: readonly Prim[], key: Prim): number {
  return primIndex(keys, normPrim(key));
}

/** `keys` with `key` added (sorted, no duplicate). */
export function withKey(keys: readonly Prim[], key: Prim): Prim[] {
  return sortPrims([...keys, normPrim(key)]);
}

/** The abstract value of the map `v`'s entry for `key` (`1` when `v` does not say). */
export function slotValue(v: AbsValue, key: Prim): AbsValue {
  // the common case, a map that certainly has `key`, without building `some(…)` to take it apart
  if (v.kind === 'map') {
    const i = mustIndex(v.must, normPrim(key));
    if (i >= 0) return (v.must[i] as readonly [Prim, AbsValue])[1];
  }
  // values are immutable and the same environment is viewed at many bindings: remember slots
  let slots = SLOTS.get(v);
  if (slots === undefined) {
    slots = new Map();
    SLOTS.set(v, slots);
  }
  const k = normPrim(key);
  let out = slots.get(k);
  if (out === undefined) {
    const found = ABS_PRIMS.map_find(v, constant(key));
    out = found.kind === 'con' && found.ctor === 'some' ? (found.args[0] as AbsValue) : top();
    slots.set(k, out);
  }
  return out;
}

/** `slotValue`'s answers per value and key. */
const SLOTS = new WeakMap<AbsValue, Map<Prim, AbsValue>>();

/** The value `v` as `rep` represents it: what the residual code computes. */
export function viewOf(v: AbsValue, rep: Rep): AbsValue {
  if (rep === undefined) return v;
  if (rep.kind === 'tuple') {
    return con(
      `#${rep.keys.length}`,
      rep.keys.map((k) => slotValue(v, k)),
    );
  }
  return con(
    rep.ctor,
    rep.args.map((r, i) => viewOf(project(rep.ctor, i, v), r)),
  );
}
