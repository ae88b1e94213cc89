/**
 * Constant folding with the reference evaluator's semantics (src/kernel/eval.ts), for back ends
 * whose target language evaluates constant expressions itself and rejects some that C accepts.
 *
 * Why. WGSL evaluates every const-expression (an expression whose leaves are literals) when the
 * shader is created, and rejects the shader when one overflows or is not finite: `1.0f / 0.0f`,
 * `1e38f * 10.0f`, `(1 << 30) * 2` are all valid C (binary32 gives inf; the evaluator's ints wrap,
 * as gcc -fwrapv) but shader-creation errors. The WGSL back end therefore folds every literal-only
 * subexpression here, exactly as the evaluator computes it, and writes the value (a finite literal,
 * or inf/NaN built from their bits at run time), so no const-expression larger than a literal is
 * left in a shader.
 *
 * `constValue(e)` is the value the evaluator gives `e` when `e` reads no variable, array element or
 * call and its evaluation has no undefined behaviour (division or remainder by zero, INT_MIN / -1,
 * a shift count outside 0..31, a float→int conversion out of range); undefined otherwise. As in the
 * evaluator, `&&`, `||` and `?:` evaluate only what they must: `0 && 1 / 0` is 0. Values are JS
 * numbers as the evaluator's: int32, 0/1 for bool, binary32 floats (-0 and NaN included). A builtin's
 * call on constants (`sqrtf(2.0f)`) is the evaluator's value too.
 */
import { cmath } from '../scf-lang/prelude.js';
import {
  applyBinary,
  applyUnary,
  builtin,
  convertScalar,
  type Expr,
  exprType,
  type Fault,
  listToArray,
  literalValue,
} from '../kernel/index.js';

/** Memo: a node's folded value (null: not constant). Each node is folded once, so folding is linear. */
const memo = new WeakMap<Expr, number | null>();

/** The evaluator's value of `e` when it is a constant without undefined behaviour, else undefined. */
export function constValue(e: Expr): number | undefined {
  const known = memo.get(e);
  if (known !== undefined) return known === null ? undefined : known;
  const v = fold(e);
  memo.set(e, v === undefined ? null : v);
  return v;
}

function fold(e: Expr): number | undefined {
  switch (e.kind) {
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      return literalValue(e);
    case 'var':
    case 'load':
    case 'arrayRef':
      return undefined;
    case 'call': {
      // a builtin of constants: C's value, as the evaluator computes it (the prelude's `cmath`)
      if (!builtin(e.name)) return undefined;
      const args = listToArray(e.args).map(constValue);
      if (args.some((a) => a === undefined)) return undefined;
      return cmath(e.name, args[0] ?? 0, args[1] ?? 0);
    }
    case 'unary': {
      const a = constValue(e.arg);
      return a === undefined ? undefined : unlessFault(applyUnary(e.op, e.ty, a));
    }
    case 'cast': {
      const a = constValue(e.arg);
      return a === undefined ? undefined : convert(a, exprType(e.arg), e.ty);
    }
    case 'ternary': {
      const c = constValue(e.cond);
      if (c === undefined) return undefined;
      return constValue(c !== 0 ? e.thenExpr : e.elseExpr);
    }
    case 'binary':
      return binary(e.op, e.ty, e.left, e.right);
    default:
      return undefined;
  }
}

function convert(v: number, from: string, to: string): number | undefined {
  return unlessFault(convertScalar(v, from, to));
}

/** An operation's value, or undefined where the evaluator reports a fault (left unfolded). */
function unlessFault(v: number | Fault): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function binary(op: string, ty: string, left: Expr, right: Expr): number | undefined {
  const l = constValue(left);
  if (op === '&&' || op === '||') {
    if (l === undefined) return undefined;
    if (op === '&&' && l === 0) return 0;
    if (op === '||' && l !== 0) return 1;
    const r = constValue(right);
    return r === undefined ? undefined : r !== 0 ? 1 : 0;
  }
  const r = constValue(right);
  if (l === undefined || r === undefined) return undefined;
  return unlessFault(applyBinary(op, ty, l, r));
}

/**
 * Whether evaluating `e` may have undefined behaviour because of a constant operand alone: an int
 * `/` or `%` by a constant 0 or -1 (INT_MIN / -1 needs the -1), a shift by a constant outside
 * 0..31, a float→int conversion of a constant out of range. WGSL rejects such an operation when
 * the constant is a const-expression (even with a run-time other operand, for shifts and divisors),
 * so the back end hides the constant behind a run-time value; C gives the run no meaning anyway.
 */
export function constantMakesUb(e: Expr): boolean {
  switch (e.kind) {
    case 'binary': {
      if (e.ty === 'float') return false;
      const r = constValue(e.right);
      if (r === undefined) return false;
      if (e.op === '/' || e.op === '%') return r === 0 || r === -1;
      if (e.op === '<<' || e.op === '>>') return r < 0 || r > 31;
      return false;
    }
    case 'cast': {
      if (e.ty !== 'int' || exprType(e.arg) !== 'float') return false;
      const a = constValue(e.arg);
      return a !== undefined && convert(a, 'float', 'int') === undefined;
    }
    default:
      return false;
  }
}
