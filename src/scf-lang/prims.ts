/**
 * Core primitives: the operators of SCF-lang and the operations of the prelude.
 *
 * One table gives each primitive its arity, its category (the interpreter counts map and set
 * operations apart from the rest, as SCF's instrumented interpreter does) and its concrete
 * meaning. The concrete meaning of a map, set or equality primitive *is* the prelude function
 * an optimizer calls when it runs natively, so native runs and Core runs cannot disagree.
 * Later stages (abstract values, the partial evaluator) give each primitive an abstract
 * meaning keyed by the same names.
 */
import * as P from './prelude.js';
import type { TupleValue, Value } from './values.js';

export type PrimCategory = 'arith' | 'compare' | 'logic' | 'string' | 'struct' | 'map' | 'set';

export interface PrimInfo {
  readonly arity: number;
  readonly category: PrimCategory;
  readonly impl: (...args: never[]) => Value;
}

type Num = number;
type Map = P.PMap<P.Prim, Value>;
type Set = P.PSet<P.Prim>;

// biome-ignore lint/suspicious/noExplicitAny: the table stores implementations of differing signatures
function prim<A extends any[]>(arity: number, category: PrimCategory, impl: (...args: A) => Value): PrimInfo {
  return { arity, category, impl: impl as unknown as PrimInfo['impl'] };
}

export const PRIMS = {
  // arithmetic on numbers (JavaScript double semantics; C int/float semantics are built from
  // these plus imul / fround / bit operations)
  add: prim(2, 'arith', (a: Num, b: Num) => a + b),
  sub: prim(2, 'arith', (a: Num, b: Num) => a - b),
  mul: prim(2, 'arith', (a: Num, b: Num) => a * b),
  div: prim(2, 'arith', (a: Num, b: Num) => a / b),
  mod: prim(2, 'arith', (a: Num, b: Num) => a % b),
  neg: prim(1, 'arith', (a: Num) => -a),
  bitand: prim(2, 'arith', (a: Num, b: Num) => a & b),
  bitor: prim(2, 'arith', (a: Num, b: Num) => a | b),
  bitxor: prim(2, 'arith', (a: Num, b: Num) => a ^ b),
  bitnot: prim(1, 'arith', (a: Num) => ~a),
  shl: prim(2, 'arith', (a: Num, b: Num) => a << b),
  shr: prim(2, 'arith', (a: Num, b: Num) => a >> b),
  ushr: prim(2, 'arith', (a: Num, b: Num) => a >>> b),
  imul: prim(2, 'arith', P.imul),
  fround: prim(1, 'arith', P.fround),
  trunc: prim(1, 'arith', P.trunc),
  floor: prim(1, 'arith', P.floor),
  sqrt: prim(1, 'arith', P.sqrt),
  abs: prim(1, 'arith', P.abs),
  min: prim(2, 'arith', P.min),
  max: prim(2, 'arith', P.max),
  cmath: prim(3, 'arith', P.cmath),
  // comparisons on primitives of one type
  eq: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a === b),
  ne: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a !== b),
  lt: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a < b),
  le: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a <= b),
  gt: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a > b),
  ge: prim(2, 'compare', (a: P.Prim, b: P.Prim) => a >= b),
  not: prim(1, 'logic', (a: boolean) => !a),
  // strings
  concat: prim(2, 'string', (a: string, b: string) => a + b),
  num_to_string: prim(1, 'string', P.numToString),
  str_length: prim(1, 'string', P.strLength),
  char_code_at: prim(2, 'string', P.charCodeAt),
  char_at: prim(2, 'string', P.charAt),
  substring: prim(3, 'string', P.substring),
  // structural equality on any values
  equal: prim(2, 'struct', P.equal<Value>),
  // a tuple with one element replaced (never written in SCF-lang: the partial evaluator's
  // residual code for an update of a raised map, partial-eval/raise.ts)
  tuple_with: prim(3, 'struct', tupleWith),
  // maps
  map_empty: prim(0, 'map', () => P.mapEmpty<P.Prim, Value>()),
  map_insert: prim(3, 'map', (m: Map, k: P.Prim, v: Value) => P.mapInsert(m, k, v)),
  map_find: prim(2, 'map', (m: Map, k: P.Prim) => P.mapFind(m, k) as Value),
  map_delete: prim(2, 'map', (m: Map, k: P.Prim) => P.mapDelete(m, k)),
  map_has: prim(2, 'map', (m: Map, k: P.Prim) => P.mapHas(m, k)),
  map_size: prim(1, 'map', (m: Map) => P.mapSize(m)),
  map_keys: prim(1, 'map', (m: Map) => P.mapKeys(m)),
  // sets
  set_empty: prim(0, 'set', () => P.setEmpty<P.Prim>()),
  set_singleton: prim(1, 'set', (x: P.Prim) => P.setSingleton(x)),
  set_add: prim(2, 'set', (s: Set, x: P.Prim) => P.setAdd(s, x)),
  set_delete: prim(2, 'set', (s: Set, x: P.Prim) => P.setDelete(s, x)),
  set_has: prim(2, 'set', (s: Set, x: P.Prim) => P.setHas(s, x)),
  set_union: prim(2, 'set', (a: Set, b: Set) => P.setUnion(a, b)),
  set_intersect: prim(2, 'set', (a: Set, b: Set) => P.setIntersect(a, b)),
  set_diff: prim(2, 'set', (a: Set, b: Set) => P.setDiff(a, b)),
  set_size: prim(1, 'set', (s: Set) => P.setSize(s)),
  set_subset: prim(2, 'set', (a: Set, b: Set) => P.setSubset(a, b)),
  set_to_list: prim(1, 'set', (s: Set) => P.setToList(s) as Value),
} as const satisfies Record<string, PrimInfo>;

export type PrimOp = keyof typeof PRIMS;

/** `t` with element `i` replaced by `x` (a copy; `t` is unchanged). */
export function tupleWith(t: TupleValue, i: number, x: unknown): TupleValue {
  const c = t.slice();
  c[i] = x;
  return c;
}

/** Primitives whose result is always a boolean. */
export const BOOL_PRIMS: ReadonlySet<PrimOp> = new Set<PrimOp>([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'not',
  'equal',
  'map_has',
  'set_has',
  'set_subset',
]);

export function isPrimOp(name: string): name is PrimOp {
  return Object.hasOwn(PRIMS, name);
}

export function primInfo(op: PrimOp): PrimInfo {
  return PRIMS[op];
}

/** The map and set primitives. */
export type CollectionOp = {
  [K in PrimOp]: (typeof PRIMS)[K]['category'] extends 'map' | 'set' ? K : never;
}[PrimOp];

/**
 * Map and set operations: counted separately by the interpreter (SCF Table 3). Every other
 * primitive reads each of its arguments whole.
 */
export function isCollectionOp(op: PrimOp): op is CollectionOp {
  const c = PRIMS[op].category;
  return c === 'map' || c === 'set';
}
