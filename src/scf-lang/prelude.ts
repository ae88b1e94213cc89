/**
 * The SCF-lang prelude: persistent maps and sets, structural equality, options and lists,
 * numbers and strings.
 *
 * Optimizers import from here (`import { mapInsert } from 'scf/prelude'`). Run natively, these
 * are ordinary functions over Immutable.js collections. For the stager, every function here is
 * a Core *primitive* (see `prims.ts`), never user code: the partial evaluator knows what each
 * one does, which is what lets it be precise on maps (SCF §3.3.2).
 *
 * Invariants
 * - Every value is immutable; no function mutates its arguments.
 * - Map keys and set elements are primitives (number, string, boolean), so Immutable's value
 *   equality on them is plain equality.
 * - `setToList` / `mapKeyList` return elements in ascending order, so what an optimizer computes
 *   never depends on insertion order.
 */
import { Map as IMap, Set as ISet } from 'immutable';

/** Values allowed as map keys and set elements. */
export type Prim = number | string | boolean;

/** A persistent map from primitive keys to values. */
export type PMap<K extends Prim, V> = IMap<K, V>;
/** A persistent set of primitives. */
export type PSet<T extends Prim> = ISet<T>;

/** The option type. `mapFind` returns one. */
export type Option<T> = { readonly kind: 'none' } | { readonly kind: 'some'; readonly value: T };

/** Immutable cons lists, for sequences in ASTs and for iterating over a set's elements. */
export type List<T> =
  | { readonly kind: 'nil' }
  | { readonly kind: 'cons'; readonly head: T; readonly tail: List<T> };

// ---- options ----------------------------------------------------------------------------

const NONE: Option<never> = Object.freeze({ kind: 'none' });

export function none<T>(): Option<T> {
  return NONE;
}

export function some<T>(value: T): Option<T> {
  return { kind: 'some', value };
}

/** The option's value, or `otherwise` when it is `none`. */
export function getOr<T>(o: Option<T>, otherwise: T): T {
  return o.kind === 'some' ? o.value : otherwise;
}

// ---- lists ------------------------------------------------------------------------------

/** The empty list (`{ kind: 'nil' }`). */
export function nil<T>(): List<T> {
  return { kind: 'nil' };
}

/** The list `head` then `tail` (`{ kind: 'cons', head, tail }`). */
export function cons<T>(head: T, tail: List<T>): List<T> {
  return { kind: 'cons', head, tail };
}

// ---- maps -------------------------------------------------------------------------------

export function mapEmpty<K extends Prim, V>(): PMap<K, V> {
  return IMap<K, V>();
}

export function mapInsert<K extends Prim, V>(m: PMap<K, V>, key: K, value: V): PMap<K, V> {
  // Immutable.js keeps the old value when the new one is SameValueZero-equal to it, so -0 over 0
  // (or 0 over -0) would be lost; iteration order is never observable (setToList sorts)
  if (value === 0 && m.get(key) === 0 && !Object.is(m.get(key), value)) return m.delete(key).set(key, value);
  return m.set(key, value);
}

/** What `mapFind` asks Immutable.js for when a key is absent (no map value is this symbol). */
const ABSENT: unique symbol = Symbol('absent');

export function mapFind<K extends Prim, V>(m: PMap<K, V>, key: K): Option<V> {
  // one lookup, not `has` then `get`
  const v = m.get(key, ABSENT as V);
  return v === ABSENT ? NONE : some(v);
}

export function mapDelete<K extends Prim, V>(m: PMap<K, V>, key: K): PMap<K, V> {
  return m.delete(key);
}

export function mapHas<K extends Prim, V>(m: PMap<K, V>, key: K): boolean {
  return m.has(key);
}

export function mapSize<K extends Prim, V>(m: PMap<K, V>): number {
  return m.size;
}

/** The keys of a map, as a set. */
export function mapKeys<K extends Prim, V>(m: PMap<K, V>): PSet<K> {
  return ISet<K>(m.keys());
}

// ---- sets -------------------------------------------------------------------------------

export function setEmpty<T extends Prim>(): PSet<T> {
  return ISet<T>();
}

