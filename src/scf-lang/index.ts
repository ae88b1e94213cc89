/**
 * SCF-lang: the language optimizers are written in — a pure, first-order subset of TypeScript —
 * its front end (parse with oxc-parser, check, desugar), Core SCF (SCF Fig. 9) with its
 * validator and printer, and the instruction-counting Core interpreter.
 */
export type { Call, CtorDecl, Expr, ExprKind, FunDef, Label, Let, Prim, Program, Span } from './core.js';
export {
  assertNever,
  children,
  forEachExpr,
  mapChildren,
  programSize,
  tupleCtor,
  tupleCtorName,
} from './core.js';
export { type CompileOptions, type CompileResult, compileFile } from './frontend.js';
export {
  codeFrame,
  type Diagnostic,
  type DiagCode,
  formatDiagnostic,
  formatLocation,
  MESSAGES,
} from './diagnostics.js';
export {
  type Counts,
  Interpreter,
  interpret,
  type RunOptions,
  type RunResult,
  ScfRuntimeError,
} from './interp.js';
export {
  BOOL_PRIMS,
  type PrimCategory,
  type PrimInfo,
  type PrimOp,
  PRIMS,
  isCollectionOp,
  isPrimOp,
  primInfo,
} from './prims.js';
export { type PrintOptions, printExpr, printFun, printProgram } from './print.js';
export { PRELUDE_FUNS } from './prelude-sigs.js';
export { type CtorValue, isPrim, showValue, type TupleValue, type Value } from './values.js';
export { validateProgram } from './validate.js';
