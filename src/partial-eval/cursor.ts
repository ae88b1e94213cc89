/**
 * Where the partial evaluator (pe.ts) is while it evaluates an expression: an immutable record
 * passed down with every evaluation, never a field saved and restored.
 *
 * - `spec`: the specialization whose analysis is in progress (the caller of every call made here);
 * - `late`: how many `if`s (and dispatches) with a late condition are open around the expression
 *   since that analysis began — `0` is a static path, where calls are unfolded;
 * - `unfolding`: how many unfolded calls are open around it, one inside the other (`unfoldDepth`);
 * - `ctx`: the context its calls are made in — the specialization's, or inside an unfolded call
 *   the one a specialization of that call would have had (context.ts);
 * - `nest`: how many analyses and unfoldings are open, one inside the other, over the whole run
 *   (NEST_LIMIT, limits.ts: each is a JavaScript recursion).
 *
 * An analysis starts on a static path of its own, outside any unfolding (`atAnalysis`), one level
 * deeper than the evaluation that started it (or at 0 from the worklist).
 */
import type { Chain } from './context.js';
import type { Spec } from './types.js';

export interface Cursor {
  readonly spec: Spec;
  readonly late: number;
  readonly unfolding: number;
  readonly ctx: Chain;
  readonly nest: number;
}

/** The cursor at the start of an analysis of `spec`, `nest` analyses and unfoldings deep. */
export function atAnalysis(spec: Spec, nest: number): Cursor {
  return { spec, late: 0, unfolding: 0, ctx: spec.ctx, nest };
}

/** Inside the branches of a test with a late condition. */
export function pastLateTest(at: Cursor): Cursor {
  return { ...at, late: at.late + 1 };
}

/** Inside an unfolded call, whose calls are made in context `ctx`. */
export function inUnfolded(at: Cursor, ctx: Chain): Cursor {
  return { ...at, unfolding: at.unfolding + 1, nest: at.nest + 1, ctx };
}
