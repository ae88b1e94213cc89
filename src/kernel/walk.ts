/**
 * Generic operations on kernel values (nodes, cons lists, options): equality modulo labels,
 * relabelling, the largest label. Built on the field table's `slotsOf`/`children`/`mapChildren`
 * (fields.ts), so adding a node kind does not touch them; children are visited in declaration
 * order, the order the SCF-lang `relabelCmd` numbers them in.
 */
import { children, mapChildren, slotsOf } from './fields.js';

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** Structural equality that ignores every `lbl` field (NaN equals NaN, -0 differs from 0). */
export function equalModuloLabels(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!isObject(a) || !isObject(b) || a.kind !== b.kind) return false;
  return slotsOf(a).every((s) => s.name === 'lbl' || equalModuloLabels(a[s.name], b[s.name]));
}

/** A copy of `node` with every `lbl` replaced by 0 (handy for snapshot-style comparisons). */
export function stripLabels<T>(node: T): T {
  return mapLabels(node, () => 0);
}

/** A copy of `node` whose labels are renumbered start, start+1, ... in pre-order. */
export function relabel<T>(node: T, start = 1): T {
  let next = start;
  return mapLabels(node, () => next++);
}

/** The largest label in `node` (0 when there is none); fresh labels can start above it. */
export function maxLabel(node: unknown): number {
  if (!isObject(node)) return 0;
  let m = typeof node.lbl === 'number' ? node.lbl : 0;
  for (const c of children(node)) m = Math.max(m, maxLabel(c));
  return m;
}

function mapLabels<T>(node: T, fresh: () => number): T {
  const go = (x: unknown): unknown => (isObject(x) ? mapChildren(x, go, fresh) : x);
  return go(node) as T;
}
