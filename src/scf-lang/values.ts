/**
 * Concrete SCF-lang values: the Herbrand universe H of SCF §3.2, represented exactly as the
 * optimizers see them when they run natively, so the Core interpreter's results and native
 * results compare directly.
 *
 * - integers, floats, booleans, strings: JavaScript primitives;
 * - constructor values `c(t1 … tn)`: frozen-shape objects `{ kind: c, field1: t1, … }`;
 * - tuples: arrays;
 * - maps and sets: Immutable.js collections (keys and elements are primitives).
 */
import { Map as IMap, Set as ISet } from 'immutable';
import type { PMap, PSet, Prim } from './prelude.js';

export type Value = Prim | CtorValue | TupleValue | PMap<Prim, unknown> | PSet<Prim>;

export interface CtorValue {
  readonly kind: string;
  readonly [field: string]: unknown;
}

export type TupleValue = readonly unknown[];

export function isPrim(v: unknown): v is Prim {
  const t = typeof v;
  return t === 'number' || t === 'string' || t === 'boolean';
}

/** A short human-readable rendering, for error messages and the CLI. */
export function showValue(v: unknown, depth = 0): string {
  if (depth > 8) return '…';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (IMap.isMap(v)) {
    const parts = [...(v as IMap<unknown, unknown>)].map(
      ([k, x]) => `${showValue(k, depth + 1)} ↦ ${showValue(x, depth + 1)}`,
    );
    return `map{${parts.join(', ')}}`;
  }
  if (ISet.isSet(v))
    return `set{${[...(v as ISet<unknown>)].map((x) => showValue(x, depth + 1)).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map((x) => showValue(x, depth + 1)).join(', ')}]`;
  if (typeof v === 'object' && v !== null && 'kind' in v) {
    const o = v as CtorValue;
    const fields = Object.keys(o).filter((k) => k !== 'kind');
    if (fields.length === 0) return String(o.kind);
    return `${String(o.kind)}(${fields.map((k) => showValue(o[k], depth + 1)).join(', ')})`;
  }
  return String(v);
}
