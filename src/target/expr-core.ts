/**
 * The expression emitter core shared by the back ends (js.ts, wgsl.ts): the one dispatch over the
 * kernel's `Expr` kinds, for an expression's value (`exprValue`) and for C's truth test of it
 * (`truthTest`). Each back end supplies an `ExprWriter` whose hooks write each construct in its
 * language; the core decides which construct a node is and writes what both languages spell alike.
 *
 * Algorithm. One exhaustive switch per mode:
 * - value: a variable, a literal, a load, a call, a ternary and an arithmetic or bitwise binary are
 *   the writer's (its int32 wrapping, `Math.fround`, bounds checks, `select`, `u32` shift counts…);
 *   the truth-valued operators — comparisons, `&&`, `||`, `!`, a conversion to bool — are C's 0 or
 *   1 of their truth test (`fromBool`); `~x` is `(~x)` in both languages; a conversion is the
 *   operand itself when the types agree or it only changes bool to int, else `toFloat` or
 *   `floatToInt`;
 * - truth test (both languages have real Booleans): a Boolean literal is `true`/`false`; a
 *   comparison is `(l op r)` with the writer's spelling of `op`; `&&`/`||` are the writer's
 *   (`logical`); `!x` is the negated test of `x`; `(bool)x` is the test of `x` (C's conversion to
 *   bool is `x != 0`); anything else is `(x != zero)`, tested against zero.
 *
 * Invariants.
 * - The core recurses only through the writer's `value` and `cond`, so a back end can wrap every
 *   operand (WGSL folds literal-only subexpressions and hoists deep ones into `let`s there).
 * - Where a hook receives operands already written (`arith`, `negate`, `load`, `toFloat`,
 *   `floatToInt`), the core wrote them left to right, as C and the evaluator evaluate them; a hook
 *   that must order or guard its operands itself (`ternary`, `logical`, `call`: WGSL lowers a
 *   ternary with calls, and a short-circuit whose right side needs statements, to an `if`) gets the
 *   node and writes its operands through `value`/`cond`.
 * - Nodes that cannot be values (an `arrayRef` outside a call, an unknown operator or conversion)
 *   are internal errors: the front end never produces them.
 */
import { assertNever } from '../common/index.js';
import {
  type Binary,
  type BoolLit,
  type Call,
  type Cast,
  type Expr,
  exprType,
  type FloatLit,
  type IntLit,
  type Load,
  type Ternary,
  type Unary,
  type Var,
} from '../kernel/index.js';

/** The kernel's comparison operators (the same spelling in C and WGSL). */
const COMPARISON_OPS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', '==', '!=']);

/** Whether a binary operator yields a truth value (C's 0 or 1): a comparison, `&&` or `||`. */
function isTruthOp(op: string): boolean {
  return op === '&&' || op === '||' || COMPARISON_OPS.has(op);
}

/** How a back end writes each construct of a kernel expression (see the file comment). */
export interface ExprWriter {
  /** `e` as a value: the back end's entry point, through which the core writes every operand. */
  value(e: Expr): string;
  /** `e`'s truth test as a Boolean: the entry point for tests. */
  cond(e: Expr): string;
  /** A read of the scalar variable `e.name`. */
  variable(e: Var): string;
  /** A literal. */
  literal(e: IntLit | FloatLit | BoolLit): string;
  /** C's 0 or 1 (of type int) for the Boolean `test`. */
  fromBool(test: string): string;
  /** An arithmetic or bitwise `e` (`+ - * / % & | ^ << >>`) of the operands `left` and `right`. */
  arith(e: Binary, left: string, right: string): string;
  /** The negation `-arg` of type `e.ty`. */
  negate(e: Unary, arg: string): string;
  /** The load `e.array[index]`. */
  load(e: Load, index: string): string;
  /** A call used as a value (its arguments written by the hook, in order). */
  call(e: Call): string;
  /** The conversion of int or bool `arg` (`e.arg`) to float. */
  toFloat(e: Cast, arg: string): string;
  /** The conversion of float `arg` (`e.arg`) to int. */
  floatToInt(e: Cast, arg: string): string;
  /** `e.cond ? e.thenExpr : e.elseExpr`, only the branch C takes evaluated when that matters. */
  ternary(e: Ternary): string;
  /** The spelling of comparison operator `op` (`<`, `==`, …). */
  comparison(op: string): string;
  /** `left && right` or `left || right` as a Boolean, `right` evaluated only when C evaluates it. */
  logical(e: Binary): string;
  /** Zero of kernel type `ty` (what a value's truth test compares against). */
  zero(ty: string): string;
}

function internal(message: string): never {
  throw new Error(`internal error: ${message}`);
}

/** `e` as a value of the back end `w` writes for (C's value: a bool is 0 or 1). */
export function exprValue(e: Expr, w: ExprWriter): string {
  switch (e.kind) {
    case 'var':
      return w.variable(e);
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      return w.literal(e);
    case 'binary':
      if (isTruthOp(e.op)) return w.fromBool(w.cond(e));
      return w.arith(e, w.value(e.left), w.value(e.right));
    case 'unary':
      switch (e.op) {
        case '-':
          return w.negate(e, w.value(e.arg));
        case '~':
          return `(~${w.value(e.arg)})`;
        case '!':
          return w.fromBool(w.cond(e));
        default:
          return internal(`unknown unary operator '${e.op}'`);
      }
    case 'load':
      return w.load(e, w.value(e.index));
    case 'call':
      return w.call(e);
    case 'cast':
      return conversion(e, w);
    case 'ternary':
      return w.ternary(e);
    case 'arrayRef':
      return internal(`array '${e.name}' used as a value`);
    default:
      return assertNever(e);
  }
}

/** The conversion `e` (`(ty)arg`), as the evaluator's `convert`. */
function conversion(e: Cast, w: ExprWriter): string {
  const from = exprType(e.arg);
  if (from === e.ty) return w.value(e.arg);
  switch (e.ty) {
    case 'bool':
      return w.fromBool(w.cond(e.arg));
    case 'float':
      return w.toFloat(e, w.value(e.arg));
    case 'int':
      // bool→int: 0 and 1 are ints already.
      return from === 'float' ? w.floatToInt(e, w.value(e.arg)) : w.value(e.arg);
    default:
      return internal(`conversion to '${e.ty}'`);
  }
}

/** `e`'s truth test, as a Boolean of the back end `w` writes for. */
export function truthTest(e: Expr, w: ExprWriter): string {
  switch (e.kind) {
    case 'boolLit':
      return e.value ? 'true' : 'false';
    case 'binary':
      if (COMPARISON_OPS.has(e.op)) return `(${w.value(e.left)} ${w.comparison(e.op)} ${w.value(e.right)})`;
      if (e.op === '&&' || e.op === '||') return w.logical(e);
      return nonZero(e, w);
    case 'unary':
      return e.op === '!' ? `!${w.cond(e.arg)}` : nonZero(e, w);
    case 'cast':
      return e.ty === 'bool' ? w.cond(e.arg) : nonZero(e, w);
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'load':
    case 'call':
    case 'ternary':
    case 'arrayRef':
      return nonZero(e, w);
    default:
      return assertNever(e);
  }
}

/** `(e != 0)`: C's truth test of any other scalar. */
function nonZero(e: Expr, w: ExprWriter): string {
  return `(${w.value(e)} ${w.comparison('!=')} ${w.zero(exprType(e))})`;
}
