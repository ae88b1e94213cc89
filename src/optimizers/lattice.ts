/**
 * The constant-propagation lattice (SCF §2.2.1: `lattice_val = non_const | const of int`), in
 * SCF-lang, extended with the scalar type of a constant, with constant arrays, and with an explicit
 * top for what has no value yet:
 *
 *                      undef                                                            (top)
 *     const(v, ty)   constArray(ty, [v0, v1, …])
 *                     nonConst                                                       (bottom)
 *
 * `LatticeVal` (nonConst, const, constArray) is what the formals are given
 * (`CoP.optimize : Fun -> lattice_val list -> Fun`, the staged input); `EnvVal` adds `undef`, which
 * only environments hold. An environment `Env` binds every name of the function being optimized —
 * the same names in every environment of a run (const-prop.ts), so that `meetEnv` and `sameEnv` go
 * over one fixed list of names and the maps never differ in their keys.
 *
 * `undef` is "no value yet": a scalar not assigned on any path so far (an uninitialized local:
 * reading it would be an error in C, so any value may be assumed), or an array no path has written
 * so far (stored into, passed to a call, produced by a combinator) that is not a constant array — a
 * local array, or an array formal whose contents are not known. A load is folded only from a
 * `constArray`, so for arrays `undef` reads like `nonConst`; it is the meet's identity all the same,
 * which is sound because no array is `constArray` on one path and `undef` on another (only formals
 * are constant arrays, from the entry on).
 *
 * `meetVal` is the meet (`undef` its identity, different values give nonConst); `meetEnv` is
 * pointwise. Constants are compared with `sameNumber` (SameValue: -0 differs from +0, NaN equals
 * NaN), never with `===` or the prelude's `equal` (SameValueZero), because folding `1.0f / x` must not
 * confuse -0 and +0.
 *
 * Invariants: `meetVal` and `meetEnv` are commutative, associative, idempotent and monotone (up to
 * `sameVal`), and every descending chain is short (a name goes undef → const → nonConst at most),
 * which bounds the loop fixpoints of const-prop.ts; they still carry fuel.
 */
import { type List, mapFind, mapInsert, type PMap } from 'scf/prelude';

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

/** No value yet (top; see above). Only environments hold it, never the formals' list. */
export interface Undef {
  readonly kind: 'undef';
}

/** The lattice values of the formals (what `formalsFromBindings` in index.ts makes). */
export type LatticeVal = NonConst | Const | ConstArray;

/** What an environment binds a name to. */
export type EnvVal = LatticeVal | Undef;

export type Env = PMap<string, EnvVal>;

/**
 * The name an environment binds (to const 1) when constant propagation runs under finite math:
 * not a C identifier, so no variable has it, and no `names` list holds it, so meets and
 * comparisons never touch it; it stays as the entry environment set it.
 */
export const FINITE_MATH = '#finite';

export function nonConst(): LatticeVal {
  return { kind: 'nonConst' };
}

export function undef(): EnvVal {
  return { kind: 'undef' };
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

export function sameVal(a: EnvVal, b: EnvVal): boolean {
  switch (a.kind) {
    case 'undef':
      return b.kind === 'undef';
    case 'nonConst':
      return b.kind === 'nonConst';
    case 'const':
      return b.kind === 'const' && a.ty === b.ty && sameNumber(a.value, b.value);
    case 'constArray':
      return b.kind === 'constArray' && a.ty === b.ty && sameNumbers(a.elems, b.elems);
  }
}

/** The meet: `undef` is the identity; equal values stay, different ones become nonConst. */
export function meetVal(a: EnvVal, b: EnvVal): EnvVal {
  if (a.kind === 'undef') return b;
  if (b.kind === 'undef') return a;
  return sameVal(a, b) ? a : nonConst();
}

/** What `env` binds `name` to (undef for a name it lacks, which no environment of a run does). */
export function lookup(env: Env, name: string): EnvVal {
  const found = mapFind(env, name);
  return found.kind === 'some' ? found.value : undef();
}

/** The pointwise meet of two environments that bind exactly `names`. */
export function meetEnv(names: List<string>, a: Env, b: Env): Env {
  if (names.kind === 'nil') return a;
  const v = meetVal(lookup(a, names.head), lookup(b, names.head));
  return meetEnv(names.tail, mapInsert(a, names.head, v), b);
}

/** Whether two environments that bind exactly `names` bind each to the same (`sameVal`) value. */
export function sameEnv(names: List<string>, a: Env, b: Env): boolean {
  if (names.kind === 'nil') return true;
  return sameVal(lookup(a, names.head), lookup(b, names.head)) && sameEnv(names.tail, a, b);
}

/** `xs` without its first `i` elements (`nil` when it is shorter): element i is its head. */
export function dropNumbers(xs: List<number>, i: number): List<number> {
  if (xs.kind === 'nil') return xs;
  if (i === 0) return xs;
  return dropNumbers(xs.tail, i - 1);
}