export function setSingleton<T extends Prim>(x: T): PSet<T> {
  return ISet<T>([x]);
}

export function setAdd<T extends Prim>(s: PSet<T>, x: T): PSet<T> {
  return s.add(x);
}

export function setDelete<T extends Prim>(s: PSet<T>, x: T): PSet<T> {
  return s.delete(x);
}

export function setHas<T extends Prim>(s: PSet<T>, x: T): boolean {
  return s.has(x);
}

export function setUnion<T extends Prim>(a: PSet<T>, b: PSet<T>): PSet<T> {
  return a.union(b);
}

export function setIntersect<T extends Prim>(a: PSet<T>, b: PSet<T>): PSet<T> {
  return a.intersect(b);
}

export function setDiff<T extends Prim>(a: PSet<T>, b: PSet<T>): PSet<T> {
  return a.subtract(b);
}

export function setSize<T extends Prim>(s: PSet<T>): number {
  return s.size;
}

/** Whether every element of `a` is in `b`. */
export function setSubset<T extends Prim>(a: PSet<T>, b: PSet<T>): boolean {
  return a.isSubset(b);
}

/** The elements in ascending order (numbers numerically, strings by code unit, false < true). */
export function setToList<T extends Prim>(s: PSet<T>): List<T> {
  const sorted = s.toArray().sort(comparePrim);
  let out: List<T> = { kind: 'nil' };
  for (let i = sorted.length - 1; i >= 0; i--) out = { kind: 'cons', head: sorted[i] as T, tail: out };
  return out;
}

/** Total order on primitives of one type, used wherever iteration order must be canonical. */
export function comparePrim(a: Prim, b: Prim): number {
  if (a === b) return 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
  }
  return a < b ? -1 : 1;
}

// ---- numbers and strings ------------------------------------------------------------------

/** 32-bit integer multiplication, wrapping (C `int` semantics). */
export function imul(a: number, b: number): number {
  return Math.imul(a, b);
}

/** Round to the nearest IEEE binary32 value (C `float` semantics). */
export function fround(x: number): number {
  return Math.fround(x);
}

export function trunc(x: number): number {
  return Math.trunc(x);
}

export function floor(x: number): number {
  return Math.floor(x);
}

export function sqrt(x: number): number {
  return Math.sqrt(x);
}

export function abs(x: number): number {
  return Math.abs(x);
}

export function min(a: number, b: number): number {
  return Math.min(a, b);
}

export function max(a: number, b: number): number {
  return Math.max(a, b);
}

/**
 * C's math library function `name` (`sqrtf`, `powf`, `abs`, … : the kernel language's builtins,
 * src/kernel/builtins.ts) on binary32 arguments (`abs`: an int32), as the kernel's reference
 * evaluator defines it; a function of one argument ignores `y`. `atan2f` takes C's order (`y`
 * first: `cmath('atan2f', y, x)`). Each result is the binary32 value of C's function on glibc:
 * exact or correctly rounded for `sqrtf`, `fabsf`, `fminf`/`fmaxf`, `floorf`/`ceilf`/`truncf`/
 * `roundf`, `fmodf` and `abs`; the others are the double-precision function rounded once
 * (within 1 ulp of the exact result). The C edge cases are kept: `powf(1, NaN)` and
 * `powf(-1, ±inf)` are 1, `fminf`/`fmaxf` return the other operand of a NaN, `roundf` rounds
 * halves away from zero, `fmodf` has the sign of `x`, `abs(INT_MIN)` wraps to INT_MIN (gcc
 * `-fwrapv`). An unknown name gives NaN.
 */
