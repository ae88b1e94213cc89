/**
 * The kernel language (a C subset for kernel functions): AST types and their field table, parser,
 * printer, reference evaluator, validator. This is the folder's only public entry point; other stages import from here.
 */
export type * from './ast.js';
export { applyBinary, applyUnary, convertScalar, type Fault, literalValue } from './arith.js';
export {
  codes,
  type Diagnostic as KernelDiagnostic,
  type KernelCode,
  KernelArgumentError,
  KernelRuntimeError,
  kernelPlace,
  MESSAGES as KERNEL_MESSAGES,
} from './diagnostics.js';
export {
  type ArgValue,
  coerceArg,
  type ScalarMismatch,
  scalarArg,
  DEFAULT_FUEL,
  type EvalOptions,
  type EvalResult,
  evaluate,
  orderArgs,
} from './eval.js';
export {
  ARG,
  type CPrinterOptions,
  CPrinter,
  type Ctor,
  type NodeView,
  pad,
  type Place,
  PRIMARY,
  type PrintHooks,
  type Render,
  type Scalar,
  UNARY,
  wrap,
} from './c-printer.js';
export { firstTooDeep, MAX_TREE_DEPTH, maxTreeDepth, treeDepthDiagnostic, useStackOf } from './depth.js';
export {
  children,
  type FieldInfo,
  type FieldType,
  isKernelNode,
  KERNEL_NODES,
  KERNEL_UNIONS,
  type KernelNode,
  mapChildren,
  type NodeInfo,
  nodeInfo,
  nodesOfType,
  type Slot,
  slotsOf,
} from './fields.js';
export { decimalToFloat32, float32Bits, float32FromBits, formatFloat32Magnitude } from './float.js';
export { loadKernelParser, MAX_NESTING, type ParseResult, parseKernel, parseKernelSync } from './parse.js';
export { printCmd, printExpr, printFun, printOptimized, printProgram } from './print.js';
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
  BUILTINS,
  type Builtin,
  builtin,
  builtinForDouble,
  JS_HELPERS,
  type JsHelper,
  type SimdBuiltin,
  WGSL_HELPERS,
  type WgslHelper,
} from './builtins.js';
export {
  article,
  astNodes,
  emptyRecord,
  exprType,
  findFun,
  programWith,
  withFns,
  listFromArray,
  listToArray,
} from './util.js';
export {
  formatProblems,
  repeatedLabels,
  type ValidateOptions,
  type ValidationProblem,
  isBoundedTree,
  validateBoundedTree,
  validateFun,
  validateProgram,
} from './validate.js';
export { equalModuloLabels, maxLabel, relabel, stripLabels } from './walk.js';
