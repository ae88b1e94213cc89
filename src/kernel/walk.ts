/**
 * Generic operations on kernel ASTs that only depend on their being plain data (objects whose `lbl`
 * field is a label, cons lists, options): equality modulo labels, relabelling, the largest label.
 * Defined once here, reflectively, so adding a node kind does not touch them.
 */

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** Structural equality that ignores every `lbl` field (NaN equals NaN, -0 differs from 0). */
export function equalModuloLabels(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => k !== 'lbl');
  const kb = Object.keys(b).filter((k) => k !== 'lbl');
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && equalModuloLabels(a[k], b[k]));
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
  for (const [k, v] of Object.entries(node)) if (k !== 'lbl') m = Math.max(m, maxLabel(v));
  return m;
}

function mapLabels<T>(node: T, fresh: () => number): T {
  const go = (x: unknown): unknown => {
    if (!isObject(x)) return x;
    const out: Record<string, unknown> = {};
    if ('lbl' in x) out.lbl = fresh();
    for (const [k, v] of Object.entries(x)) if (k !== 'lbl') out[k] = go(v);
    // Keep the key order of the original node (lbl last, as the AST declares it).
    const ordered: Record<string, unknown> = {};
    for (const k of Object.keys(x)) ordered[k] = out[k];
    return ordered;
  };
  return go(node) as T;
}