export function cmath(name: string, x: number, y: number): number {
  switch (name) {
    case 'sqrtf':
      return Math.fround(Math.sqrt(x));
    case 'expf':
      return Math.fround(Math.exp(x));
    case 'exp2f':
      return Math.fround(2 ** x);
    case 'logf':
      return Math.fround(Math.log(x));
    case 'log2f':
      return Math.fround(Math.log2(x));
    case 'powf':
      return Math.fround(cPow(x, y));
    case 'sinf':
      return Math.fround(Math.sin(x));
    case 'cosf':
      return Math.fround(Math.cos(x));
    case 'tanf':
      return Math.fround(Math.tan(x));
    case 'tanhf':
      return Math.fround(Math.tanh(x));
    case 'atan2f':
      return Math.fround(Math.atan2(x, y));
    case 'fabsf':
      return Math.abs(x);
    case 'fminf':
      // biome-ignore lint/complexity/useMathMinMax: Math.min differs from C on NaN and on ±0
      return Number.isNaN(y) ? x : x < y ? x : y;
    case 'fmaxf':
      // biome-ignore lint/complexity/useMathMinMax: Math.max differs from C on NaN and on ±0
      return Number.isNaN(y) ? x : x > y ? x : y;
    case 'floorf':
      return Math.floor(x);
    case 'ceilf':
      return Math.ceil(x);
    case 'truncf':
      return Math.trunc(x);
    case 'roundf':
      return cRound(x);
    case 'fmodf':
      return x % y;
    case 'abs':
      return Math.abs(x) | 0;
    default:
      return Number.NaN;
  }
}

/** C's `pow`: JavaScript's `**` but where C99 Annex F differs (a base of 1, or -1 to ±inf, gives 1). */
function cPow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Number.POSITIVE_INFINITY || y === Number.NEGATIVE_INFINITY)) return 1;
  return x ** y;
}

/** C's `round`: to the nearest integer, halves away from zero; -0, ±inf and NaN as they are. */
function cRound(x: number): number {
  const t = Math.trunc(x);
  // x - t is exact (the fraction of a binary32 value); at |x| >= 2^23 it is 0.
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

/** Decimal text of a number (as JavaScript's `String(n)`). */
export function numToString(n: number): string {
  return String(n);
}

/** The number of UTF-16 code units of `s` (JavaScript's `s.length`). */
export function strLength(s: string): number {
  return s.length;
}

/** The UTF-16 code unit at index `i` of `s` (JavaScript's `s.charCodeAt(i)`): NaN outside `s`. */
export function charCodeAt(s: string, i: number): number {
  return s.charCodeAt(i);
}

/** The one-code-unit string at index `i` of `s` (JavaScript's `s.charAt(i)`): '' outside `s`. */
export function charAt(s: string, i: number): string {
  return s.charAt(i);
}

/**
 * The code units of `s` from `start` up to, not including, `end` (JavaScript's
 * `s.substring(start, end)`): each bound is clamped to `0 … strLength(s)` (NaN as 0) and
 * truncated, and the smaller one starts.
 */
export function substring(s: string, start: number, end: number): string {
  return s.substring(start, end);
}

// ---- structural equality ------------------------------------------------------------------

/**
 * Structural equality on SCF-lang values: primitives by SameValueZero (NaN equals NaN),
 * constructor values and tuples field by field, maps and sets by contents.
 * This is what SCF-lang uses instead of `===` on non-primitive values.
 */
export function equal<T>(a: T, b: T): boolean {
  return deepEqual(a, b);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (IMap.isMap(a)) {
    if (!IMap.isMap(b) || a.size !== b.size) return false;
    const bm = b as IMap<unknown, unknown>;
    for (const [k, v] of a as IMap<unknown, unknown>) {
      if (!bm.has(k) || !deepEqual(v, bm.get(k))) return false;
    }
    return true;
  }
  if (ISet.isSet(a)) {
    if (!ISet.isSet(b) || a.size !== b.size) return false;
    const bs = b as ISet<unknown>;
    for (const x of a as ISet<unknown>) if (!bs.has(x)) return false;
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || IMap.isMap(b) || ISet.isSet(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  if (ao.kind !== bo.kind) return false;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) {
    if (!(k in bo) || !deepEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/**
 * Marks a branch the type checker proved unreachable (`default: return absurd(x)` after an
 * exhaustive switch). The SCF-lang front end drops such branches; natively it throws.
 */
export function absurd(x: never): never {
  throw new Error(`absurd: reached with ${JSON.stringify(x)}`);
}
