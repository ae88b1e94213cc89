/**
 * What staged modules import at run time besides the prelude: the admission error and the few
 * helpers that emitted code calls (SCF §2.2: the staged optimizer runs late, on the values that
 * arrive then, and must first check that they are members of the early-stage description).
 *
 * Kept deliberately small: an emitted optimizer is plain TypeScript over the native value
 * representation (`scf-lang/values.ts`) and needs only `mapOf` / `setOf` to rebuild hoisted
 * constants; an emitted admission checker (`admit-emit.ts`) needs the membership helpers below. Every
 * helper is a leaf function that V8 inlines; none allocates on the success path.
 *
 * Invariants
 * - `isCtor`, `isMap`, `isSet`, `isPrimValue`, `ctorFields` decide exactly what
 *   `abstract-values/member.ts` decides for the same value (the generated checker must agree
 *   with `conforms`).
 * - `InputNotAdmitted.actual` is short (at most `ACTUAL_MAX` characters), computed once, when
 *   the error is raised.
 */
import { Map as IMap, Set as ISet } from 'immutable';
import { tupleWith } from './prims.js';
import { showValue } from './values.js';

/** `t` with element `i` replaced (the residual code of an update of a raised map, partial-eval/raise.ts). */
export { tupleWith };

/** Longest `actual` text kept in an `InputNotAdmitted` (longer renderings are cut with `…`). */
export const ACTUAL_MAX = 120;

/**
 * The late-stage input is not a member of the abstract value the optimizer was staged for.
 * `path` names the part that differed (`$[0].body.first.rhs`, `$[1]{"x"}` for a map entry or
 * set element), `expected` says what the description allows there, `actual` what was found.
 */
export class InputNotAdmitted extends Error {
  override readonly name = 'InputNotAdmitted';
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`input not admitted at ${path}: expected ${expected}, got ${actual}`);
  }
}

/** Throws `InputNotAdmitted` for `value` found at `path` where `expected` was required. */
export function notAdmitted(path: string, expected: string, value: unknown): never {
  throw new InputNotAdmitted(path, expected, shortValue(value));
}

/** `showValue`, cut to `ACTUAL_MAX` characters. */
export function shortValue(value: unknown): string {
  let s: string;
  try {
    s = value === undefined ? 'nothing' : value === null ? 'null' : showValue(value);
  } catch {
    s = `a ${typeof value}`; // not an SCF-lang value (e.g. an object without a prototype)
  }
  return s.length <= ACTUAL_MAX ? s : `${s.slice(0, ACTUAL_MAX - 1)}…`;
}

/**
 * The properties by which Immutable.js recognizes its maps and sets (`IMap.isMap(x)` is
 * `Boolean(x && x[IS_MAP])`). Emitted checkers read them inline, so that each test site stays
 * monomorphic; a test checks they still agree with `isMap` / `isSet`.
 */
export const IS_MAP = '@@__IMMUTABLE_MAP__@@';
export const IS_SET = '@@__IMMUTABLE_SET__@@';

/** A primitive SCF-lang value (number, string, boolean). */
export function isPrimValue(x: unknown): boolean {
  const t = typeof x;
  return t === 'number' || t === 'string' || t === 'boolean';
}

/** An Immutable.js map (what `conforms` accepts for an abstract map). */
export function isMap(x: unknown): boolean {
  return IMap.isMap(x);
}

/** An Immutable.js set. */
export function isSet(x: unknown): boolean {
  return ISet.isSet(x);
}

/**
 * Whether `x` is a constructor object built by `kind`: an object, not an array, map or set,
 * whose `kind` is that string (the cheap test first, so the common mismatch costs one load).
 */
export function isCtor(x: unknown, kind: string): boolean {
  return (
    typeof x === 'object' &&
    x !== null &&
    (x as { kind?: unknown }).kind === kind &&
    !Array.isArray(x) &&
    !IMap.isMap(x) &&
    !ISet.isSet(x)
  );
}

/** Field names of a constructor object the constructor table does not list: its keys but `kind`. */
export function ctorFields(x: object): string[] {
  return Object.keys(x).filter((k) => k !== 'kind');
}

/** A hoisted map constant: entries in the original's iteration order. */
export function mapOf<K, V>(entries: readonly (readonly [K, V])[]): IMap<K, V> {
  return IMap<K, V>(entries as [K, V][]);
}

/** A hoisted set constant. */
export function setOf<T>(elems: readonly T[]): ISet<T> {
  return ISet<T>(elems);
}

/** A projection in code emitted with `checked: true` met the wrong constructor (a stager bug). */
export class StagedRuntimeError extends Error {
  override readonly name = 'StagedRuntimeError';
}

/** The failure of a checked projection `ctor.field` on `value`. */
export function badProjection(what: string, value: unknown): never {
  throw new StagedRuntimeError(`projection ${what} applied to ${shortValue(value)}`);
}

/** Core's tuple test `#n? x`: an array of length `n`. */
export function isTuple(x: unknown, n: number): boolean {
  return Array.isArray(x) && x.length === n;
}

/** Checked projection `kind.field` of `x` (code emitted with `checked: true`). */
export function projField(x: unknown, kind: string, field: string): unknown {
  if (typeof x !== 'object' || x === null || (x as { kind?: unknown }).kind !== kind) {
    badProjection(`${kind}.${field}`, x);
  }
  return (x as Record<string, unknown>)[field];
}

/** Checked tuple projection `x[i]` (code emitted with `checked: true`). */
export function projIndex(x: unknown, ctor: string, i: number): unknown {
  if (!Array.isArray(x)) badProjection(`${ctor}⁻${i + 1}`, x);
  return (x as unknown[])[i];
}
