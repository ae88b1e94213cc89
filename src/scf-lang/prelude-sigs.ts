/**
 * What the front end knows of each prelude function: its generic signature (checked with a
 * small unifier) and how a call lowers to Core — a primitive, a constructor, or a short
 * Core expression (`getOr`). Keep in step with `prelude.ts` and `prims.ts`.
 */
import type { PrimOp } from './prims.js';
import { BOOL, listType, NUM, optionType, STR, type Type } from './types.js';

export type Lowering =
  | { readonly kind: 'prim'; readonly op: PrimOp }
  | { readonly kind: 'ctor'; readonly ctor: 'none' | 'some' | 'nil' | 'cons' }
  | { readonly kind: 'getOr' }
  | { readonly kind: 'absurd' };

export interface PreludeFn {
  readonly params: readonly Type[];
  readonly ret: Type;
  readonly lower: Lowering;
  /** Type variables that must be primitive (map keys, set elements). */
  readonly primVars?: readonly string[];
}

const K: Type = { tag: 'var', name: 'K' };
const V: Type = { tag: 'var', name: 'V' };
const T: Type = { tag: 'var', name: 'T' };
const map: Type = { tag: 'map', key: K, val: V };
const set: Type = { tag: 'set', elem: T };
const NEVER: Type = { tag: 'data', name: 'never', ctors: [], args: [] };

const prim = (op: PrimOp, params: Type[], ret: Type, primVars?: string[]): PreludeFn => ({
  params,
  ret,
  lower: { kind: 'prim', op },
  ...(primVars ? { primVars } : {}),
});

export const PRELUDE_FUNS: Readonly<Record<string, PreludeFn>> = {
  abs: prim('abs', [NUM], NUM),
  absurd: { params: [NEVER], ret: NEVER, lower: { kind: 'absurd' } },
  charAt: prim('char_at', [STR, NUM], STR),
  charCodeAt: prim('char_code_at', [STR, NUM], NUM),
  cmath: prim('cmath', [STR, NUM, NUM], NUM),
  cons: { params: [T, listType(T)], ret: listType(T), lower: { kind: 'ctor', ctor: 'cons' } },
  equal: prim('equal', [T, T], BOOL),
  floor: prim('floor', [NUM], NUM),
  fround: prim('fround', [NUM], NUM),
  getOr: { params: [optionType(T), T], ret: T, lower: { kind: 'getOr' } },
  imul: prim('imul', [NUM, NUM], NUM),
  mapDelete: prim('map_delete', [map, K], map, ['K']),
  mapEmpty: prim('map_empty', [], map, ['K']),
  mapFind: prim('map_find', [map, K], optionType(V), ['K']),
  mapHas: prim('map_has', [map, K], BOOL, ['K']),
  mapInsert: prim('map_insert', [map, K, V], map, ['K']),
  mapKeys: prim('map_keys', [map], { tag: 'set', elem: K }, ['K']),
  mapSize: prim('map_size', [map], NUM, ['K']),
  max: prim('max', [NUM, NUM], NUM),
  min: prim('min', [NUM, NUM], NUM),
  nil: { params: [], ret: listType(T), lower: { kind: 'ctor', ctor: 'nil' } },
  none: { params: [], ret: optionType(T), lower: { kind: 'ctor', ctor: 'none' } },
  numToString: prim('num_to_string', [NUM], STR),
  setAdd: prim('set_add', [set, T], set, ['T']),
  setDelete: prim('set_delete', [set, T], set, ['T']),
  setDiff: prim('set_diff', [set, set], set, ['T']),
  setEmpty: prim('set_empty', [], set, ['T']),
  setHas: prim('set_has', [set, T], BOOL, ['T']),
  setIntersect: prim('set_intersect', [set, set], set, ['T']),
  setSingleton: prim('set_singleton', [T], set, ['T']),
  setSize: prim('set_size', [set], NUM, ['T']),
  setSubset: prim('set_subset', [set, set], BOOL, ['T']),
  setToList: prim('set_to_list', [set], listType(T), ['T']),
  setUnion: prim('set_union', [set, set], set, ['T']),
  some: { params: [T], ret: optionType(T), lower: { kind: 'ctor', ctor: 'some' } },
  sqrt: prim('sqrt', [NUM], NUM),
  strLength: prim('str_length', [STR], NUM),
  substring: prim('substring', [STR, NUM, NUM], STR),
  trunc: prim('trunc', [NUM], NUM),
};

export function isPreludeFunction(name: string): boolean {
  return Object.hasOwn(PRELUDE_FUNS, name);
}
