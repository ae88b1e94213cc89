/**
 * Facts about kernel expressions needed both by the kernel's own tools (parser, evaluator,
 * printer) and by the optimizers. Written in SCF-lang, so the optimizers — which may import
 * only SCF-lang modules — can share it instead of keeping copies.
 */
import type { List } from '../scf-lang/prelude.js';
import type { Expr } from './ast.js';
import { isBuiltin } from './builtins.generated.js';

/** The C type of an expression's value: 'int' | 'float' | 'bool'. */
export function exprType(e: Expr): string {
  switch (e.kind) {
    case 'intLit':
      return 'int';
    case 'floatLit':
      return 'float';
    case 'boolLit':
      return 'bool';
    case 'var':
    case 'binary':
    case 'unary':
    case 'load':
    case 'call':
    case 'cast':
    case 'ternary':
    case 'arrayRef':
      return e.ty;
  }
}

/**
 * Whether `e` contains a call of a function of the program (which may have effects through array
 * arguments). A builtin's call (`sqrtf(x)`) is pure, like an operator: only its arguments count.
 */
export function hasCall(e: Expr): boolean {
  switch (e.kind) {
    case 'call':
      return !isBuiltin(e.name) || anyCall(e.args);
    case 'binary':
      return hasCall(e.left) || hasCall(e.right);
    case 'unary':
    case 'cast':
      return hasCall(e.arg);
    case 'load':
      return hasCall(e.index);
    case 'ternary':
      return hasCall(e.cond) || hasCall(e.thenExpr) || hasCall(e.elseExpr);
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
    case 'arrayRef':
      return false;
  }
}

/** Whether any of `es` contains a call of a function of the program. */
export function anyCall(es: List<Expr>): boolean {
  if (es.kind === 'nil') return false;
  return hasCall(es.head) || anyCall(es.tail);
}
