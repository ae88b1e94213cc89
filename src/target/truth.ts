/**
 * C's truth test of a kernel expression, once for the back ends (js.ts, wgsl.ts), which both have
 * real Booleans: a Boolean literal is `true`/`false`; a comparison, `&&` and `||` are Booleans
 * already; `!x` is the negated test of `x`; `(bool)x` is the test of `x` (C's conversion to bool
 * is `x != 0`); anything else is tested against zero. The back end writes each case in its
 * language through `TruthWriter`.
 */
import { assertNever } from '../common/index.js';
import type { Binary, Expr } from '../kernel/index.js';

/** The kernel's comparison operators (the same spelling in C and WGSL). */
export const COMPARISON_OPS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', '==', '!=']);

/** Whether a binary operator yields a truth value (C's 0 or 1): a comparison, `&&` or `||`. */
export function isTruthOp(op: string): boolean {
  return op === '&&' || op === '||' || COMPARISON_OPS.has(op);
}

/** How a back end writes the cases of `truthTest`. */
export interface TruthWriter {
  /** The test of a subexpression. */
  cond(e: Expr): string;
  /** `left op right` for a comparison `op`. */
  compare(e: Binary): string;
  /** `left && right` or `left || right`, `right` evaluated only when C evaluates it. */
  logical(e: Binary): string;
  /** `e != 0`. */
  nonZero(e: Expr): string;
}

/** `e`'s truth test, as a Boolean of the back end `w` writes for. */
export function truthTest(e: Expr, w: TruthWriter): string {
  switch (e.kind) {
    case 'boolLit':
      return e.value ? 'true' : 'false';
    case 'binary':
      if (COMPARISON_OPS.has(e.op)) return w.compare(e);
      if (e.op === '&&' || e.op === '||') return w.logical(e);
      return w.nonZero(e);
    case 'unary':
      return e.op === '!' ? `!${w.cond(e.arg)}` : w.nonZero(e);
    case 'cast':
      return e.ty === 'bool' ? w.cond(e.arg) : w.nonZero(e);
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'load':
    case 'call':
    case 'ternary':
    case 'arrayRef':
      return w.nonZero(e);
    default:
      return assertNever(e);
  }
}
