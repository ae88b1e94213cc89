/**
 * The constant-propagation lattice (SCF §2.2.1: `lattice_val = non_const | const of int`), in
 * SCF-lang, extended with the scalar type of a constant and with constant arrays:
 *
 *            (absent from the environment: no value yet — uninitialized or unreachable; top)
 *     const(v, ty)   constArray(ty, [v0, v1, …])
 *            nonConst                                                                 (bottom)
 *
 * An environment `Env` maps variable names to lattice values; a name absent from it is top (a
 * local not assigned on any path so far: reading it would be an error in C, so any value may be
 * assumed). `meetEnv` is the pointwise meet with absent as the identity. Constants are compared
 * with `sameNumber` (SameValue: -0 differs from +0, NaN equals NaN), never with `===` or the
 * prelude's `equal` (SameValueZero), because folding `1.0f / x` must not confuse -0 and +0.
 *
 * Invariants: `meetVal` and `meetEnv` are commutative, associative, idempotent and monotone, and
 * every descending chain is short (a name goes top → const → nonConst at most), which bounds the
 * loop fixpoints of const-prop.ts; they still carry fuel.
 */
import { type List, mapFind, mapInsert, mapKeys, mapSize, type PMap, setToList } from 'scf/prelude';

/** A value known to vary (or not known at all). */
export interface NonConst {
  readonly kind: 'nonConst';
}

/** A scalar known to be `value`; `ty` is its C type ('int' | 'float' | 'bool'). */
export interface Const {
  readonly kind: 'const';
  readonly value: number;
  readonly ty: string;
}

/** An array whose contents are known: element `i` is the i-th of `elems`, of type `ty`. */
export interface ConstArray {
  readonly kind: 'constArray';
  readonly ty: string;
  readonly elems: List<number>;
}

export type LatticeVal = NonConst | Const | ConstArray;

export type Env = PMap<string, LatticeVal>;

export function nonConst(): LatticeVal {
  return { kind: 'nonConst' };
}

export function mkConst(value: number, ty: string): LatticeVal {
  return { kind: 'const', value, ty };
}

/** SameValue on numbers: NaN equals NaN, -0 differs from +0. */
export function sameNumber(a: number, b: number): boolean {
  if (a === b) return a !== 0 || 1 / a === 1 / b;
  return isNaNNumber(a) && isNaNNumber(b);
}

/** Whether `x` is NaN (SCF-lang has no `Number.isNaN`; NaN is the only value unequal to itself). */
export function isNaNNumber(x: number): boolean {
  // biome-ignore lint/suspicious/noSelfCompare: the NaN test itself
  return x !== x;
}

function sameNumbers(a: List<number>, b: List<number>): boolean {
  if (a.kind === 'nil') return b.kind === 'nil';
  if (b.kind === 'nil') return false;
  return sameNumber(a.head, b.head) && sameNumbers(a.tail, b.tail);
}

export function sameVal(a: LatticeVal, b: LatticeVal): boolean {
  switch (a.kind) {
    case 'nonConst':
      return b.kind === 'nonConst';
    case 'const':
      return b.kind === 'const' && a.ty === b.ty && sameNumber(a.value, b.value);
    case 'constArray':
      return b.kind === 'constArray' && a.ty === b.ty && sameNumbers(a.elems, b.elems);
  }
}

/** The meet of two (present) lattice values: equal values stay, different ones become nonConst. */
export function meetVal(a: LatticeVal, b: LatticeVal): LatticeVal {
  return sameVal(a, b) ? a : nonConst();
}

/** Pointwise meet; a name present in only one environment keeps its value (absent is top). */
export function meetEnv(a: Env, b: Env): Env {
  return meetKeys(setToList(mapKeys(b)), a, b);
}

function meetKeys(keys: List<string>, acc: Env, b: Env): Env {
  switch (keys.kind) {
    case 'nil':
      return acc;
    case 'cons': {
      const vb = mapFind(b, keys.head);
      const va = mapFind(acc, keys.head);
      if (vb.kind === 'none') return meetKeys(keys.tail, acc, b);
      const v = va.kind === 'some' ? meetVal(va.value, vb.value) : vb.value;
      return meetKeys(keys.tail, mapInsert(acc, keys.head, v), b);
    }
  }
}

/** Whether two environments bind the same names to the same (`sameVal`) values. */
export function sameEnv(a: Env, b: Env): boolean {
  return mapSize(a) === mapSize(b) && sameKeys(setToList(mapKeys(a)), a, b);
}

function sameKeys(keys: List<string>, a: Env, b: Env): boolean {
  switch (keys.kind) {
    case 'nil':
      return true;
    case 'cons': {
      const va = mapFind(a, keys.head);
      const vb = mapFind(b, keys.head);
      return (
        va.kind === 'some' && vb.kind === 'some' && sameVal(va.value, vb.value) && sameKeys(keys.tail, a, b)
      );
    }
  }
}

/** `xs` without its first `i` elements (`nil` when it is shorter): element i is its head. */
export function dropNumbers(xs: List<number>, i: number): List<number> {
  if (xs.kind === 'nil') return xs;
  if (i === 0) return xs;
  return dropNumbers(xs.tail, i - 1);
}
