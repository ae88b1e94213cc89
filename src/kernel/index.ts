/**
 * The kernel language (a C subset for kernel functions): AST types, parser, printer, reference
 * evaluator. This is the folder's only public entry point; other stages import from here.
 */
export type * from './ast.js';
export { applyBinary, applyUnary, convertScalar, type Fault, literalValue } from './arith.js';
export {
  codes,
  type Diagnostic,
  formatDiagnostic,
  KernelArgumentError,
  KernelRuntimeError,
  type Span,
} from './diagnostics.js';
export {
  type ArgValue,
  coerceArg,
  DEFAULT_FUEL,
  type EvalOptions,
  type EvalResult,
  evaluate,
  orderArgs,
} from './eval.js';
export { firstTooDeep, MAX_TREE_DEPTH, treeDepthDiagnostic } from './depth.js';
export { decimalToFloat32, float32Bits, float32FromBits, formatFloat32Magnitude } from './float.js';
export { loadKernelParser, MAX_NESTING, type ParseResult, parseKernel, parseKernelSync } from './parse.js';
export { printCmd, printExpr, printFun, printProgram } from './print.js';
export {
  ARRAY_OPS,
  FOLD_OPS,
  isIota,
  type Structure,
  soacCommands,
  soacKind,
  soacStructure,
} from './structure.js';
export { hasCall } from './expr-info.js';
export {
  article,
  assertNever,
  astNodes,
  emptyRecord,
  exprType,
  findFun,
  listFromArray,
  listToArray,
} from './util.js';
export { equalModuloLabels, maxLabel, relabel, stripLabels } from './walk.js';
