/**
 * SCF-lang: the language optimizers are written in — a pure, first-order subset of TypeScript —
 * its front end (parse with oxc-parser, check, desugar), Core SCF (SCF Fig. 9) with its
 * validator and printer, and the instruction-counting Core interpreter.
 *
 * Core's names carry the language's (`CoreProgram`, `CoreExpr`, `printCoreFun`, …) where the
 * kernel language has a type or function of the same role (`Program`, `Expr`, `printFun`): a
 * module that uses both reads which one it means. Inside this folder they keep their short names.
 */
export type {
  Call as CoreCall,
  CtorDecl,
  Expr as CoreExpr,
  ExprKind,
  FunDef,
  Label,
  Let,
  Prim as CorePrim,
  Program as CoreProgram,
} from './core.js';
export {
  children as coreChildren,
  forEachExpr,
  mapChildren as mapCoreChildren,
  programSize,
  tupleCtor,
  tupleCtorName,
} from './core.js';
export { type CompileOptions, type CompileResult, compileFile, type EntrySignature } from './frontend.js';
export type { ContractType, CtorInfo, FieldInfo, PassCheck, PassContract } from './compile-types.js';
export { type DataType, showType, substitute, type Type } from './types.js';
export { type CoreData, decodeProgram, type Encoded as EncodedCore, encodePrograms } from './core-data.js';
export {
  codeFrame,
  type Diagnostic as ScfDiagnostic,
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
  tupleWith,
} from './prims.js';
export {
  type PrintOptions as CorePrintOptions,
  printExpr as printCoreExpr,
  printFun as printCoreFun,
  printProgram as printCoreProgram,
} from './print.js';
export { PRELUDE_FUNS } from './prelude-sigs.js';
export { type CtorValue, isPrim, showValue, type TupleValue, type Value } from './values.js';
export { validateProgram as validateCoreProgram } from './validate.js';
export * as stagedRuntime from './staged-helpers.js';
export {
  ACTUAL_MAX,
  badProjection,
  ctorFields,
  InputNotAdmitted,
  IS_MAP,
  IS_SET,
  isCtor,
  isMap,
  isPrimValue,
  isSet,
  isTuple,
  mapOf,
  notAdmitted,
  projField,
  projIndex,
  setOf,
  shortValue,
  StagedRuntimeError,
} from './staged-helpers.js';
