/**
 * How the WGSL back end (wgsl.ts) spells kernel scalars: the WGSL type of each kernel type, int and
 * float literals (inf and NaN from their bits at run time, since WGSL rejects non-finite
 * constants), folded constants, values hidden from WGSL's constant evaluation behind a run-time
 * zero, and the depth at which an expression's WGSL is held in a `let`. Shared by the shader
 * emitter and the coarsened maps it writes (coarsen.ts).
 */
import { type Expr, nodesOfType } from '../kernel/index.js';
import { bare } from './js.js';

/** The WGSL type holding a kernel scalar type (bool is an i32 holding 0/1). */
export function wgslType(ty: string): string {
  switch (ty) {
    case 'int':
    case 'bool':
      return 'i32';
    case 'float':
      return 'f32';
    default:
      throw new Error(`internal error: no WGSL type for '${ty}'`);
  }
}

function intLiteral(v: number): string {
  if (v === -2147483648) return 'i32(-2147483648)';
  return v < 0 ? `(${v}i)` : `${v}i`;
}

/** A WGSL f32 expression for a binary32 value: a literal, or for inf/NaN the bits at run time. */
function floatLiteral(v: number): string {
  if (Number.isNaN(v)) return nonFinite('0x7fc00000u');
  if (v === Number.POSITIVE_INFINITY) return nonFinite('0x7f800000u');
  if (v === Number.NEGATIVE_INFINITY) return nonFinite('0xff800000u');
  if (Object.is(v, -0)) return '(-0.0f)';
  let text = String(v);
  if (!/[.e]/.test(text)) text += '.0';
  return v < 0 ? `(${text}f)` : `${text}f`;
}

/** Longest kernel text kept in a comment of the generated code (commentText). */
export const LONG = 4000;

/**
 * A module-scope `var<private>` that is never written, so it holds 0: reading it makes an
 * expression a run-time one, which WGSL does not evaluate (or reject) when creating the shader.
 * Its name is reserved in every site's scope; wgsl.ts's `pass` declares it where it is used.
 */
export const ZERO = 'zero';

/** WGSL rejects non-finite constants: the bits are or-ed with the run-time zero. */
function nonFinite(bits: string): string {
  return `bitcast<f32>(${bits} | ${ZERO})`;
}

/** The WGSL of a literal atom; undefined for anything else. */
export function literal(e: Expr): string | undefined {
  switch (e.kind) {
    case 'intLit':
      return intLiteral(e.value);
    case 'floatLit':
      return floatLiteral(e.value);
    case 'boolLit':
      return e.value ? '1i' : '0i';
    default:
      return undefined;
  }
}

/** Every this many levels of an expression, its WGSL is held in a `let` (ExprEmitter.hoisted). */
export const HOIST_EVERY = 16;

const depthMemo = new WeakMap<Expr, number>();

/**
 * The height of `e` (1 for a leaf; its subexpressions from the kernel's field table); memoized, so
 * computing it for every node is linear.
 */
export function exprDepth(e: Expr): number {
  const known = depthMemo.get(e);
  if (known !== undefined) return known;
  const d = 1 + Math.max(0, ...(nodesOfType(e, 'Expr') as Expr[]).map(exprDepth));
  depthMemo.set(e, d);
  return d;
}

/** The WGSL of a folded constant of kernel type `ty` (constValue's value). */
export function constantLiteral(v: number, ty: string): string {
  switch (ty) {
    case 'int':
      return intLiteral(v);
    case 'bool':
      return v !== 0 ? '1i' : '0i';
    case 'float':
      return floatLiteral(v);
    default:
      throw new Error(`internal error: a constant of type '${ty}'`);
  }
}

/**
 * `wgsl` (of kernel type `ty`) as a run-time value: the same bits or-ed with the run-time zero,
 * so WGSL neither evaluates nor rejects it when creating the shader.
 */
export function atRunTime(wgsl: string, ty: string): string {
  return wgslType(ty) === 'f32'
    ? `bitcast<f32>(bitcast<u32>(${bare(wgsl)}) | ${ZERO})`
    : `(${wgsl} | bitcast<i32>(${ZERO}))`;
}

export function zeroOf(ty: string): string {
  return wgslType(ty) === 'f32' ? '0.0f' : '0i';
}
